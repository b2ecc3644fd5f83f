"""The greedy first look (blackhole.probe) and its place in the SAT backend: it only ever
answers with a full line, which the rules engine replays, and it never changes a verdict;
when it finds nothing the SAT solver decides as before."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from blackhole.backends import Options, Verdict
from blackhole.backends.sat import SatBackend
from blackhole.deal import load_deal
from blackhole.pipeline import solve_deal
from blackhole.probe import DEFAULT_BUDGET, probe
from blackhole.problem import build_problem

from .helpers import check_order, small_deal

REFERENCE = {int(row["deal"]): row["verdict"] for row in
             csv.DictReader((Path(__file__).parent / "data" / "pysol-1-1000.csv").open())}
SAMPLE = range(1, 1001, 7)  # 143 deals of the reference


@pytest.mark.parametrize("number", SAMPLE)
def test_probe_lines_are_legal_and_agree_with_the_reference(number: int) -> None:
    problem = build_problem(load_deal(f"pysol:{number}"))
    line, nodes = probe(problem)
    assert 0 <= nodes <= DEFAULT_BUDGET
    if line is not None:
        assert REFERENCE[number] == "solved"
        check_order(problem, line)


def test_the_probe_finds_lines_on_the_sample() -> None:
    """Not a speed test: a probe that never answers would be dead weight."""
    found = sum(probe(build_problem(load_deal(f"pysol:{n}")))[0] is not None for n in SAMPLE)
    assert found >= len(SAMPLE) // 10


@pytest.mark.parametrize("seed", range(30))
def test_probe_on_small_deals_never_contradicts_the_search(seed: int) -> None:
    deal = small_deal(seed)
    problem = build_problem(deal)
    line, _ = probe(problem, 10_000)
    if line is not None:
        check_order(problem, line)
        assert solve_deal(deal, "search", Options(timeout=60)).result.verdict is Verdict.SOLVED


def test_a_budget_shorter_than_a_line_finds_nothing() -> None:
    problem = build_problem(load_deal("pysol:2"))
    assert probe(problem, 50) == (None, 50)


def test_a_failed_probe_falls_through_to_sat() -> None:
    unsolvable = next(n for n in SAMPLE if REFERENCE[n] == "unsolvable")
    result = SatBackend().solve(build_problem(load_deal(f"pysol:{unsolvable}")), Options())
    assert result.verdict is Verdict.UNSOLVABLE
    assert result.stats["probe"] is False and 0 <= result.stats["probe_nodes"] <= DEFAULT_BUDGET
    assert result.stats["vars"] > 0 and "conflicts" in result.stats


def test_an_answering_probe_is_recorded_and_replayed() -> None:
    number = next(n for n in SAMPLE
                  if probe(build_problem(load_deal(f"pysol:{n}")))[0] is not None)
    solution = solve_deal(load_deal(f"pysol:{number}"), "sat", Options(timeout=60))
    assert solution.result.verdict is Verdict.SOLVED and solution.replay is not None
    assert solution.result.stats["probe"] is True
    assert 51 <= solution.result.stats["probe_nodes"] <= DEFAULT_BUDGET
    assert "vars" not in solution.result.stats  # no encoding was built


def test_probe_budget_zero_skips_the_probe() -> None:
    problem = build_problem(load_deal("pysol:2"))
    result = SatBackend(probe_budget=0).solve(problem, Options())
    assert result.verdict is Verdict.SOLVED and "probe" not in result.stats
    assert result.stats["vars"] > 0
