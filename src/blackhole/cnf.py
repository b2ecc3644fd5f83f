"""The SAT encoding of a Problem: a position encoding, specified in encodings/sat.md.

Card c is played at position p (1..n) when `("at", c, p)` is true; `("by", c, p)` says
c is played at position p or earlier (an order encoding, which gives exactly-one per
card and the precedence pairs in binary clauses). Optional features add auxiliary rank
variables, cut the position domains, and add implied or symmetry-breaking clauses; each
is switched by name so that its soundness can be tested on its own.

Every number in encodings/sat.md is a count of what this module builds: keep them equal.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

from pysat.formula import IDPool

from blackhole.errors import InputError
from blackhole.problem import (
    Problem,
    must_follow,
    must_precede,
    rank_links,
    same_rank_pairs,
)

ENCODING_VERSION = "position-4"  # position-4: rank links in ascending order

# Each feature with its meaning in one line; encodings/sat.md has the math.
FEATURE_HELP: dict[str, str] = {
    "domain": "position domains cut by the cards that must come before and after",
    "reach": "position domains cut by the rank walk from the start",
    "rank": "auxiliary rank-at-position variables carry the adjacency",
    "alo": "at least one card per position (implied by pigeonhole)",
    "compact": "sequential-counter at-most-one instead of pairwise clauses",
    "forward": "redundant forward adjacency (each position has a successor)",
    "rankcount": "each rank shows at exactly as many positions as it has cards",
    "deadrank": "every rank with cards left is reachable from the hole's rank",
    "symmetry": "same-rank symmetry breaking (Gent et al. 2007)",
}
FEATURES: frozenset[str] = frozenset(FEATURE_HELP)
DEFAULT_FEATURES: frozenset[str] = frozenset(
    {"domain", "reach", "rank", "compact", "forward", "rankcount"})
# Plain and auditable for unsolvability certificates: domain cuts, implied clauses and
# defined auxiliaries only, never symmetry breaking (which removes solutions).
CERTIFY_FEATURES: frozenset[str] = frozenset(
    {"domain", "reach", "rank", "compact", "forward", "rankcount"})

_PAIRWISE_UP_TO = 6  # below this many literals pairwise at-most-one is as small as a counter


class _Const:
    """TRUE/FALSE stand-ins for literals fixed by the domains, folded away when adding."""

    def __init__(self, value: bool) -> None:
        self.value = value


TRUE = _Const(True)
FALSE = _Const(False)
Lit = int | _Const


@dataclass(frozen=True)
class Encoding:
    clauses: list[list[int]]
    num_vars: int
    keys: tuple[tuple, ...]  # variable v has the readable key keys[v - 1]
    problem: Problem
    features: frozenset[str]
    family_counts: dict[str, int] = field(default_factory=dict)
    # position → ((variable, node), ...): the at-variables read back by `decode`
    slots: tuple[tuple[tuple[int, int], ...], ...] = ()

    @cached_property
    def pool(self) -> IDPool:
        """A pysat IDPool holding the same numbering (made on demand: encoding stays fast)."""
        pool = IDPool()
        for key in self.keys:
            pool.id(key)
        return pool

    def counts(self) -> dict[str, int]:
        """Clauses per family, as named in encodings/sat.md."""
        return dict(self.family_counts)

    def decode(self, model: Sequence[int]) -> tuple[int, ...]:
        """The non-start nodes in play order, read from a model (a list of literals)."""
        true = {lit for lit in model if lit > 0}
        order = []
        for position, slot in enumerate(self.slots, start=1):
            placed = [node for var, node in slot if var in true]
            if len(placed) != 1:
                raise ValueError(f"model places {len(placed)} cards at position {position}")
            order.append(placed[0])
        return tuple(order)

    def describe(self, var: int) -> str:
        """What variable `var` means, in words."""
        return describe_key(self.problem, self.keys[var - 1])

    def dimacs(self) -> str:
        lines = [f"c blackhole SAT encoding {ENCODING_VERSION}",
                 f"c features {','.join(sorted(self.features)) or '-'}"]
        lines += [f"c family {family} {count}" for family, count in self.family_counts.items()]
        lines += [f"c var {v} = {self.describe(v)}" for v in range(1, self.num_vars + 1)]
        lines.append(f"p cnf {self.num_vars} {len(self.clauses)}")
        lines += [" ".join(map(str, clause)) + " 0" if clause else "0" for clause in self.clauses]
        return "\n".join(lines) + "\n"


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


def build_cnf(problem: Problem, features: Iterable[str] = DEFAULT_FEATURES) -> Encoding:
    """The CNF of `problem` with the chosen features (an InputError names unknown ones)."""
    chosen = known_features(features)
    with gc_paused():
        return _Builder(problem, chosen).build()


def known_features(features: Iterable[str]) -> frozenset[str]:
    """The features as a set; an InputError names any this encoding does not have."""
    chosen = frozenset(features)
    unknown = chosen - FEATURES
    if unknown:
        raise InputError(f"unknown encoding feature (choose from {', '.join(sorted(FEATURES))})",
                         "--features", token=",".join(sorted(unknown)))
    return chosen


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


class _Builder:
    def __init__(self, problem: Problem, features: frozenset[str]) -> None:
        self.problem = problem
        self.features = features
        self.keys: list[tuple] = []  # variable v has key keys[v - 1]
        self.clauses: list[list[int]] = []
        self.family: dict[str, int] = {}
        self.moves = problem.moves
        self.n = len(self.moves)

    # ------------------------------------------------------------ clause plumbing

    def var(self, key: tuple) -> int:
        self.keys.append(key)
        return len(self.keys)

    def new_vars(self, keys: Iterable[tuple]) -> list[int]:
        start = len(self.keys) + 1
        self.keys.extend(keys)
        return list(range(start, len(self.keys) + 1))

    def add(self, family: str, clauses: list[list[int]]) -> None:
        self.clauses.extend(clauses)
        self.family[family] = self.family.get(family, 0) + len(clauses)

    @staticmethod
    def fold(lits: Iterable[Lit]) -> list[int] | None:
        """Drop FALSE literals; None when the clause holds already (a TRUE literal)."""
        out = []
        for lit in lits:
            if isinstance(lit, _Const):
                if lit.value:
                    return None
            else:
                out.append(lit)
        return out

    def add_folded(self, family: str, clauses: Iterable[Iterable[Lit]]) -> None:
        kept = [c for c in map(self.fold, clauses) if c is not None]
        self.add(family, kept)

    @staticmethod
    def neg(lit: Lit) -> Lit:
        if isinstance(lit, _Const):
            return FALSE if lit.value else TRUE
        return -lit

    def at_most_one(self, family: str, key: tuple, lits: list[int]) -> None:
        if len(lits) < 2:
            return
        if "compact" in self.features and len(lits) > _PAIRWISE_UP_TO:
            # sequential counter: seq[i] = one of lits[0..i] is true
            seq = self.new_vars(("seq", key, i) for i in range(len(lits) - 1))
            clauses = [[-lits[0], seq[0]]]
            for i in range(1, len(lits) - 1):
                clauses += [[-lits[i], seq[i]], [-seq[i - 1], seq[i]], [-lits[i], -seq[i - 1]]]
            clauses.append([-lits[-1], -seq[-1]])
            self.add(family, clauses)
        else:
            self.add(family, [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]])

    # ------------------------------------------------------------ the encoding

    def build(self) -> Encoding:
        self.domains()
        self.variables()
        self.card_exactly_one()
        self.position_constraints()
        self.adjacency()
        self.precedence()
        if "rankcount" in self.features and "rank" in self.features:
            self.rank_count()
        if "deadrank" in self.features:
            self.dead_rank()
        if "symmetry" in self.features:
            self.symmetry()
        slots = tuple(tuple((self.at[c][p], c) for c in self.cards_at[p])
                      for p in range(1, self.n + 1))
        return Encoding(self.clauses, len(self.keys), tuple(self.keys), self.problem,
                        self.features, self.family, slots)

    def domains(self) -> None:
        """The positions each card may take: all of 1..n, less what the cuts rule out."""
        p, n = self.problem, self.n
        lo = dict.fromkeys(self.moves, 1)
        hi = dict.fromkeys(self.moves, n)
        if "domain" in self.features:
            later, earlier = must_follow(p), must_precede(p)
            for c in self.moves:
                lo[c] = 1 + len(earlier[c])  # every card that must precede c
                hi[c] = n - len(later[c])  # every card that must follow c
        self.rank_adj = rank_links(p)
        present = {p.rank[c] for c in self.moves}
        # walk[q]: the ranks a walk of q moves from the start can show
        walk: list[set[int]] = [present] * (n + 1)
        if "reach" in self.features and p.start is not None:
            walk = [{p.rank[p.start]}]
            for _ in range(n):
                walk.append({k for j in walk[-1] for k in self.rank_adj.get(j, ())} & present)
        self.cards_at: list[list[int]] = [[] for _ in range(n + 1)]
        for c in self.moves:
            k = p.rank[c]
            for q in range(lo[c], hi[c] + 1):
                if k in walk[q]:
                    self.cards_at[q].append(c)

    def variables(self) -> None:
        n, keys, moves = self.n, self.keys, self.moves
        at: dict[int, dict[int, int]] = {c: {} for c in moves}
        for q in range(1, n + 1):
            for c in self.cards_at[q]:
                keys.append(("at", c, q))
                at[c][q] = len(keys)
        self.at = at
        # ("by", c, q) exists for first <= q < last, numbered by_base[c] + q; it is
        # FALSE before first and TRUE from last on
        self.first = {c: min(at[c], default=n + 1) for c in moves}
        self.last = {c: max(at[c], default=0) for c in moves}
        self.by_base: dict[int, int] = {}
        for c in moves:
            first, last = self.first[c], self.last[c]
            self.by_base[c] = len(keys) + 1 - first
            keys.extend(("by", c, q) for q in range(first, last))
        # groups[q][k]: the at-variables of the rank-k cards at position q, ranks in order
        rank = self.problem.rank
        self.groups: list[dict[int, list[int]]] = [{}]
        for q in range(1, n + 1):
            group: dict[int, list[int]] = {}
            for c in self.cards_at[q]:
                group.setdefault(rank[c], []).append(at[c][q])
            self.groups.append(dict(sorted(group.items())))
        if "rank" in self.features:
            self.rank_at: list[dict[int, int]] = [{}]
            for q in range(1, n + 1):
                row = {}
                for k in self.groups[q]:
                    keys.append(("rank", q, k))
                    row[k] = len(keys)
                self.rank_at.append(row)

    def by(self, c: int, q: int) -> Lit:
        """Literal for "c is played at position q or earlier"."""
        if q < self.first[c]:
            return FALSE
        if q >= self.last[c]:
            return TRUE
        return self.by_base[c] + q

    def at_lit(self, c: int, q: int) -> Lit:
        return self.at[c].get(q, FALSE)

    def card_exactly_one(self) -> None:
        """Order encoding: by[c] rises once, and at[c][q] is exactly that rise."""
        link: list[list[int]] = []
        mono: list[list[int]] = []
        for c in self.moves:
            first, last, at, base = self.first[c], self.last[c], self.at[c], self.by_base[c]
            if first >= last:
                # one position: the card is there; none: the deal is lost
                link.append([at[first]] if first == last else [])
                continue
            y = base + first  # by[c][first]
            x = at[first]
            link += [[-x, y], [x, -y]]
            for q in range(first + 1, last):
                y = base + q
                x = at.get(q)
                if x is None:  # a hole in the domain: no rise here
                    link.append([-y, y - 1])
                else:
                    link += [[-x, y], [-x, -(y - 1)], [x, -y, y - 1]]
            x = at[last]
            y = base + last - 1
            link += [[-x, -y], [x, y]]
            mono += [[-(base + q), base + q + 1] for q in range(first, last - 1)]
        self.add("card", link)
        self.add("order", mono)

    def position_constraints(self) -> None:
        """At most one card per position; at least one follows by pigeonhole."""
        for q in range(1, self.n + 1):
            if "rank" in self.features:
                self.at_most_one("position-amo", ("rank", q), list(self.rank_at[q].values()))
                for k, lits in self.groups[q].items():
                    self.at_most_one("position-amo", ("rank", q, k), lits)
            else:
                self.at_most_one("position-amo", ("pos", q),
                                 [self.at[c][q] for c in self.cards_at[q]])
        # Long at-least-one clauses slow propagation more than they help; a position no
        # card can take still gets its (empty) clause, which pigeonhole would find slowly.
        self.add("position-alo", [[self.at[c][q] for c in self.cards_at[q]]
                                  for q in range(1, self.n + 1)
                                  if "alo" in self.features or not self.cards_at[q]])

    def adjacency(self) -> None:
        p, n = self.problem, self.n
        forward = "forward" in self.features
        back: list[list[int]] = []
        ahead: list[list[int]] = []
        if "rank" in self.features:
            rank, adj, rank_at = p.rank, self.rank_adj, self.rank_at
            self.add("rank-channel", [[-self.at[c][q], rank_at[q][rank[c]]]
                                      for q in range(1, n + 1) for c in self.cards_at[q]])
            self.add("rank-support", [[-rank_at[q][k]] + lits for q in range(1, n + 1)
                                      for k, lits in self.groups[q].items()])
            start_rank = None if p.start is None else rank[p.start]
            for q in range(1, n + 1):
                here = rank_at[q]
                before = rank_at[q - 1]
                after = rank_at[q + 1] if q < n else {}
                for k, v in here.items():
                    near = adj.get(k, ())
                    if q > 1:
                        back.append([-v] + [before[j] for j in near if j in before])
                    elif start_rank is not None and k not in adj.get(start_rank, ()):
                        back.append([-v])
                    if forward and q < n:
                        ahead.append([-v] + [after[j] for j in near if j in after])
        else:
            at = self.at
            for q in range(1, n + 1):
                for c in self.cards_at[q]:
                    x = at[c][q]
                    if q > 1:
                        back.append([-x] + [at[d][q - 1] for d in p.neighbours[c]
                                            if q - 1 in at[d]])
                    elif p.start is not None and c not in p.neighbours[p.start]:
                        back.append([-x])
                    if forward and q < n:
                        ahead.append([-x] + [at[d][q + 1] for d in p.neighbours[c]
                                             if q + 1 in at[d]])
        self.add("adjacency", back)
        if forward:
            self.add("forward", ahead)

    def rank_count(self) -> None:
        """Rank k shows at exactly total[k] positions: a prefix counter over rank[.][k] with
        ("count", k, q, j) = "rank k shows at j or more of the positions 1..q"."""
        totals: dict[int, int] = {}
        for c in self.moves:
            totals[self.problem.rank[c]] = totals.get(self.problem.rank[c], 0) + 1
        keys = self.keys
        clauses: list[list[int]] = []
        add = clauses.append
        for k, total in sorted(totals.items()):
            prev: list[int] = []  # prev[j - 1] = "j or more so far"
            for q in range(1, self.n + 1):
                lit = self.rank_at[q].get(k)
                if lit is None:
                    continue
                width = min(len(prev) + 1, total + 1)
                start = len(keys) + 1
                keys.extend(("count", k, q, j) for j in range(1, width + 1))
                row = list(range(start, start + width))
                # j = 1: lit or an earlier one
                now = row[0]
                add([-lit, now])
                if prev:
                    had = prev[0]
                    add([-had, now])
                    add([-now, lit, had])
                else:
                    add([-now, lit])
                for j in range(2, width + 1):
                    now, less = row[j - 1], prev[j - 2]
                    add([-lit, -less, now])
                    add([-now, less])
                    if j <= len(prev):
                        had = prev[j - 1]
                        add([-had, now])
                        add([-now, lit, had])
                    else:
                        add([-now, lit])
                prev = row
            if len(prev) < total:
                add([])  # too few positions can show rank k
                continue
            add([prev[total - 1]])
            if len(prev) > total:
                add([-prev[total]])
        self.add("rank-count", clauses)

    def precedence(self) -> None:
        """a before b: by[b][q] implies by[a][q-1]."""
        clauses = []
        first, last, base = self.first, self.last, self.by_base
        for a, b in self.problem.precedence:
            for q in range(first[b], last[a] + 1):  # elsewhere the clause is true
                clause = [-(base[b] + q)] if q < last[b] else []
                if q - 1 >= first[a]:
                    clause.append(base[a] + q - 1)
                clauses.append(clause)
        self.add("precedence", clauses)

    def hole(self, q: int, k: int) -> list[int]:
        """Literals that say the hole shows rank k after position q (one is true if so)."""
        if "rank" in self.features:
            return [self.rank_at[q][k]] if k in self.rank_at[q] else []
        rank = self.problem.rank
        return [self.at[c][q] for c in self.cards_at[q] if rank[c] == k]

    def dead_rank(self) -> None:
        """A rank with cards left must be reachable from the hole's rank through ranks
        with cards left: up[k] (down[k]) walks the rank cycle upward (downward)."""
        p, m = self.problem, self.problem.modulus
        by_rank: dict[int, list[int]] = {}
        for c in self.moves:
            by_rank.setdefault(p.rank[c], []).append(c)
        chain: list[list[Lit]] = []
        need: list[list[Lit]] = []
        for q in range(1, self.n):
            up = {k: self.var(("up", k, q)) for k in range(1, m + 1)}
            down = {k: self.var(("down", k, q)) for k in range(1, m + 1)}
            for k in range(1, m + 1):
                left = [self.neg(self.by(c, q)) for c in by_rank.get(k, ())]
                hole = self.hole(q, k)
                below, above = (k - 2) % m + 1, k % m + 1
                chain += [[-up[k], *hole, up[below]], [-up[k], *hole, *left],
                          [-down[k], *hole, down[above]], [-down[k], *hole, *left]]
                need += [[self.by(c, q), up[k], down[k]] for c in by_rank.get(k, ())]
        self.add_folded("deadrank-walk", chain)
        self.add_folded("deadrank-need", need)

    def symmetry(self) -> None:
        """Same-rank pairs: `first` before `second` unless they cannot trade places."""
        n, at, by, neg = self.n, self.at_lit, self.by, self.neg
        clauses: list[list[Lit]] = []
        for pair in same_rank_pairs(self.problem):
            c1, c2, a1, b2 = pair.first, pair.second, pair.above_first, pair.below_second
            positions = range(1, n + 1)
            if a1 is None and b2 is None:  # c1 before c2, always
                clauses += [[neg(by(c2, q)), by(c1, q - 1)] for q in positions]
            elif a1 is None:  # never c2 < c1 < b2
                clauses += [[neg(at(c1, q)), neg(by(c2, q - 1)), by(b2, q - 1)]
                            for q in positions]
            elif b2 is None:  # never a1 < c2 < c1
                clauses += [[neg(at(c2, q)), neg(by(a1, q - 1)), by(c1, q - 1)]
                            for q in positions]
            else:  # never a1 < c2 < c1 < b2, through swap = (a1 < c2 < c1)
                swap = self.var(("swap", c1, c2))
                clauses += [[neg(at(c2, q)), neg(by(a1, q - 1)), by(c1, q - 1), swap]
                            for q in positions]
                clauses += [[-swap, neg(at(c1, q)), by(b2, q - 1)] for q in positions]
        self.add_folded("symmetry", clauses)
