"""The look (blackhole.look) and the `look` backend: it answers with a full line, which
the rules engine replays, or with a search it exhausted, and never contradicts the
reference or the search referee; `sat` and `cpsat` never take it (tests/test_auto.py
holds the portfolio that does)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from blackhole.backends import Options, Verdict
from blackhole.base.environment import LOOK_VARIABLE
from blackhole.look import Look, c_engine_built, default_budget, look
from blackhole.look.cuts import ranks_can_chain
from blackhole.model.deal import Deal
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import check_order, random_position, small_deal

REFERENCE = {int(row["deal"]): row["verdict"] for row in
             csv.DictReader((Path(__file__).parent / "data" / "pysol-1-1000.csv").open())}
SAMPLE = range(1, 1001, 7)  # 143 deals of the reference


@pytest.fixture(autouse=True, params=["auto", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs with the compiled core (where built) and with Python alone."""
    if request.param == "auto" and not c_engine_built():
        pytest.skip("the compiled core is not built")
    monkeypatch.setenv(LOOK_VARIABLE, request.param)
    return request.param


@pytest.mark.parametrize("number", SAMPLE)
def test_look_lines_are_legal_and_agree_with_the_reference(number: int) -> None:
    problem = build_problem(load_deal(f"pysol:{number}"))
    outcome = look(problem)
    assert 0 <= outcome.nodes <= default_budget()
    if outcome.line is not None:
        assert REFERENCE[number] == "solved" and not outcome.refuted
        check_order(problem, outcome.line)
    if outcome.refuted:
        assert REFERENCE[number] == "unsolvable" and outcome.line is None


def test_the_look_finds_lines_on_the_sample() -> None:
    """Not a speed test: a look that never answers would be dead weight."""
    looks = [look(build_problem(load_deal(f"pysol:{n}"))) for n in SAMPLE]
    assert sum(one.line is not None for one in looks) >= len(SAMPLE) // 4
    assert sum(one.refuted for one in looks) >= 5


@pytest.mark.parametrize("seed", range(120))
def test_look_on_small_deals_never_contradicts_the_search(seed: int) -> None:
    agrees_with_the_search(small_deal(seed), 10_000)


def test_a_budget_shorter_than_a_line_finds_nothing() -> None:
    problem = build_problem(load_deal("pysol:2"))
    assert look(problem, 50) == Look(None, False, 50)


def test_the_look_backend_answers_as_the_look_and_replays(engine: str) -> None:
    """`--backend look` is the look alone: its answer is the look's (solver "look"), a
    win is replayed, a refutation agrees with the reference, and no encoding is built
    (837's refutation takes 210,000 moves: the compiled core only)."""
    for number in (2, 1, 837) if engine == "auto" else (2, 1):
        solution = solve_deal(load_deal(f"pysol:{number}"), "look", Options(timeout=60))
        result = solution.result
        assert (result.backend, result.solver) == ("look", "look")
        assert result.verdict.value == REFERENCE[number], number
        assert result.stats["nodes"] > 0 and "vars" not in result.stats
        if result.verdict is Verdict.SOLVED:
            assert solution.replay is not None and solution.replay.won


def test_the_look_backend_at_its_budget_is_unknown() -> None:
    result = solve_deal(load_deal("pysol:915"), "look", Options(budget=1000)).result
    assert result.verdict is Verdict.UNKNOWN and result.solver == "look"
    assert result.stats["nodes"] == 1000 and result.stats["reason"] == "move budget reached"


def test_another_thread_can_stop_the_look() -> None:
    """`stop` ends a long look within milliseconds, as out of budget (pysol:10683 takes
    the compiled core 2.9 million moves, the Python one far longer)."""
    import threading

    problem = build_problem(load_deal("pysol:10683"))
    stop = bytearray(1)
    found: list[Look] = []
    worker = threading.Thread(target=lambda: found.append(look(problem, 10**9, stop=stop)))
    worker.start()
    worker.join(0.02)
    stop[0] = 1
    worker.join(10)
    assert not worker.is_alive()
    outcome = found[0]
    assert outcome.line is None and not outcome.refuted and 0 < outcome.nodes < 2_000_000
    assert look(problem, 1000, stop=bytearray(1)).nodes == 1000  # an unset flag: no effect


@pytest.mark.parametrize("seed", [*range(15), *(pytest.param(seed, marks=pytest.mark.slow)
                                                   for seed in range(15, 40))])
def test_look_on_positions_never_contradicts_the_search(seed: int) -> None:
    """Part-played positions (a hole card already down, fans uneven) of real deals: a win
    must replay and a refutation must agree with the exhaustive search."""
    agrees_with_the_search(random_position(random.Random(seed)), 20_000)


def agrees_with_the_search(deal: Deal, budget: int) -> None:
    """The look's line is legal, and what it settles the exhaustive search settles alike."""
    problem = build_problem(deal)
    outcome = look(problem, budget)
    if outcome.line is not None:
        check_order(problem, outcome.line)
    if outcome.line is not None or outcome.refuted:
        expected = Verdict.SOLVED if outcome.line is not None else Verdict.UNSOLVABLE
        assert solve_deal(deal, "search", Options(timeout=60)).verdict is expected


def walks_counts(modulus: int, hole: int, steps: int) -> set[tuple[int, ...]]:
    """Every vector of showings per rank (index 0 unused) that some walk of `steps` steps
    from `hole` on the rank cycle leaves, by trying every walk."""
    found, frontier = set(), {(hole, (0,) * (modulus + 1))}
    for _ in range(steps):
        frontier = {(nxt, tuple(c + (i == nxt) for i, c in enumerate(counts)))
                    for rank, counts in frontier
                    for nxt in (rank % modulus + 1, (rank - 2) % modulus + 1)}
    for _, counts in frontier:
        found.add(counts)
    return found


@pytest.mark.parametrize("modulus", [3, 4, 5, 6, 7, 13])
def test_the_rank_count_cut_is_exact_on_every_short_walk(modulus: int) -> None:
    """ranks_can_chain holds exactly for the counts some walk from the hole shows: every
    walk of up to 9 steps against every count vector of that many cards."""
    rng = random.Random(modulus)
    for steps in range(1, 10):
        for hole in range(1, modulus + 1):
            walkable = walks_counts(modulus, hole, steps)
            for counts in walkable:
                assert ranks_can_chain(list(counts), hole, steps, modulus), (counts, hole)
            for _ in range(300):  # random vectors with the same number of cards
                counts = [0] * (modulus + 1)
                for _ in range(steps):
                    counts[rng.randrange(1, modulus + 1)] += 1
                expected = tuple(counts) in walkable
                assert ranks_can_chain(counts, hole, steps, modulus) is expected, (counts, hole)


@pytest.mark.parametrize("seed", range(150))
def test_a_look_without_a_budget_settles_small_deals_as_the_search_does(seed: int) -> None:
    """With both cuts and no budget the look is a complete method: it must win or refute
    every deal, exactly where the exhaustive search (which has neither cut) does."""
    deal = small_deal(seed, ranks=(3, 4, 5, 6), fan_sizes=(1, 2, 3))
    problem = build_problem(deal)
    outcome = look(problem, 10**9)
    assert outcome.line is not None or outcome.refuted
    agrees_with_the_search(deal, 10**9)
