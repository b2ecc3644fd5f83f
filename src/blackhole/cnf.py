"""The SAT encoding of a Problem: a position encoding, specified in encodings/sat.md.

Card c is played at position p (1..n) when `("at", c, p)` is true; `("by", c, p)` says
c is played at position p or earlier (an order encoding, which gives exactly-one per
card and the precedence pairs in binary clauses). Optional features add auxiliary rank
variables, cut the position domains, and add implied or symmetry-breaking clauses; each
is switched by name so that its soundness can be tested on its own.

Every number in encodings/sat.md is a count of what this module builds: keep them equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from pysat.formula import IDPool

from blackhole.problem import Problem, same_rank_pairs

ENCODING_VERSION = "position-1"

# Each feature, with the one-line meaning used in help texts; encodings/sat.md has the math.
FEATURE_HELP: dict[str, str] = {
    "domain": "position domains cut by the cards that must come before and after",
    "reach": "position domains cut by the rank walk from the start",
    "rank": "auxiliary rank-at-position variables carry the adjacency",
    "amo": "at most one card per position (implied by pigeonhole)",
    "compact": "sequential-counter at-most-one instead of pairwise clauses",
    "forward": "redundant forward adjacency (each position has a successor)",
    "deadrank": "every rank with cards left is reachable from the hole's rank",
    "symmetry": "same-rank symmetry breaking (Gent et al. 2007)",
}
FEATURES: frozenset[str] = frozenset(FEATURE_HELP)
DEFAULT_FEATURES: frozenset[str] = frozenset({"domain", "reach", "rank", "amo", "compact"})
# Plain and auditable: everything here is logically implied by the rules.
CERTIFY_FEATURES: frozenset[str] = frozenset({"domain", "rank", "amo"})

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
        return f"counter {rest[0]} {rest[1]}: one of its first {rest[2] + 1} literals is true"
    if kind == "alive":
        return f"alive rank {rest[0]} has cards left after position {rest[1]}"
    if kind in ("up", "down"):
        return f"{kind} rank {rest[0]} reachable {kind}ward from the hole after position {rest[1]}"
    if kind == "swap":
        return (f"swap {card[rest[0]]} {card[rest[1]]}: {card[rest[1]]} is played before "
                f"{card[rest[0]]} and after the card on {card[rest[0]]}")
    return " ".join(map(str, key))


def build_cnf(problem: Problem, features: Iterable[str] = DEFAULT_FEATURES) -> Encoding:
    chosen = frozenset(features)
    unknown = chosen - FEATURES
    if unknown:
        raise ValueError(f"unknown encoding feature(s) {sorted(unknown)}; "
                         f"choose from {sorted(FEATURES)}")
    return _Builder(problem, chosen).build()


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
            seq = [self.var(("seq", key, i)) for i in range(len(lits) - 1)]
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
            before = _closure(self.moves, [(a, b) for a, b in p.precedence])
            after = _closure(self.moves, [(b, a) for a, b in p.precedence])
            for c in self.moves:
                lo[c] = 1 + len(after[c])  # every card that must precede c
                hi[c] = n - len(before[c])  # every card that must follow c
        self.rank_adj = _rank_graph(p)
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
        n, var = self.n, self.var
        self.at: dict[int, dict[int, int]] = {c: {} for c in self.moves}
        for q in range(1, n + 1):
            for c in self.cards_at[q]:
                self.at[c][q] = var(("at", c, q))
        # by[c][q] exists for first <= q < last; FALSE before, TRUE from last on
        self.first = {c: min(self.at[c], default=n + 1) for c in self.moves}
        self.last = {c: max(self.at[c], default=0) for c in self.moves}
        self.by_var: dict[int, dict[int, int]] = {
            c: {q: var(("by", c, q)) for q in range(self.first[c], self.last[c])}
            for c in self.moves}
        if "rank" in self.features:
            rank = self.problem.rank
            self.rank_at: list[dict[int, int]] = [{}] + [
                {k: var(("rank", q, k)) for k in sorted({rank[c] for c in self.cards_at[q]})}
                for q in range(1, n + 1)]

    def by(self, c: int, q: int) -> Lit:
        """Literal for "c is played at position q or earlier"."""
        if q < self.first[c]:
            return FALSE
        if q >= self.last[c]:
            return TRUE
        return self.by_var[c][q]

    def at_lit(self, c: int, q: int) -> Lit:
        return self.at[c].get(q, FALSE)

    def card_exactly_one(self) -> None:
        """Order encoding: by[c] rises once, and at[c][q] is exactly that rise."""
        link: list[list[int]] = []
        mono: list[list[int]] = []
        for c in self.moves:
            first, last, at, by = self.first[c], self.last[c], self.at[c], self.by_var[c]
            if first > last:
                link.append([])  # no position left for c: the deal is lost
                continue
            for q in range(first, last + 1):
                x = at.get(q)
                rise = [] if x is None else [x]
                if q < last:
                    rise.append(-by[q])
                    if x is not None:
                        link.append([-x, by[q]])
                    if q < last - 1:
                        mono.append([-by[q], by[q + 1]])
                if q > first:
                    rise.append(by[q - 1])
                    if x is not None:
                        link.append([-x, -by[q - 1]])
                link.append(rise)
        self.add("card", link)
        self.add("order", mono)

    def position_constraints(self) -> None:
        rank = self.problem.rank
        self.add("position-alo", [[self.at[c][q] for c in self.cards_at[q]]
                                  for q in range(1, self.n + 1)])
        if "amo" not in self.features:
            return
        for q in range(1, self.n + 1):
            cards = self.cards_at[q]
            if "rank" in self.features:
                self.at_most_one("position-amo", ("rank", q), list(self.rank_at[q].values()))
                for k in self.rank_at[q]:
                    self.at_most_one("position-amo", ("rank", q, k),
                                     [self.at[c][q] for c in cards if rank[c] == k])
            else:
                self.at_most_one("position-amo", ("pos", q), [self.at[c][q] for c in cards])

    def adjacency(self) -> None:
        p, n = self.problem, self.n
        forward = "forward" in self.features
        back: list[list[int]] = []
        ahead: list[list[int]] = []
        if "rank" in self.features:
            rank, adj = p.rank, self.rank_adj
            self.add("rank-channel", [[-self.at[c][q], self.rank_at[q][rank[c]]]
                                      for q in range(1, n + 1) for c in self.cards_at[q]])
            self.add("rank-support", [[-v] + [self.at[c][q] for c in self.cards_at[q]
                                              if rank[c] == k]
                                      for q in range(1, n + 1)
                                      for k, v in self.rank_at[q].items()])
            start_rank = None if p.start is None else rank[p.start]
            for q in range(1, n + 1):
                for k, v in self.rank_at[q].items():
                    if q > 1:
                        back.append([-v] + [w for j, w in self.rank_at[q - 1].items()
                                            if j in adj.get(k, ())])
                    elif start_rank is not None and k not in adj.get(start_rank, ()):
                        back.append([-v])
                    if forward and q < n:
                        ahead.append([-v] + [w for j, w in self.rank_at[q + 1].items()
                                             if j in adj.get(k, ())])
        else:
            for q in range(1, n + 1):
                for c in self.cards_at[q]:
                    x = self.at[c][q]
                    if q > 1:
                        back.append([-x] + [self.at[d][q - 1] for d in p.neighbours[c]
                                            if q - 1 in self.at[d]])
                    elif p.start is not None and c not in p.neighbours[p.start]:
                        back.append([-x])
                    if forward and q < n:
                        ahead.append([-x] + [self.at[d][q + 1] for d in p.neighbours[c]
                                             if q + 1 in self.at[d]])
        self.add("adjacency", back)
        if forward:
            self.add("forward", ahead)

    def precedence(self) -> None:
        """a before b: by[b][q] implies by[a][q-1]."""
        clauses = []
        first, last, by = self.first, self.last, self.by_var
        for a, b in self.problem.precedence:
            for q in range(first[b], last[a] + 1):  # elsewhere the clause is true
                clause = [-by[b][q]] if q < last[b] else []
                if q - 1 >= first[a]:
                    clause.append(by[a][q - 1])
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


def _closure(nodes: Sequence[int], pairs: list[tuple[int, int]]) -> dict[int, set[int]]:
    """For each node, every node reachable through `pairs` (before → after)."""
    succ: dict[int, list[int]] = {v: [] for v in nodes}
    for a, b in pairs:
        succ[a].append(b)
    out: dict[int, set[int]] = {}
    for v in nodes:
        seen: set[int] = set()
        stack = list(succ[v])
        while stack:
            w = stack.pop()
            if w not in seen:
                seen.add(w)
                stack.extend(succ[w])
        out[v] = seen
    return out


def _rank_graph(problem: Problem) -> dict[int, set[int]]:
    """Rank → ranks one move away, read from the Problem's arcs."""
    graph: dict[int, set[int]] = {}
    for a in range(problem.size):
        for b in problem.neighbours[a]:
            graph.setdefault(problem.rank[a], set()).add(problem.rank[b])
    return graph
