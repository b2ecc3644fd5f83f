"""The SAT encoding of a Problem: a position encoding, specified in encodings/sat.md.

Card c is played at position q (1..n) when `("at", c, q)` is true; `("by", c, q)` says
c is played at position q or earlier (the "played by" ladder of `encode.layout`, which
gives exactly-one per card and the precedence pairs in binary clauses). Optional
features add auxiliary rank variables, cut the position domains, and add implied or
symmetry-breaking clauses; each is switched by name so that its soundness can be tested
on its own.

This module holds the features, the `Encoding` a build returns, and the build itself.
Every variable is made through one `Pool` under a readable key (`encode.cnf_variables`),
and each clause family is a function of the variables (and the pool, for the auxiliaries
it makes) that returns its clauses (`encode.cnf_clauses`): `build_cnf` calls them in one
fixed order, which fixes the numbering.

With `optional=True` the positions may stay empty from some point on: the CNF then
describes every legal line (a prefix of a complete one), `filled(q)` says position q is
played, and `Encoding.filled_literal(k)` is "at least k cards are played", for
assumptions with an incremental solver. Only the features that are sound for prefixes
are allowed there (encodings/sat.md, "Optional positions").

Every number in encodings/sat.md is a count of what `build_cnf` builds: keep them equal.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from blackhole.base.deadline import OutOfTime, check
from blackhole.base.errors import ArgumentError, DecodeError, InputError
from blackhole.encode.cnf_cell import Cell, cell_clauses, cell_variables
from blackhole.encode.cnf_clauses import (
    adjacency,
    card_links,
    dead_rank,
    filled_positions,
    ladder_order,
    position_at_least_one,
    position_at_most_one,
    precedence,
    rank_channel,
    rank_count,
    symmetry,
    talon_channel,
)
from blackhole.encode.cnf_variables import Clause, Pool, make_variables
from blackhole.encode.layout import Layout, make_domains, make_layout, played_line
from blackhole.model.games import refusal
from blackhole.model.problem import Problem

# position-5: the sequential counters are pysat's CardEnc clauses (the same clauses as
# position-4, in CardEnc's order)
ENCODING_VERSION = "position-5"
# A game with a free cell adds the parks (encodings/worm-hole.md): its CNF names this too.
CELL_VERSION = "cell-1"

# Each feature with its meaning in one line; encodings/sat.md has the math.
FEATURE_HELP: dict[str, str] = {
    "domain": "position domains cut by the cards that must come before and after",
    "reach": "position domains cut by the rank walk from the start",
    "rank": "auxiliary rank-at-position variables carry the adjacency",
    "alo": "at least one card per position (implied by pigeonhole)",
    "compact": "sequential-counter at-most-one instead of pairwise clauses",
    "forward": "redundant forward adjacency (each position has a successor)",
    "rankcount": "each rank shows at exactly as many positions as it has cards (needs rank)",
    "deadrank": "every rank with cards left is reachable from the hole's rank",
    "symmetry": "same-rank symmetry breaking (Gent et al. 2007)",
}
FEATURES: frozenset[str] = frozenset(FEATURE_HELP)
DEFAULT_FEATURES: frozenset[str] = frozenset(
    {"domain", "reach", "rank", "compact", "forward", "rankcount"})
# Certificates take the default features less symmetry breaking, the one feature that
# removes solutions: every clause left is one that every winning line satisfies.
CERTIFY_FEATURES: frozenset[str] = DEFAULT_FEATURES - {"symmetry"}
# The features that stay sound when positions may stay empty (encodings/sat.md proves
# each); `alo` and `deadrank` state that every card is played, which a prefix need not.
PREFIX_FEATURES: frozenset[str] = FEATURES - {"alo", "deadrank"}
# A feature that only works on top of another.
NEEDS: dict[str, str] = {"rankcount": "rank"}
# The rule features (`blackhole.model.games.Rules.features`) the CNF plays: a game of other
# rules than Black Hole's (Golf: directed arcs, a talon, won with talon cards left) is
# encoded as a path over every node, the talon turned to its end (encodings/golf.md).
# It reads the layout only through the Problem's precedence pairs, so a layout that is
# not made of chains (`covers`: a card waiting for two) is encoded the same way
# (encodings/sat.md, "Precedence"). A game with any other rule feature is refused
# (`check_game`).
# A game with a free cell (`cells`, `cell_uses`) gets the parks of encodings/worm-hole.md.
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", "covers", "cells",
                                   "cell_uses"})
_CELL_FEATURES: frozenset[str] = frozenset({"cells", "cell_uses"})
# The rule features whose best score the optional-position CNF counts (filled positions
# are the cards in the hole): Black Hole's and its free cell (encodings/worm-hole.md,
# "The best score"). A talon's score counts fan cards only (encodings/golf.md).
OPTIONAL_PLAYS: frozenset[str] = _CELL_FEATURES
# The rule features each encoding feature is sound for: `deadrank` argues from Black
# Hole's rules alone; `symmetry` reads a card's place in the hole next to its fan
# neighbours', which a parked card breaks (encodings/worm-hole.md, "Features"); every
# other feature reads the Problem's arcs and the hole order.
FEATURE_PLAYS: dict[str, frozenset[str]] = {
    feature: frozenset() if feature == "deadrank"
    else PLAYS - _CELL_FEATURES if feature == "symmetry" else PLAYS for feature in FEATURES}
# The features refused for every game of other rules than Black Hole's (read from
# FEATURE_PLAYS).
PLAIN_ONLY_FEATURES: frozenset[str] = frozenset(
    feature for feature, plays in FEATURE_PLAYS.items() if not plays)
# Golf's default: card-level adjacency. A rank at a position cannot say whether a talon
# card (which follows anything) or a fan card shows it, and the rank-level clauses took
# 10-50 times the conflicts on pysol:1-3:golf (encodings/golf.md, "Measured").
DIRECTED_DEFAULT_FEATURES: frozenset[str] = frozenset({"domain", "compact", "forward"})


def default_features(problem: Problem) -> frozenset[str]:
    """The features a solve uses when none are chosen, for this Problem's game: Black
    Hole's, less those not sound for the game, when its arcs are Black Hole's (a cell
    adds no arc); else DIRECTED_DEFAULT_FEATURES."""
    features = problem.game.features
    if problem.game.plain or features <= _CELL_FEATURES:
        return frozenset(f for f in DEFAULT_FEATURES if features <= FEATURE_PLAYS[f])
    return DIRECTED_DEFAULT_FEATURES

_DIMACS_BLOCK = 50_000  # clauses rendered between two looks at the clock


@dataclass(frozen=True)
class Encoding:
    clauses: list[Clause]
    pool: Pool
    problem: Problem
    features: frozenset[str]
    family_counts: dict[str, int] = field(default_factory=dict)
    # position → ((variable, node), ...): the at-variables read back by `decode`
    slots: tuple[tuple[tuple[int, int], ...], ...] = ()
    optional: bool = False
    filled: tuple[int, ...] = ()  # filled[q - 1]: position q is played (optional only)
    bound: int | None = None  # with `at_least`: the unit clause "at least bound played"
    # a game with a cell: (park variable, card, gap) of every park it may make
    parks: tuple[tuple[int, int, int], ...] = ()

    @property
    def num_vars(self) -> int:
        return self.pool.top

    @property
    def keys(self) -> tuple[tuple, ...]:
        return tuple(self.pool.keys)

    def counts(self) -> dict[str, int]:
        """Clauses per family, as named in encodings/sat.md."""
        return dict(self.family_counts)

    def filled_literal(self, k: int) -> int:
        """The literal "at least k cards are played" (1 <= k <= n), with optional positions."""
        if not self.optional:
            raise ArgumentError("filled_literal needs an encoding with optional positions")
        if not 1 <= k <= len(self.filled):
            raise ArgumentError(f"at least {k} cards: k must be 1..{len(self.filled)}")
        return self.filled[k - 1]

    def scored_literal(self, k: int) -> int:
        """The literal "a line scores at least k": k fan cards played, with optional
        positions. A talon card may follow any card, so a line that plays k fan cards
        goes on to turn every talon card left, and fills k + |T| positions; and k + |T|
        filled positions hold at least k fan cards (encodings/golf.md, "The best score").
        Without a talon it is filled(k)."""
        return self.filled_literal(k + len(self.problem.talon))

    def at_least(self, k: int) -> Encoding:
        """This CNF and the unit clause "a line scores at least k" (`scored_literal`),
        family "at-least": unsatisfiable exactly when no line scores k, so its refutation
        proves a best score below k (the statement of an optimality certificate)."""
        counts = {**self.family_counts, "at-least": 1}
        return replace(self, clauses=[*self.clauses, [self.scored_literal(k)]],
                       family_counts=counts, bound=k)

    def decode(self, model: Sequence[int]) -> tuple[int, ...]:
        """The non-start nodes in play order, read from a model (a list of literals); with
        optional positions, the played prefix."""
        true = {lit for lit in model if lit > 0}
        order = []
        ended = 0  # the first empty position of a prefix
        for position, slot in enumerate(self.slots, start=1):
            placed = [node for var, node in slot if var in true]
            if len(placed) == 1 and not ended:
                order.append(placed[0])
            elif not placed and self.optional:
                ended = ended or position
            else:
                after = f" after the empty position {ended}" if ended else ""
                raise DecodeError(f"model places {len(placed)} cards at position {position}"
                                 + after)
        return tuple(order) if self.optional else played_line(self.problem, tuple(order))

    def decode_parks(self, model: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """The parks a model makes, as `Result.parks`: (card, hole moves made before it),
        a park in gap g being made after g - 1 hole moves."""
        true = {lit for lit in model if lit > 0}
        return tuple((card, gap - 1) for var, card, gap in self.parks if var in true)

    def describe(self, var: int) -> str:
        """What variable `var` means, in words."""
        return describe_key(self.problem, self.pool.obj(var))

    def dimacs(self, names: bool = True, deadline: float | None = None) -> str:
        """DIMACS text: comment lines naming the encoding's version, features, bound and
        clause families (and, with `names`, what every variable means), the header, then
        one clause a line. Every literal is rendered once and the clauses are joined a
        large block at a time (the clock is read between blocks: OutOfTime once the
        `deadline` passes): the variable names take longer than the rest together."""
        version = ENCODING_VERSION + (f"+{CELL_VERSION}" if self.problem.cells else "")
        lines = [f"c blackhole SAT encoding {version}",
                 f"c features {','.join(sorted(self.features)) or '-'}"]
        if self.optional:
            lines.append("c optional positions")
        if self.bound is not None:
            lines.append(f"c at least {self.bound} cards played")
        lines += [f"c family {family} {count}" for family, count in self.family_counts.items()]
        if names:
            lines += [f"c var {v} = {self.describe(v)}" for v in range(1, self.num_vars + 1)]
        lines.append(f"p cnf {self.num_vars} {len(self.clauses)}\n")
        n = self.num_vars
        # rendered[lit] for -n <= lit <= n (negative literals by negative indexing); the
        # clause terminator 0 carries the line's end
        rendered = [str(v) for v in range(n + 1)] + [str(v) for v in range(-n, 0)]
        rendered[0] = "0\n"
        blocks = []
        for start in range(0, len(self.clauses), _DIMACS_BLOCK):
            check(deadline)
            flat: list[int] = []
            extend, end = flat.extend, flat.append
            for clause in self.clauses[start:start + _DIMACS_BLOCK]:
                extend(clause)
                end(0)
            blocks.append(" ".join(map(rendered.__getitem__, flat)).replace("\n ", "\n"))
        return "\n".join(lines) + "".join(blocks)


def describe_key(problem: Problem, key: object) -> str:
    if not isinstance(key, tuple):
        return "unnamed"
    kind, *rest = key
    card = problem.cards
    if kind == "at":
        return f"at card {card[rest[0]]} position {rest[1]}"
    if kind == "by":
        return f"by card {card[rest[0]]} played at position {rest[1]} or earlier"
    if kind == "rank":
        return f"rank at position {rest[0]} is {rest[1]}"
    if kind == "talon":
        return f"talon position {rest[0]} holds a talon card"
    if kind == "filled":
        return f"filled position {rest[0]} holds a card"
    if kind == "park":
        return f"park {card[rest[0]]} goes into the cell just before hole move {rest[1]}"
    if kind == "parked":
        return f"parked {card[rest[0]]} went into the cell by gap {rest[1]}"
    if kind == "cell":
        return f"cell {card[rest[0]]} is in the cell just before hole move {rest[1]}"
    if kind == "seq":
        group, step = rest
        return (f"seq at-most-one over {' '.join(map(str, group))}: "
                f"one of its first {step + 1} literals is true")
    if kind == "count":
        return f"count rank {rest[0]} shows at {rest[2]} or more of the positions 1..{rest[1]}"
    if kind in ("up", "down"):
        return f"{kind} rank {rest[0]} reachable {kind}ward from the hole after position {rest[1]}"
    if kind == "swap":
        return (f"swap {card[rest[0]]} {card[rest[1]]}: {card[rest[1]]} is played before "
                f"{card[rest[0]]} and after the card on {card[rest[0]]}")
    return " ".join(map(str, key))


def known_features(features: Iterable[str], *, optional: bool = False) -> frozenset[str]:
    """The features as a set; an InputError (naming the Options field `features`) for one
    this encoding does not have, one without the feature it needs, or, with optional
    positions, one that is not sound for prefixes."""
    chosen = frozenset(features)
    unknown = chosen - FEATURES
    if unknown:
        raise InputError(f"unknown encoding feature (choose from {', '.join(sorted(FEATURES))})",
                         "features", token=",".join(sorted(unknown)))
    for feature, needed in NEEDS.items():
        if feature in chosen and needed not in chosen:
            raise InputError(f"feature {feature} needs feature {needed}", "features",
                             token=feature)
    if optional and not chosen <= PREFIX_FEATURES:
        unsound = ",".join(sorted(chosen - PREFIX_FEATURES))
        raise InputError("not sound with optional positions (a line may stop early)",
                         "features", token=unsound)
    return chosen


def check_game(problem: Problem, features: frozenset[str], optional: bool) -> None:
    """A game is encoded only when the CNF plays its rule features (PLAYS), and then
    without the features not sound for them (FEATURE_PLAYS: those that argue from Black
    Hole's rules); an InputError naming the game otherwise."""
    game = problem.game
    refused = refusal(game, PLAYS, "the CNF encoding", "game")
    if refused is not None:
        raise refused
    if problem.cells and (problem.talon or problem.cells != 1):
        raise InputError(f"{game.title} is not encoded with a talon or two cells yet", "game",
                         token=game.name)
    unsound = sorted(f for f in features if not game.features <= FEATURE_PLAYS[f])
    if unsound:
        why = " (a talon card follows any card)" if "talon" in game.features else ""
        raise InputError(f"not sound for {game.title}{why}", "features",
                         token=",".join(unsound))


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector. An encoding is tens of thousands of small
    lists without cycles, and the collector would rescan them all several times while
    they are built and solved (a third of the encoding time). Callers that keep an
    encoding only inside the block free it by reference counting before it resumes."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# ---------------------------------------------------------------- the encoding


def build_cnf(problem: Problem, features: Iterable[str] = DEFAULT_FEATURES, *,
              optional: bool = False, layout: Layout | None = None,
              deadline: float | None = None) -> Encoding:
    """The CNF of `problem` with the chosen features (an InputError names unknown or
    unsound ones). With `optional`, positions may stay empty: see the module doc. The
    clock is read between clause families: `blackhole.base.deadline.OutOfTime` when the
    `deadline` (a `time.perf_counter()` reading) passes before the CNF is complete."""
    chosen = known_features(features, optional=optional)
    check_game(problem, chosen, optional)
    check(deadline)
    with gc_paused():
        try:
            return _build(layout or make_layout(problem), chosen, optional, deadline)
        except OutOfTime:
            pass  # the clauses made so far are freed here, before the collector resumes
    raise OutOfTime("the time limit came while the CNF was built")


def _build(layout: Layout, features: frozenset[str], optional: bool,
           deadline: float | None = None) -> Encoding:
    use = features.__contains__
    domains = make_domains(layout, windows=use("domain"), reach=use("reach"),
                           optional=optional)
    pool = Pool()
    v = make_variables(domains, pool, rank=use("rank"))
    cell: Cell | None = None
    if layout.problem.cells:  # encodings/worm-hole.md
        cell = cell_variables(v, pool, use("domain"))
    check(deadline)
    clauses: list[Clause] = []
    counts: dict[str, int] = {}

    def add(family: str, found: list[Clause]) -> None:
        clauses.extend(found)
        counts[family] = len(found)
        check(deadline)

    add("card", card_links(v))
    add("order", ladder_order(v))
    add("position-amo", position_at_most_one(v, pool, use("compact")))
    if optional:
        for family, found in filled_positions(v).items():
            add(family, found)
    else:
        add("position-alo", position_at_least_one(v, use("alo")))
    if use("rank"):
        for family, found in rank_channel(v).items():
            add(family, found)
    if v.talon_at is not None:
        for family, found in talon_channel(v).items():
            add(family, found)
    for family, found in adjacency(v, use("forward")).items():
        add(family, found)
    if cell is None:
        add("precedence", precedence(v))
    else:  # the departures from the fans, and the cell (encodings/worm-hole.md)
        for family, found in cell_clauses(v, cell, pool, use("compact")).items():
            add(family, found)
    if use("rankcount"):
        add("rank-count", rank_count(v, pool))
    if use("deadrank"):
        for family, found in dead_rank(v, pool).items():
            add(family, found)
    if use("symmetry"):
        add("symmetry", symmetry(v, pool))
    filled = tuple(v.filled[1:]) if v.filled is not None else ()
    return Encoding(clauses, pool, layout.problem, features, counts, tuple(v.slots[1:]),
                    optional, filled, parks=cell.parks() if cell is not None else ())
