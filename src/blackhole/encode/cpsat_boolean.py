"""The Boolean CP-SAT model of `encode.cpsat` (encodings/cpsat.md): one literal per
(card, position) in the card's window, exactly one per card and per position, rank
literals per position carrying the adjacency forward and backward, and the layout's
"played by" ladders carrying the precedence; and `build_optional`, the same model with
optional positions whose objective maximises the cards played (the best score)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ortools.sat.python import cp_model

from blackhole.base.deadline import check, paced
from blackhole.base.errors import InputError
from blackhole.encode.cpsat_built import Built, Literal
from blackhole.encode.cpsat_names import (
    DEFAULT_OPTIONAL_FEATURES,
    OPTIONAL_FEATURES,
    OPTIONAL_PLAYS,
)
from blackhole.encode.layout import Domains, Layout, Lit, make_domains, make_layout, symmetry_cut
from blackhole.model.problem import Problem


@dataclass
class _BooleanVars:
    domains: Domains
    at: dict[tuple[int, int], cp_model.IntVar]  # (card, position): played there
    by: dict[tuple[int, int], cp_model.IntVar]  # (card, position): played there or earlier
    hole: dict[tuple[int, int], cp_model.IntVar]  # (position, rank): the hole shows it
    filled: dict[int, cp_model.IntVar]  # position → played (optional positions only)

    @property
    def layout(self) -> Layout:
        return self.domains.layout

    def played_by(self, card: int, q: int) -> Literal:
        return self.literal(self.domains.played_by(card, q), {})

    def literal(self, lit: Lit | bool, made: dict[tuple, cp_model.IntVar]) -> Literal:
        """The model's literal for a layout literal (`made`: auxiliaries by key)."""
        if isinstance(lit, bool):
            return lit
        kind, *rest = lit.key
        var = self.at[rest[0], rest[1]] if kind == "at" else \
            self.by[rest[0], rest[1]] if kind == "by" else made[lit.key]
        return var if lit.positive else var.negated()


def build_boolean(layout: Layout, features: frozenset[str], deadline: float | None = None,
                  *, optional: bool = False) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    domains = make_domains(layout, optional=optional)
    # variables (a card's positions and ladder at a time between looks at the clock)
    moves = paced(layout.moves, deadline, every=8)
    at = {(v, q): model.new_bool_var(f"at[{v},{q}]") for v in moves for q in domains.of[v]}
    moves = paced(layout.moves, deadline, every=8)
    by = {(v, q): model.new_bool_var(f"by[{v},{q}]") for v in moves for q in domains.ladder(v)}
    positions = paced(layout.positions, deadline, every=8)
    hole = {(q, k): model.new_bool_var(f"hole[{q},{k}]") for q in positions
            for k in sorted({problem.rank[v] for v in domains.cards_at[q]})}
    filled = {q: model.new_bool_var(f"filled[{q}]") for q in layout.positions} if optional \
        else {}
    bools = _BooleanVars(domains, at, by, hole, filled)
    name = "optional" if optional else "boolean"
    built = Built(model, lambda solver: _order_from_at(solver, at, layout), name, features,
                  deadline=deadline)
    built.variables = {"at": len(at), "by": len(by), "hole": len(hole)}
    if optional:
        built.variables["filled"] = len(filled)
        built.filled = list(filled.values())
    # constraints
    built.tick()
    _cards_and_positions(built, bools)
    _hole_channel(built, bools)
    _rank_steps(built, bools)
    _played_by_ladders(built, bools)
    _precedence_on_ladders(built, bools)
    if "rankcount" in features:
        _rank_counts(built, bools)
    if "symmetry" in features:
        _symmetry_on_ladders(built, bools)
    if optional:
        model.maximize(sum(built.filled))
    return built


def build_optional(problem: Problem, features: Iterable[str] | None = None, *,
                   layout: Layout | None = None, deadline: float | None = None) -> Built:
    """The Boolean model with optional positions: filled[q+1] → filled[q], each card at
    most once, and the objective to maximise the played cards (encodings/cpsat.md).
    `read_order` gives the played prefix; `built.filled` the position literals. OutOfTime
    when the deadline passes before it is built."""
    if not problem.game.features <= OPTIONAL_PLAYS:
        raise InputError(f"{problem.game.title}: no optional-position model (its best "
                         "score counts fan cards only)", "optional", token=problem.game.name)
    chosen = DEFAULT_OPTIONAL_FEATURES if features is None else frozenset(features)
    unknown = sorted(chosen - OPTIONAL_FEATURES)
    if unknown:
        raise InputError("not a feature of the optional-position model (it has "
                         f"{', '.join(sorted(OPTIONAL_FEATURES))})", "features",
                         token=",".join(unknown))
    check(deadline)
    return build_boolean(layout or make_layout(problem), chosen, deadline, optional=True)


def _cards_and_positions(built: Built, bools: _BooleanVars) -> None:
    """Complete lines: exactly one position per card and one card per position. Optional
    positions: at most one position per card; a position holds one card exactly when it
    is filled; filled positions form a prefix."""
    layout, model, at, filled = bools.layout, built.model, bools.at, bools.filled
    cards_at, of = bools.domains.cards_at, bools.domains.of
    for v in built.paced(layout.moves):
        lits = [at[v, q] for q in of[v]]
        if filled:
            model.add_at_most_one(lits)
        else:
            model.add_exactly_one(lits)
    built.count("card-once", len(layout.moves))
    for q in built.paced(layout.positions):
        lits = [at[v, q] for v in cards_at[q]]
        model.add_exactly_one(lits + [filled[q].negated()] if filled else lits)
    built.count("position-once", layout.n)
    if filled:
        for q in layout.positions[:-1]:
            model.add_implication(filled[q + 1], filled[q])
        built.count("filled-prefix", layout.n - 1)
        # every position filled: every card played (pigeonhole, stated)
        for v in built.paced(layout.moves):
            model.add_bool_or([at[v, q] for q in of[v]]).only_enforce_if(filled[layout.n])
        built.count("filled-all", len(layout.moves))


def _hole_channel(built: Built, bools: _BooleanVars) -> None:
    """hole[q,k] is true exactly when the card at position q has rank k."""
    rank, model, at, hole = bools.layout.problem.rank, built.model, bools.at, bools.hole
    cards_at, filled = bools.domains.cards_at, bools.filled
    for (v, q), lit in built.paced(at.items()):
        model.add_implication(lit, hole[q, rank[v]])
    built.count("hole-of-card", len(at))
    # the cards of rank k that position q may hold, and the hole literals of each position,
    # each in the order of `cards_at` and `hole`
    holders: dict[tuple[int, int], list[cp_model.IntVar]] = {key: [] for key in hole}
    for q, cards in built.paced(enumerate(cards_at), every=32):
        for v in cards:
            holders[q, rank[v]].append(at[v, q])
    shown: dict[int, list[cp_model.IntVar]] = {q: [] for q in bools.layout.positions}
    for (q, k), lit in built.paced(hole.items()):
        model.add_bool_or(holders[q, k]).only_enforce_if(lit)
        shown[q].append(lit)
    built.count("hole-has-card", len(hole))
    for q in built.paced(bools.layout.positions):
        lits = shown[q]
        model.add_exactly_one(lits + [filled[q].negated()] if filled else lits)
    built.count("hole-once", bools.layout.n)


def _rank_steps(built: Built, bools: _BooleanVars) -> None:
    """Consecutive positions show rank-adjacent ranks, read both ways (forward only to a
    filled position, with optional positions)."""
    layout, model, hole, filled = bools.layout, built.model, bools.hole, bools.filled
    start, n = layout.problem.start, layout.n
    if start is not None and n:  # the first move fits the start card
        fits = model.add_bool_or(_holes(hole, 1, layout.links[layout.problem.rank[start]]))
        if filled:
            fits.only_enforce_if(filled[1])
        built.count("step-from-start")
    for (q, k), lit in built.paced(hole.items()):
        if q < n:
            step = model.add_bool_or(_holes(hole, q + 1, layout.links[k]))
            step.only_enforce_if([lit, filled[q + 1]] if filled else lit)
            built.count("step-forward")
        if q > 1:
            model.add_bool_or(_holes(hole, q - 1, layout.links[k])).only_enforce_if(lit)
            built.count("step-backward")


def _holes(hole: dict[tuple[int, int], cp_model.IntVar], q: int,
           ranks: Iterable[int]) -> list[cp_model.IntVar]:
    return [hole[q, k] for k in ranks if (q, k) in hole]


def _played_by_ladders(built: Built, bools: _BooleanVars) -> None:
    """by[v,q] climbs at most once (once, for complete lines), at the position where v is
    played."""
    domains, model = bools.domains, built.model
    for v in bools.layout.moves:
        built.tick()
        first, ladder = domains.first[v], domains.ladder(v)
        for q in domains.of[v]:
            now, before, here = bools.played_by(v, q), bools.played_by(v, q - 1), bools.at[v, q]
            if first < q and q in ladder:
                model.add_implication(before, now)
                built.count("ladder-step")
            model.add_bool_and(_fixed_out([now, _not(before)], True)).only_enforce_if(here)
            built.count("ladder-at")
            model.add_bool_or(_fixed_out([_not(now), before, here], False))
            built.count("ladder-climb")


def _precedence_on_ladders(built: Built, bools: _BooleanVars) -> None:
    """a before c: c at position q needs a played by q-1."""
    domains, model = bools.domains, built.model
    for a, c in built.paced(bools.layout.problem.precedence, every=16):
        for q in domains.of[c]:
            earlier = bools.played_by(a, q - 1)
            if earlier is not True:
                model.add_implication(bools.at[c, q], earlier)
                built.count("precedence")


def _rank_counts(built: Built, bools: _BooleanVars) -> None:
    """Rank k shows at exactly as many positions as there are cards of rank k (optional
    positions: at most, and exactly when every position is filled)."""
    rank, moves = bools.layout.problem.rank, bools.layout.moves
    cards = {k: sum(1 for v in moves if rank[v] == k) for k in sorted({rank[v] for v in moves})}
    filled = bools.filled
    by_rank: dict[int, list[cp_model.IntVar]] = {k: [] for k in cards}
    for (_, j), lit in bools.hole.items():  # in the order of `hole`
        if j in by_rank:
            by_rank[j].append(lit)
    for k, count in built.paced(cards.items(), every=16):
        shown = sum(by_rank[k])
        if filled:  # at most; exactly when every position is filled
            built.model.add(shown <= count)
            built.model.add(shown == count).only_enforce_if(filled[bools.layout.n])
        else:
            built.model.add(shown == count)
    built.count("rank-count", len(cards) * (2 if filled else 1))


def _symmetry_on_ladders(built: Built, bools: _BooleanVars) -> None:
    """The layout's same-rank symmetry cut, as clauses over at/by."""
    cut = symmetry_cut(bools.domains)
    made = {key: built.model.new_bool_var(f"swap[{key[1]},{key[2]}]") for key in cut.variables}
    if made:
        built.made("swap", len(made))
    for clause in built.paced(cut.clauses):
        built.model.add_bool_or([bools.literal(lit, made) for lit in clause])
    built.count("symmetry-clause", len(cut.clauses))


def _order_from_at(solver: cp_model.CpSolver, at: dict[tuple[int, int], cp_model.IntVar],
                   layout: Layout) -> tuple[int, ...]:
    placed = {q: v for (v, q), lit in at.items() if solver.boolean_value(lit)}
    order = []
    for q in layout.positions:
        if q not in placed:
            break
        order.append(placed[q])
    return tuple(order)


def _not(literal: Literal) -> Literal:
    return (not literal) if isinstance(literal, bool) else literal.negated()


def _fixed_out(literals: Iterable[Literal], neutral: bool) -> list[Literal]:
    """Drop the constants that change nothing: False in a clause, True in a conjunction."""
    return [lit for lit in literals if lit is not neutral]
