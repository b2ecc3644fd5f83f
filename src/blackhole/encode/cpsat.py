"""The CP-SAT models of a Problem, specified in encodings/cpsat.md.

- `inverse` (the default): the CSPLib 081 model. `seq[q]` is the node at position q and
  `pos[v]` the position of node v, tied by one inverse constraint; `rank_at[q]` reads the
  rank of `seq[q]` through an element constraint, and a table over consecutive
  `rank_at` values holds the rank adjacency.
- `boolean`: one literal per (card, position) in the card's window, exactly one per
  card and per position, rank literals per position carrying the adjacency forward and
  backward, and the layout's "played by" ladders carrying the precedence.
- `circuit`: `add_circuit` over the nodes and a dummy end node that closes the path, arc
  literals only between rank-adjacent cards, positions tied to the arcs.
- `cnf`: exactly the clauses of the SAT encoding (`encode.cnf`, its features), one
  `add_bool_or` each, so that SAT and CP-SAT can be compared on one model.
- `build_optional`: the Boolean model with optional positions (a line may stop early),
  whose objective maximises the cards played: the best score.

Every model reads the Problem through `encode.layout` (positions 1..n, the start card at
0; windows, rank links, ladders, symmetry), so no rule or derived structure is written
twice. Each family of constraints is counted as it is added; encodings/cpsat.md gives
the counts as formulas, and the tests hold them equal. Solving is the backend's job
(`blackhole.backends.cpsat`).

A large model takes seconds of Python to build. Every builder takes a deadline (a
`time.perf_counter()` reading, None for no limit) and reads the clock as it adds
constraints (`Built.tick`, `blackhole.base.deadline.paced`): `blackhole.base.deadline.OutOfTime`
when it passes before the model is complete.

The models and features by name, their help and defaults, are `encode.cpsat_names`,
which a caller reads without importing OR-Tools; this module imports those it uses.
`Built`, what every model is built into, is `encode.cpsat_built`; the Boolean model and
its optional-position form are `encode.cpsat_boolean`; this module builds the others and
chooses among them (`build_model`), and offers all of these names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ortools.sat.python import cp_model

from blackhole.base.deadline import OutOfTime, check, paced
from blackhole.base.errors import InputError, InternalError
from blackhole.encode import cnf
from blackhole.encode.cpsat_boolean import build_boolean, build_optional
from blackhole.encode.cpsat_built import Built, Literal
from blackhole.encode.cpsat_names import (
    DEFAULT_FEATURES,
    DEFAULT_MODEL,
    DEFAULT_OPTIONAL_FEATURES,
    FEATURES,
    MODEL_FEATURES,
    MODEL_PLAYS,
    MODELS,
    OPTIONAL_FEATURES,
    OPTIONAL_PLAYS,
)
from blackhole.encode.layout import Layout, make_layout, played_line
from blackhole.model.games import refusal
from blackhole.model.problem import Problem, SameRankPair

# what callers import from here: the builders, what they build, and the names of
# `encode.cpsat_names` this module has always offered
__all__ = ["BUILDERS", "DEFAULT_FEATURES", "DEFAULT_MODEL", "DEFAULT_OPTIONAL_FEATURES",
           "FEATURES", "MODELS", "MODEL_FEATURES", "MODEL_PLAYS", "OPTIONAL_FEATURES",
           "OPTIONAL_PLAYS", "Built", "Literal", "build_best", "build_boolean", "build_circuit",
           "build_clauses", "build_inverse", "build_model", "build_optional", "choose_features",
           "choose_model", "circuit_arcs", "export_model"]


# ---------------------------------------------------------------- choices


def choose_model(model: str | None) -> str:
    """The model's name; an InputError names the Options field `model` for an unknown one."""
    name = model or DEFAULT_MODEL
    if name not in MODELS:
        raise InputError(f"unknown CP-SAT model (choose from {', '.join(MODELS)})", "model",
                         token=name)
    return name


def choose_features(model: str, features: Iterable[str] | None) -> frozenset[str]:
    """The model's features (its defaults for None); an InputError names the Options
    field `features` for an unknown one or one the model does not have."""
    if features is None:
        return DEFAULT_FEATURES[model]
    if model == "cnf":
        return cnf.known_features(features)
    chosen = frozenset(features)
    unknown = sorted(chosen - FEATURES)
    if unknown:
        raise InputError(f"unknown CP-SAT feature (choose from {', '.join(sorted(FEATURES))})",
                         "features", token=",".join(unknown))
    unused = sorted(chosen - MODEL_FEATURES[model])
    if unused:
        raise InputError(f"the {model} model has no such feature (it has "
                         f"{', '.join(sorted(MODEL_FEATURES[model]))})", "features",
                         token=",".join(unused))
    return chosen


def build_model(problem: Problem, model: str | None = None,
                features: Iterable[str] | None = None, *,
                layout: Layout | None = None, deadline: float | None = None) -> Built:
    """The chosen model of `problem` (defaults: DEFAULT_MODEL and its features); OutOfTime
    when the deadline passes before it is built."""
    name = choose_model(model)
    chosen = choose_features(name, features)
    game = problem.game
    if not game.features <= MODEL_PLAYS[name]:
        players = [model for model, plays in MODEL_PLAYS.items() if game.features <= plays]
        raise InputError(f"the {name} model does not play {game.title} yet "
                         + (f"(choose from {', '.join(players)})" if players else
                            f"(no model plays its rules {', '.join(sorted(game.features))})"),
                         "model", token=name)
    check(deadline)
    return BUILDERS[name](layout or make_layout(problem), chosen, deadline)


def export_model(problem: Problem, model: str | None = None,
                 features: Iterable[str] | None = None) -> str:
    """The chosen model as CpModelProto text."""
    return str(build_model(problem, model, features).model.proto)


# ---------------------------------------------------------------- the inverse model


def build_inverse(layout: Layout, features: frozenset[str],
                  deadline: float | None = None) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    nodes = range(problem.size)
    # add_inverse numbers from 0: with a start card that is its position; without one
    # (All in a Row) index i of seq holds position i + 1
    shift = 0 if problem.start is not None else 1
    places = range(problem.size)
    # variables
    pos = [_position_var(model, layout, v, shift) for v in nodes]
    seq = [model.new_int_var(0, problem.size - 1, f"seq[{q}]") for q in places]
    # the value each position shows: its card's rank, and in a game of directed arcs
    # (Golf, encodings/golf.md) the rank plus `modulus` for a talon card, which follows
    # any card; the table of steps is read from the arcs
    kinds, steps = _step_table(layout)
    rank_at = [model.new_int_var(1, max(kinds), f"rank_at[{q}]") for q in places]
    built = Built(model, lambda solver: _order_from_seq(solver, seq, problem), "inverse",
                  features, deadline=deadline)
    built.variables = {"pos": len(pos), "seq": len(seq), "rank_at": len(rank_at)}
    # constraints
    model.add_inverse(pos, seq)
    built.count("inverse")
    for q in places:
        built.tick()
        model.add_element(seq[q], kinds, rank_at[q])
    built.count("rank-of-seq", len(places))
    for q in places[:-1]:
        built.tick()
        model.add_allowed_assignments([rank_at[q], rank_at[q + 1]], steps)
    built.count("rank-step", len(places) - 1)
    if layout.parks:  # a free cell: departures, not positions, obey precedence
        built.read_parks = _cell_on_positions(built, pos, layout)
    else:
        _precedence_on_positions(built, pos, problem.precedence)
    if "symmetry" in features:  # no pairs with a cell (`same_rank_pairs`)
        _symmetry_on_positions(built, pos, layout.pairs)
    return built


def _cell_on_positions(built: Built, pos: Sequence[cp_model.IntVar], layout: Layout
                       ) -> Callable[[cp_model.CpSolver], tuple[tuple[int, int], ...]]:
    """The free cell on the inverse model (encodings/worm-hole.md, "CP-SAT"): a fan card c
    that may be parked has `parked[c]` and `gap[c]`, the gap it goes into the cell (before
    hole move gap), gap < pos when parked and gap = pos otherwise; its departure is
    2 gap - parked on the half-step scale, and departures obey precedence. Each parked
    card holds the cell over the interval [gap, pos + 1) (the cell's card at the start
    over [1, pos + 1)), and no two intervals overlap; at most `parks_left` parks. Returns
    how to read the parks back."""
    problem, model = layout.problem, built.model
    parked: dict[int, cp_model.IntVar] = {}
    gap: dict[int, cp_model.IntVar] = {}
    intervals = []
    for c in built.paced(layout.moves):
        low, high = 1 + len(layout.before[c]), layout.latest(c)
        if problem.fan_of[c] < 0 or low > high - 1:
            continue  # the cell's card, or a card that cannot be parked
        parked[c] = model.new_bool_var(f"parked[{c}]")
        # unparked, gap is pos, which may be one less than `low` (a card above in the cell)
        gap[c] = model.new_int_var(layout.earliest(c), high, f"gap[{c}]")
        model.add(gap[c] >= low).only_enforce_if(parked[c])
        model.add(gap[c] <= pos[c] - 1).only_enforce_if(parked[c])
        model.add(gap[c] == pos[c]).only_enforce_if(~parked[c])
        stay = model.new_int_var(2, high - low + 1, f"stay[{c}]")  # gaps in the cell
        intervals.append(model.new_optional_interval_var(gap[c], stay, pos[c] + 1, parked[c],
                                                         f"cell[{c}]"))
    built.count("park-gap", 3 * len(parked))
    built.made("parked", len(parked))
    built.made("gap", len(gap))
    built.made("stay", len(parked))
    built.made("cell", len(parked))
    if problem.cell is not None:
        c0 = problem.cell
        intervals.append(model.new_interval_var(1, pos[c0], pos[c0] + 1, f"cell[{c0}]"))
        built.made("cell")

    def departure(c: int) -> cp_model.LinearExprT:
        return 2 * gap[c] - parked[c] if c in parked else 2 * pos[c]

    for a, b in built.paced(problem.precedence):
        model.add(departure(a) < departure(b))
        built.count("departure")
    model.add_no_overlap(intervals)
    built.count("cell-no-overlap")
    if problem.parks_left is not None and problem.parks_left < len(parked):
        model.add(sum(parked.values()) <= problem.parks_left)
        built.count("cell-uses")

    def read_parks(solver: cp_model.CpSolver) -> tuple[tuple[int, int], ...]:
        made = [(solver.value(gap[c]), c) for c in parked if solver.boolean_value(parked[c])]
        return tuple((c, g - 1) for g, c in sorted(made))

    return read_parks


def _step_table(layout: Layout) -> tuple[list[int], list[tuple[int, int]]]:
    """node → the value its position shows, and the allowed (value at q, value at q + 1)
    pairs. Black Hole: the rank, and the rank links. A game of directed arcs: talon cards
    show rank + modulus, and the pairs are read from the arcs, which must depend on these
    values alone (checked: an InternalError otherwise, as the table would then be
    unsound)."""
    problem = layout.problem
    if not layout.directed:
        steps = [(k, j) for k, ranks in sorted(layout.links.items()) for j in ranks]
        return list(problem.rank), steps
    talon = layout.talon
    kinds = [problem.rank[v] + (problem.modulus if v in talon else 0)
             for v in range(problem.size)]
    pairs = {(kinds[u], kinds[v]) for u in range(problem.size) for v in problem.neighbours[u]}
    arcs = sum(len(problem.neighbours[u]) for u in range(problem.size))
    implied = sum(1 for u in range(problem.size) for v in layout.moves
                  if v != u and (kinds[u], kinds[v]) in pairs)
    if implied != arcs:
        raise InternalError("the arcs of this game do not depend on rank and talon alone")
    return kinds, sorted(pairs)


def _position_var(model: cp_model.CpModel, layout: Layout, node: int,
                  shift: int = 0) -> cp_model.IntVar:
    if node == layout.problem.start:
        return model.new_int_var(0, 0, f"pos[{node}]")
    return model.new_int_var(layout.earliest(node) - shift, layout.latest(node) - shift,
                             f"pos[{node}]")


def _order_from_seq(solver: cp_model.CpSolver, seq: list[cp_model.IntVar],
                    problem: Problem) -> tuple[int, ...]:
    order = tuple(solver.value(var) for var in seq)
    return played_line(problem, order[1:] if problem.start is not None else order)




# ---------------------------------------------------------------- the circuit model


def build_circuit(layout: Layout, features: frozenset[str],
                  deadline: float | None = None) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    start, end = problem.start, problem.size  # the dummy end node closes the path
    # variables
    pos = [_position_var(model, layout, v) for v in range(problem.size)]
    arcs = {(u, v): model.new_bool_var(f"arc[{u},{v}]") for u, v in circuit_arcs(layout)}
    built = Built(model, lambda solver: _order_from_arcs(solver, arcs, problem), "circuit",
                  features, deadline=deadline)
    built.variables = {"pos": len(pos), "arc": len(arcs)}
    # constraints
    model.add_circuit([(u, v, lit) for (u, v), lit in arcs.items()])
    built.count("circuit")
    for (u, v), lit in built.paced(arcs.items()):
        if v == start:
            continue  # the closing arc: the start holds position 0 anyway
        if u == end:
            model.add(pos[v] == 1).only_enforce_if(lit)
        elif v == end:
            model.add(pos[u] == layout.n).only_enforce_if(lit)
        else:
            model.add(pos[v] == pos[u] + 1).only_enforce_if(lit)
        built.count("arc-position")
    if "alldiff" in features:  # implied, but its window reasoning is what the circuit lacks
        model.add_all_different(pos)
        built.count("all-different")
    _precedence_on_positions(built, pos, problem.precedence)
    if "symmetry" in features:
        _symmetry_on_positions(built, pos, layout.pairs)
    return built


def circuit_arcs(layout: Layout) -> list[tuple[int, int]]:
    """Arcs of the circuit, the dummy end node being `problem.size`: into every card that
    may come first (from the start, or from the end node when there is no start), between
    rank-adjacent cards that may follow each other, out of every card that may come last,
    and from the end node back to the start."""
    problem = layout.problem
    start, end = problem.start, problem.size
    if not layout.moves and start is not None:  # nothing to play: start → end → start
        return [(start, end), (end, start)]
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


# ---------------------------------------------------------------- on positions


def _precedence_on_positions(built: Built, pos: Sequence[cp_model.IntVar],
                             pairs: Iterable[tuple[int, int]]) -> None:
    for a, c in built.paced(pairs):
        built.model.add(pos[a] < pos[c])
        built.count("precedence")


def _symmetry_on_positions(built: Built, pos: Sequence[cp_model.IntVar],
                           pairs: Iterable[SameRankPair]) -> None:
    """first before second, unless above_first comes after second or first after
    below_second: one clause over half-reified comparisons."""
    model = built.model
    for pair in built.paced(pairs):
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
        built.made("sym", len(options))


# ---------------------------------------------------------------- the SAT encoding's clauses


def build_clauses(layout: Layout, features: frozenset[str],
                  deadline: float | None = None, *, optional: bool = False) -> Built:
    """One Boolean variable per CNF variable (named by its key), one `add_bool_or` per
    clause; the families and variable kinds are the SAT encoding's. With `optional` the
    CNF of optional positions, maximising the filled positions (the best score of a game
    with a cell, encodings/worm-hole.md "The best score"): model "optional-cnf"."""
    with cnf.gc_paused():  # as for the CNF itself: many small objects, no cycles
        try:
            encoding, keys, model, xs = _clauses_model(layout, features, deadline, optional)
        except OutOfTime:
            stopped = True  # what was made is freed here, before the collector resumes
        else:
            stopped = False
    if stopped:
        raise OutOfTime("the time limit came while the model was built")

    def read_order(solver: cp_model.CpSolver) -> tuple[int, ...]:
        return encoding.decode([v if solver.boolean_value(x) else -v
                                for v, x in enumerate(xs, start=1)])

    def read_parks(solver: cp_model.CpSolver) -> tuple[tuple[int, int], ...]:
        return encoding.decode_parks([v for v, x in enumerate(xs, start=1)
                                      if solver.boolean_value(x)])

    families = {family: count for family, count in encoding.counts().items() if count}
    built = Built(model, read_order, "optional-cnf" if optional else "cnf", features,
                  families, deadline=deadline, read_parks=read_parks)
    if optional:
        built.filled = [xs[v - 1] for v in encoding.filled]
        model.maximize(sum(built.filled))
    kinds: dict[str, int] = {}
    for key in keys:
        kinds[key[0]] = kinds.get(key[0], 0) + 1
    built.variables = kinds
    return built


def _clauses_model(layout: Layout, features: frozenset[str], deadline: float | None,
                   optional: bool = False) -> tuple[cnf.Encoding, list[tuple],
                                                    cp_model.CpModel, list[cp_model.IntVar]]:
    encoding = cnf.build_cnf(layout.problem, features, layout=layout, deadline=deadline,
                             optional=optional)
    keys = encoding.pool.keys
    model = cp_model.CpModel()
    xs = [model.new_bool_var("_".join(map(str, key))) for key in paced(keys, deadline)]
    for clause in paced(encoding.clauses, deadline):
        model.add_bool_or([xs[lit - 1] if lit > 0 else xs[-lit - 1].negated()
                           for lit in clause])
    return encoding, keys, model, xs


def build_best(problem: Problem, features: Iterable[str] | None = None, *,
               deadline: float | None = None) -> Built:
    """The best score's model: the optional-position Boolean model (`build_optional`),
    or, for a game with a free cell, which that model does not hold, the clauses of the
    optional-position CNF (`build_clauses` with `optional`, model "optional-cnf";
    encodings/worm-hole.md, "The best score") with the CNF's default features, which
    are its own: `features` must then be None. OutOfTime when the deadline passes first."""
    if not problem.cells:
        return build_optional(problem, features, deadline=deadline)
    if features is not None:
        raise InputError("the optional-position model of a game with a cell is the CNF's, "
                         "with its default features: give none", "features",
                         token=",".join(sorted(features)))
    refused = refusal(problem.game, cnf.OPTIONAL_PLAYS, "the optional-position CNF",
                      problem.game.name)
    if refused is not None:
        raise refused
    chosen = cnf.known_features(cnf.default_features(problem), optional=True)
    check(deadline)
    return build_clauses(make_layout(problem), chosen, deadline, optional=True)


BUILDERS: dict[str, Callable[[Layout, frozenset[str], float | None], Built]] = {
    "inverse": build_inverse,
    "boolean": build_boolean,
    "circuit": build_circuit,
    "cnf": build_clauses,
}
