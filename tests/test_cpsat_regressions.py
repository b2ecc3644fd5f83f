"""Deals on which a CP-SAT model once answered wrongly, held against the reference verdicts.

The inverse model said INFEASIBLE on these solvable deals in the pysol:1-1000 benchmark
(CP-SAT 9.15's presolve dropped its solutions); every model must solve them now, and
every solution is replayed by the rules engine.
"""

from __future__ import annotations

import pytest

from blackhole.backends import Options, Verdict
from blackhole.encode.cpsat import DEFAULT_MODEL
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import reference

WRONG_ONCE = [82, 112, 161, 164, 175, 255, 288, 304, 442, 444]


@pytest.mark.parametrize("number", WRONG_ONCE)
@pytest.mark.parametrize("model", [None, *(m for m in ("inverse", "boolean", "circuit")
                                           if m != DEFAULT_MODEL)])
def test_solvable_deals_are_solved(number: int, model: str | None) -> None:
    """No model given is the default one (inverse), which is then not named again; every
    answer is CP-SAT's own."""
    assert reference()[number]["verdict"] == "solved"
    solution = solve_deal(load_deal(f"pysol:{number}"), "cpsat",
                          Options(model=model, timeout=60))
    assert solution.verdict is Verdict.SOLVED and solution.replay.won
    assert solution.result.solver == f"cp-sat:{model or DEFAULT_MODEL}"
