"""A game in play: a position, the moves made from it, and the moves taken back.

Every move is checked by the rules engine (`blackhole.model.rules`), the one place the rules
are written; a Game only keeps the history a player steps through.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from blackhole.base.errors import IllegalMove
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, Kind, Move, Position, position_of
from blackhole.model.rules import (
    Outcome,
    State,
    fan_name,
    initial_state,
    layout,
    legal_moves,
    next_talon,
    outcome,
    play,
    replay,
    top_card,
)


@dataclass(frozen=True)
class Game:
    """A game in play from a position, with unlimited undo and redo.

    `moves` are the moves made since `start`, as the rules engine gives them (each with
    its card, fan and kind); `undone` are moves taken back, the next one to redo last.
    A Game never changes: `play`, `undo` and `redo` return a
    new one, so keeping the old one is another way to undo. Playing a move clears the
    redo list, as in every card game.
    """

    start: Position
    moves: tuple[Move, ...] = ()
    undone: tuple[Move, ...] = ()

    @classmethod
    def of(cls, position_or_deal: Position | Deal) -> Game:
        if isinstance(position_or_deal, Deal):
            return cls(position_of(position_or_deal))
        return cls(position_or_deal)

    @cached_property
    def states(self) -> tuple[State, ...]:
        """The state before each move and after the last one (len(moves) + 1)."""
        deal = self.start.deal
        states = [initial_state(deal)]
        for move in self.moves:
            states.append(play(deal, states[-1], move))
        return tuple(states)

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def deal(self) -> Deal:
        return self.start.deal

    @property
    def played(self) -> tuple[Card, ...]:
        """The cards moved since the start position, in order."""
        return tuple(state.foundation for state in self.states[1:])

    @property
    def score(self) -> int:
        """Cards moved off the fans since the start of the deal (out of `start.of`);
        talon cards turned do not count."""
        return self.start.moved + sum(1 for move in self.moves if move.kind is not Kind.TURN)

    @property
    def outcome(self) -> Outcome:
        return outcome(self.deal, self.state)

    def legal(self) -> list[Move]:
        return legal_moves(self.deal, self.state)

    def top(self, fan: int) -> Card | None:
        """The card a player takes from `fan`, or None."""
        return top_card(self.deal, self.state, fan)

    def next_talon(self) -> Card | None:
        """The card turning the talon plays, or None when it is spent."""
        return next_talon(self.deal, self.state)

    def play(self, move: Move) -> Game:
        """Make `move`; IllegalMove (a ValueError, with the reason) when it is illegal.
        The move kept is the one the rules engine names (card, fan and kind)."""
        played = play(self.deal, self.state, move).foundation  # raises with the reason
        made = next(legal for legal in self.legal() if legal.card == played)
        return Game(self.start, (*self.moves, made), ())

    def play_fan(self, fan: int) -> Game:
        """Play the top card of `fan` (0-based); IllegalMove when it is illegal."""
        if not 0 <= fan < self.deal.tableau.columns:
            raise IllegalMove(f"no such fan ({fan_name(fan, self.deal.tableau.columns)})")
        return self.play(Move(fan=fan, kind=Kind.PLAY))

    def turn(self) -> Game:
        """Turn the talon's next card; IllegalMove when the talon is spent."""
        return self.play(Move.turn())

    def play_card(self, card: Card) -> Game:
        """Play `card` if it is a free card that fits, or the talon's next card;
        IllegalMove otherwise."""
        for legal in self.legal():
            if legal.card == card:
                return Game(self.start, (*self.moves, legal), ())
        judged = replay(self.position.deal, [card])
        raise IllegalMove(judged.reason or f"{card} cannot be played")

    @property
    def can_undo(self) -> bool:
        return bool(self.moves)

    @property
    def can_redo(self) -> bool:
        return bool(self.undone)

    def undo(self) -> Game:
        if not self.moves:
            raise IllegalMove("nothing to undo")
        return Game(self.start, self.moves[:-1], (*self.undone, self.moves[-1]))

    def redo(self) -> Game:
        if not self.undone:
            raise IllegalMove("nothing to redo")
        return Game(self.start, (*self.moves, self.undone[-1]), self.undone[:-1])

    def restart(self) -> Game:
        """Back to the start, every move kept for redo."""
        return Game(self.start, (), (*self.undone, *reversed(self.moves)))

    @property
    def position(self) -> Position:
        """Where the game stands, as a Position (history grows when it was known)."""
        start = self.start
        known = start.history_known
        return Position(layout(self.deal, self.state), self.score, start.of,
                        start.history + self.played if known else ())
