"""The external backend: a DIMACS solver binary, its answer read back and replayed.

Tests that run a real solver use Debian's `cadical` and skip where it is not installed.
"""

from __future__ import annotations

import shutil
import sys
import time

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from blackhole.backends import Options, Verdict
from blackhole.backends.external import ExternalBackend, parse_answer
from blackhole.cnf import DEFAULT_FEATURES, build_cnf
from blackhole.deal import load_deal
from blackhole.errors import InputError, InternalError
from blackhole.pipeline import solve_deal
from blackhole.problem import build_problem

from .conftest import reference
from .test_sat import big_deal

needs_cadical = pytest.mark.skipif(shutil.which("cadical") is None,
                                   reason="cadical binary not installed "
                                          "(apt-get install cadical)")


@needs_cadical
@pytest.mark.parametrize("number", [1, 2, 3, 4, 9, 21, 837])
def test_cadical_agrees_with_the_reference(number: int) -> None:
    solution = solve_deal(load_deal(f"pysol:{number}"), "external",
                          Options(solver_cmd="cadical -q", timeout=60))
    assert solution.verdict.value == reference()[number]["verdict"]
    if solution.verdict is Verdict.SOLVED:
        assert solution.replay is not None and solution.replay.won
    assert solution.result.stats["exit_code"] in (10, 20)


@needs_cadical
def test_timeout_kills_the_solver_and_gives_unknown() -> None:
    timeout = 1.0
    began = time.perf_counter()
    result = ExternalBackend().solve(build_problem(big_deal(0)),
                                     Options(solver_cmd="cadical -q", timeout=timeout))
    assert result.verdict is Verdict.UNKNOWN and result.order is None
    assert time.perf_counter() - began <= timeout * 1.1 + 0.5


def test_dimacs_parses_back_with_the_same_clauses() -> None:
    encoding = build_cnf(build_problem(load_deal("pysol:2")), DEFAULT_FEATURES)
    text = encoding.dimacs()
    header = next(line for line in text.splitlines() if line.startswith("p "))
    _, kind, variables, clauses = header.split()
    assert kind == "cnf" and int(variables) == encoding.num_vars
    assert int(clauses) == len(encoding.clauses)
    body = [line for line in text.splitlines() if line and line[0] not in "cp"]
    assert len(body) == len(encoding.clauses)
    parsed = CNF(from_string=text)
    assert parsed.nv == encoding.num_vars and parsed.clauses == encoding.clauses
    with Solver(name="glucose3", bootstrap_with=parsed.clauses) as sat:
        assert sat.solve()
        assert len(encoding.decode(sat.get_model())) == 51


def test_missing_binary_is_an_input_error_naming_it() -> None:
    problem = build_problem(load_deal("pysol:1"))
    with pytest.raises(InputError, match="no-such-sat-solver"):
        ExternalBackend().solve(problem, Options(solver_cmd="no-such-sat-solver -q"))


def _fake(script: str) -> str:
    """A solver command that runs `script` in Python (the DIMACS path is its argument)."""
    return f"{sys.executable} -c {script!r}"


def test_a_command_without_an_answer_is_an_input_error() -> None:
    problem = build_problem(load_deal("pysol:1"))
    with pytest.raises(InputError, match="no SAT-competition answer"):
        ExternalBackend().solve(problem, Options(solver_cmd=_fake("print('hello')")))


def test_fake_solver_answers_are_read() -> None:
    problem = build_problem(load_deal("pysol:1"))
    unsat = _fake("import sys; print('s UNSATISFIABLE'); sys.exit(20)")
    assert ExternalBackend().solve(problem, Options(solver_cmd=unsat)).verdict \
        is Verdict.UNSOLVABLE
    unknown = _fake("print('s UNKNOWN')")
    assert ExternalBackend().solve(problem, Options(solver_cmd=unknown)).verdict \
        is Verdict.UNKNOWN
    sleeper = _fake("import time; time.sleep(30)")
    began = time.perf_counter()
    result = ExternalBackend().solve(problem, Options(solver_cmd=sleeper, timeout=0.5))
    assert result.verdict is Verdict.UNKNOWN and time.perf_counter() - began < 0.5 * 1.1 + 0.5


def test_parse_answer() -> None:
    assert parse_answer("c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n", 10, "x") == (True, [1, -2, 3])
    assert parse_answer("s UNSATISFIABLE\n", 20, "x") == (False, [])
    assert parse_answer("", 20, "x") == (False, [])  # exit code alone
    assert parse_answer("s UNKNOWN\n", 0, "x") == (None, [])
    with pytest.raises(InternalError):
        parse_answer("s SATISFIABLE\nv 1 0\n", 20, "x")  # contradicts its exit code
    with pytest.raises(InternalError):
        parse_answer("s SATISFIABLE\n", 10, "x")  # no model
    with pytest.raises(InputError):
        parse_answer("s MAYBE\n", 0, "x")
    with pytest.raises(InputError, match="no literal"):
        parse_answer("s SATISFIABLE\nv 1 x 0\n", 10, "x")
