"""The clause families of the SAT encoding, one function each, as encodings/sat.md
specifies them: each reads the `Variables` (and makes its auxiliaries in the `Pool`) and
returns its clauses. `encode.cnf.build_cnf` calls them in one fixed order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blackhole.encode.cnf_variables import Clause, Pool, Variables
from blackhole.encode.layout import symmetry_cut

_PAIRWISE_UP_TO = 6  # below this many literals pairwise at-most-one is as small as a counter


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


def talon_channel(v: Variables) -> dict[str, list[Clause]]:
    """Golf (encodings/golf.md): talon(q) is true exactly when a talon card is at q."""
    talon_at, at = v.talon_at or [], v.at
    talon = v.layout.problem.talon
    channel = [[-x, talon_at[q]] for t in talon for q, x in at[t].items()]
    support = [[-talon_at[q], *(at[t][q] for t in talon if q in at[t])]
               for q in v.layout.positions if talon_at[q]]
    return {"talon-channel": channel, "talon-support": support}


def adjacency(v: Variables, forward: bool) -> dict[str, list[Clause]]:
    """Each card has a predecessor it may follow (and, with `forward`, a successor when
    the next position is played). In a game of directed arcs (Golf, encodings/golf.md)
    the card-level clauses read the arcs into a card, and the rank-level ones the fan
    cards' links, where a talon card at the position (talon(q)) satisfies them: it
    follows any card."""
    layout = v.layout
    p, n, links = layout.problem, layout.n, layout.links
    directed = layout.directed
    back: list[Clause] = []
    ahead: list[Clause] = []
    filled, talon_at = v.filled, v.talon_at

    def free(q: int) -> list[int]:  # talon(q), where a talon card can be at q
        return [talon_at[q]] if talon_at is not None and talon_at[q] else []

    if v.rank_at is not None:
        rank_at = v.rank_at
        if p.start is not None and n:
            near_start = (layout.fan_after if directed else links).get(p.rank[p.start], ())
            first = free(1)
            back += [[-x, *first] for k, x in rank_at[1].items() if k not in near_start]
        linked = _RankLinks(layout.fan_before if directed else links)
        onward = _RankLinks(layout.fan_after) if directed else linked
        for q in range(1, n + 1):
            if q > 1:
                back += linked.clauses(rank_at[q], rank_at[q - 1], free(q))
            if forward and q < n:
                guard = [] if filled is None else [-filled[q + 1]]
                ahead += onward.clauses(rank_at[q], rank_at[q + 1], guard + free(q + 1))
    else:
        at, cards_at = v.at, v.domains.cards_at
        before = layout.predecessors if directed else p.neighbours
        for q in range(1, n + 1):
            guard = [] if filled is None or q == n else [-filled[q + 1]]
            for c in cards_at[q]:
                x = at[c][q]
                if q > 1:
                    back.append([-x] + [at[d][q - 1] for d in before[c]
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
            left = [negated(v.by(c, q)) for c in by_rank.get(k, ())]
            hole = _hole(v, q, k)
            below, above = (k - 2) % m + 1, k % m + 1
            chain += [[-up[k], *hole, up[below]], [-up[k], *hole, *left],
                      [-down[k], *hole, down[above]], [-down[k], *hole, *left]]
            need += [[v.by(c, q), up[k], down[k]] for c in by_rank.get(k, ())]
    return {"deadrank-walk": folded(chain), "deadrank-need": folded(need)}


def _hole(v: Variables, q: int, k: int) -> list[int]:
    """Literals that say the hole shows rank k after position q (one is true if so)."""
    if v.rank_at is not None:
        return [v.rank_at[q][k]] if k in v.rank_at[q] else []
    rank = v.layout.problem.rank
    return [v.at[c][q] for c in v.domains.cards_at[q] if rank[c] == k]


def negated(lit: int | bool) -> int | bool:
    """A literal negated; a constant (True, False) flipped."""
    return (not lit) if isinstance(lit, bool) else -lit


def folded(clauses: Iterable[list[int | bool]]) -> list[Clause]:
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

