"""Any DIMACS SAT solver binary: write the CNF, run the command, read its answer.

The command (`Options.solver_cmd`, e.g. "cadical -q" or "kissat -q") gets the path of
the DIMACS file as its last argument and answers in the SAT-competition format: an
`s SATISFIABLE` / `s UNSATISFIABLE` line, `v` lines with the model, exit code 10 or 20.
At the timeout the solver's whole process group is killed and the verdict is UNKNOWN.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from blackhole.backends import Backend, Options, Result
from blackhole.backends.sat import features_of, read_answer
from blackhole.encode.cnf import build_cnf
from blackhole.errors import InputError, InternalError
from blackhole.problem import Problem

DEFAULT_COMMAND = "cadical -q"
_EXIT_VERDICT = {10: True, 20: False}


class ExternalBackend(Backend):
    name = "external"
    reads = frozenset({"solver_cmd", "features"})

    def check(self, options: Options) -> None:
        super().check(options)
        features_of(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        command = options.solver_cmd or DEFAULT_COMMAND
        argv = _argv(command)
        features = features_of(options)
        encoding = build_cnf(problem, features)
        encoded = time.perf_counter()
        stats: dict = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                       "features": sorted(features), "command": command}
        with tempfile.TemporaryDirectory(prefix="blackhole-") as folder:
            path = Path(folder) / "formula.cnf"
            path.write_text(encoding.dimacs(), encoding="ascii")
            written = time.perf_counter()
            timeout = None if options.timeout is None else options.timeout - (written - began)
            output, code = _run(argv + [str(path)], command, timeout)
        finished = time.perf_counter()
        stats.update(encode_seconds=round(encoded - began, 6),
                     solve_seconds=round(finished - encoded, 6), exit_code=code)
        answer, model = (None, []) if output is None else parse_answer(output, code, command)
        verdict, order = read_answer(answer, model, encoding, f"external solver {command!r}")
        solver = Path(argv[0]).name
        return Result(verdict, order, self.name, solver, time.perf_counter() - began, stats)


def _argv(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InputError(f"cannot parse solver command ({error})", "--solver-cmd",
                         token=command) from None
    if not argv:
        raise InputError("empty solver command", "--solver-cmd", token=command)
    found = shutil.which(argv[0])
    if found is None:
        raise InputError("solver command not found", "--solver-cmd", token=argv[0])
    return [found] + argv[1:]


def _run(argv: list[str], command: str, timeout: float | None) -> tuple[str | None, int | None]:
    """The solver's standard output and exit code, or (None, None) when time ran out."""
    if timeout is not None and timeout <= 0:
        return None, None
    try:
        # its own session, so that a timeout kills any children it started too
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True)
    except OSError as error:
        raise InputError(f"cannot run solver command ({error.strerror})", "--solver-cmd",
                         token=command) from None
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        return None, None
    except BaseException:
        _kill(process)
        raise
    return output, process.returncode


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.communicate()


def parse_answer(output: str, code: int | None, command: str) -> tuple[bool | None, list[int]]:
    """(True, model) / (False, []) / (None, []) from SAT-competition output."""
    status = None
    model: list[int] = []
    for line in output.splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("v "):
            for token in line[2:].split():
                if not token.lstrip("-").isdigit():
                    raise InputError("solver printed a model value that is no literal",
                                     "--solver-cmd", token=token)
                if token != "0":
                    model.append(int(token))
    by_status = {"SATISFIABLE": True, "UNSATISFIABLE": False, "UNKNOWN": None}
    if status is not None and status not in by_status:
        raise InputError("solver answered an unknown status", "--solver-cmd", token=status)
    answer = by_status.get(status) if status is not None else _EXIT_VERDICT.get(code)
    if status is None and code not in _EXIT_VERDICT:
        raise InputError(f"solver gave no SAT-competition answer (exit code {code})",
                         "--solver-cmd", token=command)
    if code in _EXIT_VERDICT and status in ("SATISFIABLE", "UNSATISFIABLE") \
            and _EXIT_VERDICT[code] != answer:
        raise InternalError(f"solver {command!r} says {status} but exits with {code}")
    if answer and not model:
        raise InternalError(f"solver {command!r} says SATISFIABLE but prints no model")
    return answer, model
