"""The SAT encoding of a Problem: a position encoding, specified in encodings/sat.md.

Card c is played at position q (1..n) when `("at", c, q)` is true; `("by", c, q)` says
c is played at position q or earlier (the "played by" ladder of `encode.layout`, which
gives exactly-one per card and the precedence pairs in binary clauses). Optional
features add auxiliary rank variables, cut the position domains, and add implied or
symmetry-breaking clauses; each is switched by name so that its soundness can be tested
on its own.

Every variable is made through one `Pool` under a readable key, and each clause family
is a function of the variables (and the pool, for the auxiliaries it makes) that returns
its clauses: `build_cnf` calls them in one fixed order, which fixes the numbering.

With `optional=True` the positions may stay empty from some point on: the CNF then
describes every legal line (a prefix of a complete one), `filled(q)` says position q is
played, and `Encoding.filled_literal(k)` is "at least k cards are played", for
assumptions with an incremental solver. Only the features that are sound for prefixes
are allowed there (encodings/sat.md, "Optional positions").

Every number in encodings/sat.md is a count of what this module builds: keep them equal.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from blackhole.deadline import OutOfTime, check
from blackhole.encode.layout import Domains, Layout, Lit, make_domains, make_layout, symmetry_cut
from blackhole.errors import ArgumentError, DecodeError, InputError, InternalError
from blackhole.problem import Problem

# position-5: the sequential counters are pysat's CardEnc clauses (the same clauses as
# position-4, in CardEnc's order)
ENCODING_VERSION = "position-5"

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

_DIMACS_BLOCK = 50_000  # clauses rendered between two looks at the clock
_PAIRWISE_UP_TO = 6  # below this many literals pairwise at-most-one is as small as a counter

Clause = list[int]


class Pool:
    """Variables by readable key, numbered 1, 2, ... in the order they are made: the idea
    of pysat's IDPool (`id(key)`, `obj(var)`), with blocks made at once for speed.

    A block made by `reserve` is named lazily: its keys are listed only when a key is
    first asked for (`keys`, `id`, `obj`), as a solve reads none of them."""

    def __init__(self) -> None:
        self.top = 0
        # the blocks in order: their keys, or (count, a function that lists them)
        self._blocks: list[list[tuple] | tuple[int, Callable[[], list[tuple]]]] = []
        self._keys: list[tuple] = []  # the keys of the blocks listed so far
        self._ids: dict[tuple, int] | None = None  # made on the first `id` call

    def extend(self, keys: Iterable[tuple]) -> range:
        """Make a variable for each key; their numbers, consecutive."""
        block = list(keys)
        self._blocks.append(block)
        start = self.top + 1
        self.top += len(block)
        return range(start, self.top + 1)

    def reserve(self, count: int, keys: Callable[[], list[tuple]]) -> range:
        """Make `count` variables whose keys `keys()` lists when they are first needed (it
        must list exactly `count`, from values that do not change)."""
        self._blocks.append((count, keys))
        start = self.top + 1
        self.top += count
        return range(start, self.top + 1)

    @property
    def keys(self) -> list[tuple]:
        """The key of every variable: variable v has key keys[v - 1]."""
        if len(self._keys) < self.top:
            listed = []
            for block in self._blocks:
                if isinstance(block, tuple):
                    count, make = block
                    block = make()
                    if len(block) != count:
                        raise InternalError(f"a block of {count} variables named {len(block)}")
                listed += block
            self._keys = listed
            self._ids = None
        return self._keys

    def id(self, key: tuple) -> int:
        keys = self.keys
        if self._ids is None or len(self._ids) != len(keys):
            self._ids = {key: v for v, key in enumerate(keys, start=1)}
            if len(self._ids) != len(keys):
                raise InternalError("two variables share a key")
        return self._ids[key]

    def obj(self, var: int) -> tuple | None:
        return self.keys[var - 1] if 0 < var <= self.top else None


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

    def at_least(self, k: int) -> Encoding:
        """This CNF and the unit clause filled(k), family "at-least": unsatisfiable exactly
        when no line plays k cards, so its refutation proves a best score below k (the
        statement of an optimality certificate)."""
        counts = {**self.family_counts, "at-least": 1}
        return replace(self, clauses=[*self.clauses, [self.filled_literal(k)]],
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
        return tuple(order)

    def describe(self, var: int) -> str:
        """What variable `var` means, in words."""
        return describe_key(self.problem, self.pool.obj(var))

    def dimacs(self, names: bool = True, deadline: float | None = None) -> str:
        """DIMACS text: comment lines naming the encoding's version, features, bound and
        clause families (and, with `names`, what every variable means), the header, then
        one clause a line. Every literal is rendered once and the clauses are joined a
        large block at a time (the clock is read between blocks: OutOfTime once the
        `deadline` passes): the variable names take longer than the rest together."""
        lines = [f"c blackhole SAT encoding {ENCODING_VERSION}",
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
    if kind == "filled":
        return f"filled position {rest[0]} holds a card"
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


# ---------------------------------------------------------------- variables


@dataclass(frozen=True)
class Variables:
    """The variables every family reads: at, the by ladder, rank and filled, made once in
    a fixed order by `make_variables`."""

    domains: Domains
    at: dict[int, dict[int, int]]  # card → position → variable
    by_base: dict[int, int]  # by(c, q) is variable by_base[c] + q on the ladder of c
    groups: list[dict[int, list[int]]]  # position → rank → at-variables, ranks ascending
    slots: list[tuple[tuple[int, int], ...]]  # position → ((at-variable, card), ...)
    rank_at: list[dict[int, int]] | None  # position → rank → variable (feature rank)
    filled: list[int] | None  # position → variable (optional positions; index 0 unused)

    @property
    def layout(self) -> Layout:
        return self.domains.layout

    def by(self, c: int, q: int) -> int | bool:
        """The literal "c is played at position q or earlier": a variable, or a constant (see
        `Domains.played_by`)."""
        d = self.domains
        if q < d.first[c]:
            return False
        if q >= d.last[c]:
            return self.by_base[c] + d.last[c] if d.optional else True
        return self.by_base[c] + q

    def literal(self, lit: Lit, made: dict[tuple, int]) -> int:
        """The variable of an abstract layout literal (`made`: auxiliaries by key)."""
        kind, *rest = lit.key
        if kind == "at":
            var = self.at[rest[0]][rest[1]]
        elif kind == "by":
            var = self.by_base[rest[0]] + rest[1]
        else:
            var = made[lit.key]
        return var if lit.positive else -var


def make_variables(domains: Domains, pool: Pool, *, rank: bool) -> Variables:
    """at (by position, cards in node order), the by ladders (card by card), rank (by
    position, ranks ascending), filled (by position)."""
    layout, cards_at = domains.layout, domains.cards_at
    n, moves, rank_of = layout.n, layout.moves, layout.problem.rank
    positions = range(1, n + 1)
    at: dict[int, dict[int, int]] = {c: {} for c in moves}
    groups: list[dict[int, list[int]]] = [{}]
    slots: list[tuple[tuple[int, int], ...]] = [()]
    var = pool.top
    for q in positions:
        group: dict[int, list[int]] = {}
        cards = cards_at[q]
        slot = tuple(zip(range(var + 1, var + len(cards) + 1), cards, strict=True))
        var += len(cards)
        for x, c in slot:
            at[c][q] = x
            k = rank_of[c]
            if k in group:
                group[k].append(x)
            else:
                group[k] = [x]
        groups.append(dict(sorted(group.items())))
        slots.append(slot)
    pool.reserve(var - pool.top, lambda: [("at", c, q) for q in positions for c in cards_at[q]])
    by_base: dict[int, int] = {}
    var = pool.top
    for c in moves:
        steps = domains.ladder(c)
        by_base[c] = var - steps.start + 1
        var += len(steps)
    pool.reserve(var - pool.top,
                 lambda: [("by", c, q) for c in moves for q in domains.ladder(c)])
    rank_at = None
    if rank:
        rank_at = [{}]
        var = pool.top
        for q in positions:
            ks = groups[q]
            rank_at.append(dict(zip(ks, range(var + 1, var + len(ks) + 1), strict=True)))
            var += len(ks)
        pool.reserve(var - pool.top,
                     lambda: [("rank", q, k) for q in positions for k in groups[q]])
    filled = None
    if domains.optional:
        filled = [0, *pool.extend(("filled", q) for q in positions)]
    return Variables(domains, at, by_base, groups, slots, rank_at, filled)


# ---------------------------------------------------------------- clause families


def card_links(v: Variables) -> list[Clause]:
    """Order encoding: by(c, ·) rises at most once (exactly once for complete lines), and
    at(c, q) is exactly that rise."""
    d = v.domains
    optional = d.optional
    link: list[Clause] = []
    add, more = link.append, link.extend
    for c in v.layout.moves:
        first, last, at, base = d.first[c], d.last[c], v.at[c], v.by_base[c]
        top = last if optional else last - 1  # the last position with a by variable
        if first > top:
            # complete lines: one position, and the card is there; none: the deal is lost
            if not optional:
                add([at[first]] if first == last else [])
            continue
        y = base + first  # by(c, first)
        x = at[first]
        more(([-x, y], [x, -y]))
        if len(at) == top - first + 1 + (not optional):  # no holes: at(c, q) at every q
            for q in range(first + 1, top + 1):
                y += 1
                x = at[q]
                more(([-x, y], [-x, 1 - y], [x, -y, y - 1]))
        else:
            get = at.get
            for q in range(first + 1, top + 1):
                y += 1
                x = get(q)
                if x is None:  # a hole in the domain: no rise here
                    add([-y, y - 1])
                else:
                    more(([-x, y], [-x, 1 - y], [x, -y, y - 1]))
        if not optional:  # the rise at the last position, where by is TRUE
            x = at[last]
            more(([-x, -y], [x, y]))
    return link


def ladder_order(v: Variables) -> list[Clause]:
    """by(c, q) → by(c, q + 1) along each ladder."""
    mono: list[Clause] = []
    ladder, by_base = v.domains.ladder, v.by_base
    for c in v.layout.moves:
        steps = ladder(c)
        if len(steps) > 1:
            y = by_base[c] + steps.start
            mono += [[-q, q + 1] for q in range(y, y + len(steps) - 1)]
    return mono


def at_most_one(lits: list[int], group: tuple, pool: Pool, compact: bool) -> list[Clause]:
    """Pairwise, or (compact, more than six literals) Sinz's sequential counter, whose
    auxiliaries get the keys ("seq", group, i)."""
    g = len(lits)
    if g < 2:
        return []
    if compact and g > _PAIRWISE_UP_TO:
        made = pool.reserve(g - 1, lambda: [("seq", group, i) for i in range(g - 1)])
        return sequential_counter(lits, made.start)
    return [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]


def sequential_counter(lits: Sequence[int], first: int) -> list[Clause]:
    """At most one of `lits` (more than two) by Sinz's sequential counter over the
    auxiliaries s_i = first + i - 1, i = 1..g - 1 ("one of x_1..x_i is true"): the
    clauses of pysat's `CardEnc.atmost(lits, 1, encoding=EncType.seqcounter)`, in its
    order, written out (a call costs more than the clauses)."""
    x1, *middle, last = lits
    clauses: list[Clause] = [[-x1, first]]
    s = first
    for x in middle:
        clauses += ([-s, s + 1], [-x, -s], [-x, s + 1])
        s += 1
    clauses.append([-last, -s])
    return clauses


def position_at_most_one(v: Variables, pool: Pool, compact: bool) -> list[Clause]:
    """At most one card per position (at most one rank, and one card of it, with rank)."""
    clauses: list[Clause] = []
    if v.rank_at is not None:
        rank_at, groups = v.rank_at, v.groups
        for q in v.layout.positions:
            clauses += at_most_one(list(rank_at[q].values()), ("rank", q), pool, compact)
            for k, lits in groups[q].items():
                size = len(lits)
                if size == 4:  # the common cases (a suit each), written out
                    a, b, c, d = -lits[0], -lits[1], -lits[2], -lits[3]
                    clauses += ([a, b], [a, c], [a, d], [b, c], [b, d], [c, d])
                elif size == 3:
                    a, b, c = -lits[0], -lits[1], -lits[2]
                    clauses += ([a, b], [a, c], [b, c])
                elif size == 2:
                    clauses.append([-lits[0], -lits[1]])
                elif size > 4:
                    clauses += at_most_one(lits, ("rank", q, k), pool, compact)
    else:
        at, cards_at = v.at, v.domains.cards_at
        for q in v.layout.positions:
            clauses += at_most_one([at[c][q] for c in cards_at[q]], ("pos", q), pool, compact)
    return clauses


def position_at_least_one(v: Variables, alo: bool) -> list[Clause]:
    """Complete lines: a card at every position. Long clauses cost more propagation than
    they save, so only with `alo`; a position no card can take still gets its (empty)
    clause, which pigeonhole would find slowly."""
    return [[v.at[c][q] for c in v.domains.cards_at[q]] for q in v.layout.positions
            if alo or not v.domains.cards_at[q]]


def filled_positions(v: Variables) -> dict[str, list[Clause]]:
    """Optional positions: filled(q + 1) → filled(q); a filled position holds a card (a
    rank, with rank) and a card (rank) at q fills it; and when the last position is
    filled every card is played (implied by pigeonhole, which a solver finds slowly: this
    keeps the question "are all n played?" as easy as a plain solve)."""
    filled, rank_at, cards_at = v.filled or [], v.rank_at, v.domains.cards_at
    positions = v.layout.positions
    prefix = [[-filled[q + 1], filled[q]] for q in positions[:-1]]
    full = [[-filled[-1]] + ([] if (top := v.by(c, v.layout.n)) is False else [top])
            for c in v.layout.moves]
    if rank_at is not None:
        holds = [[-filled[q], *rank_at[q].values()] for q in positions]
        fills = [[-lit, filled[q]] for q in positions for lit in rank_at[q].values()]
    else:
        holds = [[-filled[q]] + [v.at[c][q] for c in cards_at[q]] for q in positions]
        fills = [[-v.at[c][q], filled[q]] for q in positions for c in cards_at[q]]
    return {"filled-prefix": prefix, "filled-holds": holds, "filled-by": fills,
            "filled-all": full}


def rank_channel(v: Variables) -> dict[str, list[Clause]]:
    rank, rank_at, groups = v.layout.problem.rank, v.rank_at or [], v.groups
    channel: list[Clause] = []
    support: list[Clause] = []
    for q, slot in enumerate(v.slots[1:], start=1):
        here = rank_at[q]
        channel += [[-x, here[rank[c]]] for x, c in slot]
        support += [[-here[k], *lits] for k, lits in groups[q].items()]
    return {"rank-channel": channel, "rank-support": support}


def adjacency(v: Variables, forward: bool) -> dict[str, list[Clause]]:
    """Each card has a rank-adjacent predecessor (and, with `forward`, a successor when
    the next position is played)."""
    layout = v.layout
    p, n, links = layout.problem, layout.n, layout.links
    back: list[Clause] = []
    ahead: list[Clause] = []
    filled = v.filled
    if v.rank_at is not None:
        rank_at = v.rank_at
        if p.start is not None and n:
            near_start = links.get(p.rank[p.start], ())
            back += [[-x] for k, x in rank_at[1].items() if k not in near_start]
        linked = _RankLinks(links)
        for q in range(1, n + 1):
            if q > 1:
                back += linked.clauses(rank_at[q], rank_at[q - 1], [])
            if forward and q < n:
                guard = [] if filled is None else [-filled[q + 1]]
                ahead += linked.clauses(rank_at[q], rank_at[q + 1], guard)
    else:
        at, cards_at = v.at, v.domains.cards_at
        for q in range(1, n + 1):
            guard = [] if filled is None or q == n else [-filled[q + 1]]
            for c in cards_at[q]:
                x = at[c][q]
                if q > 1:
                    back.append([-x] + [at[d][q - 1] for d in p.neighbours[c]
                                        if q - 1 in at[d]])
                elif p.start is not None and c not in p.neighbours[p.start]:
                    back.append([-x])
                if forward and q < n:
                    ahead.append([-x, *guard] + [at[d][q + 1] for d in p.neighbours[c]
                                                 if q + 1 in at[d]])
    families = {"adjacency": back}
    if forward:
        families["forward"] = ahead
    return families


class _RankLinks:
    """The clauses x(k) → guard ∨ ∨_{j ∈ N_R(k)} y(j) between the rank variables of two
    positions. Those of a position are numbered consecutively, ranks ascending, so which
    offsets of y a rank links to depends only on the two rank sets: that pattern is
    worked out once per pair of rank sets (most positions can show every rank)."""

    def __init__(self, links: dict[int, tuple[int, ...]]) -> None:
        self.links = links
        # (ranks at x's position, ranks at y's) → (offsets per rank, all of two offsets)
        self.patterns: dict[tuple[tuple[int, ...], tuple[int, ...]],
                            tuple[list[tuple[int, ...]], bool]] = {}

    def clauses(self, xs: dict[int, int], ys: dict[int, int], guard: list[int]
                ) -> list[Clause]:
        if not ys:
            return [[-x, *guard] for x in xs.values()]
        key = (tuple(xs), tuple(ys))
        found = self.patterns.get(key)
        if found is None:
            offset = {k: i for i, k in enumerate(ys)}
            pattern = [tuple(offset[j] for j in self.links.get(k, ()) if j in offset)
                       for k in xs]
            found = self.patterns[key] = (pattern, all(len(o) == 2 for o in pattern))
        pattern, two = found
        base = next(iter(ys.values()))
        if two:  # two neighbour ranks each: the rule
            if guard:
                return [[-x, *guard, base + i, base + j]
                        for x, (i, j) in zip(xs.values(), pattern, strict=True)]
            return [[-x, base + i, base + j] for x, (i, j) in zip(xs.values(), pattern,
                                                                   strict=True)]
        return [[-x, *guard, *[base + i for i in offsets]]
                for x, offsets in zip(xs.values(), pattern, strict=True)]


def precedence(v: Variables) -> list[Clause]:
    """a before b: by(b, q) implies by(a, q - 1), where neither side is a constant that
    makes the clause hold (`Variables.by`, written out: this family is the largest)."""
    clauses: list[Clause] = []
    d = v.domains
    first, last, base, optional = d.first, d.last, v.by_base, d.optional
    for a, b in v.layout.problem.precedence:
        fa, la, fb, lb, ba, bb = first[a], last[a], first[b], last[b], base[a], base[b]
        # complete lines: by(b, q) is TRUE from l(b) on and by(a, q - 1) from l(a) + 1 on,
        # so only f(b) <= q <= l(a) remain; prefixes: by(b, q) is a variable on f(b)..l(b)
        # and by(a, q - 1) is never TRUE (it is by(a, l(a)) above l(a))
        end = (lb if optional else la) + 1  # q < end
        both = lb + 1 if optional else lb  # by(b, q) is a variable for q < both
        q = fb
        if q <= fa and q < end:  # by(a, q - 1) is FALSE
            stop = min(fa + 1, end)
            clauses += [[-(bb + q)] if q < both else [] for q in range(q, stop)]
            q = stop
        if q < end:
            # by(b, q) and by(a, min(q - 1, l(a))) are both variables
            mid = min(end, both, la + 1)
            shift = ba - bb - 1
            clauses += [[-y, y + shift] for y in range(bb + q, bb + mid)]
            clauses += [[-(bb + q), ba + la] if q < both else [ba + min(q - 1, la)]
                        for q in range(max(q, mid), end)]
    return clauses


def rank_count(v: Variables, pool: Pool) -> list[Clause]:
    """Rank k shows at exactly total[k] positions (for prefixes: at most, and exactly when
    every position is filled): a prefix counter over rank(·, k) with ("count", k, q, j) =
    "rank k shows at j or more of 1..q"."""
    rank_at, rank = v.rank_at or [], v.layout.problem.rank
    guard = [-v.filled[-1]] if v.filled is not None and v.layout.n else []
    totals: dict[int, int] = {}
    for c in v.layout.moves:
        totals[rank[c]] = totals.get(rank[c], 0) + 1
    positions = v.layout.positions
    clauses: list[Clause] = []
    add, more = clauses.append, clauses.extend
    for k, total in sorted(totals.items()):
        # the positions that can show k, with rank(q, k); row i of the counter (the i-th
        # of them) holds "j or more so far" for j = 1..width(i), numbered consecutively
        shows = [(q, here[k]) for q in positions if k in (here := rank_at[q])]
        widths = [min(i, total + 1) for i in range(1, len(shows) + 1)]
        prev = top = pool.top  # prev + j: "j or more so far" on the row before
        had = 0  # the width of the row before
        for (_, lit), width in zip(shows, widths, strict=True):
            now = top + 1
            nlit = -lit
            # j = 1: lit or an earlier one
            if had:
                more(([nlit, now], [-(prev + 1), now], [-now, lit, prev + 1]))
            else:
                more(([nlit, now], [-now, lit]))
            if width == had:  # the row as wide as the one before: a clause pattern
                for less in range(prev + 1, prev + width):
                    now = less + width + 1  # less = "j - 1 or more" before, now = "j or more"
                    more(([nlit, -less, now], [-now, less], [-less - 1, now],
                          [-now, lit, less + 1]))
            else:
                for j in range(2, width + 1):
                    now, less = top + j, prev + j - 1
                    if j <= had:
                        more(([nlit, -less, now], [-now, less], [-(less + 1), now],
                              [-now, lit, less + 1]))
                    else:
                        more(([nlit, -less, now], [-now, less], [-now, lit]))
            prev, had = top, width
            top += width
        pool.reserve(top - pool.top, lambda k=k, shows=shows, widths=widths: [
            ("count", k, q, j) for (q, _), width in zip(shows, widths, strict=True)
            for j in range(1, width + 1)])
        if had < total:
            add(guard)  # too few positions can show rank k
            continue
        add(guard + [prev + total])
        if had > total:
            add([-(prev + total + 1)])
    return clauses


def dead_rank(v: Variables, pool: Pool) -> dict[str, list[Clause]]:
    """A rank with cards left must be reachable from the hole's rank through ranks with
    cards left: up(k, q) (down(k, q)) walks the rank cycle upward (downward)."""
    layout = v.layout
    p, m, n = layout.problem, layout.problem.modulus, layout.n
    by_rank: dict[int, list[int]] = {}
    for c in layout.moves:
        by_rank.setdefault(p.rank[c], []).append(c)
    chain: list[list[int | bool]] = []
    need: list[list[int | bool]] = []
    for q in range(1, n):
        up = dict(zip(range(1, m + 1), pool.extend(("up", k, q) for k in range(1, m + 1)),
                      strict=True))
        down = dict(zip(range(1, m + 1), pool.extend(("down", k, q) for k in range(1, m + 1)),
                        strict=True))
        for k in range(1, m + 1):
            left = [_negated(v.by(c, q)) for c in by_rank.get(k, ())]
            hole = _hole(v, q, k)
            below, above = (k - 2) % m + 1, k % m + 1
            chain += [[-up[k], *hole, up[below]], [-up[k], *hole, *left],
                      [-down[k], *hole, down[above]], [-down[k], *hole, *left]]
            need += [[v.by(c, q), up[k], down[k]] for c in by_rank.get(k, ())]
    return {"deadrank-walk": _folded(chain), "deadrank-need": _folded(need)}


def _hole(v: Variables, q: int, k: int) -> list[int]:
    """Literals that say the hole shows rank k after position q (one is true if so)."""
    if v.rank_at is not None:
        return [v.rank_at[q][k]] if k in v.rank_at[q] else []
    rank = v.layout.problem.rank
    return [v.at[c][q] for c in v.domains.cards_at[q] if rank[c] == k]


def _negated(lit: int | bool) -> int | bool:
    return (not lit) if isinstance(lit, bool) else -lit


def _folded(clauses: Iterable[list[int | bool]]) -> list[Clause]:
    """Clauses without False; those holding True are dropped."""
    out = []
    for clause in clauses:
        if any(lit is True for lit in clause):
            continue
        out.append([lit for lit in clause if lit is not False])
    return out


def symmetry(v: Variables, pool: Pool) -> list[Clause]:
    """The layout's same-rank symmetry cut, on this encoding's variables."""
    cut = symmetry_cut(v.domains)
    made = dict(zip(cut.variables, pool.extend(cut.variables), strict=True))
    return [[v.literal(lit, made) for lit in clause] for clause in cut.clauses]


# ---------------------------------------------------------------- the encoding


def build_cnf(problem: Problem, features: Iterable[str] = DEFAULT_FEATURES, *,
              optional: bool = False, layout: Layout | None = None,
              deadline: float | None = None) -> Encoding:
    """The CNF of `problem` with the chosen features (an InputError names unknown or
    unsound ones). With `optional`, positions may stay empty: see the module doc. The
    clock is read between clause families: `blackhole.deadline.OutOfTime` when the
    `deadline` (a `time.perf_counter()` reading) passes before the CNF is complete."""
    chosen = known_features(features, optional=optional)
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
    for family, found in adjacency(v, use("forward")).items():
        add(family, found)
    add("precedence", precedence(v))
    if use("rankcount"):
        add("rank-count", rank_count(v, pool))
    if use("deadrank"):
        for family, found in dead_rank(v, pool).items():
            add(family, found)
    if use("symmetry"):
        add("symmetry", symmetry(v, pool))
    filled = tuple(v.filled[1:]) if v.filled is not None else ()
    return Encoding(clauses, pool, layout.problem, features, counts, tuple(v.slots[1:]),
                    optional, filled)
