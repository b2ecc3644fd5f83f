"""The games the tool plays, each a description that every layer reads.

A `Variant` says how a game is laid out (the fans and their size, what starts the
foundation) and holds its `Rules` (the talon, whether ranks wrap from the top rank to the
ace, what may go on a King, when the game is won). No module tests a game's name: the
deal model holds a Variant (`blackhole.model.deal.Deal.game`) and the rules engine reads it.

A game's rule features (`Rules.features`) are the names of the rule fields whose value is
not Black Hole's, so a rule field added later is a feature of every game that sets it.
Each engine, cut and encoding feature declares the rule features it plays (a frozenset of
names), and `refusal` words the InputError for a game holding one it has not declared;
the optimisations that hold for Black Hole's rules alone ask `Variant.plain`, true when a
game has no rule feature.

The deck (its ranks per suit) and the card on the hole belong to a deal, not to its game:
Black Hole on a deck of R ranks, and "any card as the black hole" (`random:SEED:any`,
where the last card dealt lies on the hole rather than the A♠), are Black Hole deals.

`VARIANTS` is the one table of games; `GAME_NAMES` and every list of names derive from it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from functools import cache, cached_property

from blackhole.base.errors import InputError
from blackhole.model.cards import rank_text

# The feature of a game whose layout is not made of chains (`blackhole.model.tableau`): a card
# may wait for two cards, so a layer that reads fans (the look's memo, the search's
# heights, same-rank symmetry) does not play it. It is declared as the rule features
# are: an engine that reads only the cover relation (the Problem's precedence) says so.
COVERS = "covers"


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


class Shape(StrEnum):
    """How a game lays its tableau out (`blackhole.model.tableau.Tableau`)."""

    FANS = "fans"  # chains: fans (columns) of `fan_size`, each card covered by the one on it
    PEAKS = "peaks"  # TriPeaks' three peaks of 28 cards (`Tableau.peaks`)
    PYRAMID = "pyramid"  # a pyramid of rows of 1, 2, 3, ... cards (`Tableau.pyramid`)


class Won(StrEnum):
    """When a game is won."""

    ALL = "all"  # every card is on the foundation
    TABLEAU = "tableau"  # every tableau card is on the foundation (talon cards may remain)


@dataclass(frozen=True)
class Rules:
    """What a move may do and when a game is won; every default is Black Hole's, so
    `Rules()` are Black Hole's rules. `talon` counts the cards a move may turn onto the
    foundation, one at a time and one pass, once the foundation has its card: it is a
    rule because it adds a move. What lies where at the deal is the Variant's layout (the
    fans, their size, what starts the foundation), so All in a Row's empty foundation is
    a layout every engine takes, and no rule feature.

    A field added here (or in a subclass) must have Black Hole's value as its default: a
    game setting it to anything else then holds a feature no engine has declared, and
    every engine refuses it until it declares it."""

    talon: int = 0
    wrap: bool = True  # the top rank and the ace are neighbours
    on_king: OnKing = OnKing.ADJACENT
    won: Won = Won.ALL
    # A free cell (Worm Hole): a free card may wait in it, leaving its fan, and goes from
    # it only onto the foundation; `cell_uses` counts the cards it may take in a deal
    # (0: any number). A game is won with the cell empty.
    cells: int = 0
    cell_uses: int = 0

    def __post_init__(self) -> None:
        if self.cells not in (0, 1):
            raise InputError("a game has at most one free cell", "rules",
                             token=f"cells={self.cells}")
        if self.cell_uses < 0 or (self.cell_uses and not self.cells):
            raise InputError("cell_uses counts the uses of a cell the game has", "rules",
                             token=f"cell_uses={self.cell_uses}")

    @cached_property
    def features(self) -> frozenset[str]:
        """The names of the fields whose value is not Black Hole's (a field with no
        default counts as one, always)."""
        return frozenset(f.name for f in fields(self)
                         if f.default is MISSING or getattr(self, f.name) != f.default)


@dataclass(frozen=True)
class Variant:
    """One game, as data: its layout and its `rules`. `fans` None means as many fans of
    `fan_size` as the deck fills (the last holding what is left), so one description
    serves every deck size. `pysol` names the game for pysol_cards ("" when PySolFC does
    not deal it) and `any_ranks` says whether the game is dealt from decks of other than
    13 ranks. The rule fields are read from `rules` alone (`game.rules.talon`).
    `shape` says how the tableau is laid out: fans are chains, and any other shape (peaks,
    a pyramid) holds cards that wait for two cards, which is the feature COVERS. A
    shape other than fans takes every card of the deck that neither starts the
    foundation nor lies in the talon, so `fans` and `fan_size` are not read for it."""

    name: str
    title: str
    fans: int | None
    fan_size: int
    start: Start
    rules: Rules
    pysol: str
    any_ranks: bool = False
    shape: Shape = Shape.FANS

    @property
    def chains(self) -> bool:
        """True when the layout is made of chains (fans); False is the feature COVERS."""
        return self.shape is Shape.FANS

    @property
    def features(self) -> frozenset[str]:
        """The game's rule features (`Rules.features`: empty for Black Hole's rules),
        and COVERS when its layout is not made of chains."""
        return self.rules.features | (frozenset() if self.chains else frozenset({COVERS}))

    @property
    def plain(self) -> bool:
        """True when the game has no feature: Black Hole's rules on a layout of chains
        (fans of any size, All in a Row's too); the one question the optimisations that
        argue from those rules ask (the look's rank-count cut, the search's rank-reach
        cut, the budgets)."""
        return not self.features


def refusal(game: Variant, plays: Collection[str], who: str, source: str,
            played_by: str = "") -> InputError | None:
    """None when `who` plays every rule feature of `game` (`plays` names those it
    declared), else the InputError to raise: "TITLE is not played by WHO yet", with
    `played_by` in brackets when given (who does play it), else the features `who` did
    not declare ("undeclared rule: cell")."""
    missing = game.features - frozenset(plays)
    if not missing:
        return None
    why = played_by or (f"undeclared rule{'s' if len(missing) > 1 else ''}: "
                        f"{', '.join(sorted(missing))}")
    return InputError(f"{game.title} is not played by {who} yet ({why})", source,
                      token=game.name)


BLACK_HOLE = Variant("black-hole", "Black Hole", None, 3, Start.CARD, Rules(), "black_hole",
                     any_ranks=True)
ALL_IN_A_ROW = Variant("all-in-a-row", "All in a Row", 13, 4, Start.EMPTY, Rules(),
                       "all_in_a_row")
GOLF = Variant("golf", "Golf", 7, 5, Start.TALON,
               Rules(16, False, OnKing.QUEEN, Won.TABLEAU), "golf")
DEAD_KING_GOLF = Variant("dead-king-golf", "Dead King Golf", 7, 5, Start.TALON,
                         Rules(16, False, OnKing.NOTHING, Won.TABLEAU), "golf")
RELAXED_GOLF = Variant("relaxed-golf", "Relaxed Golf", 7, 5, Start.TALON,
                       Rules(16, True, OnKing.QUEEN_OR_ACE, Won.TABLEAU), "golf")
# PySolFC's Three Peaks (Open), id 22217, and Escalator, id 281: 28 cards face up, the
# waste's first card off the stock, 23 more to turn. PySolFC deals them with no pysol_cards
# dealer of their own (`blackhole.model.sources.pysol_deal` lays them out); the strict
# TriPeaks is the same deal without the wrap, as some sites play it.
TRI_PEAKS = Variant("tri-peaks", "TriPeaks", None, 28, Start.TALON,
                    Rules(23, True, OnKing.ADJACENT, Won.TABLEAU), "three_peaks",
                    shape=Shape.PEAKS)
TRI_PEAKS_STRICT = Variant("tri-peaks-strict", "TriPeaks (no wrap)", None, 28, Start.TALON,
                           Rules(23, False, OnKing.QUEEN, Won.TABLEAU), "three_peaks",
                           shape=Shape.PEAKS)
# Solvitaire's "worm-hole": Black Hole's deal with one free cell, used any number of
# times; solitairewinrates' Unstable Worm Hole lets the cell take one card a deal.
WORM_HOLE = Variant("worm-hole", "Worm Hole", None, 3, Start.CARD, Rules(cells=1),
                    "black_hole", any_ranks=True)
UNSTABLE_WORM_HOLE = Variant("unstable-worm-hole", "Unstable Worm Hole", None, 3, Start.CARD,
                             Rules(cells=1, cell_uses=1), "black_hole", any_ranks=True)
ESCALATOR = Variant("escalator", "Escalator", None, 28, Start.TALON,
                    Rules(23, True, OnKing.QUEEN_OR_ACE, Won.TABLEAU), "escalator",
                    shape=Shape.PYRAMID)

VARIANTS: dict[str, Variant] = {game.name: game for game in (
    BLACK_HOLE, ALL_IN_A_ROW, GOLF, DEAD_KING_GOLF, RELAXED_GOLF, TRI_PEAKS, TRI_PEAKS_STRICT,
    ESCALATOR, WORM_HOLE, UNSTABLE_WORM_HOLE)}
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
    (the King) only what `game.rules.on_king` allows. Talon cards go on anything, so they are
    not asked. The rules engine (`blackhole.model.rules`) reads this, and so does every layer
    that builds arcs from a game."""
    if hole is None:
        return True
    allowed = king_takes(game.rules.on_king, ranks)
    if hole == ranks and allowed is not None:
        return rank in allowed and rank != hole
    if rank == hole:
        return False
    step = (rank - hole) % ranks
    if game.rules.wrap:
        return step in (1, ranks - 1)
    return abs(rank - hole) == 1



def king_takes(on_king: OnKing, ranks: int) -> tuple[int, ...] | None:
    """The ranks a tableau card may have to go on the top rank (the King), as `on_king`
    says; None for ADJACENT, where a King takes its neighbours as any rank does."""
    return {OnKing.ADJACENT: None, OnKing.QUEEN: (ranks - 1,), OnKing.NOTHING: (),
            OnKing.QUEEN_OR_ACE: (ranks - 1, 1)}[on_king]


def on_king_rule(game: Variant, ranks: int) -> str:
    """`game.rules.on_king` in words ("only a Queen or an Ace goes on a King"), read from
    `king_takes`, the table `rank_fits` reads; "" where a King takes its neighbours."""
    allowed = king_takes(game.rules.on_king, ranks)
    if allowed is None:
        return ""
    if not allowed:
        return "nothing from the fans goes on a King"
    names = {1: "an Ace", ranks - 1: "a Queen"}
    return "only " + " or ".join(names[rank] for rank in allowed) + " goes on a King"


def misfit(game: Variant, rank: int, hole: int | None, ranks: int) -> str:
    """Why a tableau card of `rank` may not go on `hole` (as `rank_fits` judges it), in
    words; "" when it may."""
    if rank_fits(game, rank, hole, ranks):
        return ""
    if hole == ranks and king_takes(game.rules.on_king, ranks) is not None:
        return on_king_rule(game, ranks)
    if not game.rules.wrap and {rank, hole} == {1, ranks}:
        return f"{rank_text(ranks)} and A are not neighbours in this game"
    return "its rank must be one above or below"


@cache
def fitting(game: Variant, ranks: int) -> tuple[tuple[int, ...], ...]:
    """fitting(game, ranks)[h]: the ranks that may go on the foundation's top rank h as
    `rank_fits` says, ascending; [0], the empty foundation: every rank. Worked out once
    a game and deck, for the layers that ask it of every rank (the look, the Problem)."""
    return (tuple(range(1, ranks + 1)),) + tuple(
        tuple(r for r in range(1, ranks + 1) if rank_fits(game, r, h, ranks))
        for h in range(1, ranks + 1))
