"""CP-SAT backend: three OR-Tools CP-SAT models of the same Problem, specified in
encodings/cpsat.md.

- `inverse` (the default): the CSPLib 081 model. `seq[q]` is the node at position q and
  `pos[v]` the position of node v, tied by one inverse constraint; `rank_at[q]` reads the
  rank of `seq[q]` through an element constraint, and a table over consecutive
  `rank_at` values holds the rank adjacency.
- `boolean`: one literal per (card, position) in the card's window, exactly one per
  card and per position, rank literals per position carrying the adjacency forward and
  backward, and "played by position q" ladders carrying the precedence.
- `circuit`: `add_circuit` over the nodes and a dummy end node that closes the path, arc
  literals only between rank-adjacent cards, positions tied to the arcs.

Every model reads only the Problem (nodes, start, rank, neighbours, fans, precedence), so
no game rule is written twice. Feature `symmetry` adds the same-rank symmetry breaking
of `blackhole.problem.same_rank_pairs`. Each family of constraints is counted as it is
added; encodings/cpsat.md gives the counts as formulas, and the tests hold them equal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.errors import InputError, InternalError
from blackhole.problem import (
    Problem,
    SameRankPair,
    must_follow,
    must_precede,
    rank_links,
    same_rank_pairs,
)

# ---------------------------------------------------------------- choices

MODEL_HELP: dict[str, str] = {
    "inverse": "seq/pos inverse with a rank table (CSPLib 081): the fastest",
    "boolean": "card-at-position literals, rank literals, played-by ladders",
    "circuit": "add_circuit over rank-adjacent arcs, positions tied to arcs",
}
MODELS: tuple[str, ...] = tuple(MODEL_HELP)
# Over pysol:1-1000 the inverse model has the lowest median, p99 and maximum (presolve
# off, see _TUNING).
DEFAULT_MODEL = "inverse"

FEATURE_HELP: dict[str, str] = {
    "symmetry": "same-rank symmetry breaking (Gent et al. 2007); every model",
    "rankcount": "rank k shows at as many positions as it has cards (implied); boolean",
    "alldiff": "all positions differ (implied by the circuit); circuit",
}
FEATURES: frozenset[str] = frozenset(FEATURE_HELP)
MODEL_FEATURES: dict[str, frozenset[str]] = {
    "inverse": frozenset({"symmetry"}),
    "boolean": frozenset({"symmetry", "rankcount"}),
    "circuit": frozenset({"symmetry", "alldiff"}),
}
# The features each model runs with when Options.features is None (measured).
DEFAULT_FEATURES: dict[str, frozenset[str]] = {
    "inverse": frozenset({"symmetry"}),
    "boolean": frozenset({"rankcount"}),
    "circuit": frozenset({"alldiff", "symmetry"}),  # only with both does it settle every deal
}

# Solver parameters per model, measured over pysol:1-1000 (see encodings/cpsat.md).
# CP-SAT 9.15's presolve drops solutions of the inverse model (it called 10 solvable deals
# of pysol:1-1000 unsolvable; tests/test_cpsat_regressions.py), so no model is presolved.
# Probing, SAT inprocessing and the LP cost more than they save on models this small.
_LIGHT: dict[str, object] = {
    "cp_model_presolve": False,
    "cp_model_probing_level": 0,
    "use_sat_inprocessing": False,
    "linearization_level": 0,
}
_TUNING: dict[str, dict[str, object]] = {
    "inverse": _LIGHT,
    "boolean": _LIGHT,
    "circuit": {"cp_model_presolve": False, "linearization_level": 0},
}
_MIN_SOLVER_SECONDS = 0.01  # a solver always gets a moment, even after a slow build

Literal = cp_model.LiteralT  # a Boolean variable, its negation, or a constant (bool)


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class Layout:
    """What every model reads from the Problem: positions, windows, rank links.

    Positions run `first..last` over the moves; with a start node it holds position 0
    and `first` is 1. A card's window is `earliest..latest`: the cards that must come
    before it (precedence, transitively) fill the positions in front, and those that
    must come after it fill the positions behind.
    """

    problem: Problem
    first: int
    last: int
    before: dict[int, frozenset[int]]  # node → nodes that must be played earlier
    after: dict[int, frozenset[int]]  # node → nodes that must be played later
    links: dict[int, tuple[int, ...]]  # rank → ranks one move away

    @property
    def moves(self) -> tuple[int, ...]:
        return self.problem.moves

    @property
    def positions(self) -> range:
        return range(self.first, self.last + 1)

    def earliest(self, node: int) -> int:
        return self.first + len(self.before[node])

    def latest(self, node: int) -> int:
        return self.last - len(self.after[node])

    def window(self, node: int) -> range:
        return range(self.earliest(node), self.latest(node) + 1)

    def can_follow(self, u: int, v: int) -> bool:
        """May v be played right after u? Not if v must come before u, nor if some card
        must come between them."""
        return v not in self.before[u] and not (self.after[u] & self.before[v])


def make_layout(problem: Problem) -> Layout:
    moves = problem.moves
    first = 0 if problem.start is None else 1
    return Layout(problem, first, first + len(moves) - 1, must_precede(problem),
                  must_follow(problem), rank_links(problem))


@dataclass
class Built:
    """A model ready to solve, how to read the play order back, and what it holds."""

    model: cp_model.CpModel
    read_order: Callable[[cp_model.CpSolver], tuple[int, ...]]
    families: dict[str, int] = field(default_factory=dict)  # constraints per family
    variables: dict[str, int] = field(default_factory=dict)  # variables per kind

    def count(self, family: str, added: int = 1) -> None:
        self.families[family] = self.families.get(family, 0) + added


# ---------------------------------------------------------------- the inverse model


def build_inverse(layout: Layout, features: frozenset[str]) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    nodes = range(problem.size)
    places = range(problem.size)  # positions 0..n-1, the start (if any) at 0
    # variables
    pos = [_position_var(model, layout, v) for v in nodes]
    seq = [model.new_int_var(0, problem.size - 1, f"seq[{q}]") for q in places]
    rank_at = [model.new_int_var(1, problem.modulus, f"rank_at[{q}]") for q in places]
    built = Built(model, lambda solver: _order_from_seq(solver, seq, problem))
    built.variables = {"pos": len(pos), "seq": len(seq), "rank_at": len(rank_at)}
    # constraints
    model.add_inverse(pos, seq)
    built.count("inverse")
    for q in places:
        model.add_element(seq[q], list(problem.rank), rank_at[q])
    built.count("rank-of-seq", len(places))
    steps = [(k, j) for k, ranks in sorted(layout.links.items()) for j in ranks]
    for q in places[:-1]:
        model.add_allowed_assignments([rank_at[q], rank_at[q + 1]], steps)
    built.count("rank-step", len(places) - 1)
    _precedence_on_positions(built, pos, problem.precedence)
    if "symmetry" in features:
        _symmetry_on_positions(built, pos, same_rank_pairs(problem))
    return built


def _position_var(model: cp_model.CpModel, layout: Layout, node: int) -> cp_model.IntVar:
    if node == layout.problem.start:
        return model.new_int_var(0, 0, f"pos[{node}]")
    return model.new_int_var(layout.earliest(node), layout.latest(node), f"pos[{node}]")


def _order_from_seq(solver: cp_model.CpSolver, seq: list[cp_model.IntVar],
                    problem: Problem) -> tuple[int, ...]:
    order = tuple(solver.value(var) for var in seq)
    return order[1:] if problem.start is not None else order


# ---------------------------------------------------------------- the Boolean model


@dataclass
class _BooleanVars:
    at: dict[tuple[int, int], cp_model.IntVar]  # (card, position): played there
    by: dict[tuple[int, int], cp_model.IntVar]  # (card, position): played there or earlier
    hole: dict[tuple[int, int], cp_model.IntVar]  # (position, rank): the hole shows it
    cards_at: dict[int, list[int]]  # position → cards whose window holds it
    layout: Layout

    def played_by(self, card: int, q: int) -> Literal:
        """`card` is played at position q or earlier; constant outside its window."""
        if q < self.layout.earliest(card):
            return False
        if q >= self.layout.latest(card):
            return True
        return self.by[card, q]


def build_boolean(layout: Layout, features: frozenset[str]) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    # variables
    cards_at: dict[int, list[int]] = {q: [] for q in layout.positions}
    for v in layout.moves:
        for q in layout.window(v):
            cards_at[q].append(v)
    at = {(v, q): model.new_bool_var(f"at[{v},{q}]")
          for v in layout.moves for q in layout.window(v)}
    by = {(v, q): model.new_bool_var(f"by[{v},{q}]")
          for v in layout.moves for q in layout.window(v)[:-1]}
    hole = {(q, k): model.new_bool_var(f"hole[{q},{k}]")
            for q in layout.positions for k in sorted({problem.rank[v] for v in cards_at[q]})}
    bools = _BooleanVars(at, by, hole, cards_at, layout)
    built = Built(model, lambda solver: _order_from_at(solver, at, layout))
    built.variables = {"at": len(at), "by": len(by), "hole": len(hole)}
    # constraints
    _exactly_one_each(built, bools)
    _hole_channel(built, bools)
    _rank_steps(built, bools)
    _played_by_ladders(built, bools)
    _precedence_on_ladders(built, bools)
    if "rankcount" in features:
        _rank_counts(built, bools)
    if "symmetry" in features:
        _symmetry_on_ladders(built, bools, same_rank_pairs(problem))
    return built


def _exactly_one_each(built: Built, bools: _BooleanVars) -> None:
    layout, model, at = bools.layout, built.model, bools.at
    for v in layout.moves:
        model.add_exactly_one([at[v, q] for q in layout.window(v)])
    built.count("card-once", len(layout.moves))
    for q in layout.positions:
        model.add_exactly_one([at[v, q] for v in bools.cards_at[q]])
    built.count("position-once", len(layout.positions))


def _hole_channel(built: Built, bools: _BooleanVars) -> None:
    """hole[q,k] is true exactly when the card at position q has rank k."""
    rank, model, at, hole = bools.layout.problem.rank, built.model, bools.at, bools.hole
    for (v, q), lit in at.items():
        model.add_implication(lit, hole[q, rank[v]])
    built.count("hole-of-card", len(at))
    for (q, k), lit in hole.items():
        model.add_bool_or([at[v, q] for v in bools.cards_at[q] if rank[v] == k]
                          ).only_enforce_if(lit)
    built.count("hole-has-card", len(hole))
    for q in bools.layout.positions:
        model.add_exactly_one([lit for (p, _), lit in hole.items() if p == q])
    built.count("hole-once", len(bools.layout.positions))


def _rank_steps(built: Built, bools: _BooleanVars) -> None:
    """Consecutive positions show rank-adjacent ranks, read both ways."""
    layout, model, hole = bools.layout, built.model, bools.hole
    start = layout.problem.start
    if start is not None:  # the first move fits the start card
        model.add_bool_or(_holes(hole, layout.first, layout.links[layout.problem.rank[start]]))
        built.count("step-from-start")
    for (q, k), lit in hole.items():
        if q < layout.last:
            model.add_bool_or(_holes(hole, q + 1, layout.links[k])).only_enforce_if(lit)
            built.count("step-forward")
        if q > layout.first:
            model.add_bool_or(_holes(hole, q - 1, layout.links[k])).only_enforce_if(lit)
            built.count("step-backward")


def _holes(hole: dict[tuple[int, int], cp_model.IntVar], q: int,
           ranks: Iterable[int]) -> list[cp_model.IntVar]:
    return [hole[q, k] for k in ranks if (q, k) in hole]


def _played_by_ladders(built: Built, bools: _BooleanVars) -> None:
    """by[v,q] climbs once, at the position where v is played."""
    layout, model = bools.layout, built.model
    for v in layout.moves:
        for q in layout.window(v):
            now, before, here = bools.played_by(v, q), bools.played_by(v, q - 1), bools.at[v, q]
            if layout.earliest(v) < q < layout.latest(v):
                model.add_implication(before, now)
                built.count("ladder-step")
            model.add_bool_and(_fixed_out([now, _not(before)], True)).only_enforce_if(here)
            built.count("ladder-at")
            model.add_bool_or(_fixed_out([_not(now), before, here], False))
            built.count("ladder-climb")


def _precedence_on_ladders(built: Built, bools: _BooleanVars) -> None:
    """a before c: c at position q needs a played by q-1."""
    layout, model = bools.layout, built.model
    for a, c in layout.problem.precedence:
        for q in layout.window(c):
            if q - 1 < layout.latest(a):
                model.add_implication(bools.at[c, q], bools.played_by(a, q - 1))
                built.count("precedence")


def _rank_counts(built: Built, bools: _BooleanVars) -> None:
    """Rank k shows at exactly as many positions as there are cards of rank k."""
    rank = bools.layout.problem.rank
    cards = {k: sum(1 for v in bools.layout.moves if rank[v] == k)
             for k in sorted({rank[v] for v in bools.layout.moves})}
    for k, count in cards.items():
        built.model.add(sum(lit for (_, j), lit in bools.hole.items() if j == k) == count)
    built.count("rank-count", len(cards))


def _order_from_at(solver: cp_model.CpSolver, at: dict[tuple[int, int], cp_model.IntVar],
                   layout: Layout) -> tuple[int, ...]:
    placed = {q: v for (v, q), lit in at.items() if solver.boolean_value(lit)}
    return tuple(placed[q] for q in layout.positions if q in placed)


def _not(literal: Literal) -> Literal:
    return (not literal) if isinstance(literal, bool) else literal.negated()


def _fixed_out(literals: Iterable[Literal], neutral: bool) -> list[Literal]:
    """Drop the constants that change nothing: False in a clause, True in a conjunction."""
    return [lit for lit in literals if lit is not neutral]


# ---------------------------------------------------------------- the circuit model


def build_circuit(layout: Layout, features: frozenset[str]) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    start, end = problem.start, problem.size  # the dummy end node closes the path
    # variables
    pos = [_position_var(model, layout, v) for v in range(problem.size)]
    arcs = {(u, v): model.new_bool_var(f"arc[{u},{v}]") for u, v in circuit_arcs(layout)}
    built = Built(model, lambda solver: _order_from_arcs(solver, arcs, problem))
    built.variables = {"pos": len(pos), "arc": len(arcs)}
    # constraints
    model.add_circuit([(u, v, lit) for (u, v), lit in arcs.items()])
    built.count("circuit")
    for (u, v), lit in arcs.items():
        if v == start:
            continue  # the closing arc: the start holds position 0 anyway
        if u == end:
            model.add(pos[v] == layout.first).only_enforce_if(lit)
        elif v == end:
            model.add(pos[u] == layout.last).only_enforce_if(lit)
        else:
            model.add(pos[v] == pos[u] + 1).only_enforce_if(lit)
        built.count("arc-position")
    if "alldiff" in features:  # implied, but its window reasoning is what the circuit lacks
        model.add_all_different(pos)
        built.count("all-different")
    _precedence_on_positions(built, pos, problem.precedence)
    if "symmetry" in features:
        _symmetry_on_positions(built, pos, same_rank_pairs(problem))
    return built


def circuit_arcs(layout: Layout) -> list[tuple[int, int]]:
    """Arcs of the circuit, the dummy end node being `problem.size`: into every card that
    may come first (from the start, or from the end node when there is no start), between
    rank-adjacent cards that may follow each other, out of every card that may come last,
    and from the end node back to the start."""
    problem = layout.problem
    start, end = problem.start, problem.size
    openers = [v for v in layout.moves if not layout.before[v]
               and (start is None or v in problem.neighbours[start])]
    arcs = [(end if start is None else start, v) for v in openers]
    arcs += [(u, v) for u in layout.moves for v in problem.neighbours[u]
             if v != u and layout.can_follow(u, v)]
    arcs += [(v, end) for v in layout.moves if not layout.after[v]]
    if start is not None:
        arcs.append((end, start))
    return arcs


def _order_from_arcs(solver: cp_model.CpSolver, arcs: dict[tuple[int, int], cp_model.IntVar],
                     problem: Problem) -> tuple[int, ...]:
    successor = {u: v for (u, v), lit in arcs.items() if solver.boolean_value(lit)}
    node = problem.start if problem.start is not None else problem.size
    order: list[int] = []
    while (node := successor.get(node, problem.size)) != problem.size:
        order.append(node)
    return tuple(order)


# ---------------------------------------------------------------- shared constraints


def _precedence_on_positions(built: Built, pos: Sequence[cp_model.IntVar],
                             pairs: Iterable[tuple[int, int]]) -> None:
    for a, c in pairs:
        built.model.add(pos[a] < pos[c])
        built.count("precedence")


def _symmetry_on_positions(built: Built, pos: Sequence[cp_model.IntVar],
                           pairs: Iterable[SameRankPair]) -> None:
    """first before second, unless above_first comes after second or first after
    below_second: one clause over half-reified comparisons."""
    model = built.model
    for pair in pairs:
        c1, c2, a1, b2 = pair.first, pair.second, pair.above_first, pair.below_second
        if a1 is None and b2 is None:
            model.add(pos[c1] < pos[c2])
            built.count("symmetry-order")
            continue
        options = [(pos[c1], pos[c2])]  # (x, y): x < y
        if a1 is not None:
            options.append((pos[c2], pos[a1]))
        if b2 is not None:
            options.append((pos[b2], pos[c1]))
        either = []
        for i, (x, y) in enumerate(options):
            lit = model.new_bool_var(f"sym[{c1},{c2},{i}]")
            model.add(x < y).only_enforce_if(lit)
            either.append(lit)
        model.add_bool_or(either)
        built.count("symmetry-clause")
        built.count("symmetry-half-reified", len(options))
        built.variables["sym"] = built.variables.get("sym", 0) + len(options)


def _symmetry_on_ladders(built: Built, bools: _BooleanVars,
                         pairs: Iterable[SameRankPair]) -> None:
    """The same cut in clauses over at/by: never `a1 < c2 < c1 < b2` (missing cards
    drop out of the chain)."""
    model, at, by_ = built.model, bools.at, bools.played_by
    for pair in pairs:
        c1, c2, a1, b2 = pair.first, pair.second, pair.above_first, pair.below_second
        clauses: list[list[Literal]] = []
        if a1 is None and b2 is None:  # never c2 < c1
            clauses = [[at[c2, q].negated(), by_(c1, q - 1)] for q in bools.layout.window(c2)]
        elif a1 is None:  # never c2 < c1 < b2
            clauses = [[at[c1, q].negated(), _not(by_(c2, q - 1)), by_(b2, q - 1)]
                       for q in bools.layout.window(c1)]
        elif b2 is None:  # never a1 < c2 < c1
            clauses = [[at[c2, q].negated(), _not(by_(a1, q - 1)), by_(c1, q - 1)]
                       for q in bools.layout.window(c2)]
        else:  # never a1 < c2 < c1 < b2, through swap = (a1 < c2 < c1)
            swap = model.new_bool_var(f"swap[{c1},{c2}]")
            built.variables["swap"] = built.variables.get("swap", 0) + 1
            clauses = [[at[c2, q].negated(), _not(by_(a1, q - 1)), by_(c1, q - 1), swap]
                       for q in bools.layout.window(c2)]
            clauses += [[swap.negated(), at[c1, q].negated(), by_(b2, q - 1)]
                        for q in bools.layout.window(c1)]
        for clause in clauses:
            if not any(lit is True for lit in clause):
                model.add_bool_or(_fixed_out(clause, False))
                built.count("symmetry-clause")


# ---------------------------------------------------------------- solve

BUILDERS: dict[str, Callable[[Layout, frozenset[str]], Built]] = {
    "inverse": build_inverse,
    "boolean": build_boolean,
    "circuit": build_circuit,
}


def choose_model(options: Options) -> str:
    name = options.model or DEFAULT_MODEL
    if name not in BUILDERS:
        raise InputError(f"unknown CP-SAT model (choose from {', '.join(MODELS)})",
                         "--model", token=name)
    return name


def choose_features(options: Options) -> frozenset[str]:
    model = choose_model(options)
    if options.features is None:
        return DEFAULT_FEATURES[model]
    unknown = sorted(options.features - FEATURES)
    if unknown:
        raise InputError(f"unknown CP-SAT feature (choose from {', '.join(sorted(FEATURES))})",
                         "--features", token=",".join(unknown))
    unused = sorted(options.features - MODEL_FEATURES[model])
    if unused:
        raise InputError(f"the {model} model has no such feature (it has "
                         f"{', '.join(sorted(MODEL_FEATURES[model]))})", "--features",
                         token=",".join(unused))
    return frozenset(options.features)


def check_options(options: Options) -> None:
    if options.workers < 0:  # Options allows 0, CP-SAT's own choice; the CLI asks for >= 1
        raise InputError("workers must be 0 (CP-SAT chooses) or more", "--workers",
                         token=str(options.workers))


def build_model(problem: Problem, options: Options) -> Built:
    """The chosen model of `problem`."""
    name, features = choose_model(options), choose_features(options)
    check_options(options)
    return BUILDERS[name](make_layout(problem), features)


def solver_parameters(solver: cp_model.CpSolver, model_name: str, options: Options,
                      seconds_left: float | None) -> None:
    """Every parameter this backend sets, in one place."""
    params = solver.parameters
    params.num_workers = options.workers
    params.random_seed = options.seed
    if seconds_left is not None:
        params.max_time_in_seconds = max(seconds_left, _MIN_SOLVER_SECONDS)
    for key, value in _TUNING[model_name].items():
        setattr(params, key, value)


_VERDICTS = {
    cp_model.OPTIMAL: Verdict.SOLVED,
    cp_model.FEASIBLE: Verdict.SOLVED,
    cp_model.INFEASIBLE: Verdict.UNSOLVABLE,
    cp_model.UNKNOWN: Verdict.UNKNOWN,
}


def verdict_of(status: int, model_name: str) -> Verdict:
    """The status ladder; a status outside it (MODEL_INVALID) is our bug."""
    if status not in _VERDICTS:
        raise InternalError(f"CP-SAT returned {cp_model.CpSolver().status_name(status)} "
                            f"on the {model_name} model")
    return _VERDICTS[status]


class CpsatBackend(Backend):
    name = "cpsat"
    reads = frozenset({"model", "workers", "seed", "features"})

    def check(self, options: Options) -> None:
        super().check(options)
        choose_features(options)  # the model too
        check_options(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        model_name, features = choose_model(options), choose_features(options)
        built = BUILDERS[model_name](make_layout(problem), features)
        built_at = time.perf_counter()
        solver = cp_model.CpSolver()
        left = None if options.timeout is None else options.timeout - (built_at - began)
        solver_parameters(solver, model_name, options, left)
        status = solver.solve(built.model)
        verdict = verdict_of(status, model_name)
        order = built.read_order(solver) if verdict is Verdict.SOLVED else None
        stats = {
            "status": solver.status_name(status),
            "model": model_name,
            "features": sorted(features),
            "workers": options.workers,
            "seed": options.seed,
            "conflicts": solver.num_conflicts,
            "branches": solver.num_branches,
            "wall_time": solver.wall_time,
            "deterministic_time": solver.deterministic_time,
            "build_seconds": built_at - began,
            "vars": len(built.model.proto.variables),
            "constraints": len(built.model.proto.constraints),
            "families": dict(built.families),
            "variables": dict(built.variables),
        }
        return Result(verdict, order, self.name, f"cp-sat:{model_name}",
                      time.perf_counter() - began, stats)


# ---------------------------------------------------------------- read back


def export_model(problem: Problem, options: Options) -> str:
    """The chosen model as CpModelProto text, for `blackhole encode --format cpsat`."""
    return str(build_model(problem, options).model.proto)
