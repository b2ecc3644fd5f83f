"""The default backend: a portfolio of the look and a SAT solver, taking the first sound
answer, and saying which engine gave it (`Result.solver`: "look", or the SAT solver's
name such as "glucose4"), with each stage's time and work in `stats["stages"]`.

Two ways to run, chosen per solve by the cores free at that moment (`free_cores`):

- **parallel** (two or more free cores, and the look's compiled core built): a short
  look of QUICK_LOOK moves in line, which settles most deals with no thread started;
  then, for the deals it leaves, the look starts again on a second thread with no budget
  (or `Options.budget`), and this thread waits for it, without the GIL, for HEAD_START
  seconds. If the look is still searching, this thread builds the CNF and runs
  the SAT solver in short slices of conflicts. The look's core lets the GIL go, so the
  two run at once; the SAT solver holds the GIL inside each slice, and between slices it
  checks whether the look has answered. Whichever answers first is taken and the other
  stopped (the look through its stop flag, within a few milliseconds).
- **sequential** (one free core, or the look in pure Python, which holds the GIL): the
  look with a budget (`Options.budget`, else the engine's default), then the SAT solver
  until its answer or the time limit.

The look runs on a thread rather than in a second process, which measured slower to
start and answer (docs/performance.md).

When a proof is asked for (`Options.proof`), the look may still answer with a win (a
line is its own proof), but an unsolvable verdict comes only from the SAT solver, with
its DRUP proof in `Result.proof`.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from blackhole.backends import Backend, BestResult, Options, Result, Verdict
from blackhole.backends.look import UNLIMITED, best_result, look_result
from blackhole.errors import InputError
from blackhole.probe import Look, best_budget, default_budget, engine_in_use, longest, probe
from blackhole.problem import Problem

if TYPE_CHECKING:
    from pysat.solvers import Solver

# The SAT side (blackhole.backends.sat and pysat_tools, python-sat and the CNF encoder)
# is imported only when the look leaves it a deal: a deal the look settles loads none of it.

# Seconds the look runs alone in the parallel mode before the SAT solver starts beside it:
# the look settles most deals within it, and a CNF built beside a look about to answer
# would only delay that answer.
HEAD_START = 0.2
# Moves of the look in line before a race: within them the look settles most deals of
# pysol:1-1000, in about a millisecond, with no thread started.
QUICK_LOOK = 20_000
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
    given = os.environ.get(CORES_VARIABLE, "")
    if given:  # set and not empty
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


def _sat_stage(result: Result) -> dict[str, Any]:
    answer = {Verdict.SOLVED: "won", Verdict.UNSOLVABLE: "refuted"}.get(result.verdict,
                                                                         "none")
    work = {key: result.stats[key] for key in ("conflicts", "vars", "clauses")
            if key in result.stats}
    return {"engine": result.solver, "seconds": round(result.seconds, 6), **work,
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
            from blackhole.backends.pysat_tools import check_proof_solver, solver_name

            check_proof_solver(solver_name(options.solver), options.proof)

    def solve(self, problem: Problem, options: Options) -> Result:
        self.check(options)  # an unknown solver fails before any search
        began = time.perf_counter()
        if engine_in_use() == "c" and free_cores() >= 2:
            result, stages = self._quick_then_race(problem, options, began)
            mode = "parallel"
        else:
            result, stages = self._in_turn(problem, options, began)
            mode = "sequential"
        stats = {**result.stats, "mode": mode, "stages": stages}
        return replace(result, backend=self.name, seconds=time.perf_counter() - began,
                       stats=stats)

    def _in_turn(self, problem: Problem, options: Options,
                 began: float) -> tuple[Result, list[dict[str, Any]]]:
        """The look with its budget, then (unless it settled the deal) the SAT solver."""
        budget = default_budget() if options.budget is None else options.budget
        look = probe(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [_stage(look, seconds)]
        if _settles(look, options):
            return look_result(look, self.name, seconds, {}), stages
        left = None if options.timeout is None else options.timeout - seconds
        if left is not None and left <= 0:
            return Result(Verdict.UNKNOWN, None, self.name, "look", seconds,
                          {"reason": "time limit reached"}), stages
        from blackhole.backends.sat import SatBackend

        result = SatBackend().solve(problem, replace(options, timeout=left, budget=None))
        return result, stages + [_sat_stage(result)]

    def _quick_then_race(self, problem: Problem, options: Options,
                         began: float) -> tuple[Result, list[dict[str, Any]]]:
        """A short look in line first: it settles most deals at no cost of threads; only
        the deals it leaves are raced (the racing look starts again from the deal)."""
        budget = QUICK_LOOK if options.budget is None else min(QUICK_LOOK, options.budget)
        look = probe(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        if _settles(look, options):
            return look_result(look, self.name, seconds, {}), [_stage(look, seconds)]
        result, stages = self._race(problem, options, began)
        return result, [_stage(look, seconds), *stages]

    def _race(self, problem: Problem, options: Options,
              began: float) -> tuple[Result, list[dict[str, Any]]]:
        """The look on a second thread from the start; after its head start, the SAT
        solver on this thread against it."""
        stop = bytearray(1)
        done = threading.Event()
        found: dict[str, Any] = {}
        budget = UNLIMITED if options.budget is None else options.budget

        def look() -> None:
            try:
                found["look"] = probe(problem, budget, seconds=options.timeout, stop=stop)
            except BaseException as error:  # noqa: BLE001 - handed to the solving thread
                found["error"] = error
            finally:
                found["seconds"] = time.perf_counter() - began
                done.set()

        def answered() -> bool:
            return "look" in found and _settles(found["look"], options)

        def outcome(sat: Result | None) -> tuple[Result, list[dict[str, Any]]]:
            if "error" in found:
                raise found["error"]
            stages = [_stage(found["look"], found["seconds"])]
            stages += [] if sat is None else [_sat_stage(sat)]
            if (sat is None or sat.verdict is Verdict.UNKNOWN) and answered():
                return look_result(found["look"], self.name, found["seconds"], {}), stages
            if sat is None:  # out of time before SAT could start
                return Result(Verdict.UNKNOWN, None, self.name, "look", found["seconds"],
                              {"reason": "time limit reached"}), stages
            return sat, stages

        thread = threading.Thread(target=look, name="blackhole-look", daemon=True)
        thread.start()
        try:
            # Most deals end within the head start: waiting (without the GIL) costs them
            # nothing, where building a CNF beside the look would delay its answer.
            head = HEAD_START if options.timeout is None else min(HEAD_START, options.timeout)
            done.wait(head)
            left = None if options.timeout is None else \
                options.timeout - (time.perf_counter() - began)
            if answered() or (left is not None and left <= 0):
                stop[0] = 1
                thread.join()
                return outcome(None)
            sat = self._sat_beside(problem, replace(options, timeout=left, budget=None),
                                   done, answered)
        finally:
            stop[0] = 1
            thread.join()
        return outcome(sat)

    @staticmethod
    def _sat_beside(problem: Problem, options: Options, done: threading.Event,
                    answered: Callable[[], bool]) -> Result:
        """The SAT backend's solve, its solver run in slices of conflicts so that it
        stops soon after the look answers (`answered`, once `done` is set)."""
        from blackhole.backends.pysat_tools import conflict_slice, run_solver
        from blackhole.backends.sat import SatBackend

        def run(sat: Solver, solver: str, deadline: float | None) -> bool | None:
            budget = FIRST_SLICE
            while True:
                if done.is_set():  # the look is over: its answer, or SAT alone from here
                    return None if answered() else run_solver(sat, solver, deadline)
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                answer, rate = conflict_slice(sat, budget)
                if answer is not None:
                    return answer
                budget = max(MIN_SLICE, min(MAX_SLICE, int(rate * SLICE_SECONDS)))
                time.sleep(0)  # a look that has ended takes the GIL to hand in its answer

        return SatBackend().solve_with(problem, options, run)

    # ------------------------------------------------------------ the best score

    def check_best(self, options: Options) -> None:
        from blackhole.backends.sat import SatBackend

        SatBackend().check_best(replace(options, budget=None))

    def best(self, problem: Problem, options: Options) -> BestResult:
        """The look's best score (`probe.longest`) within its budget (`Options.budget`,
        else the engine's `best_budget`), else the SAT backend's proven best; the answer
        names the engine that gave it, and `stats["stages"]` what each stage did."""
        self.check_best(options)
        began = time.perf_counter()
        budget = best_budget() if options.budget is None else options.budget
        found = longest(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [{"engine": "look", "seconds": round(seconds, 6), "nodes": found.nodes,
                   "found": len(found.line), "upper_bound": found.upper_bound,
                   "answer": "best" if found.proven else "none"}]
        if found.proven:
            answer = best_result(found, budget, self.name, seconds)
            return replace(answer, stats={**answer.stats, "stages": stages})
        left = None if options.timeout is None else options.timeout - seconds
        if left is not None and left <= 0:
            answer = best_result(found, budget, self.name, seconds)
            return replace(answer, stats={**answer.stats, "stages": stages})
        from blackhole.backends.sat import SatBackend

        sat = SatBackend().best(problem, replace(options, timeout=left, budget=None))
        stages.append({"engine": sat.solver, "seconds": round(sat.seconds, 6),
                       "conflicts": sat.stats.get("conflicts"), "found": len(sat.order),
                       "upper_bound": sat.upper_bound,
                       "answer": "best" if sat.proven else "none"})
        # Both bounds hold: the look's line may be the longer, and its bound the lower.
        line = max(found.line, sat.order, key=len)
        bound = min(found.upper_bound, sat.upper_bound)
        solver = sat.solver if len(sat.order) >= len(found.line) else "look"
        return BestResult(line, len(line) == bound, bound, self.name, solver,
                          time.perf_counter() - began, {**sat.stats, "stages": stages})
