"""The games the tool plays, each a description that every layer reads.

A `Variant` says how a game is laid out and what its rules are: the fans and their size,
the talon, what starts the foundation, whether ranks wrap from the top rank to the ace,
what may go on a King, and when the game is won. No module tests a game's name: the deal
model holds a Variant (`blackhole.deal.Deal.game`), the rules engine reads its fields,
and a layer that cannot take a game's rules yet asks `Variant.plain` and refuses.

The deck (its ranks per suit) and the card on the hole belong to a deal, not to its game:
Black Hole on a deck of R ranks, and "any card as the black hole" (`random:SEED:any`,
where the last card dealt lies on the hole rather than the A♠), are Black Hole deals.

`VARIANTS` is the one table of games; `GAME_NAMES` and every list of names derive from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from blackhole.errors import InputError


class Start(StrEnum):
    """What lies on the foundation when a deal starts."""

    CARD = "card"  # a card of the deck (the A♠ as PySolFC deals Black Hole)
    EMPTY = "empty"  # nothing: the first card played is free
    TALON = "talon"  # the first card dealt off the talon


class OnKing(StrEnum):
    """What may go on a King (the top rank) besides a talon card."""

    ADJACENT = "adjacent"  # any rank next to it (a Queen; an Ace too when ranks wrap)
    QUEEN = "queen"  # a Queen only
    NOTHING = "nothing"  # nothing: a King on the foundation waits for the talon
    QUEEN_OR_ACE = "queen-or-ace"  # a Queen or an Ace


class Won(StrEnum):
    """When a game is won."""

    ALL = "all"  # every card is on the foundation
    TABLEAU = "tableau"  # every tableau card is on the foundation (talon cards may remain)


@dataclass(frozen=True)
class Variant:
    """One game, as data. `fans` None means as many fans of `fan_size` as the deck fills
    (the last holding what is left), so one description serves every deck size; `talon`
    counts the talon's cards once the foundation has its card. `pysol` names the game
    for pysol_cards ("" when PySolFC does not deal it) and `any_ranks` says whether the
    game is dealt from decks of other than 13 ranks."""

    name: str
    title: str
    fans: int | None
    fan_size: int
    talon: int
    start: Start
    wrap: bool
    on_king: OnKing
    won: Won
    pysol: str
    any_ranks: bool = False

    @property
    def plain(self) -> bool:
        """True when the game is Black Hole's path: no talon, ranks that wrap, anything
        rank-adjacent on a King, won with every card moved. Every engine plays such a
        game; one with other rules is played by those that read these fields."""
        return (self.talon == 0 and self.wrap and self.on_king is OnKing.ADJACENT
                and self.won is Won.ALL)


BLACK_HOLE = Variant("black-hole", "Black Hole", None, 3, 0, Start.CARD, True,
                     OnKing.ADJACENT, Won.ALL, "black_hole", any_ranks=True)
ALL_IN_A_ROW = Variant("all-in-a-row", "All in a Row", 13, 4, 0, Start.EMPTY, True,
                       OnKing.ADJACENT, Won.ALL, "all_in_a_row")
GOLF = Variant("golf", "Golf", 7, 5, 16, Start.TALON, False, OnKing.QUEEN, Won.TABLEAU,
               "golf")
DEAD_KING_GOLF = Variant("dead-king-golf", "Dead King Golf", 7, 5, 16, Start.TALON, False,
                         OnKing.NOTHING, Won.TABLEAU, "golf")
RELAXED_GOLF = Variant("relaxed-golf", "Relaxed Golf", 7, 5, 16, Start.TALON, True,
                       OnKing.QUEEN_OR_ACE, Won.TABLEAU, "golf")

VARIANTS: dict[str, Variant] = {game.name: game for game in (
    BLACK_HOLE, ALL_IN_A_ROW, GOLF, DEAD_KING_GOLF, RELAXED_GOLF)}
GAME_NAMES: tuple[str, ...] = tuple(VARIANTS)
# The game a spec deals when it names none after its number (`pysol:N`, `random:SEED`);
# any other is named so (`pysol:N:GAME`, `random:SEED:GAME`).
DEFAULT_GAME = BLACK_HOLE


def game_named(name: str, source: str = "game", line: int | None = None) -> Variant:
    """The game `name` names (case and surrounding space ignored); anything else is an
    InputError listing the names."""
    game = VARIANTS.get(name.strip().lower())
    if game is None:
        raise InputError(f"unknown game (one of {', '.join(GAME_NAMES)})", source, line,
                         name.strip() or "(empty)")
    return game


def rank_fits(game: Variant, rank: int, hole: int | None, ranks: int) -> bool:
    """May a tableau card of `rank` go on the foundation's top rank `hole` (None: an
    empty foundation) in `game`, with `ranks` ranks per suit? One rank away, the top
    rank and the ace counting as neighbours only when the game wraps; on the top rank
    (the King) only what `game.on_king` allows. Talon cards go on anything, so they are
    not asked. The rules engine (`blackhole.rules`) reads this, and so does every layer
    that builds arcs from a game."""
    if hole is None:
        return True
    if hole == ranks and game.on_king is not OnKing.ADJACENT:
        allowed = {OnKing.QUEEN: (ranks - 1,), OnKing.NOTHING: (),
                   OnKing.QUEEN_OR_ACE: (ranks - 1, 1)}[game.on_king]
        return rank in allowed and rank != hole
    if rank == hole:
        return False
    step = (rank - hole) % ranks
    if game.wrap:
        return step in (1, ranks - 1)
    return abs(rank - hole) == 1



@cache
def fitting(game: Variant, ranks: int) -> tuple[tuple[int, ...], ...]:
    """fitting(game, ranks)[h]: the ranks that may go on the foundation's top rank h as
    `rank_fits` says, ascending; [0], the empty foundation: every rank. Worked out once
    a game and deck, for the layers that ask it of every rank (the look, the Problem)."""
    return (tuple(range(1, ranks + 1)),) + tuple(
        tuple(r for r in range(1, ranks + 1) if rank_fits(game, r, h, ranks))
        for h in range(1, ranks + 1))
