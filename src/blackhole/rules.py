"""The reference rules engine: the only place the rules of Black Hole are written.

A state is the height of each fan plus the card on top of the hole. Only the top card of
a fan plays, and it goes onto the hole when its rank is one above or below the rank of
the hole's top card (wrapping K–A). With an empty foundation (All in a Row) the first
card is free. Every answer from every backend is replayed here before anyone sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from blackhole.cards import Card, rank_adjacent
from blackhole.deal import Deal


@dataclass(frozen=True)
class State:
    heights: tuple[int, ...]
    hole: Card | None

    @property
    def cards_left(self) -> int:
        return sum(self.heights)


def initial_state(deal: Deal) -> State:
    return State(tuple(len(fan) for fan in deal.fans), deal.foundation)


def top_card(deal: Deal, state: State, fan: int) -> Card | None:
    height = state.heights[fan]
    return deal.fans[fan][height - 1] if height else None


def fits(deal: Deal, card: Card, hole: Card | None) -> bool:
    return hole is None or rank_adjacent(card.rank, hole.rank, deal.ranks)


def legal_moves(deal: Deal, state: State) -> list[int]:
    """The fans whose top card may go onto the hole now."""
    return [fan for fan in range(len(deal.fans))
            if (card := top_card(deal, state, fan)) is not None and fits(deal, card, state.hole)]


def play(deal: Deal, state: State, fan: int) -> State:
    """Move the top card of `fan` to the hole. Raises ValueError when that is illegal."""
    card = top_card(deal, state, fan)
    if card is None:
        raise ValueError(f"fan {fan + 1} is empty")
    if not fits(deal, card, state.hole):
        raise ValueError(f"{card} is not rank-adjacent to {state.hole}")
    heights = list(state.heights)
    heights[fan] -= 1
    return State(tuple(heights), card)


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
class Move:
    """A move as a solution file may give it: the card, the fan (0-based), or both."""

    card: Card | None = None
    fan: int | None = None


@dataclass(frozen=True)
class Replay:
    outcome: Outcome
    played: int  # legal moves made
    total: int  # cards in the fans at the start
    index: int | None = None  # 0-based index of the illegal move
    reason: str = ""
    order: tuple[Card, ...] = ()  # the cards played, in order

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    def describe(self) -> str:
        if self.outcome is Outcome.WON:
            return f"won: all {self.total} cards moved"
        if self.outcome is Outcome.ILLEGAL:
            return f"illegal at move {self.index + 1}: {self.reason}"
        if self.outcome is Outcome.BLOCKED:
            return f"blocked after {self.played} of {self.total} cards"
        return f"unfinished: {self.played} of {self.total} cards moved, a legal move remains"


def replay(deal: Deal, moves: Sequence[Card | Move]) -> Replay:
    """Play `moves` from the start of `deal` and judge the result."""
    where = deal.where()
    state = initial_state(deal)
    total = deal.cards_in_fans
    played: list[Card] = []

    def illegal(i: int, reason: str) -> Replay:
        return Replay(Outcome.ILLEGAL, len(played), total, i, reason, tuple(played))

    for i, move in enumerate(moves):
        card, fan = (move, None) if isinstance(move, Card) else (move.card, move.fan)
        if card is None:
            if fan is None or not 0 <= fan < len(deal.fans):
                return illegal(i, f"no such fan ({fan_name(fan, len(deal.fans))})")
            card = top_card(deal, state, fan)
            if card is None:
                return illegal(i, f"fan {fan + 1} is empty")
        if card == deal.foundation or card in played:
            return illegal(i, f"{card} already played")
        if card not in where:
            return illegal(i, f"unknown card {card}")
        home, height = where[card]
        if fan is not None and fan != home:
            return illegal(i, f"{card} is in fan {home + 1}, "
                              f"not fan {fan_name(fan, len(deal.fans))}")
        if state.heights[home] != height + 1:
            return illegal(i, f"{card} is not a top card")
        if not fits(deal, card, state.hole):
            return illegal(i, f"{card} is not rank-adjacent to {state.hole}")
        state = play(deal, state, home)
        played.append(card)
    if state.cards_left == 0:
        outcome = Outcome.WON
    elif legal_moves(deal, state):
        outcome = Outcome.UNFINISHED
    else:
        outcome = Outcome.BLOCKED
    return Replay(outcome, len(played), total, None, "", tuple(played))
