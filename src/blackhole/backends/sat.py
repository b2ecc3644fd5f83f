"""The SAT backend: encode the Problem (blackhole.encode.cnf), solve with a python-sat
solver. With `Options.proof` the solver logs a DRUP proof, which an unsatisfiable answer
returns in `Result.proof` (one line a string, as pysat gives it).

Timeouts: every solver first runs a short slice of conflicts (sized to a small share of
the timeout), which settles most deals without starting a thread. After that, solvers
with `interrupt()` are stopped by a timer thread; the others (the CaDiCaL family) go on
in slices of a conflict budget, sized from their measured speed so that the last slice
ends close to the deadline. Either way a timeout is UNKNOWN, never a guess.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from pysat.solvers import Solver, SolverNames

from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.encode.cnf import (
    DEFAULT_FEATURES,
    Encoding,
    build_cnf,
    gc_paused,
    known_features,
)
from blackhole.errors import InputError, InternalError
from blackhole.problem import Problem

DEFAULT_SOLVER = "glucose3"  # the lowest total and maximum time measured (encodings/sat.md)
# pysat solvers that can be stopped at a deadline, and how: by interrupt() or by budgets.
# Left out: lingeling (no limits at all), kissat404 (aborts the process on a second,
# budgeted call), cryptosat and minisatgh (not built in this python-sat).
INTERRUPTIBLE = ("glucose3", "glucose4", "glucose42", "minisat22", "minisatep",
                 "maplesat", "maplecm", "maplechrono", "mergesat3", "minicard",
                 "gluecard3", "gluecard4")
BUDGETED = ("cadical103", "cadical153", "cadical195")
SOLVERS: tuple[str, ...] = INTERRUPTIBLE + BUDGETED
# The solvers whose DRUP proofs check (Options.proof): MapleSAT writes variables off by
# one, and the others log no proof in this python-sat.
PROOF_SOLVERS: tuple[str, ...] = ("glucose3", "glucose4", "maplechrono", "maplecm")

_FIRST_SLICE = 2000  # conflicts, at most, in the first slice (most deals need fewer)
_MIN_SLICE = 20
_SLOW_RATE = 3000  # conflicts per second, about the slowest seen (large deals, busy CPU)
_SLICE_SHARE = 0.05  # a slice aims at this share of the timeout


def solver_name(name: str | None) -> str:
    """The canonical solver name for `name` (a name above or a pysat alias such as g3)."""
    if name is None:
        return DEFAULT_SOLVER
    wanted = name.strip().lower()
    for canonical in SOLVERS:
        if wanted == canonical or wanted in getattr(SolverNames, canonical, ()):
            return canonical
    raise InputError(f"unknown SAT solver (choose from {', '.join(SOLVERS)})", "solver",
                     token=name)


def check_proof_solver(solver: str, proof: bool) -> None:
    if proof and solver not in PROOF_SOLVERS:
        raise InputError(f"no checkable proof from this solver (choose from "
                         f"{', '.join(PROOF_SOLVERS)})", "solver", token=solver)


def features_of(options: Options) -> frozenset[str]:
    return DEFAULT_FEATURES if options.features is None else known_features(options.features)


class SatBackend(Backend):
    name = "sat"
    reads = frozenset({"solver", "features", "proof"})

    def check(self, options: Options) -> None:
        super().check(options)
        check_proof_solver(solver_name(options.solver), options.proof)
        features_of(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        solver = solver_name(options.solver)
        check_proof_solver(solver, options.proof)
        features = features_of(options)
        with gc_paused():  # the encoding is freed inside, before the collector resumes
            return self._solve(problem, options, solver, features)

    def _solve(self, problem: Problem, options: Options, solver: str,
               features: frozenset[str]) -> Result:
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        encoding = build_cnf(problem, features)
        encoded = time.perf_counter()
        stats: dict[str, Any] = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                                 "features": sorted(features)}
        proof = None
        with Solver(name=solver, bootstrap_with=encoding.clauses,
                    with_proof=options.proof) as sat:
            answer = _run(sat, solver, deadline)
            model = sat.get_model() if answer else None
            if options.proof and answer is False:
                proof = list(sat.get_proof())
            stats.update(sat.accum_stats() or {})
        solved = time.perf_counter()
        stats["encode_seconds"] = round(encoded - began, 6)
        stats["solve_seconds"] = round(solved - encoded, 6)
        verdict, order = read_answer(answer, model, encoding, f"sat/{solver}")
        return Result(verdict, order, self.name, solver, time.perf_counter() - began, stats,
                      proof)


def read_answer(answer: bool | None, model: list[int] | None, encoding: Encoding,
                who: str) -> tuple[Verdict, tuple[int, ...] | None]:
    """A SAT solver's answer (None: out of time) as a verdict and, when solved, the order."""
    if answer is None:
        return Verdict.UNKNOWN, None
    if not answer:
        return Verdict.UNSOLVABLE, None
    try:
        return Verdict.SOLVED, encoding.decode(model or [])
    except ValueError as error:
        raise InternalError(f"{who}: model does not decode: {error}") from None


def _run(sat: Solver, solver: str, deadline: float | None) -> bool | None:
    """True (satisfiable), False (unsatisfiable) or None (the deadline came first)."""
    if deadline is None:
        return sat.solve()
    total = deadline - time.perf_counter()
    if total <= 0:
        return None
    # A first slice of conflicts, sized to a small share of the timeout even at a slow
    # rate: most deals end inside it, without the cost of starting a timer thread.
    budget = max(_MIN_SLICE, min(_FIRST_SLICE, int(total * _SLOW_RATE * _SLICE_SHARE)))
    answer, rate = _slice(sat, budget)
    if answer is not None:
        return answer
    if solver not in INTERRUPTIBLE:
        return _run_in_slices(sat, deadline, total, rate)
    sat.conf_budget(-1)  # no budget from here on: the timer stops the search
    left = deadline - time.perf_counter()
    if left <= 0:
        return None
    timer = threading.Timer(left, sat.interrupt)
    timer.start()
    try:
        return sat.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()


def _slice(sat: Solver, budget: int) -> tuple[bool | None, float]:
    """Search for at most `budget` more conflicts: the answer and conflicts per second."""
    before = sat.accum_stats().get("conflicts", 0)
    started = time.perf_counter()
    sat.conf_budget(budget)
    answer = sat.solve_limited()
    spent = time.perf_counter() - started
    done = max(sat.accum_stats().get("conflicts", 0) - before, 1)
    return answer, done / max(spent, 1e-6)


def _run_in_slices(sat: Solver, deadline: float, total: float, rate: float) -> bool | None:
    """Conflict-budget slices for solvers without interrupt(); each call resumes the search
    with what it learned so far. A slice aims at a small share of the timeout (or what is
    left of it) at the rate measured in the slice before."""
    while (left := deadline - time.perf_counter()) > 0:
        budget = int(rate * min(left, _SLICE_SHARE * total))
        if budget < 1:
            return None
        answer, rate = _slice(sat, budget)
        if answer is not None:
            return answer
    return None
