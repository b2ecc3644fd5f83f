"""The free cell in the SAT encoding (Worm Hole; encodings/worm-hole.md).

The position encoding stays as it is for the hole: `at(c, q)` says card c is the q-th card
onto the hole, whether it comes from its fan or from the cell. This module adds the parks
and replaces the `precedence` family, which in a game with a cell orders the cards'
departures from their fans, not their places in the hole.

Time runs on a half-step scale: gap g (1..n), the moment just before hole move g, is time
2g - 1, and hole move q is time 2q. A card parked in gap g leaves its fan at 2g - 1; a card
played from its fan at position q leaves at 2q.

- `park(c, g)`: fan card c goes into the cell in gap g (g in `Cell.gaps[c]`);
- `parked(c, g)`: c went into the cell in gap g or earlier (a ladder over the same gaps;
  above them it is parked(c, last gap), below them False);
- `cell(c, g)`: c is in the cell during gap g, after that gap's park and before hole move
  g (a parked fan card, and the card the cell holds at the start).

c has left its fan by hole move q exactly when by(c, q) or parked(c, q), and by gap g
(after its park) exactly when by(c, g - 1) or parked(c, g). Every clause is built over
those two ladders; `Variables.by` gives its constants.

With optional positions (the best score) a parked card may stay in the cell to the end:
it may be parked up to gap n - 1 and is held in the cell to that gap, and a park in gap g
needs hole move g (`filled(g)`), so that no park trails the line (encodings/worm-hole.md,
"The best score").
"""

from __future__ import annotations

from dataclasses import dataclass

from pysat.card import CardEnc, EncType

from blackhole.encode.cnf_clauses import at_most_one, folded, negated
from blackhole.encode.cnf_variables import Clause, Pool, Variables


@dataclass(frozen=True)
class Cell:
    """The cell's variables: park and parked by card and gap, cell by gap and card."""

    gaps: dict[int, range]  # fan card → the gaps it may be parked in
    park: dict[int, dict[int, int]]  # card → gap → park variable
    parked_base: dict[int, int]  # parked(c, g) is variable parked_base[c] + g on its gaps
    cell: dict[int, dict[int, int]]  # gap → card → cell variable

    def parked(self, c: int, g: int) -> int | bool:
        """The literal "c went into the cell in gap g or earlier"."""
        gaps = self.gaps.get(c)
        if not gaps or g < gaps.start:
            return False
        return self.parked_base[c] + min(g, gaps.stop - 1)

    def parks(self) -> tuple[tuple[int, int, int], ...]:
        """(park variable, card, gap) of every park, gaps ascending."""
        return tuple(sorted(((x, c, g) for c, by_gap in self.park.items()
                             for g, x in by_gap.items()), key=lambda t: (t[2], t[1])))


def cell_variables(v: Variables, pool: Pool, windows: bool) -> Cell:
    """park (card by card, gaps ascending), parked (the same), cell (gap by gap, cards in
    node order). A fan card may be parked in gaps 1 + |above it| (with `windows`; else 1)
    to its last position - 1: every card above it is in the hole before the park (the
    cell was empty), and it reaches the hole after the gap. With optional positions to
    gap n - 1, and each is held in the cell to that gap: it may never leave. None may be
    parked when no park is left."""
    layout, d = v.layout, v.domains
    problem = layout.problem
    end = layout.n - 1 if d.optional else None  # the last gap, for optional positions
    gaps: dict[int, range] = {}
    for c in layout.moves:
        if problem.fan_of[c] < 0 or problem.parks_left == 0:
            continue  # the cell's card, or no park left
        low = 1 + len(layout.before[c]) if windows else 1
        high = d.last[c] - 1 if end is None else end
        if low <= high:
            gaps[c] = range(low, high + 1)
    park: dict[int, dict[int, int]] = {}
    for c, span in gaps.items():
        park[c] = dict(zip(span, pool.extend(("park", c, g) for g in span), strict=True))
    parked_base: dict[int, int] = {}
    for c, span in gaps.items():
        first = pool.extend(("parked", c, g) for g in span).start
        parked_base[c] = first - span.start
    held: dict[int, list[int]] = {}  # gap → the cards that may be in the cell then
    for c, span in gaps.items():
        for g in range(span.start, (d.last[c] if end is None else end) + 1):
            held.setdefault(g, []).append(c)
    if problem.cell is not None:
        for g in range(1, (d.last[problem.cell] if end is None else end) + 1):
            held.setdefault(g, []).append(problem.cell)
    cell: dict[int, dict[int, int]] = {}
    for g in sorted(held):
        cards = sorted(held[g])
        cell[g] = dict(zip(cards, pool.extend(("cell", c, g) for c in cards), strict=True))
    return Cell(gaps, park, parked_base, cell)


def cell_clauses(v: Variables, cell: Cell, pool: Pool, compact: bool) -> dict[str, list[Clause]]:
    """The cell's clause families, in this order: park-ladder, park-later, departure
    (instead of precedence), cell-occupancy, cell-amo, cell-uses; with optional
    positions park-filled after park-later."""
    families = {"park-ladder": _park_ladder(cell), "park-later": _park_later(v, cell)}
    if v.filled is not None:  # a park in gap g is followed by hole move g
        families["park-filled"] = [[-x, v.filled[g]] for by_gap in cell.park.values()
                                   for g, x in by_gap.items()]
    families["departure"] = _departure(v, cell)
    families["cell-occupancy"] = _occupancy(v, cell)
    families["cell-amo"] = [clause for g, by_card in cell.cell.items()
                            for clause in at_most_one(list(by_card.values()), ("cell", g),
                                                      pool, compact)]
    families["cell-uses"] = _uses(v, cell, pool, compact)
    return families


def _park_ladder(cell: Cell) -> list[Clause]:
    """parked(c, g) is park(c, g) or parked(c, g - 1), and a card is parked once:
    park(c, g) excludes parked(c, g - 1)."""
    clauses: list[Clause] = []
    for c, span in cell.gaps.items():
        for g in span:
            x, y = cell.park[c][g], cell.parked(c, g)
            clauses.append([-x, y])
            if g == span.start:
                clauses.append([-y, x])
            else:
                clauses += ([-(y - 1), y], [-y, y - 1, x], [-x, -(y - 1)])
    return clauses


def _park_later(v: Variables, cell: Cell) -> list[Clause]:
    """A card parked in gap g reaches the hole after hole move g: park(c, g) → ¬by(c, g)."""
    return folded([-x, negated(v.by(c, g))] for c, by_gap in cell.park.items()
                   for g, x in by_gap.items())


def _departure(v: Variables, cell: Cell) -> list[Clause]:
    """For each precedence pair (a on b), a leaves its fan strictly before b on the
    half-step scale:
    by(b, q) → by(a, q - 1) ∨ parked(a, q) for q = 1..n (b played from its fan at q or
    earlier: a went before hole move q), and parked(b, g) → by(a, g - 1) ∨ parked(a, g - 1)
    for each gap of b (b parked by gap g: a went before that gap). With optional
    positions the first kind stops at q = l(b): by(b, q) is by(b, l(b)) above it, and
    the clause at l(b) implies the later ones."""
    n, d = v.layout.n, v.domains
    parked = cell.parked
    clauses: list[list[int | bool]] = []
    for a, b in v.layout.problem.precedence:
        top = d.last[b] if d.optional else n
        clauses += ([negated(v.by(b, q)), v.by(a, q - 1), parked(a, q)] for q in range(1, top + 1))
        clauses += ([-parked(b, g), v.by(a, g - 1), parked(a, g - 1)]  # type: ignore[operator]
                    for g in cell.gaps.get(b, ()))
    return folded(clauses)


def _occupancy(v: Variables, cell: Cell) -> list[Clause]:
    """A card parked by gap g and not in the hole by move g - 1 is in the cell in gap g;
    the cell's card at the start is there until its hole move."""
    clauses: list[list[int | bool]] = []
    start = v.layout.problem.cell
    for g, by_card in cell.cell.items():
        for c, x in by_card.items():
            held = [] if c == start else [negated(cell.parked(c, g))]
            clauses.append([*held, v.by(c, g - 1), x])
    return folded(clauses)


def _uses(v: Variables, cell: Cell, pool: Pool, compact: bool) -> list[Clause]:
    """At most `parks_left` cards parked (none when any number may be)."""
    left = v.layout.problem.parks_left
    lits = [cell.parked(c, span.stop - 1) for c, span in cell.gaps.items()]
    if left is None or left >= len(lits):
        return []
    if left == 1:
        return at_most_one(lits, ("uses",), pool, compact)  # type: ignore[arg-type]
    made = CardEnc.atmost(lits, bound=left, top_id=pool.top, encoding=EncType.seqcounter)
    extra = made.nv - pool.top
    pool.reserve(extra, lambda: [("uses", i) for i in range(extra)])
    return [list(clause) for clause in made.clauses]
