"""What every encoding derives from a Problem, once, with one numbering of positions.

Positions: the start card (when there is one) is position 0 and the cards to play take
positions 1..n, n = len(problem.moves), in every encoding. From the Problem this module
derives

- the precedence closure (`before`, `after`): the cards that must be played before and
  after each card;
- the windows: card c can only be played at `earliest(c)`..`latest(c)`, where the cards
  of before(c) fill the positions in front of it and those of after(c) the positions
  behind it;
- the rank links and the rank walk: the ranks one move away from each rank, and the
  ranks a walk of q moves from the start can show;
- `Domains`: the positions each card may take, cut by the windows and the walk as an
  encoding chooses, for complete lines or for prefixes of a line (`optional`);
- the "played by" ladder over a Domains: `played_by(c, q)` is a literal, or a constant
  outside its range;
- the same-rank symmetry pairs, and their symmetry-breaking clauses written over
  abstract ladder literals (`Lit`), which each engine maps to its own variables.

Adding an encoding feature that every engine shares means adding it here once.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from blackhole.model.problem import (
    Problem,
    SameRankPair,
    must_follow,
    must_precede,
    rank_links,
    same_rank_pairs,
)


@dataclass(frozen=True)
class Layout:
    """The Problem with its derived structure; positions 1..n are the moves."""

    problem: Problem
    before: dict[int, frozenset[int]]  # card → the cards that must be played before it
    after: dict[int, frozenset[int]]  # card → the cards that must be played after it
    links: dict[int, tuple[int, ...]]  # rank → the ranks one move away (ascending)

    @property
    def moves(self) -> tuple[int, ...]:
        return self.problem.moves

    @cached_property
    def n(self) -> int:
        return len(self.problem.moves)

    @property
    def positions(self) -> range:
        return range(1, self.n + 1)

    @cached_property
    def parks(self) -> bool:
        """May a line still park a card (a game with a free cell and a park left)? Then
        `before` and `after` order departures from the fans, not hole positions
        (encodings/worm-hole.md, "Domains")."""
        return bool(self.problem.cells) and self.problem.parks_left != 0

    def earliest(self, card: int) -> int:
        """With a cell, one card above `card` may still wait in the cell when it goes."""
        if self.parks:
            return max(1, len(self.before[card]))
        return 1 + len(self.before[card])

    def latest(self, card: int) -> int:
        """With a cell, `card` may wait there while every card under it goes first."""
        if self.parks:
            return self.n
        return self.n - len(self.after[card])

    def can_follow(self, u: int, v: int) -> bool:
        """May v be played right after u? Not if v must come before u, nor if some card
        must come between them (with a cell, any card may: a parked one waits)."""
        if self.parks:
            return True
        return v not in self.before[u] and not (self.after[u] & self.before[v])

    @cached_property
    def walk(self) -> tuple[frozenset[int], ...]:
        """walk[q], q = 0..n: the ranks the hole can show after q moves, walking the rank
        links from the start through ranks of cards to play (every rank of them when
        there is no start card)."""
        problem = self.problem
        present = frozenset(problem.rank[c] for c in self.moves)
        start = None if problem.start is None else problem.rank[problem.start]
        return _walk(start, tuple(sorted(self.links.items())), present, self.n)

    @cached_property
    def shows(self) -> dict[int, tuple[int, ...]]:
        """rank → the positions 1..n whose walk holds it, ascending."""
        return _shows(self.walk, frozenset(self.problem.rank))

    @cached_property
    def pairs(self) -> tuple[SameRankPair, ...]:
        """The same-rank symmetry pairs (`problem.same_rank_pairs`)."""
        return tuple(same_rank_pairs(self.problem))

    # A game of other rules (Golf, encodings/golf.md): arcs are directed, and a talon
    # card follows any card. The encodings read these instead of `links` there.

    @property
    def directed(self) -> bool:
        """True for a game whose arcs are not Black Hole's (`Variant.plain`)."""
        return not self.problem.game.plain

    @cached_property
    def talon(self) -> frozenset[int]:
        return frozenset(self.problem.talon)

    @cached_property
    def fan_before(self) -> dict[int, tuple[int, ...]]:
        """rank k → the ranks j such that a fan card of rank k may follow a card of rank
        j (read from the arcs into fan cards; empty when rank k has no fan card)."""
        return self._fan_links(into=True)

    @cached_property
    def fan_after(self) -> dict[int, tuple[int, ...]]:
        """rank j → the ranks of the fan cards that may follow a card of rank j."""
        return self._fan_links(into=False)

    def _fan_links(self, into: bool) -> dict[int, tuple[int, ...]]:
        problem, talon = self.problem, self.talon
        found: dict[int, set[int]] = {k: set() for k in problem.rank}
        for d in range(problem.size):
            for c in problem.neighbours[d]:
                if c not in talon:
                    j, k = problem.rank[d], problem.rank[c]
                    found[k if into else j].add(j if into else k)
        return {k: tuple(sorted(ranks)) for k, ranks in found.items()}

    @cached_property
    def predecessors(self) -> dict[int, tuple[int, ...]]:
        """card → the cards with an arc into it (node order), the start left out."""
        into: dict[int, list[int]] = {c: [] for c in self.moves}
        for d in self.moves:
            for c in self.problem.neighbours[d]:
                into[c].append(d)
        return {c: tuple(ds) for c, ds in into.items()}


def played_line(problem: Problem, order: tuple[int, ...]) -> tuple[int, ...]:
    """The line a path over every node plays: up to its last required card (all of it in
    Black Hole; in Golf the talon cards turned after the last fan card are dropped, as the
    game is won before them)."""
    if not problem.talon:
        return order
    talon = frozenset(problem.talon)
    end = len(order)
    while end and order[end - 1] in talon:
        end -= 1
    return order[:end]


@lru_cache(maxsize=64)
def _walk(start: int | None, links: tuple[tuple[int, tuple[int, ...]], ...],
          present: frozenset[int], n: int) -> tuple[frozenset[int], ...]:
    """`Layout.walk` from the start's rank (None: no start card), the rank links, the
    ranks of the cards to play and their number; the same for every deal of a deck, so
    one per input is kept."""
    if start is None:
        return (present,) * (n + 1)
    step = dict(links)
    steps = [frozenset({start})]
    for _ in range(n):
        steps.append(frozenset(k for j in steps[-1] for k in step.get(j, ())) & present)
    return tuple(steps)


@lru_cache(maxsize=64)
def _shows(walk: tuple[frozenset[int], ...], ranks: frozenset[int]
           ) -> dict[int, tuple[int, ...]]:
    """`Layout.shows` (shared, read only)."""
    return {k: tuple(q for q in range(1, len(walk)) if k in walk[q]) for k in ranks}


def make_layout(problem: Problem) -> Layout:
    return Layout(problem, must_precede(problem), must_follow(problem), rank_links(problem))


@dataclass(frozen=True)
class Domains:
    """The positions each card may take, for complete lines or (`optional`) for prefixes
    of a line, where a card need not be played at all.

    The windows hold for prefixes too: a card played at position q has every card above
    it among the q - 1 played before it, and every card under it among the n - q not yet
    played, whether or not the line goes on to play them.
    """

    layout: Layout
    optional: bool
    of: dict[int, tuple[int, ...]]  # card → its positions, ascending
    cards_at: tuple[tuple[int, ...], ...]  # position → the cards it may hold (index 0 unused)

    @cached_property
    def first(self) -> dict[int, int]:
        """card → its first position (n + 1 when it has none)."""
        return {c: qs[0] if qs else self.layout.n + 1 for c, qs in self.of.items()}

    @cached_property
    def last(self) -> dict[int, int]:
        """card → its last position (0 when it has none)."""
        return {c: qs[-1] if qs else 0 for c, qs in self.of.items()}

    def ladder(self, card: int) -> range:
        """The positions q with a "played by q" variable for `card`: first..last-1 for
        complete lines (from its last position on it is surely played), first..last for
        prefixes (by its last position it may still be unplayed)."""
        last = self.last[card] + 1 if self.optional else self.last[card]
        return range(self.first[card], last)

    def played_by(self, card: int, q: int) -> Lit | bool:
        """The literal "`card` is played at position q or earlier": False before its first
        position; from its last position on True (complete lines) or "played at all", the
        ladder's top (prefixes)."""
        first, last = self.first[card], self.last[card]
        if q < first:
            return False
        if q >= last:
            return Lit(("by", card, last)) if self.optional else True
        return Lit(("by", card, q))

    def at(self, card: int, q: int) -> Lit | bool:
        """The literal "`card` is played at position q": False outside its domain."""
        return Lit(("at", card, q)) if q in self._sets[card] else False

    @cached_property
    def _sets(self) -> dict[int, frozenset[int]]:
        return {c: frozenset(qs) for c, qs in self.of.items()}


def make_domains(layout: Layout, *, windows: bool = True, reach: bool = False,
                 optional: bool = False) -> Domains:
    """Positions per card: 1..n, cut to the windows (`windows`) and to the positions
    whose walk holds the card's rank (`reach`)."""
    n, rank = layout.n, layout.problem.rank
    shows = layout.shows if reach else None
    of: dict[int, tuple[int, ...]] = {}
    cards_at: list[list[int]] = [[] for _ in range(n + 1)]
    for c in layout.moves:
        lo = layout.earliest(c) if windows else 1
        hi = layout.latest(c) if windows else n
        if shows is None:
            qs = tuple(range(lo, hi + 1))
        else:
            at = shows[rank[c]]
            qs = at[bisect_left(at, lo):bisect_right(at, hi)]
        of[c] = qs
        for q in qs:  # each position lists its cards in node order
            cards_at[q].append(c)
    return Domains(layout, optional, of, tuple(tuple(cs) for cs in cards_at))


# ---------------------------------------------------------------- abstract literals


@dataclass(frozen=True, slots=True)
class Lit:
    """A literal over a variable named by its key, ("at", c, q), ("by", c, q) or
    ("swap", c1, c2); each engine maps keys to its own variables."""

    key: tuple
    positive: bool = True

    def __invert__(self) -> Lit:
        return Lit(self.key, not self.positive)


def negate(lit: Lit | bool) -> Lit | bool:
    return (not lit) if isinstance(lit, bool) else ~lit


def simplify(clause: Iterable[Lit | bool]) -> list[Lit] | None:
    """The clause without False; None when it holds already (it has True)."""
    out = []
    for lit in clause:
        if lit is True:
            return None
        if lit is not False:
            out.append(lit)
    return out


@dataclass
class Cut:
    """Clauses over abstract literals, and the auxiliary variables they introduce."""

    variables: list[tuple] = field(default_factory=list)
    clauses: list[list[Lit]] = field(default_factory=list)


def symmetry_cut(domains: Domains) -> Cut:
    """Same-rank symmetry breaking (encodings/sat.md, feature `symmetry`): for each pair
    (c1 before c2 in the fixed order, a1 on c1, b2 under c2), forbid the order in which
    the two could trade places with c2 first. Sound for complete lines and for prefixes.
    """
    at, by = domains.at, domains.played_by
    cut = Cut()
    positions = domains.layout.positions
    for pair in domains.layout.pairs:
        c1, c2, a1, b2 = pair.first, pair.second, pair.above_first, pair.below_second
        clauses: list[list[Lit | bool]]
        if a1 is None and b2 is None:  # c1 before c2, always
            clauses = [[negate(by(c2, q)), by(c1, q - 1)] for q in positions]
        elif a1 is None:  # never c2 < c1 < b2
            clauses = [[negate(at(c1, q)), negate(by(c2, q - 1)), by(b2, q - 1)]
                       for q in positions]
        elif b2 is None:  # never a1 < c2 < c1
            clauses = [[negate(at(c2, q)), negate(by(a1, q - 1)), by(c1, q - 1)]
                       for q in positions]
        else:  # never a1 < c2 < c1 < b2, through swap = (a1 < c2 < c1)
            key = ("swap", c1, c2)
            cut.variables.append(key)
            swap = Lit(key)
            clauses = [[negate(at(c2, q)), negate(by(a1, q - 1)), by(c1, q - 1), swap]
                       for q in positions]
            clauses += [[~swap, negate(at(c1, q)), by(b2, q - 1)] for q in positions]
        cut.clauses += [kept for kept in map(simplify, clauses) if kept is not None]
    return cut
