"""The SAT backend: encode the Problem (blackhole.cnf), solve with a python-sat solver.

Timeouts: solvers with `interrupt()` are stopped by a timer thread; the others (the
CaDiCaL family) run in slices of a conflict budget, sized from their measured speed so
that the last slice ends close to the deadline. Either way a timeout is UNKNOWN.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from pysat.solvers import Solver

from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.cnf import DEFAULT_FEATURES, FEATURES, build_cnf
from blackhole.errors import InputError, InternalError
from blackhole.problem import Problem

DEFAULT_SOLVER = "glucose3"
# pysat solvers that can be stopped at a deadline, and how: by interrupt() or by budgets.
# Left out: lingeling (no limits at all), kissat404 (aborts the process on a second,
# budgeted call), cryptosat and minisatgh (not built in this python-sat).
INTERRUPTIBLE = ("glucose3", "glucose4", "glucose42", "minisat22", "minisatep",
                 "maplesat", "maplecm", "maplechrono", "mergesat3", "minicard",
                 "gluecard3", "gluecard4")
BUDGETED = ("cadical103", "cadical153", "cadical195")
SOLVERS: tuple[str, ...] = INTERRUPTIBLE + BUDGETED

_FIRST_SLICE = 200  # conflicts in the first budgeted slice
_SLICE_SHARE = 0.05  # a later slice aims at this share of the timeout (and what is left)


def solver_name(name: str | None) -> str:
    """The canonical solver name for `name` (a name above or a pysat alias such as g3)."""
    if name is None:
        return DEFAULT_SOLVER
    from pysat.solvers import SolverNames

    wanted = name.strip().lower()
    for canonical in SOLVERS:
        if wanted == canonical or wanted in getattr(SolverNames, canonical, ()):
            return canonical
    raise InputError(f"unknown SAT solver (choose from {', '.join(SOLVERS)})", "--solver",
                     token=name)


def features_of(options: Options) -> frozenset[str]:
    if options.features is None:
        return DEFAULT_FEATURES
    unknown = options.features - FEATURES
    if unknown:
        raise InputError(f"unknown encoding feature (choose from {', '.join(sorted(FEATURES))})",
                         "--features", token=",".join(sorted(unknown)))
    return frozenset(options.features)


class SatBackend(Backend):
    name = "sat"

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        solver = solver_name(options.solver)
        features = features_of(options)
        deadline = None if options.timeout is None else began + options.timeout
        encoding = build_cnf(problem, features)
        encoded = time.perf_counter()
        stats: dict[str, Any] = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                                 "features": sorted(features)}
        with Solver(name=solver, bootstrap_with=encoding.clauses) as sat:
            answer = _run(sat, solver, deadline)
            model = sat.get_model() if answer else None
            stats.update(sat.accum_stats() or {})
        solved = time.perf_counter()
        stats["encode_seconds"] = round(encoded - began, 6)
        stats["solve_seconds"] = round(solved - encoded, 6)
        order = None
        if answer is None:
            verdict = Verdict.UNKNOWN
        elif answer:
            verdict = Verdict.SOLVED
            try:
                order = encoding.decode(model)
            except ValueError as error:
                raise InternalError(f"sat/{solver} model does not decode: {error}") from None
        else:
            verdict = Verdict.UNSOLVABLE
        return Result(verdict, order, self.name, solver, time.perf_counter() - began, stats)


def _run(sat: Solver, solver: str, deadline: float | None) -> bool | None:
    """True (satisfiable), False (unsatisfiable) or None (the deadline came first)."""
    if deadline is None:
        return sat.solve()
    if solver in INTERRUPTIBLE:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        timer = threading.Timer(left, sat.interrupt)
        timer.start()
        try:
            return sat.solve_limited(expect_interrupt=True)
        finally:
            timer.cancel()
    return _run_in_slices(sat, deadline)


def _run_in_slices(sat: Solver, deadline: float) -> bool | None:
    """Conflict-budget slices for solvers without interrupt(); each call resumes the search
    with what it learned so far. Slices shrink near the deadline to keep the overshoot small."""
    budget = _FIRST_SLICE
    total = deadline - time.perf_counter()
    while (left := deadline - time.perf_counter()) > 0:
        before = sat.accum_stats().get("conflicts", 0)
        started = time.perf_counter()
        sat.conf_budget(budget)
        answer = sat.solve_limited()
        if answer is not None:
            return answer
        spent = time.perf_counter() - started
        done = max(sat.accum_stats().get("conflicts", 0) - before, 1)
        rate = done / max(spent, 1e-6)  # conflicts per second
        left = deadline - time.perf_counter()
        budget = int(rate * min(left, _SLICE_SHARE * total + 0.02))
        if budget < 1:
            return None
    return None
