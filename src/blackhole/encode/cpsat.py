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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from blackhole.encode import cnf
from blackhole.encode.layout import (
    Domains,
    Layout,
    Lit,
    make_domains,
    make_layout,
    symmetry_cut,
)
from blackhole.errors import InputError
from blackhole.problem import Problem, SameRankPair

MODEL_HELP: dict[str, str] = {
    "inverse": "seq/pos inverse with a rank table (CSPLib 081): the fastest",
    "boolean": "card-at-position literals, rank literals, played-by ladders",
    "circuit": "add_circuit over rank-adjacent arcs, positions tied to arcs",
    "cnf": "the SAT encoding's clauses, one bool_or each (its features are the SAT ones)",
}
MODELS: tuple[str, ...] = tuple(MODEL_HELP)
# Over pysol:1-1000 the inverse model has the lowest median, p99 and maximum (presolve
# off, see blackhole.backends.cpsat).
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
    "cnf": cnf.FEATURES,
}
# The features each model runs with when no features are given (measured).
DEFAULT_FEATURES: dict[str, frozenset[str]] = {
    "inverse": frozenset({"symmetry"}),
    "boolean": frozenset({"rankcount"}),
    "circuit": frozenset({"alldiff", "symmetry"}),  # only with both does it settle every deal
    "cnf": cnf.DEFAULT_FEATURES,
}
# The optional-position model is the Boolean one; both of its features are sound for
# prefixes (rankcount as "at most", encodings/cpsat.md).
OPTIONAL_FEATURES: frozenset[str] = MODEL_FEATURES["boolean"]
DEFAULT_OPTIONAL_FEATURES: frozenset[str] = frozenset({"rankcount"})  # measured

Literal = cp_model.LiteralT  # a Boolean variable, its negation, or a constant (bool)


@dataclass
class Built:
    """A model ready to solve, how to read the play order back, and what it holds."""

    model: cp_model.CpModel
    read_order: Callable[[cp_model.CpSolver], tuple[int, ...]]
    name: str
    features: frozenset[str]
    families: dict[str, int] = field(default_factory=dict)  # constraints per family
    variables: dict[str, int] = field(default_factory=dict)  # variables per kind
    filled: list[cp_model.IntVar] = field(default_factory=list)  # optional positions

    def count(self, family: str, added: int = 1) -> None:
        self.families[family] = self.families.get(family, 0) + added

    def made(self, kind: str, added: int = 1) -> None:
        self.variables[kind] = self.variables.get(kind, 0) + added


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
                layout: Layout | None = None) -> Built:
    """The chosen model of `problem` (defaults: DEFAULT_MODEL and its features)."""
    name = choose_model(model)
    chosen = choose_features(name, features)
    return BUILDERS[name](layout or make_layout(problem), chosen)


def export_model(problem: Problem, model: str | None = None,
                 features: Iterable[str] | None = None) -> str:
    """The chosen model as CpModelProto text."""
    return str(build_model(problem, model, features).model.proto)


# ---------------------------------------------------------------- the inverse model


def build_inverse(layout: Layout, features: frozenset[str]) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    nodes = range(problem.size)
    # add_inverse numbers from 0: with a start card that is its position; without one
    # (All in a Row) index i of seq holds position i + 1
    shift = 0 if problem.start is not None else 1
    places = range(problem.size)
    # variables
    pos = [_position_var(model, layout, v, shift) for v in nodes]
    seq = [model.new_int_var(0, problem.size - 1, f"seq[{q}]") for q in places]
    rank_at = [model.new_int_var(1, problem.modulus, f"rank_at[{q}]") for q in places]
    built = Built(model, lambda solver: _order_from_seq(solver, seq, problem), "inverse",
                  features)
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
        _symmetry_on_positions(built, pos, layout.pairs)
    return built


def _position_var(model: cp_model.CpModel, layout: Layout, node: int,
                  shift: int = 0) -> cp_model.IntVar:
    if node == layout.problem.start:
        return model.new_int_var(0, 0, f"pos[{node}]")
    return model.new_int_var(layout.earliest(node) - shift, layout.latest(node) - shift,
                             f"pos[{node}]")


def _order_from_seq(solver: cp_model.CpSolver, seq: list[cp_model.IntVar],
                    problem: Problem) -> tuple[int, ...]:
    order = tuple(solver.value(var) for var in seq)
    return order[1:] if problem.start is not None else order


# ---------------------------------------------------------------- the Boolean model


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


def build_boolean(layout: Layout, features: frozenset[str], *,
                  optional: bool = False) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    domains = make_domains(layout, optional=optional)
    # variables
    at = {(v, q): model.new_bool_var(f"at[{v},{q}]") for v in layout.moves for q in domains.of[v]}
    by = {(v, q): model.new_bool_var(f"by[{v},{q}]")
          for v in layout.moves for q in domains.ladder(v)}
    hole = {(q, k): model.new_bool_var(f"hole[{q},{k}]") for q in layout.positions
            for k in sorted({problem.rank[v] for v in domains.cards_at[q]})}
    filled = {q: model.new_bool_var(f"filled[{q}]") for q in layout.positions} if optional \
        else {}
    bools = _BooleanVars(domains, at, by, hole, filled)
    name = "optional" if optional else "boolean"
    built = Built(model, lambda solver: _order_from_at(solver, at, layout), name, features)
    built.variables = {"at": len(at), "by": len(by), "hole": len(hole)}
    if optional:
        built.variables["filled"] = len(filled)
        built.filled = list(filled.values())
    # constraints
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
                   layout: Layout | None = None) -> Built:
    """The Boolean model with optional positions: filled[q+1] → filled[q], each card at
    most once, and the objective to maximise the played cards (encodings/cpsat.md).
    `read_order` gives the played prefix; `built.filled` the position literals."""
    chosen = DEFAULT_OPTIONAL_FEATURES if features is None else frozenset(features)
    unknown = sorted(chosen - OPTIONAL_FEATURES)
    if unknown:
        raise InputError("not a feature of the optional-position model (it has "
                         f"{', '.join(sorted(OPTIONAL_FEATURES))})", "features",
                         token=",".join(unknown))
    return build_boolean(layout or make_layout(problem), chosen, optional=True)


def _cards_and_positions(built: Built, bools: _BooleanVars) -> None:
    """Complete lines: exactly one position per card and one card per position. Optional
    positions: at most one position per card; a position holds one card exactly when it
    is filled; filled positions form a prefix."""
    layout, model, at, filled = bools.layout, built.model, bools.at, bools.filled
    cards_at, of = bools.domains.cards_at, bools.domains.of
    for v in layout.moves:
        lits = [at[v, q] for q in of[v]]
        if filled:
            model.add_at_most_one(lits)
        else:
            model.add_exactly_one(lits)
    built.count("card-once", len(layout.moves))
    for q in layout.positions:
        lits = [at[v, q] for v in cards_at[q]]
        model.add_exactly_one(lits + [filled[q].negated()] if filled else lits)
    built.count("position-once", layout.n)
    if filled:
        for q in layout.positions[:-1]:
            model.add_implication(filled[q + 1], filled[q])
        built.count("filled-prefix", layout.n - 1)
        # every position filled: every card played (pigeonhole, stated)
        for v in layout.moves:
            model.add_bool_or([at[v, q] for q in of[v]]).only_enforce_if(filled[layout.n])
        built.count("filled-all", len(layout.moves))


def _hole_channel(built: Built, bools: _BooleanVars) -> None:
    """hole[q,k] is true exactly when the card at position q has rank k."""
    rank, model, at, hole = bools.layout.problem.rank, built.model, bools.at, bools.hole
    cards_at, filled = bools.domains.cards_at, bools.filled
    for (v, q), lit in at.items():
        model.add_implication(lit, hole[q, rank[v]])
    built.count("hole-of-card", len(at))
    for (q, k), lit in hole.items():
        model.add_bool_or([at[v, q] for v in cards_at[q] if rank[v] == k]).only_enforce_if(lit)
    built.count("hole-has-card", len(hole))
    for q in bools.layout.positions:
        lits = [lit for (p, _), lit in hole.items() if p == q]
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
    for (q, k), lit in hole.items():
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
    for a, c in bools.layout.problem.precedence:
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
    for k, count in cards.items():
        shown = sum(lit for (_, j), lit in bools.hole.items() if j == k)
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
    for clause in cut.clauses:
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


# ---------------------------------------------------------------- the circuit model


def build_circuit(layout: Layout, features: frozenset[str]) -> Built:
    problem, model = layout.problem, cp_model.CpModel()
    start, end = problem.start, problem.size  # the dummy end node closes the path
    # variables
    pos = [_position_var(model, layout, v) for v in range(problem.size)]
    arcs = {(u, v): model.new_bool_var(f"arc[{u},{v}]") for u, v in circuit_arcs(layout)}
    built = Built(model, lambda solver: _order_from_arcs(solver, arcs, problem), "circuit",
                  features)
    built.variables = {"pos": len(pos), "arc": len(arcs)}
    # constraints
    model.add_circuit([(u, v, lit) for (u, v), lit in arcs.items()])
    built.count("circuit")
    for (u, v), lit in arcs.items():
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
        built.made("sym", len(options))


# ---------------------------------------------------------------- the SAT encoding's clauses


def build_clauses(layout: Layout, features: frozenset[str]) -> Built:
    """One Boolean variable per CNF variable (named by its key), one `add_bool_or` per
    clause; the families and variable kinds are the SAT encoding's."""
    encoding = cnf.build_cnf(layout.problem, features, layout=layout)
    model = cp_model.CpModel()
    xs = [model.new_bool_var("_".join(map(str, key))) for key in encoding.keys]
    for clause in encoding.clauses:
        model.add_bool_or([xs[lit - 1] if lit > 0 else xs[-lit - 1].negated()
                           for lit in clause])

    def read_order(solver: cp_model.CpSolver) -> tuple[int, ...]:
        return encoding.decode([v if solver.boolean_value(x) else -v
                                for v, x in enumerate(xs, start=1)])

    families = {family: count for family, count in encoding.counts().items() if count}
    built = Built(model, read_order, "cnf", features, families)
    for key in encoding.keys:
        built.made(key[0])
    return built


BUILDERS: dict[str, Callable[[Layout, frozenset[str]], Built]] = {
    "inverse": build_inverse,
    "boolean": build_boolean,
    "circuit": build_circuit,
    "cnf": build_clauses,
}
