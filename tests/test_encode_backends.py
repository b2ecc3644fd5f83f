"""Every registered backend on the same small deals, through the Backend interface: the
verdict is the search referee's, and every solution meets the original Problem
constraints (tests/helpers.py), so no backend is trusted on its own word."""

from __future__ import annotations

import shutil

import pytest

from blackhole.backends import Options, Verdict, available_backends, make_backend
from blackhole.problem import build_problem

from .helpers import check_order, small_deal

SEEDS = range(30)


def usable() -> list[str]:
    """The backends this machine can run (external needs its default solver on PATH)."""
    return [name for name in available_backends()
            if name != "external" or shutil.which("cadical")]


@pytest.mark.parametrize("name", usable())
def test_every_backend_agrees_with_the_referee_and_its_solutions_check(name: str) -> None:
    backend, referee = make_backend(name), make_backend("search")
    seen = set()
    for seed in SEEDS:
        problem = build_problem(small_deal(seed))
        expected = referee.solve(problem, Options()).verdict
        result = backend.solve(problem, Options(timeout=60))
        assert result.verdict is expected, (name, seed)
        if result.verdict is Verdict.SOLVED:
            check_order(problem, result.order)
        else:
            assert result.order is None
        seen.add(expected)
    assert seen == {Verdict.SOLVED, Verdict.UNSOLVABLE}
