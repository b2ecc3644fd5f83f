"""The external backend: a DIMACS solver binary, its answer checked like our own.

Tests that run a real solver use Debian's `cadical` and skip where it is not installed.
Fake solvers are small Python scripts written here: they lie, and must be caught.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from blackhole.backends import Options, Verdict, external
from blackhole.backends.external import ExternalBackend, parse_answer, proof_args
from blackhole.base.errors import InputError, InternalError
from blackhole.encode.cnf import DEFAULT_FEATURES, build_cnf
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import big_deal, cli, reference

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
    else:  # cadical's binary DRAT proof, checked by blackhole.drat
        assert solution.result.stats["proof"] == "checked"
        assert solution.result.stats["proof_bytes"] > 0
    assert solution.result.stats["exit_code"] in (10, 20)


@needs_cadical
def test_cadical_text_proofs_check_too() -> None:
    options = Options(solver_cmd="cadical -q", proof_arg="--no-binary {proof}", timeout=60)
    solution = solve_deal(load_deal("pysol:837"), "external", options)
    assert solution.verdict is Verdict.UNSOLVABLE
    assert solution.result.stats["proof"] == "checked"


@needs_cadical
def test_a_proof_past_the_memory_bound_is_unknown_not_unsolvable(monkeypatch) -> None:
    """The check holds the parsed proof in memory: a proof larger than the bound that
    keeps a solve within 1 GiB is not checked, so the answer is unknown, never a guess."""
    result = ExternalBackend().solve(build_problem(load_deal("pysol:837")),
                                     Options(solver_cmd="cadical -q", timeout=60))
    assert result.verdict is Verdict.UNSOLVABLE and result.stats["proof_bytes"] > 1000
    monkeypatch.setattr(external, "MAX_CHECKED_PROOF_BYTES", 1000)
    result = ExternalBackend().solve(build_problem(load_deal("pysol:837")),
                                     Options(solver_cmd="cadical -q", timeout=60))
    assert result.stats["exit_code"] == 20
    assert result.verdict is Verdict.UNKNOWN and "cap of 1000 bytes" in result.stats["reason"]


@needs_cadical
def test_cadical_without_a_proof_is_unknown_not_unsolvable() -> None:
    result = ExternalBackend().solve(build_problem(load_deal("pysol:1")),
                                     Options(solver_cmd="cadical -q", proof_arg=""))
    assert result.stats["exit_code"] == 20
    assert result.verdict is Verdict.UNKNOWN and "no proof was asked" in result.stats["reason"]


@needs_cadical
def test_a_real_proof_without_its_lemmas_fails_the_check(tmp_path) -> None:
    """cadical answers honestly; the script then keeps only the deletions and the final
    empty clause of its proof (837 is not refuted by unit propagation alone)."""
    cut = _script(tmp_path, "cut.py", """
import subprocess, sys
code = subprocess.run(["cadical", "-q", "--no-binary", sys.argv[1], sys.argv[2]]).returncode
with open(sys.argv[2]) as handle:
    lines = handle.readlines()
with open(sys.argv[2], "w") as handle:
    handle.writelines([line for line in lines if line.startswith("d ")] + ["0\\n"])
print("s UNSATISFIABLE")
sys.exit(code)
""")
    solution = solve_deal(load_deal("pysol:837"), "external",
                          Options(solver_cmd=cut, proof_arg="{proof}", timeout=60))
    assert solution.verdict is Verdict.UNKNOWN
    assert solution.result.stats["proof"] == "rejected"
    assert "proof fails the check" in solution.result.stats["reason"]


@needs_cadical
def test_timeout_kills_the_solver_and_gives_unknown() -> None:
    timeout = 1.0
    began = time.perf_counter()
    result = ExternalBackend().solve(build_problem(big_deal(0)),
                                     Options(solver_cmd="cadical -q", timeout=timeout))
    assert result.verdict is Verdict.UNKNOWN and result.order is None
    # unlimited, cadical takes about half a minute on this deal
    assert time.perf_counter() - began <= timeout + 10


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


def _script(folder: Path, name: str, body: str) -> str:
    """A solver command running the Python script `body`, written to folder/name."""
    path = folder / name
    path.write_text(body)
    return f"{sys.executable} {path}"


LIES = {
    # says UNSATISFIABLE and exits 20, writing no proof even when asked
    "unsat": "import sys\nprint('s UNSATISFIABLE')\nsys.exit(20)\n",
    # says UNSATISFIABLE and writes a "proof" that is only the empty clause
    "unsat-proof": "import sys\nopen(sys.argv[2], 'w').write('0\\n')\n"
                   "print('s UNSATISFIABLE')\nsys.exit(20)\n",
    # says UNSATISFIABLE and writes garbage where the proof should be
    "unsat-garbage": "import sys\nopen(sys.argv[2], 'w').write('hello\\n')\n"
                     "print('s UNSATISFIABLE')\nsys.exit(20)\n",
    # says SATISFIABLE with every variable true
    "sat": "import sys\nn = int(next(l for l in open(sys.argv[1]) if l[0] == 'p').split()[2])\n"
           "print('s SATISFIABLE')\nprint('v', *range(1, n + 1), 0)\nsys.exit(10)\n",
}


def test_a_lying_unsat_without_a_proof_is_unknown(tmp_path) -> None:
    liar = _script(tmp_path, "liar.py", LIES["unsat"])
    problem = build_problem(load_deal("pysol:2"))  # solvable
    result = ExternalBackend().solve(problem, Options(solver_cmd=liar))
    assert result.verdict is Verdict.UNKNOWN
    assert "no proof was asked" in result.stats["reason"]
    result = ExternalBackend().solve(problem, Options(solver_cmd=liar, proof_arg="{proof}"))
    assert result.verdict is Verdict.UNKNOWN
    assert "wrote no proof" in result.stats["reason"]


@pytest.mark.parametrize("lie", ["unsat-proof", "unsat-garbage"])
def test_a_lying_unsat_with_a_proof_is_unknown(tmp_path, lie) -> None:
    """pysol:2 is solvable: no proof of the contrary can pass the check."""
    liar = _script(tmp_path, "liar.py", LIES[lie])
    solution = solve_deal(load_deal("pysol:2"), "external",
                          Options(solver_cmd=liar, proof_arg="{proof}"))
    assert solution.verdict is Verdict.UNKNOWN and solution.result.order is None
    assert solution.result.stats["proof"] == "rejected"
    assert "UNSATISFIABLE but its proof" in solution.result.stats["reason"]


def test_a_lying_sat_is_an_internal_error(tmp_path) -> None:
    liar = _script(tmp_path, "liar.py", LIES["sat"])
    with pytest.raises(InternalError, match="SATISFIABLE but its model falsifies"):
        solve_deal(load_deal("pysol:1"), "external", Options(solver_cmd=liar))  # unsolvable


@pytest.mark.parametrize(("lie", "proof_arg", "code"), [
    ("unsat", None, 3), ("unsat-proof", "{proof}", 3), ("sat", None, 4)])
def test_lies_through_the_cli(tmp_path, lie, proof_arg, code) -> None:
    liar = _script(tmp_path, "liar.py", LIES[lie])
    deal = "pysol:1" if lie == "sat" else "pysol:2"
    args = ["solve", deal, "--backend", "external", "--solver-cmd", liar]
    if proof_arg is not None:
        args += ["--proof-arg", proof_arg]
    result = cli(*args)
    assert result.exit_code == code, result.output
    if code == 4:
        assert result.stderr.count("\n") == 1


def test_proof_arguments() -> None:
    assert proof_args(Options()) == ["{proof}"]  # cadical, the default command
    assert proof_args(Options(solver_cmd="/usr/bin/kissat -q")) == ["{proof}"]
    assert proof_args(Options(solver_cmd="minisat")) is None  # unknown: none asked
    assert proof_args(Options(solver_cmd="cadical", proof_arg="")) is None
    assert proof_args(Options(solver_cmd="x", proof_arg="--proof={proof} --binary")) == [
        "--proof={proof}", "--binary"]
    with pytest.raises(InputError, match="must hold"):
        proof_args(Options(proof_arg="--no-binary"))
    with pytest.raises(InputError, match="proof_arg"):
        proof_args(Options(proof_arg="'{proof}"))


def test_a_command_without_an_answer_is_an_input_error() -> None:
    problem = build_problem(load_deal("pysol:1"))
    with pytest.raises(InputError, match="no SAT-competition answer"):
        ExternalBackend().solve(problem, Options(solver_cmd=_fake("print('hello')")))


def test_fake_solver_answers_are_read() -> None:
    problem = build_problem(load_deal("pysol:1"))
    unknown = _fake("print('s UNKNOWN')")
    assert ExternalBackend().solve(problem, Options(solver_cmd=unknown)).verdict \
        is Verdict.UNKNOWN
    sleeper = _fake("import time; time.sleep(30)")
    began = time.perf_counter()
    result = ExternalBackend().solve(problem, Options(solver_cmd=sleeper, timeout=0.5))
    assert result.verdict is Verdict.UNKNOWN and time.perf_counter() - began < 10  # not 30 s


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
