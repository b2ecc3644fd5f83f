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
constraints (`Built.tick`, `blackhole.deadline.paced`): `blackhole.deadline.OutOfTime`
when it passes before the model is complete.

The models and features by name, their help and defaults, are `encode.cpsat_names`,
which a caller reads without importing OR-Tools; this module imports those it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ortools.sat.python import cp_model

from blackhole.deadline import CHECK_EVERY, OutOfTime, check, paced
from blackhole.encode import cnf
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
from blackhole.encode.layout import (
    Domains,
    Layout,
    Lit,
    make_domains,
    make_layout,
    played_line,
    symmetry_cut,
)
from blackhole.errors import InputError, InternalError
from blackhole.problem import Problem, SameRankPair

Literal = cp_model.LiteralT  # a Boolean variable, its negation, or a constant (bool)
T = TypeVar("T")


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
    deadline: float | None = None  # building stops here (OutOfTime)

    def tick(self) -> None:
        """A look at the clock while building: OutOfTime once the deadline has passed."""
        check(self.deadline)

    def paced(self, items: Iterable[T], every: int = CHECK_EVERY) -> Iterable[T]:
        """The items, with a look at the clock every `every` of them (`deadline.paced`)."""
        return paced(items, self.deadline, every)

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
    _precedence_on_positions(built, pos, problem.precedence)
    if "symmetry" in features:
        _symmetry_on_positions(built, pos, layout.pairs)
    return built


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
                  deadline: float | None = None) -> Built:
    """One Boolean variable per CNF variable (named by its key), one `add_bool_or` per
    clause; the families and variable kinds are the SAT encoding's."""
    with cnf.gc_paused():  # as for the CNF itself: many small objects, no cycles
        try:
            encoding, keys, model, xs = _clauses_model(layout, features, deadline)
        except OutOfTime:
            stopped = True  # what was made is freed here, before the collector resumes
        else:
            stopped = False
    if stopped:
        raise OutOfTime("the time limit came while the model was built")

    def read_order(solver: cp_model.CpSolver) -> tuple[int, ...]:
        return encoding.decode([v if solver.boolean_value(x) else -v
                                for v, x in enumerate(xs, start=1)])

    families = {family: count for family, count in encoding.counts().items() if count}
    built = Built(model, read_order, "cnf", features, families, deadline=deadline)
    kinds: dict[str, int] = {}
    for key in keys:
        kinds[key[0]] = kinds.get(key[0], 0) + 1
    built.variables = kinds
    return built


def _clauses_model(layout: Layout, features: frozenset[str], deadline: float | None
                   ) -> tuple[cnf.Encoding, list[tuple], cp_model.CpModel,
                              list[cp_model.IntVar]]:
    encoding = cnf.build_cnf(layout.problem, features, layout=layout, deadline=deadline)
    keys = encoding.pool.keys
    model = cp_model.CpModel()
    xs = [model.new_bool_var("_".join(map(str, key))) for key in paced(keys, deadline)]
    for clause in paced(encoding.clauses, deadline):
        model.add_bool_or([xs[lit - 1] if lit > 0 else xs[-lit - 1].negated()
                           for lit in clause])
    return encoding, keys, model, xs


BUILDERS: dict[str, Callable[[Layout, frozenset[str], float | None], Built]] = {
    "inverse": build_inverse,
    "boolean": build_boolean,
    "circuit": build_circuit,
    "cnf": build_clauses,
}
