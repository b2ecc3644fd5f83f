"""The variables of the SAT encoding (encodings/sat.md, "Variables"): the `Pool` that
numbers every variable under a readable key, and the variables every clause family reads
(at, the "played by" ladder, rank, talon (Golf, encodings/golf.md), filled), made once in
a fixed order by `make_variables`, which fixes their numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from blackhole.base.errors import InternalError
from blackhole.encode.layout import Domains, Layout, Lit

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
    # position → "a talon card is played here" (0: no talon card can be; index 0 unused);
    # None without a talon (encodings/golf.md)
    talon_at: list[int] | None = None

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
    position, ranks ascending), talon (by position, where a talon card can be), filled
    (by position)."""
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
    talon_at = None
    if layout.talon:
        talon = layout.talon
        held = [q for q in positions if any(c in talon for c in cards_at[q])]
        made = dict(zip(held, pool.extend(("talon", q) for q in held), strict=True))
        talon_at = [0] + [made.get(q, 0) for q in positions]
    filled = None
    if domains.optional:
        filled = [0, *pool.extend(("filled", q) for q in positions)]
    return Variables(domains, at, by_base, groups, slots, rank_at, filled, talon_at)

