"""The portfolio on the hard band (issue 22): its SAT side's CNF carries the same-rank
symmetry cut (auto.SAT_EXTRA_FEATURES), which must never cut the last win of a deal, so
every engine and the portfolio are held to the `search` referee on small generalised
decks (3-8 ranks, fans of 1-3), with the portfolio made to answer by its SAT side; and a
hard-band deal the look cannot settle within a small budget is answered by that side."""

from __future__ import annotations

import os
import random
from functools import cache

import pytest

from blackhole.backends import Options, Verdict, make_backend
from blackhole.backends.auto import (
    LARGE_FROM_RANKS,
    RACE_BUDGET_LARGE,
    SAT_EXTRA_FEATURES,
    free_cores,
    races,
)
from blackhole.backends.kissat import installed as kissat_installed
from blackhole.backends.pysat_tools import DEFAULT_SOLVER
from blackhole.base.environment import CORES_VARIABLE
from blackhole.encode.cnf import DEFAULT_FEATURES
from blackhole.look import c_engine_built, look
from blackhole.model.cards import Card, deck
from blackhole.model.deal import Deal
from blackhole.model.problem import Problem, build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import check_order, check_symmetry

DEALS = 60  # small decks: enough to hold both verdicts at every fan size
MOST_CARDS = 20  # cards left on the fans of a small deck (the referee's search stays short)
# A deal of the hard band (22 ranks): the look needs about 2.3 million moves for its win,
# glucose4 about a hundred conflicts.
HARD_DEAL = "random:11:ranks=22"
SMALL_BUDGET = 20_000


def small_position(seed: int) -> Deal:
    """A deck of 3-8 ranks shuffled by `seed`: its last card is the hole's, 4 to
    MOST_CARDS of the others lie in fans of 1-3 cards (each fan's size drawn), and the rest
    are already in the hole. Full small deals are nearly all winnable; these positions
    give both verdicts."""
    rng = random.Random(seed)
    ranks = rng.randint(3, 8)
    cards = deck(ranks)
    rng.shuffle(cards)
    hole = cards.pop()
    cards = cards[:rng.randint(4, min(len(cards), MOST_CARDS))]
    fans: list[tuple[Card, ...]] = []
    while len(cards) > sum(map(len, fans)):
        start = sum(map(len, fans))
        fans.append(tuple(cards[start:start + rng.randint(1, 3)]))
    return Deal(tuple(fans), hole, ranks, name=f"small-position:{seed}")


@cache
def decks() -> tuple[tuple[Deal, Verdict], ...]:
    """Positions on small generalised decks (3-8 ranks, fans of 1-3 cards), with the
    referee's verdict."""
    found = []
    for seed in range(DEALS):
        deal = small_position(seed)
        verdict = make_backend("search").solve(build_problem(deal), Options()).verdict
        found.append((deal, verdict))
    return tuple(found)


def held(problem: Problem, verdict: Verdict, order: tuple[int, ...] | None,
         expected: Verdict, who: str) -> None:
    assert verdict is expected, who
    if expected is Verdict.SOLVED:
        assert order is not None
        check_order(problem, order)


def test_the_decks_hold_both_verdicts_and_fans_of_1_to_3() -> None:
    for verdict in (Verdict.SOLVED, Verdict.UNSOLVABLE):
        fans = [fan for deal, found in decks() if found is verdict for fan in deal.fans]
        assert {len(fan) for fan in fans} == {1, 2, 3}, verdict
    assert {deal.ranks for deal, _ in decks()} == set(range(3, 9))


@pytest.mark.parametrize("name", ["look", "sat", "cpsat", "auto"])
def test_every_engine_agrees_with_the_referee_on_small_decks(name: str) -> None:
    backend = make_backend(name)
    step = 3 if name == "cpsat" else 1  # CP-SAT's start-up costs more than these decks
    for deal, expected in decks()[::step]:
        problem = build_problem(deal)
        result = backend.solve(problem, Options(timeout=60))
        held(problem, result.verdict, result.order, expected, f"{name} {deal.name}")


def test_the_sat_side_s_cnf_keeps_a_win_wherever_there_is_one() -> None:
    """The features the portfolio's SAT side uses (the default and the symmetry cut):
    satisfiable exactly on the winnable decks, and its wins obey every same-rank pair."""
    features = DEFAULT_FEATURES | SAT_EXTRA_FEATURES
    assert "symmetry" in features
    sat = make_backend("sat")
    for deal, expected in decks():
        problem = build_problem(deal)
        result = sat.solve(problem, Options(timeout=60, features=features))
        held(problem, result.verdict, result.order, expected, deal.name)
        if result.order is not None:
            check_symmetry(problem, result.order)


@pytest.mark.parametrize("cores", ["1", "2"])
def test_the_portfolio_s_sat_side_agrees_with_the_referee(
        cores: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a look of one move, every deck goes to the SAT side: in turn, the SAT solver
    on the CNF with the symmetry cut; in a race, that one against a second solver on the
    default CNF (kissat where it is installed), which starts on the look's core when the
    look gives up."""
    if cores == "2" and not c_engine_built():
        pytest.skip("the compiled core is not built")
    monkeypatch.setenv(CORES_VARIABLE, cores)
    configurations = {DEFAULT_FEATURES | SAT_EXTRA_FEATURES}
    if cores == "2":
        configurations.add(DEFAULT_FEATURES)
    answered_by = set()
    for deal, expected in decks():
        solution = solve_deal(deal, "auto", Options(timeout=60, budget=1))
        result = solution.result
        problem = build_problem(deal)
        if result.solver == "look":  # a one-move look settles a deck of one card or so
            assert look(problem, 1).refuted or look(problem, 1).line is not None
            continue
        second = "kissat" if cores == "2" and kissat_installed() else DEFAULT_SOLVER
        assert result.solver in (DEFAULT_SOLVER, second), deal.name
        features = frozenset(result.stats["features"])
        assert features in configurations, deal.name
        answered_by.add(features)
        held(problem, result.verdict, result.order, expected, deal.name)
        if result.verdict is Verdict.SOLVED:
            assert solution.replay is not None and solution.replay.won
            if "symmetry" in features:
                check_symmetry(problem, result.order)
    if cores == "1":  # in turn, the SAT side is the symmetry one alone; in a race,
        # which of the two answers first is the machine's timing, not a property
        assert answered_by == {DEFAULT_FEATURES | SAT_EXTRA_FEATURES}


def test_a_proof_keeps_the_default_cnf() -> None:
    """A proof is checked against the default CNF: the symmetry cut stays out of it."""
    deal = next(deal for deal, verdict in decks() if verdict is Verdict.UNSOLVABLE
                and not look(build_problem(deal), 1).refuted)
    result = solve_deal(deal, "auto", Options(timeout=60, budget=1, proof=True)).result
    assert result.verdict is Verdict.UNSOLVABLE and result.solver == DEFAULT_SOLVER
    assert set(result.stats["features"]) == DEFAULT_FEATURES and result.proof


@pytest.mark.slow
def test_a_hard_band_deal_the_look_leaves_is_won_by_the_sat_side_in_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CORES_VARIABLE, "1")
    deal = load_deal(HARD_DEAL)
    outcome = look(build_problem(deal), SMALL_BUDGET)
    assert outcome.line is None and not outcome.refuted  # the look leaves it at this budget
    solution = solve_deal(deal, "auto", Options(timeout=60, budget=SMALL_BUDGET))
    assert solution.verdict is Verdict.SOLVED
    assert solution.result.solver == DEFAULT_SOLVER
    assert solution.replay is not None and solution.replay.won
    assert [s["engine"] for s in solution.result.stats["stages"]] == ["look", DEFAULT_SOLVER]


@pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")
def test_on_a_large_deck_the_racing_look_gives_way_to_sat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a deck of the hard band the racing look stops at RACE_BUDGET_LARGE moves (this
    deal's win takes it about 2.3 million) and a SAT solver wins: the first glucose4, or
    the solver that takes the look's core (kissat where it is installed); the win is
    replayed."""
    monkeypatch.setenv(CORES_VARIABLE, "2")
    deal = load_deal(HARD_DEAL)
    problem = build_problem(deal)
    assert problem.modulus >= LARGE_FROM_RANKS
    outcome = look(problem, RACE_BUDGET_LARGE)
    assert outcome.line is None and not outcome.refuted
    solution = solve_deal(deal, "auto", Options(timeout=60))
    second = "kissat" if kissat_installed() else DEFAULT_SOLVER
    assert solution.verdict is Verdict.SOLVED
    assert solution.result.solver in {DEFAULT_SOLVER, second}
    assert solution.replay is not None and solution.replay.won
    stages = solution.result.stats["stages"]
    assert [s["engine"] for s in stages[:3]] == ["look", "look", DEFAULT_SOLVER]
    assert stages[1]["answer"] == "none" and stages[1]["nodes"] <= RACE_BUDGET_LARGE
    assert any(s["answer"] == "won" for s in stages[2:])


@pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")
def test_on_a_busy_machine_only_large_decks_race(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no core free by the load average, a standard deal runs in turn (the look
    settles it alone) and a deck of the hard band races; the variable, when set, decides
    alone."""
    monkeypatch.delenv(CORES_VARIABLE, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    assert free_cores() == 1
    standard, large = build_problem(load_deal("pysol:2")), build_problem(load_deal(HARD_DEAL))
    assert not races(standard) and races(large)
    monkeypatch.setenv(CORES_VARIABLE, "1")
    assert not races(large)
    monkeypatch.setenv(CORES_VARIABLE, "2")
    assert races(standard) and races(large)
