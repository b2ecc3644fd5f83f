"""The reference rules engine: the only place the rules of the games are written.

A state is the height of each fan, the card on top of the hole (the foundation) and the
talon cards turned. Only the top card of a fan plays, and it goes onto the hole when its
rank fits the hole's top card as the deal's game says (`blackhole.games.rank_fits`: one
rank above or below, wrapping K–A in Black Hole, not in Golf; on a King only what the
game allows). With an empty foundation (All in a Row) the first card is free. A game with
a talon (Golf) may also turn the next talon card onto the hole at any time, whatever lies
there; that move is named by its card. The game is won when its fans are empty (in Golf
talon cards may remain). Every answer from every backend is replayed here before anyone
sees it.

It also holds what a player needs: the legal moves from a state, playing one, the
outcome, and the position a state stands for (`layout`, `advance`); a game in play, with
undo and redo, is `blackhole.game.Game`, built on these. Messages number fans from 1, as
`show` draws them; moves and JSON keep 0-based fan indexes, as black-hole-solve numbers
its stacks.

The engine stands on the deal model (`blackhole.deal`) alone. Reading a position with
moves played on it (`--after`) uses the engine, so it sits above, in `blackhole.positions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from blackhole.cards import SUITS, Card, parse_card
from blackhole.deal import Deal, Move, Position
from blackhole.errors import IllegalMove, InputError
from blackhole.games import rank_fits, refusal

# The rule features (`blackhole.games.Rules.features`) this engine plays: a deal of a
# game with any other is refused by `replay`, `initial_state` and `legal_moves`, never
# judged by Black Hole's rules.
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won"})

# The "fan" a move turns the talon from, in `legal_moves`, `play` and `Game.play`; an
# answer's Move names a talon card with no fan (None), as its JSON writes `"fan": null`.
TALON = -1


@dataclass(frozen=True)
class State:
    heights: tuple[int, ...]
    hole: Card | None
    turned: int = 0  # talon cards turned onto the hole (of the deal's talon)

    @property
    def cards_left(self) -> int:
        return sum(self.heights)


def check_game(deal: Deal) -> None:
    """An InputError when the deal's game holds a rule feature this engine does not play
    (PLAYS)."""
    refused = refusal(deal.game, PLAYS, "the rules engine", deal.name or "deal")
    if refused is not None:
        raise refused


def initial_state(deal: Deal) -> State:
    check_game(deal)
    return State(tuple(len(fan) for fan in deal.fans), deal.foundation)


def top_card(deal: Deal, state: State, fan: int) -> Card | None:
    """The top card of `fan`, or the next talon card for TALON; None when there is none."""
    if fan == TALON:
        return deal.talon[state.turned] if state.turned < len(deal.talon) else None
    height = state.heights[fan]
    return deal.fans[fan][height - 1] if height else None


def fits(deal: Deal, card: Card, hole: Card | None) -> bool:
    """May `card`, a top card of a fan, go onto the hole's top card `hole`?"""
    return rank_fits(deal.game, card.rank, None if hole is None else hole.rank, deal.ranks)


def legal_moves(deal: Deal, state: State) -> list[int]:
    """The fans whose top card may go onto the hole now, then TALON while the talon
    has a card."""
    check_game(deal)
    fans = [fan for fan in range(len(deal.fans))
            if (card := top_card(deal, state, fan)) is not None and fits(deal, card, state.hole)]
    return fans + [TALON] if state.turned < len(deal.talon) else fans


def play(deal: Deal, state: State, fan: int) -> State:
    """Move the top card of `fan` to the hole, or turn the next talon card onto it for
    TALON. Raises IllegalMove (a ValueError) when that is illegal."""
    card = top_card(deal, state, fan)
    if card is None:
        raise IllegalMove("the talon is spent" if fan == TALON else f"fan {fan + 1} is empty")
    if fan == TALON:
        return State(state.heights, card, state.turned + 1)
    if not fits(deal, card, state.hole):
        raise IllegalMove(f"{card} is not rank-adjacent to {state.hole}")
    heights = list(state.heights)
    heights[fan] -= 1
    return State(tuple(heights), card, state.turned)


def fan_name(fan: int | None, fans: int) -> str:
    """A 0-based fan index as messages number fans: from 1, as `show` draws them."""
    if fan is None:
        return "none given"
    return str(fan + 1) if 0 <= fan < fans else f"index {fan}, outside 0..{fans - 1}"


class Outcome(StrEnum):
    WON = "won"
    BLOCKED = "blocked"  # cards remain and no top card fits
    UNFINISHED = "unfinished"  # the moves ran out while a legal move remained
    ILLEGAL = "illegal"


@dataclass(frozen=True)
class Replay:
    outcome: Outcome
    played: int  # legal moves made off the fans (talon turns are `turned`)
    total: int  # cards in the fans at the start
    index: int | None = None  # 0-based index of the illegal move
    reason: str = ""
    order: tuple[Card, ...] = ()  # the cards moved onto the hole, talon turns included
    state: State | None = None  # the state after the legal moves
    turned: int = 0  # talon cards turned

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    def describe(self, before: int = 0, of: int | None = None) -> str:
        """One line; `before` cards were moved before these moves, out of `of` in the
        whole deal (a replay from a position counts from the start of the deal)."""
        of = self.total + before if of is None else of
        moved = before + self.played
        if self.outcome is Outcome.WON:
            return f"won: all {of} cards moved"
        if self.outcome is Outcome.ILLEGAL:
            return f"illegal at move {self.index + 1}: {self.reason}"
        if self.outcome is Outcome.BLOCKED:
            return f"blocked after {moved} of {of} cards"
        return f"unfinished: {moved} of {of} cards moved, a legal move remains"


_SEPARATORS = re.compile(r"[\s,;]+")


def as_moves(given: object, source: str = "moves") -> list[Card | Move]:
    """Moves as a caller gives them: a str of card names separated by spaces or commas
    (as `--after` reads them), or a sequence of Cards, Moves and card names. Anything
    else is an InputError naming `source`."""
    if isinstance(given, str):
        given = [token for token in _SEPARATORS.split(given) if token]
    if not isinstance(given, Sequence):
        raise InputError("moves are a str of cards or a list of Cards, Moves or card names",
                         source, token=type(given).__name__)
    moves: list[Card | Move] = []
    for move in given:
        if isinstance(move, str):
            try:
                move = parse_card(move)
            except ValueError as error:
                raise InputError(str(error), source, token=move) from None
        elif not isinstance(move, Card | Move):
            raise InputError("a move is a Card, a Move or a card name such as \"2S\"", source,
                             token=repr(move)[:40])
        moves.append(move)
    return moves


def replay(deal: Deal | Position, moves: Sequence[Card | Move | str] | str) -> Replay:
    """Play `moves` (see `as_moves`) from the start of `deal` (or from a Position as it
    lies) and judge the result. A `deal` that is neither is an InputError: a spec is
    read by `blackhole.load_deal` first."""
    if isinstance(deal, Position):
        deal = deal.deal
    if not isinstance(deal, Deal):
        raise InputError("replay takes a Deal or a Position (load_deal reads a spec)", "deal",
                         token=type(deal).__name__)
    check_game(deal)
    if not (isinstance(moves, list | tuple)
            and all(isinstance(move, Card | Move) for move in moves)):
        moves = as_moves(moves)
    where = deal.where()
    talon = {card: index for index, card in enumerate(deal.talon)}
    heights = [len(fan) for fan in deal.fans]  # the state as it changes: fan heights
    hole = deal.foundation  # and the hole's top card
    turned = 0  # and the talon cards turned
    total = deal.cards_in_fans
    played: list[Card] = []

    def illegal(i: int, reason: str) -> Replay:
        return Replay(Outcome.ILLEGAL, len(played) - turned, total, i, reason,
                      tuple(played), State(tuple(heights), hole, turned), turned)

    for i, move in enumerate(moves):
        card, fan = (move, None) if isinstance(move, Card) else (move.card, move.fan)
        if fan == TALON and card is None and deal.game.talon:
            card = top_card(deal, State((), None, turned), TALON)
            if card is None:
                return illegal(i, "the talon is spent")
        if card in talon:  # a talon card: the next one turns, onto anything
            if fan is not None and fan != TALON:
                return illegal(i, f"{card} is in the talon, not fan "
                                  f"{fan_name(fan, len(deal.fans))}")
            if talon[card] < turned:
                return illegal(i, f"{card} already played")
            if talon[card] != turned:
                return illegal(i, f"{card} is not the next talon card "
                                  f"({deal.talon[turned]} is)")
            turned += 1
            hole = card
            played.append(card)
            continue
        if card is None:
            if fan is None or not 0 <= fan < len(deal.fans):
                return illegal(i, f"no such fan ({fan_name(fan, len(deal.fans))})")
            if not heights[fan]:
                return illegal(i, f"fan {fan + 1} is empty")
            card = deal.fans[fan][heights[fan] - 1]
        at = where.get(card)
        if at is None:
            if card == deal.foundation:
                return illegal(i, f"{card} is the hole's top card, not on a fan")
            in_deck = 1 <= card.rank <= deal.ranks and card.suit in SUITS
            return illegal(i, f"{card} is already in the hole" if in_deck
                           else f"unknown card {card}")
        home, height = at
        if heights[home] <= height:  # a fan's cards from its height up have been played
            return illegal(i, f"{card} already played")
        if fan is not None and fan != home:
            return illegal(i, f"{card} is in fan {home + 1}, "
                              f"not fan {fan_name(fan, len(deal.fans))}")
        if heights[home] != height + 1:
            return illegal(i, f"{card} is not a top card")
        if not fits(deal, card, hole):
            return illegal(i, f"{card} is not rank-adjacent to {hole}")
        heights[home] -= 1  # the move, as `play` makes it
        hole = card
        played.append(card)
    state = State(tuple(heights), hole, turned)
    return Replay(outcome(deal, state), len(played) - turned, total, None, "", tuple(played),
                  state, turned)


def outcome(deal: Deal, state: State) -> Outcome:
    """WON, BLOCKED, or UNFINISHED while a legal move remains."""
    if state.cards_left == 0:
        return Outcome.WON
    return Outcome.UNFINISHED if legal_moves(deal, state) else Outcome.BLOCKED


def layout(deal: Deal, state: State) -> Deal:
    """The deal as it lies in `state`: each fan cut to its height, the hole's card as
    the foundation; a position, as `blackhole.deal.Deal` holds one."""
    fans = tuple(fan[:height] for fan, height in zip(deal.fans, state.heights, strict=True))
    return Deal(fans, state.hole, deal.ranks, name=deal.name, talon=deal.talon[state.turned:],
                game=deal.game)


def advance(position: Position, moves: Sequence[Card | Move],
            source: str = "after") -> Position:
    """The position after `moves`, replayed by the rules; an illegal move is an
    InputError naming it (1-based) and why. The history grows when it was known."""
    judged = replay(position.deal, moves)
    if judged.outcome is Outcome.ILLEGAL:
        raise InputError(f"move {judged.index + 1} is illegal: {judged.reason}", source,
                         None, move_text(moves[judged.index]))
    known = position.history_known
    return Position(layout(position.deal, judged.state), position.moved + judged.played,
                    position.of, position.history + judged.order if known else ())


def move_text(move: Card | Move) -> str:
    """A move as a user wrote it: its card, or the fan it names (numbered from 1)."""
    if isinstance(move, Card):
        return str(move)
    if move.card is not None:
        return str(move.card)
    return f"fan {fan_name(move.fan, 10**9)}"


def legal_cards(deal: Deal, state: State) -> list[Move]:
    """The legal moves now, with their 0-based fans, in fan order; turning the talon
    last, its card with no fan."""
    return [Move(top_card(deal, state, fan), None if fan == TALON else fan)
            for fan in legal_moves(deal, state)]
