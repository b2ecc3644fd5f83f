"""Optional positions, once per engine: the CNF with filled(q) literals and the CP-SAT
model that maximises the cards played, both held to an exhaustive best-score search
(`backends.search.best_score`) on small generalised deals. Every line read back is
checked against the original Problem constraints (tests/helpers.py)."""

from __future__ import annotations

import time
from functools import cache

import pytest
from pysat.solvers import Solver

from blackhole.backends import Options, Verdict, make_backend
from blackhole.backends.cpsat import run, verdict_of
from blackhole.backends.search import best_score
from blackhole.base.errors import InputError
from blackhole.encode.cnf import (
    DEFAULT_FEATURES,
    FEATURES,
    PREFIX_FEATURES,
    Encoding,
    build_cnf,
)
from blackhole.encode.cpsat import MODELS, OPTIONAL_FEATURES, build_optional
from blackhole.model.cards import Card
from blackhole.model.deal import Deal
from blackhole.model.problem import Problem, build_problem
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    COUNT_DEALS,
    check_order,
    check_symmetry,
    feature_sets,
    reference,
    small_deal,
    specified,
)

SEEDS = range(60)
SAT_FEATURE_SETS = [frozenset(), DEFAULT_FEATURES, PREFIX_FEATURES,
                    frozenset({"domain", "symmetry"}), frozenset({"reach", "forward"}),
                    frozenset({"rank", "rankcount", "compact", "symmetry"})]


@cache
def deal(seed: int) -> Deal:
    return small_deal(seed)


@cache
def best(seed: int) -> int:
    line = best_score(build_problem(deal(seed)))
    assert line.proven
    check_order(build_problem(deal(seed)), line.order, complete=False)
    return len(line.order)


def longest_by_sat(encoding: Encoding) -> tuple[int, ...]:
    """The longest line: one incremental solver, assuming "at least k played" for one
    more card each time until that is refuted."""
    n = len(encoding.slots)
    with Solver(name="glucose3", bootstrap_with=encoding.clauses) as sat:
        assert sat.solve(), "the empty line is always legal"
        order = encoding.decode(sat.get_model())
        while len(order) < n and sat.solve(assumptions=[encoding.filled_literal(len(order) + 1)]):
            longer = encoding.decode(sat.get_model())
            assert len(longer) > len(order)
            order = longer
    return order


def test_the_referee_finds_the_longest_lines() -> None:
    """best_score against the plain verdicts: a full line exactly on solvable deals, and
    on lost ones a line the rules engine replays."""
    lengths = {seed: best(seed) for seed in SEEDS}
    for seed in SEEDS:
        problem = build_problem(deal(seed))
        won = lengths[seed] == len(problem.moves)
        assert won == (solve_deal(deal(seed), "search", Options()).verdict.value == "solved")
    assert len({lengths[s] == len(build_problem(deal(s)).moves) for s in SEEDS}) == 2
    assert any(0 < lengths[s] < len(build_problem(deal(s)).moves) - 1 for s in SEEDS)


# lost pysol deals and their best scores, from the independent exhaustive search of
# shared/reference/pysol-1-1000-best.csv
LOST = {250: 11, 557: 11, 684: 9}


@pytest.mark.parametrize(("number", "score"), sorted(LOST.items()))
def test_best_lines_of_lost_pysol_deals(number: int, score: int) -> None:
    """The referee and the prefix CNF reach the reference's best score, and the rules
    engine replays both lines."""
    source = load_deal(f"pysol:{number}")
    problem = build_problem(source)
    line = best_score(problem, time.perf_counter() + 60)
    assert line.proven and len(line.order) == score
    by_sat = longest_by_sat(build_cnf(problem, DEFAULT_FEATURES, optional=True))
    for order in (line.order, by_sat):
        moves = [problem.cards[v] for v in order]
        assert replay(source, moves).played == score


@pytest.mark.parametrize("features", SAT_FEATURE_SETS, ids=lambda f: "+".join(sorted(f)) or "-")
def test_sat_best_agrees_with_the_search(features: frozenset[str]) -> None:
    for seed in SEEDS:
        problem = build_problem(deal(seed))
        encoding = build_cnf(problem, features, optional=True)
        order = longest_by_sat(encoding)
        check_order(problem, order, complete=False)
        if "symmetry" in features:
            check_symmetry(problem, order)
        assert len(order) == best(seed), (seed, sorted(features))


def all_filled(problem) -> bool:
    encoding = build_cnf(problem, optional=True)
    with Solver(name="glucose3", bootstrap_with=encoding.clauses) as sat:
        return sat.solve(assumptions=[encoding.filled_literal(len(problem.moves))])


def test_all_cards_filled_is_exactly_a_win() -> None:
    for seed in SEEDS:
        problem = build_problem(deal(seed))
        if problem.moves:
            assert all_filled(problem) == (best(seed) == len(problem.moves)), seed
    for number in (1, 2, 3, 5, 837, 915):  # filled-all keeps these plain solves
        won = all_filled(build_problem(load_deal(f"pysol:{number}")))
        assert won == (reference()[number]["verdict"] == "solved"), number


@pytest.mark.parametrize("feature", sorted(FEATURES - PREFIX_FEATURES))
def test_features_unsound_for_prefixes_are_refused(feature: str) -> None:
    problem = build_problem(deal(0))
    with pytest.raises(InputError, match="optional positions") as error:
        build_cnf(problem, DEFAULT_FEATURES | {feature}, optional=True)
    assert error.value.source == "features" and error.value.token == feature
    build_cnf(problem, DEFAULT_FEATURES | {feature})  # fine for complete lines


def test_a_cut_of_complete_lines_loses_the_best_line() -> None:
    """Why `alo`, `deadrank` and the windows' upper bounds are not allowed: asked for
    every position filled, the complete-line encoding is a plain solve, and on a lost
    deal it has no model at all, where the prefix encoding keeps the best line."""
    for seed in SEEDS:
        problem = build_problem(deal(seed))
        if 0 < best(seed) < len(problem.moves):
            complete = build_cnf(problem, DEFAULT_FEATURES | {"deadrank", "alo"})
            with Solver(name="glucose3", bootstrap_with=complete.clauses) as sat:
                assert not sat.solve()
            assert len(longest_by_sat(build_cnf(problem, optional=True))) == best(seed)
            return
    raise AssertionError("no lost deal with a first move among the seeds")


def test_filled_literal_and_decode_of_a_prefix() -> None:
    problem = build_problem(deal(3))
    encoding = build_cnf(problem, optional=True)
    n = len(problem.moves)
    assert [encoding.describe(encoding.filled_literal(k)) for k in (1, n)] == \
        ["filled position 1 holds a card", f"filled position {n} holds a card"]
    for k in (0, n + 1):
        with pytest.raises(ValueError, match="k must be"):
            encoding.filled_literal(k)
    with pytest.raises(ValueError, match="optional"):
        build_cnf(problem).filled_literal(1)
    assert encoding.decode([-v for v in range(1, encoding.num_vars + 1)]) == ()
    first = encoding.slots[1][0][0]  # a card at position 2 with position 1 empty
    with pytest.raises(ValueError, match="after the empty position 1"):
        encoding.decode([first])
    assert "c optional positions" in encoding.dimacs()


@pytest.mark.parametrize("features", [frozenset(), DEFAULT_FEATURES, PREFIX_FEATURES],
                         ids=lambda f: "+".join(sorted(f)) or "-")
def test_optional_counts_match_the_specification(features: frozenset[str]) -> None:
    for source in COUNT_DEALS:
        problem = build_problem(source)
        encoding = build_cnf(problem, features, optional=True)
        counts, variables = specified(problem, features, optional=True)
        assert encoding.counts() == counts, source.name
        assert encoding.num_vars == variables, source.name


# ---------------------------------------------------------------- CP-SAT


@pytest.mark.parametrize("features", feature_sets(OPTIONAL_FEATURES),
                         ids=lambda f: "+".join(sorted(f)) or "-")
def test_cpsat_maximum_agrees_with_the_search(features: frozenset[str]) -> None:
    options = Options(timeout=60)
    for seed in SEEDS[:40]:
        problem = build_problem(deal(seed))
        built = build_optional(problem, features)
        solver, status = run(built, options, time.perf_counter())
        assert solver.status_name(status) == "OPTIMAL", seed
        assert verdict_of(status, built.name).value == "solved"
        order = built.read_order(solver)
        check_order(problem, order, complete=False)
        if "symmetry" in features:
            check_symmetry(problem, order)
        assert len(order) == round(solver.objective_value) == best(seed), seed


def test_cpsat_optional_refuses_other_features() -> None:
    with pytest.raises(InputError, match="optional-position model") as error:
        build_optional(build_problem(deal(0)), {"alldiff"})
    assert error.value.source == "features"


@pytest.mark.parametrize("features", [frozenset(), frozenset({"rankcount"})],
                         ids=lambda f: "+".join(sorted(f)) or "-")
def test_cpsat_optional_counts_match_the_specification(features: frozenset[str]) -> None:
    """encodings/cpsat.md, "The optional-position model", from the fans and ranks."""
    for source in [load_deal("pysol:1"), load_deal("pysol:2")] + [deal(s) for s in (0, 1, 5)]:
        problem = build_problem(source)
        moves = problem.moves
        n, s = len(moves), int(problem.start is not None)
        above = {v: fan[i + 1:] for fan in problem.fans for i, v in enumerate(fan)}
        below = {v: fan[:i] for fan in problem.fans for i, v in enumerate(fan)}
        window = {v: range(1 + len(above[v]), n - len(below[v]) + 1) for v in moves}
        x = sum(len(w) for w in window.values())
        ranks_at = {q: {problem.rank[v] for v in moves if q in window[v]}
                    for q in range(1, n + 1)}
        h = sum(len(ks) for ks in ranks_at.values())
        families = {
            "card-once": n, "position-once": n, "filled-prefix": n - 1, "filled-all": n,
            "hole-of-card": x, "hole-has-card": h, "hole-once": n, "step-from-start": s,
            "step-forward": h - len(ranks_at[n]), "step-backward": h - len(ranks_at[1]),
            "ladder-step": sum(len(w) - 1 for w in window.values()),
            "ladder-at": x, "ladder-climb": x,
            "precedence": sum(len(window[c]) for _, c in problem.precedence),
            "rank-count": 2 * len({problem.rank[v] for v in moves}) * ("rankcount" in features),
        }
        built = build_optional(problem, features)
        assert built.families == {k: v for k, v in families.items() if v}, source.name
        assert built.variables == {"at": x, "by": x, "hole": h, "filled": n}, source.name
        assert len(built.model.proto.constraints) == sum(families.values())


def test_nothing_left_to_play_is_a_win_for_every_engine() -> None:
    """A position whose fans are all empty (only the hole's card is left)."""
    problem = Problem(cards=(Card(1, "S"),), start=0, rank=(1,), modulus=13, fans=((), ()),
                      fan_of=(-1,), depth=(0,), neighbours=((),), precedence=())
    for backend, options in [("sat", Options()), ("search", Options())] + \
            [("cpsat", Options(model=model)) for model in MODELS]:
        result = make_backend(backend).solve(problem, options)
        assert (result.verdict, result.order) == (Verdict.SOLVED, ()), (backend, options.model)
    assert longest_by_sat(build_cnf(problem, optional=True)) == ()
    built = build_optional(problem)
    solver, status = run(built, Options(), time.perf_counter())
    assert solver.status_name(status) == "OPTIMAL" and built.read_order(solver) == ()
    assert best_score(problem).order == ()


def test_at_least_k_is_unsatisfiable_exactly_above_the_best() -> None:
    """The statement of an optimality certificate: the prefix CNF and the unit filled(k)."""
    for seed in SEEDS[:30]:
        problem = build_problem(deal(seed))
        encoding = build_cnf(problem, optional=True)
        for k in range(max(1, best(seed) - 1), min(best(seed) + 2, len(problem.moves)) + 1):
            bounded = encoding.at_least(k)
            assert bounded.counts()["at-least"] == 1 and bounded.bound == k
            assert len(bounded.clauses) == len(encoding.clauses) + 1
            with Solver(name="glucose3", bootstrap_with=bounded.clauses) as sat:
                assert sat.solve() == (k <= best(seed)), (seed, k)
            assert f"c at least {k} cards played" in bounded.dimacs()
