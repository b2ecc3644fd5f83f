"""The default backend: a portfolio of the look and a SAT solver, taking the first sound
answer, and saying which engine gave it (`Result.solver`: "look", or the SAT solver's
name such as "glucose4"), with each stage's time and work in `stats["stages"]`.

Two ways to run, chosen per solve by the cores free at that moment (`free_cores`):

- **parallel** (two or more free cores, and the look's compiled core built): first a
  short look on this thread (QUICK_BUDGET moves; most deals end inside it, in well under
  a millisecond, where starting a thread and building a CNF would cost more than the
  whole answer). If that settles nothing, the look starts again on a second thread with
  no budget (or `Options.budget`), while this thread builds the CNF and runs the SAT
  solver in short slices of conflicts. The look's core lets the GIL go, so the two run at
  once; the SAT solver holds the GIL inside each slice, and between slices it checks
  whether the look has answered. Whichever answers first is taken and the other stopped
  (the look through its stop flag, within a few milliseconds).
- **sequential** (one free core, or the look in pure Python, which holds the GIL): the
  look with a budget (`Options.budget`, else the engine's default), then the SAT solver
  until its answer or the time limit.

A second process instead of a thread was measured against this and lost: the same look
of pysol:2 took a median 0.21 ms in a thread and 3.0 ms in a forked process that sends
its answer back through a pipe, against 0.11 ms in line (docs/performance.md).

When a proof is asked for (`Options.proof`), the look may still answer with a win (a
line is its own proof), but an unsolvable verdict comes only from the SAT solver, with
its DRUP proof in `Result.proof`.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from blackhole.backends import Backend, BestResult, Options, Result, Verdict
from blackhole.backends.look import UNLIMITED, look_result
from blackhole.errors import InputError
from blackhole.probe import Look, default_budget, engine_in_use, probe
from blackhole.problem import Problem

if TYPE_CHECKING:
    from pysat.solvers import Solver

# The SAT side (blackhole.backends.sat, python-sat and the CNF encoder) is imported only
# when the look leaves it a deal: a deal the look settles loads none of it.

# Moves of the parallel mode's first, inline look: about 5-10 ms in the compiled core.
# pysol:1-1000 leaves 36 deals to the race after it (70 at 20,000; 19 at 100,000).
QUICK_BUDGET = 50_000
# The SAT solver's slices while the look runs beside it: each aims at this many seconds,
# at the conflict rate of the slice before, within these bounds (conflicts).
SLICE_SECONDS = 0.005
FIRST_SLICE, MIN_SLICE, MAX_SLICE = 100, 10, 20_000


# Set to a whole number, the cores `auto` takes as free, instead of its estimate (for a
# container whose load average is the host's, or to time one mode against the other).
CORES_VARIABLE = "BLACKHOLE_AUTO_CORES"


def free_cores() -> int:
    """The cores free for this solve: $BLACKHOLE_AUTO_CORES when set, else an estimate:
    the cores this process may run on, less the load average of the last minute
    (rounded), counting this process's own core as free; at least 1."""
    given = os.environ.get(CORES_VARIABLE)
    if given is not None:
        if not given.strip().isdigit() or int(given) < 1:
            raise InputError("must be a whole number of cores, 1 or more", CORES_VARIABLE,
                             token=given)
        return int(given)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average here
        load = 0.0
    return max(1, min(cpus, cpus - math.floor(load + 0.5) + 1))


def _stage(look: Look, seconds: float) -> dict[str, Any]:
    answer = "won" if look.line is not None else "refuted" if look.refuted else "none"
    return {"engine": "look", "seconds": round(seconds, 6), "nodes": look.nodes,
            "answer": answer}


def _settles(look: Look, options: Options) -> bool:
    """A look's answer the portfolio may give: a win, or a refutation when no proof is
    asked for (the look's refutations carry none)."""
    return look.line is not None or (look.refuted and not options.proof)


class AutoBackend(Backend):
    name = "auto"
    reads = frozenset({"solver", "budget", "proof"})

    def check(self, options: Options) -> None:
        super().check(options)
        if options.solver is not None or options.proof:  # else nothing to load to check
            from blackhole.backends.sat import check_proof_solver, solver_name

            check_proof_solver(solver_name(options.solver), options.proof)

    def solve(self, problem: Problem, options: Options) -> Result:
        self.check(options)  # an unknown solver fails before any search
        began = time.perf_counter()
        parallel = engine_in_use() == "c" and free_cores() >= 2
        mode = "parallel" if parallel else "sequential"
        budget = options.budget
        if budget is None:
            budget = QUICK_BUDGET if parallel else default_budget()
        elif parallel:
            budget = min(budget, QUICK_BUDGET)
        look = probe(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [_stage(look, seconds)]
        if _settles(look, options):
            return self._answer(look_result(look, self.name, seconds, {}), mode, stages)
        left = None if options.timeout is None else options.timeout - seconds
        if left is not None and left <= 0:
            return self._answer(Result(Verdict.UNKNOWN, None, self.name, "look", seconds,
                                       {"reason": "time limit reached"}), mode, stages)
        sat_options = replace(options, timeout=left, budget=None)
        if parallel:
            result = self._race(problem, options, sat_options, stages)
        else:
            from blackhole.backends.sat import SatBackend

            result = SatBackend().solve(problem, sat_options)
            stages.append(self._sat_stage(result))
        return self._answer(replace(result, seconds=time.perf_counter() - began), mode,
                            stages)

    def _race(self, problem: Problem, options: Options, sat_options: Options,
              stages: list[dict[str, Any]]) -> Result:
        """The look on a second thread against the SAT solver on this one."""
        from blackhole.backends.sat import SatBackend, conflict_slice, run_solver

        stop = bytearray(1)
        done = threading.Event()
        found: dict[str, Any] = {}
        budget = UNLIMITED if options.budget is None else options.budget

        def look() -> None:
            began = time.perf_counter()
            try:
                found["look"] = probe(problem, budget, seconds=sat_options.timeout, stop=stop)
            except BaseException as error:  # noqa: BLE001 - handed to the solving thread
                found["error"] = error
            finally:
                found["seconds"] = time.perf_counter() - began
                done.set()

        def answered() -> bool:
            return "look" in found and _settles(found["look"], options)

        def run(sat: Solver, solver: str, deadline: float | None) -> bool | None:
            """The SAT solver in slices, until it answers, the look answers, or the
            deadline; once the look is over without an answer, the solver alone."""
            budget = FIRST_SLICE
            while True:
                if done.is_set():
                    return None if answered() else run_solver(sat, solver, deadline)
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                answer, rate = conflict_slice(sat, budget)
                if answer is not None:
                    return answer
                budget = max(MIN_SLICE, min(MAX_SLICE, int(rate * SLICE_SECONDS)))
                time.sleep(0)  # a look that has ended takes the GIL to hand in its answer

        thread = threading.Thread(target=look, name="blackhole-look", daemon=True)
        thread.start()
        try:
            result = SatBackend().solve_with(problem, sat_options, run)
        finally:
            stop[0] = 1
            thread.join()
        if "error" in found:
            raise found["error"]
        stages.append(_stage(found["look"], found["seconds"]))
        stages.append(self._sat_stage(result))
        if result.verdict is Verdict.UNKNOWN and answered():
            return look_result(found["look"], self.name, result.seconds, {})
        return result

    @staticmethod
    def _sat_stage(result: Result) -> dict[str, Any]:
        answer = {Verdict.SOLVED: "won", Verdict.UNSOLVABLE: "refuted"}.get(result.verdict,
                                                                             "none")
        stats = {key: result.stats[key] for key in ("conflicts", "vars", "clauses")
                 if key in result.stats}
        return {"engine": result.solver, "seconds": round(result.seconds, 6), **stats,
                "answer": answer}

    def _answer(self, result: Result, mode: str, stages: list[dict[str, Any]]) -> Result:
        stats = {**result.stats, "mode": mode, "stages": stages}
        return replace(result, backend=self.name, stats=stats)

    # ------------------------------------------------------------ the best score

    def check_best(self, options: Options) -> None:
        from blackhole.backends.sat import SatBackend

        SatBackend().check_best(replace(options, budget=None))

    def best(self, problem: Problem, options: Options) -> BestResult:
        """A win by the look (with its budget), else the SAT backend's proven best."""
        self.check_best(options)
        began = time.perf_counter()
        budget = default_budget() if options.budget is None else options.budget
        look = probe(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [_stage(look, seconds)]
        if look.line is not None:
            n = len(look.line)
            return BestResult(look.line, True, n, self.name, "look", seconds,
                              {"stages": stages})
        left = None if options.timeout is None else options.timeout - seconds
        if left is not None and left <= 0:
            return BestResult((), False, len(problem.moves), self.name, "look", seconds,
                              {"stages": stages})
        from blackhole.backends.sat import SatBackend

        found = SatBackend().best(problem, replace(options, timeout=left, budget=None))
        stages.append({"engine": found.solver, "seconds": round(found.seconds, 6),
                       "conflicts": found.stats.get("conflicts"), "answer": "best"})
        return replace(found, backend=self.name, seconds=time.perf_counter() - began,
                       stats={**found.stats, "stages": stages})
