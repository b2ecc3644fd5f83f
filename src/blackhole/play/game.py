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
    step,
    top_card,
)

# The kinds of move that put a card onto the hole: what a score counts.
HOLED = (Kind.PLAY, Kind.UNPARK)


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
        """The cards moved onto the hole since the start position, in order (talon
        cards turned too; a card parked in the cell is not, until it goes on)."""
        return tuple(move.card for move in self.moves if move.kind is not Kind.PARK)

    @property
    def history(self) -> tuple[Card | Move, ...]:
        """The moves since the start position as a position's history holds them: each
        card moved onto the hole, and each park as its Move (`Move.park(card)`)."""
        return tuple(Move.park(move.card) if move.kind is Kind.PARK else move.card
                     for move in self.moves)

    @property
    def score(self) -> int:
        """Cards moved onto the hole since the start of the deal (out of `start.of`), off
        the fans and out of the cell; talon cards turned and cards parked do not count."""
        return self.start.moved + sum(1 for move in self.moves if move.kind in HOLED)

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
        stepped = step(self.deal, self.state, move)
        if isinstance(stepped, str):
            raise IllegalMove(stepped)
        return Game(self.start, (*self.moves, stepped[1]), ())

    def play_fan(self, fan: int) -> Game:
        """Play the top card of `fan` (0-based); IllegalMove when it is illegal."""
        if not 0 <= fan < self.deal.tableau.columns:
            raise IllegalMove(f"no such fan ({fan_name(fan, self.deal.tableau.columns)})")
        return self.play(Move(fan=fan, kind=Kind.PLAY))

    def park_fan(self, fan: int) -> Game:
        """Park the top card of `fan` (0-based) in the free cell; IllegalMove when the
        game has no cell, the cell is taken, or the fan is empty."""
        if not 0 <= fan < self.deal.tableau.columns:
            raise IllegalMove(f"no such fan ({fan_name(fan, self.deal.tableau.columns)})")
        return self.play(Move.park(fan=fan))

    def unpark(self) -> Game:
        """Play the cell's card onto the hole; IllegalMove when it is empty or the card
        does not fit."""
        return self.play(Move.unpark())

    def turn(self) -> Game:
        """Turn the talon's next card; IllegalMove when the talon is spent."""
        return self.play(Move.turn())

    def play_card(self, card: Card | Move) -> Game:
        """Play `card` if it is a free card that fits, the cell's card, or the talon's
        next card (a Move, such as a park, is made as it says); IllegalMove otherwise."""
        return self.play(card if isinstance(card, Move) else Move(card))

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
                        start.history + self.history if known else ())
