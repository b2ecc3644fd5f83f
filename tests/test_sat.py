"""The SAT encoding and backend: real verdicts, sound features, counts as specified.

Verdicts are checked against the independent C solver's reference (tests/data) and the
pure-Python search referee; every solution is replayed by the rules engine (solve_deal
raises InternalError otherwise). The clause counts are recomputed here from the formulas
in encodings/sat.md, without reading the encoder's internals.
"""

from __future__ import annotations

import time
from functools import cache

import pytest
from pysat.solvers import Solver

from blackhole import drat
from blackhole.backends import Options, Verdict
from blackhole.backends.pysat_tools import (
    DEFAULT_SOLVER,
    PROOF_SOLVERS,
    SOLVERS,
    solver_name,
)
from blackhole.backends.sat import SatBackend
from blackhole.base.errors import InputError
from blackhole.encode.cnf import (
    CERTIFY_FEATURES,
    DEFAULT_FEATURES,
    ENCODING_VERSION,
    FEATURES,
    NEEDS,
    build_cnf,
)
from blackhole.model.cards import Card, deck
from blackhole.model.deal import Deal
from blackhole.model.problem import (
    build_problem,
    must_follow,
    must_precede,
)
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    COUNT_DEALS,
    big_deal,
    check_order,
    check_symmetry,
    easy_for_search,
    ranked_deal,
    reference,
    small_deal,
    specified,
)

REFERENCE_SAMPLE = list(range(1, 1001, 8))  # 125 deals, 12 of them unsolvable
FEATURE_SAMPLE = list(range(3, 1001, 100))  # 10 deals for each feature (100 when slow)
FEATURE_SAMPLE_SLOW = list(range(3, 1001, 10))
SMALL_SEEDS = range(200)  # small generated deals, judged by the search referee
FEATURE_SEEDS = range(60)  # of those, for each feature (all 200 when slow)


@cache
def pysol(number: int) -> Deal:
    return load_deal(f"pysol:{number}")


def verdict(deal: Deal, features: frozenset[str] = DEFAULT_FEATURES,
            solver: str | None = None) -> Verdict:
    solution = solve_deal(deal, "sat", Options(timeout=60, solver=solver, features=features))
    assert solution.result.solver == solver_name(solver)  # the SAT solver answered
    if solution.verdict is Verdict.SOLVED:
        assert solution.replay is not None and solution.replay.won
    return solution.verdict


@cache
def default_verdict(number: int) -> Verdict:
    return verdict(pysol(number))


@cache
def referee(seed: int) -> Verdict:
    result = solve_deal(small_deal(seed), "search", Options()).result
    assert result.solver == "dfs"
    return result.verdict


def expected(number: int) -> Verdict:
    return Verdict(reference()[number]["verdict"])


# ---------------------------------------------------------------- verdicts


def test_reference_verdicts_and_replays_on_250_deals() -> None:
    wrong = {n: default_verdict(n) for n in REFERENCE_SAMPLE if default_verdict(n) != expected(n)}
    assert not wrong
    assert sum(expected(n) is Verdict.UNSOLVABLE for n in REFERENCE_SAMPLE) > 10


@pytest.mark.slow
def test_reference_verdicts_on_all_1000_deals() -> None:
    wrong = {n: default_verdict(n) for n in range(1, 1001) if default_verdict(n) != expected(n)}
    assert not wrong


# Deals with fewer than 20000 states for the C solver (helpers.easy_for_search) that the
# pure-Python referee also settles in well under a second here, 19 of them unsolvable.
SEARCH_SAMPLE = [1, 29, 51, 70, 89, 110, 148, 175, 183, 212, 229, 258, 279, 317, 334, 355,
                 371, 398, 416, 430, 448, 463, 478, 497, 543, 557, 582, 602, 643, 667, 686,
                 700, 738, 759, 788, 805, 822, 840, 864, 875]


def test_agrees_with_the_search_referee() -> None:
    assert set(SEARCH_SAMPLE) <= set(easy_for_search(20000))
    for number in SEARCH_SAMPLE:
        searched_by = solve_deal(pysol(number), "search", Options(timeout=60)).result
        searched = searched_by.verdict
        assert searched is not Verdict.UNKNOWN and searched_by.solver == "dfs"
        assert default_verdict(number) is searched, number


def test_generalised_deals_agree_with_the_search_referee() -> None:
    verdicts = {seed: verdict(small_deal(seed)) for seed in SMALL_SEEDS}
    assert verdicts == {seed: referee(seed) for seed in SMALL_SEEDS}
    assert Verdict.SOLVED in verdicts.values() and Verdict.UNSOLVABLE in verdicts.values()


@pytest.mark.parametrize("solver", SOLVERS)
def test_every_offered_solver_gives_the_reference_verdict(solver: str) -> None:
    for number in (1, 2, 3, 9):  # unsolvable, then solvable
        assert verdict(pysol(number), solver=solver) is expected(number)


# ---------------------------------------------------------------- features


def without_feature(features: frozenset[str], feature: str) -> frozenset[str]:
    """`features` less `feature` and the features that need it."""
    return features - {feature} - {needs for needs, needed in NEEDS.items() if needed == feature}


def with_feature(features: frozenset[str], feature: str) -> frozenset[str]:
    """`features` and `feature` with the feature it needs."""
    return features | {feature} | ({NEEDS[feature]} if feature in NEEDS else set())


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_feature_keeps_every_verdict(feature: str) -> None:
    """The same verdicts with the feature and without it, from the default set
    (tests/test_encode_backends.py adds deals the look does not settle at once)."""
    feature_keeps_every_verdict(feature, FEATURE_SAMPLE, FEATURE_SEEDS)


@pytest.mark.slow
@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_feature_keeps_every_verdict_on_100_deals(feature: str) -> None:
    feature_keeps_every_verdict(feature, FEATURE_SAMPLE_SLOW, SMALL_SEEDS)


def feature_keeps_every_verdict(feature: str, sample: list[int], seeds: range) -> None:
    with_it = with_feature(DEFAULT_FEATURES, feature)
    without = without_feature(DEFAULT_FEATURES, feature)
    for number in sample:
        assert default_verdict(number) is expected(number)
        other = with_it if feature not in DEFAULT_FEATURES else without
        assert verdict(pysol(number), other) is expected(number), number
    for seed in seeds:
        deal = small_deal(seed)
        assert verdict(deal, with_it) is referee(seed), seed
        assert verdict(deal, without) is referee(seed), seed


def test_feature_sets() -> None:
    assert DEFAULT_FEATURES <= FEATURES and CERTIFY_FEATURES <= FEATURES
    assert "symmetry" not in CERTIFY_FEATURES
    assert ENCODING_VERSION
    with pytest.raises(InputError, match="unknown encoding feature"):
        build_cnf(build_problem(pysol(1)), {"rank", "telepathy"})
    with pytest.raises(InputError, match="telepathy"):
        SatBackend().solve(build_problem(pysol(1)), Options(features=frozenset({"telepathy"})))


def test_a_feature_without_the_one_it_needs_is_refused() -> None:
    with pytest.raises(InputError, match="needs feature rank") as error:
        build_cnf(build_problem(pysol(1)), DEFAULT_FEATURES - {"rank"})
    assert error.value.source == "features"


def test_certificates_take_the_default_features_less_symmetry() -> None:
    assert CERTIFY_FEATURES == DEFAULT_FEATURES - {"symmetry"}


# ---------------------------------------------------------------- decoding


@pytest.mark.parametrize("features", [DEFAULT_FEATURES, FEATURES, frozenset(),
                                      frozenset({"forward", "deadrank"})],
                         ids=lambda f: "+".join(sorted(f)) or "-")
def test_decoded_models_meet_the_original_constraints(features: frozenset[str]) -> None:
    deals = [pysol(n) for n in (2, 3, 5)] + [small_deal(s) for s in range(12)]
    solved = 0
    for deal in deals:
        problem = build_problem(deal)
        encoding = build_cnf(problem, features)
        with Solver(name=DEFAULT_SOLVER, bootstrap_with=encoding.clauses) as sat:
            if not sat.solve():
                continue
            model = sat.get_model()
        order = encoding.decode(model)
        check_order(problem, order)
        if "symmetry" in features:
            check_symmetry(problem, order)
        solved += 1
    assert solved >= 8


def test_decode_refuses_a_model_with_an_empty_position() -> None:
    encoding = build_cnf(build_problem(pysol(2)))
    with pytest.raises(ValueError, match="position 1"):
        encoding.decode([-v for v in range(1, encoding.num_vars + 1)])


def test_dimacs_names_every_variable() -> None:
    encoding = build_cnf(build_problem(pysol(2)), FEATURES)
    text = encoding.dimacs()
    comments = [line for line in text.splitlines() if line.startswith("c var ")]
    assert len(comments) == encoding.num_vars
    assert any(line.endswith("position 3") and " = at card " in line for line in comments)
    assert f"p cnf {encoding.num_vars} {len(encoding.clauses)}" in text
    key = encoding.pool.obj(1)
    assert key is not None and key[0] == "at" and encoding.pool.id(key) == 1


# ---------------------------------------------------------------- counts (encodings/sat.md)


COUNT_FEATURES = [DEFAULT_FEATURES, FEATURES, frozenset(), frozenset({"compact", "alo"}),
                  frozenset({"domain", "forward", "deadrank", "symmetry"}),
                  frozenset({"reach", "rank", "rankcount", "symmetry", "alo"})]


@pytest.mark.parametrize("features", COUNT_FEATURES, ids=lambda f: "+".join(sorted(f)) or "-")
def test_counts_match_the_specification(features: frozenset[str]) -> None:
    for deal in COUNT_DEALS:
        problem = build_problem(deal)
        encoding = build_cnf(problem, features)
        counts, variables = specified(problem, features)
        assert encoding.counts() == counts, deal.name
        assert encoding.num_vars == variables, deal.name
        assert len(encoding.clauses) == sum(counts.values())


# ---------------------------------------------------------------- backend


def test_unknown_solver_names_the_choices() -> None:
    with pytest.raises(InputError, match="glucose3") as error:
        solver_name("telepathy")
    assert "cadical195" in str(error.value)
    assert solver_name("g3") == "glucose3" and solver_name(None) == DEFAULT_SOLVER


@pytest.mark.parametrize("solver", PROOF_SOLVERS)
def test_a_proof_comes_back_with_an_unsatisfiable_answer(solver: str) -> None:
    """The proof refutes the CNF of the same features, by the project's own checker."""
    problem = build_problem(pysol(837))  # unsolvable, after some conflicts
    result = SatBackend().solve(problem, Options(proof=True, solver=solver,
                                                 features=CERTIFY_FEATURES))
    assert result.verdict is Verdict.UNSOLVABLE and result.proof and result.solver == solver
    encoding = build_cnf(problem, CERTIFY_FEATURES)
    proof = drat.parse_proof("".join(line + "\n" for line in result.proof))
    check = drat.check_proof(encoding.clauses, proof)
    assert check.ok, check.reason
    assert SatBackend().solve(problem, Options()).proof is None
    solved = SatBackend().solve(build_problem(pysol(2)), Options(proof=True, solver=solver))
    assert solved.verdict is Verdict.SOLVED and solved.proof is None


def test_a_proof_needs_a_proof_logging_solver() -> None:
    with pytest.raises(InputError, match="proof") as error:
        SatBackend().check(Options(proof=True, solver="cadical195"))
    assert error.value.source == "solver"


def test_result_stats_and_seconds() -> None:
    result = SatBackend().solve(build_problem(pysol(922)), Options())
    assert result.verdict is Verdict.SOLVED and result.solver == DEFAULT_SOLVER
    stats = result.stats
    assert stats["vars"] > 0 and stats["clauses"] > 0 and "conflicts" in stats
    assert result.seconds >= stats["encode_seconds"] + stats["solve_seconds"] - 1e-3


@pytest.mark.parametrize("solver", [DEFAULT_SOLVER, "cadical195"])  # interrupt, budgets
def test_timeout_gives_unknown_in_time(solver: str) -> None:
    problem = build_problem(big_deal(0))  # 159 cards; seconds for every solver offered
    timeout = 1.0
    began = time.perf_counter()
    result = SatBackend().solve(problem, Options(timeout=timeout, solver=solver))
    elapsed = time.perf_counter() - began
    assert result.verdict is Verdict.UNKNOWN and result.order is None
    # a solver that ignored the limit would run for about half a minute; ten seconds'
    # slack covers a stop that lands late on a busy machine
    assert result.seconds <= timeout + 10 and elapsed <= timeout + 10


def test_precedence_closure_is_the_cards_above_and_below_in_the_fan() -> None:
    deal = load_deal("pysol:2")
    problem = build_problem(deal)
    before, after = must_precede(problem), must_follow(problem)
    for fan in problem.fans:  # bottom → top
        for i, card in enumerate(fan):
            assert before[card] == frozenset(fan[i + 1:])
            assert after[card] == frozenset(fan[:i])
    assert set(before) == set(after) == set(problem.moves)


# (ranks, fan size, shuffle seed): decks the referee settles in under a second, both ways
MANY_RANKS = [(15, 2, 0), (15, 4, 0), (17, 3, 1), (17, 3, 2), (17, 4, 4), (17, 2, 3),
              (20, 4, 5)]


@pytest.mark.parametrize(("ranks", "size", "seed"), MANY_RANKS)
def test_search_and_sat_agree_on_decks_with_many_ranks(ranks: int, size: int,
                                                       seed: int) -> None:
    deal = ranked_deal(ranks, size, seed)
    referee = solve_deal(deal, "search", Options(timeout=60))
    sat = solve_deal(deal, "sat", Options(timeout=60))
    assert referee.verdict is sat.verdict is not Verdict.UNKNOWN
    assert (referee.result.solver, sat.result.solver) == ("dfs", DEFAULT_SOLVER)


def test_many_rank_cases_cover_both_verdicts() -> None:
    results = [solve_deal(ranked_deal(*case), "sat", Options()).result for case in MANY_RANKS]
    assert {result.solver for result in results} == {DEFAULT_SOLVER}
    verdicts = {result.verdict for result in results}
    assert verdicts == {Verdict.SOLVED, Verdict.UNSOLVABLE}


@pytest.mark.parametrize("ranks", [13, 16, 17, 20])
def test_search_solves_one_fan_played_down_suit_by_suit(ranks: int) -> None:
    """Top card: the highest club, onto the A♠ by wrap-around; then every club down to the
    ace, the highest diamond, and so on. The referee's memo key once held only 16 hole
    ranks, so from 17 ranks on it confused this first move with the start."""
    fan = [card for suit in "SHDC" for card in deck(ranks) if card.suit == suit]
    fan.remove(Card(1, "S"))
    deal = Deal((tuple(fan),), Card(1, "S"), ranks, name=f"one-fan:{ranks}")
    solution = solve_deal(deal, "search", Options(timeout=60))
    assert solution.verdict is Verdict.SOLVED and solution.replay.won
    assert solution.result.solver == "dfs"
