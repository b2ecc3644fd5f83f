"""The default backend: a portfolio of the look and a SAT solver, taking the first sound
answer, and saying which engine gave it (`Result.solver`: "look", or the SAT solver's
name such as "glucose4"), with each stage's time and work in `stats["stages"]`.

Two ways to run, chosen per solve (`races`) by the cores free at that moment
(`free_cores`) and the deck:

- **parallel** (the look's compiled core built, and two or more free cores, or a deck
  above 13 ranks whatever the load): a short look of QUICK_LOOK moves in line
  (QUICK_LOOK_TALON in a game with a talon), which settles most deals with no thread
  started; then, for the deals it leaves, a race. The
  look starts again on a second thread (RACE_BUDGET moves, RACE_BUDGET_LARGE on decks
  above 13 ranks, or `Options.budget`), and this thread waits for it, without the GIL,
  for HEAD_START seconds. If the look is still searching, this thread builds the CNF
  (with the symmetry cut, SAT_EXTRA_FEATURES) and runs the SAT solver in short slices of
  conflicts, checking between slices whether another engine has answered. A look that
  gives up hands its core to a second solver on the default CNF: kissat where it is
  installed (the `[kissat]` extra; in its own process, its model checked and its proof
  checked by `blackhole.drat` as for the `kissat` backend) unless `auto:NAME` names the
  SAT solver, else a second SAT solver of python-sat. The searches differ: on the hard
  band each SAT solver was the faster on some deals (encodings/sat.md), and kissat
  settles deals of docs/hard.md that glucose4 leaves. The look's core and the solvers
  let the GIL go, so all run at once.
  The first sound answer is taken and the others stopped (the look through its stop
  flag, a solver at the end of its slice, kissat killed within
  `children.STOP_POLL`).
- **sequential** (one free core on a deck of up to 13 ranks, `BLACKHOLE_AUTO_CORES=1`,
  or the look in pure Python, which holds the GIL): the look with a budget
  (`Options.budget`, else the engine's default), then the SAT solver (on the CNF with
  the symmetry cut) until its answer or the limit.

Why the deck counts: on a busy machine (load 17-23 on the 2 cores) the race measured
faster than the look then SAT in turn on the hard band (total 818 s against 1,264 s over
90 deals of 22-34 ranks, 6 unknown against 11), where the look's default budget costs
seconds before SAT starts; on pysol:1-1000, which the look settles alone, racing there
cost 43.5 s against 28.1 s in turn (load 17-20).

The look runs on a thread rather than in a second process, which measured slower to
start and answer (docs/performance.md).

Every game of the table is played: the look plays a layout that is not made of chains
(TriPeaks' peaks, Escalator's pyramid) on its cover graph, and the CNF holds its covers
as precedence, so `plays` (what both play) holds `covers`; the answer names the engine
that gave it as for any deal.

When a proof is asked for (`Options.proof`), the look may still answer with a win (a
line is its own proof), but an unsolvable verdict comes only from the SAT solver, with
its DRUP proof in `Result.proof`; the CNF is then the default one (the one certificates
check), and no second solver runs.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from blackhole.backends import (
    MAX_MODEL_CELLS,
    Backend,
    Longest,
    Options,
    Result,
    Verdict,
)
from blackhole.backends.look import UNLIMITED, best_result, look_result
from blackhole.base.environment import CORES_VARIABLE
from blackhole.base.errors import InputError
from blackhole.encode import cnf
from blackhole.look import Look, best_budget, default_budget, engine_in_use, longest, look
from blackhole.look import cuts as look_cuts
from blackhole.model.problem import Problem

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
# The same in a game with a talon (the Golf family, TriPeaks, Escalator), where the look
# settles every deal of pysol:1-1000 of each game within 1.1 million moves (a few tenths
# of a second; TriPeaks and Escalator within 0.4 million, on their cover graph): a race
# there would only start the look again on a thread and repeat its work (a sixth more
# CPU over golf's 1000 deals).
QUICK_LOOK_TALON = 2_000_000
# The SAT solver's slices while the look runs beside it: each aims at this many seconds,
# at the conflict rate of the slice before, within these bounds (conflicts).
SLICE_SECONDS = 0.005
FIRST_SLICE, MIN_SLICE, MAX_SLICE = 100, 10, 20_000
# Moves of the racing look (without `Options.budget`), by the deck: past them its core
# goes to a second SAT solver, on the default CNF, whose luck differs from the first's
# (the symmetry cut changes the search). On decks of up to 13 ranks the look settles
# every deal of pysol:1-1000 within RACE_BUDGET; on larger decks (the hard band) a look
# that needs more than RACE_BUDGET_LARGE moves was nearly always beaten by SAT.
RACE_BUDGET, RACE_BUDGET_LARGE, LARGE_FROM_RANKS = 1_000_000, 200_000, 14


# CORES_VARIABLE set to a whole number: the cores `auto` takes as free, instead of its
# estimate (for a container whose load average is the host's, or to time one mode against
# the other).
# The SAT side's CNF, when no proof is asked for: the default features and these. The
# same-rank symmetry cut keeps a win whenever there is one (encodings/sat.md) and, on the
# deals of the hard band that the look leaves, cut glucose4's conflicts (encodings/sat.md).
# A proof is of the default CNF (the one certificates check), so it takes none of them.
SAT_EXTRA_FEATURES = frozenset({"symmetry"})


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


def room_for_two_models(problem: Problem) -> bool:
    """Whether the race may hold a second SAT solver's CNF beside the first: only where
    two models together stay within the cells of one (MAX_MODEL_CELLS), so that the 1 GiB
    that `check_size` promises holds for the race too. On larger decks (above 282 cards
    to play, about 71 ranks) the look's core stays idle once the look gives up."""
    cards = len(problem.moves)
    return 2 * cards * cards <= MAX_MODEL_CELLS


def races(problem: Problem) -> bool:
    """Does auto race on this problem? Only with the look's compiled core; then with two
    or more free cores, or, on a busy machine, on a deck above 13 ranks (where the look
    alone leaves the hard deals for long). $BLACKHOLE_AUTO_CORES, when set, decides
    alone."""
    if engine_in_use() != "c":
        return False
    if free_cores() >= 2:
        return True
    return problem.modulus >= LARGE_FROM_RANKS and not os.environ.get(CORES_VARIABLE, "")


def _stage(outcome: Look, seconds: float) -> dict[str, Any]:
    answer = "won" if outcome.line is not None else "refuted" if outcome.refuted else "none"
    return {"engine": "look", "seconds": round(seconds, 6), "nodes": outcome.nodes,
            "answer": answer}


def _sat_stage(result: Result) -> dict[str, Any]:
    answer = {Verdict.SOLVED: "won", Verdict.UNSOLVABLE: "refuted"}.get(result.verdict,
                                                                         "none")
    work = {key: result.stats[key] for key in ("conflicts", "vars", "clauses")
            if key in result.stats}
    return {"engine": result.solver, "seconds": round(result.seconds, 6), **work,
            "answer": answer}


def _sat_options(problem: Problem, options: Options, left: float | None) -> Options:
    """The options of the SAT side: what is left of the time, no look budget, and the
    CNF's features (SAT_EXTRA_FEATURES on top of the game's default, unless a proof is
    asked for)."""
    features = None
    if not options.proof:
        from blackhole.encode.cnf import default_features

        features = default_features(problem) | SAT_EXTRA_FEATURES
    return replace(options, timeout=left, budget=None, features=features)


def _sat_beside(problem: Problem, options: Options, over: Callable[[], bool]) -> Result:
    """The SAT backend's solve, its solver run in short slices of conflicts, so that it
    stops soon after another engine of the race answers (`over()`)."""
    from blackhole.backends.pysat_tools import conflict_slice
    from blackhole.backends.sat import SatBackend

    def run(sat: Solver, solver: str, deadline: float | None) -> bool | None:
        budget = FIRST_SLICE
        while not over():
            if deadline is not None and time.perf_counter() >= deadline:
                return None
            answer, rate = conflict_slice(sat, budget)
            if answer is not None:
                return answer
            budget = max(MIN_SLICE, min(MAX_SLICE, int(rate * SLICE_SECONDS)))
            time.sleep(0)  # an engine that has ended takes the GIL to hand in its answer
        return None

    return SatBackend().solve_with(problem, options, run)


def _second_entrant(problem: Problem, options: Options, over: Callable[[], bool],
                    stop: bytearray) -> Result:
    """The solver that takes the look's core once it gives up, on the default CNF: kissat
    where it is installed and no SAT solver was named (`auto:NAME` races that solver
    alone), killed or its proof's check ended once `stop` is set; else the SAT backend's
    solver, which asks `over()` between its slices."""
    from blackhole.backends.kissat import KissatBackend, installed

    if options.solver is None and installed():
        return KissatBackend().solve(problem, options, stop=stop)
    return _sat_beside(problem, options, over)


def _settles(outcome: Look, options: Options) -> bool:
    """A look's answer the portfolio may give: a win, or a refutation when no proof is
    asked for (the look's refutations carry none)."""
    return outcome.line is not None or (outcome.refuted and not options.proof)


class AutoBackend(Backend):
    name = "auto"
    # the look, then the CNF, play a deal; a game the CNF does not play, the look alone,
    # with no budget (`_look_alone`)
    plays = look_cuts.PLAYS
    best_plays = look_cuts.PLAYS  # the look's longest line answers a game with a talon
    # (and a cover graph's)
    reads = frozenset({"solver", "budget", "proof"})

    def check(self, options: Options) -> None:
        super().check(options)
        if options.solver is not None or options.proof:  # else nothing to load to check
            from blackhole.backends.pysat_tools import check_proof_solver, solver_name

            check_proof_solver(solver_name(options.solver), options.proof)

    def solve(self, problem: Problem, options: Options) -> Result:
        self.check(options)  # an unknown solver fails before any search
        began = time.perf_counter()
        # a cell: the look alone until the portfolio's SAT stage is measured for it
        if not problem.game.features <= cnf.PLAYS or problem.cells:
            result, stages = self._look_alone(problem, options, began)
            mode = "look alone"
        elif races(problem):
            result, stages = self._quick_then_race(problem, options, began)
            mode = "parallel"
        else:
            result, stages = self._in_turn(problem, options, began)
            mode = "sequential"
        stats = {**result.stats, "mode": mode, "stages": stages}
        return replace(result, backend=self.name, seconds=time.perf_counter() - began,
                       stats=stats)

    def _look_alone(self, problem: Problem, options: Options,
                    began: float) -> tuple[Result, list[dict[str, Any]]]:
        """A game no CNF encodes yet (a free cell): the look, complete, within
        `Options.budget` (None: none) and the time limit."""
        budget = UNLIMITED if options.budget is None else options.budget
        outcome = look(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        result = look_result(outcome, self.name, seconds, {})
        if result.verdict is Verdict.UNKNOWN:
            result.stats["reason"] = ("move budget reached" if outcome.nodes >= budget
                                      else "time limit reached")
        return result, [_stage(outcome, seconds)]

    def _in_turn(self, problem: Problem, options: Options,
                 began: float) -> tuple[Result, list[dict[str, Any]]]:
        """The look with its budget, then (unless it settled the deal) the SAT solver."""
        budget = default_budget() if options.budget is None else options.budget
        outcome = look(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [_stage(outcome, seconds)]
        if _settles(outcome, options):
            return look_result(outcome, self.name, seconds, {}), stages
        left = None if options.timeout is None else options.timeout - seconds
        if left is not None and left <= 0:
            return Result(Verdict.UNKNOWN, None, self.name, "look", seconds,
                          {"reason": "time limit reached"}), stages
        from blackhole.backends.sat import SatBackend

        result = SatBackend().solve(problem, _sat_options(problem, options, left))
        return result, stages + [_sat_stage(result)]

    def _quick_then_race(self, problem: Problem, options: Options,
                         began: float) -> tuple[Result, list[dict[str, Any]]]:
        """A short look in line first: it settles most deals at no cost of threads; only
        the deals it leaves are raced (the racing look starts again from the deal)."""
        quick = QUICK_LOOK if problem.game.plain else QUICK_LOOK_TALON
        budget = quick if options.budget is None else min(quick, options.budget)
        outcome = look(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        if _settles(outcome, options):
            return look_result(outcome, self.name, seconds, {}), [_stage(outcome, seconds)]
        result, stages = self._race(problem, options, began)
        return result, [_stage(outcome, seconds), *stages]

    def _race(self, problem: Problem, options: Options,
              began: float) -> tuple[Result, list[dict[str, Any]]]:
        """The look on a second thread from the start; after its head start, the SAT
        solver on this thread against it. A look that gives up (RACE_BUDGET moves, or
        `Options.budget`) hands its core to a second SAT solver on the default CNF
        (unless a proof is asked for). The first sound answer is taken, the others
        stopped."""
        stop = bytearray(1)
        over = threading.Event()  # an answer is in: every entrant stops
        look_over = threading.Event()
        answers: list[tuple[str, Look | Result]] = []  # in the order they came
        found: dict[str, Any] = {}
        lock = threading.Lock()
        budget = options.budget
        if budget is None:
            budget = RACE_BUDGET_LARGE if problem.modulus >= LARGE_FROM_RANKS else RACE_BUDGET

        def hand_in(who: str, answer: Look | Result) -> None:
            with lock:
                answers.append((who, answer))
            stop[0] = 1  # the look and kissat stop at once, a SAT solver after its slice
            over.set()

        def left() -> float | None:
            return None if options.timeout is None else \
                options.timeout - (time.perf_counter() - began)

        def second() -> None:
            """The look, then (when it gives up) the second SAT solver on its core."""
            try:
                outcome = look(problem, budget, seconds=options.timeout, stop=stop)
                found["look"], found["look_seconds"] = outcome, time.perf_counter() - began
                look_over.set()
                if _settles(outcome, options):
                    hand_in("look", outcome)
                    return
                time_left = left()
                if options.proof or over.is_set() or not room_for_two_models(problem) or (
                        time_left is not None and time_left <= 0):
                    return
                sat = _second_entrant(problem, replace(options, timeout=time_left,
                                                       budget=None, features=None),
                                      over.is_set, stop)
                found["second"] = sat
                if sat.verdict is not Verdict.UNKNOWN:
                    hand_in("second", sat)
            except BaseException as error:  # noqa: BLE001 - handed to the solving thread
                found["error"] = error
                over.set()
            finally:
                look_over.set()

        thread = threading.Thread(target=second, name="blackhole-look", daemon=True)
        thread.start()
        first: Result | None = None
        try:
            # Most deals end within the head start: waiting (without the GIL) costs them
            # nothing, where building a CNF beside the look would delay its answer.
            time_left = left()
            look_over.wait(HEAD_START if time_left is None else min(HEAD_START, time_left))
            time_left = left()
            if not over.is_set() and (time_left is None or time_left > 0):
                first = _sat_beside(problem, _sat_options(problem, options, time_left),
                                    over.is_set)
                if first.verdict is not Verdict.UNKNOWN:
                    hand_in("first", first)
        finally:
            stop[0] = 1
            over.set()
            thread.join()
        if "error" in found:
            raise found["error"]
        stages = [_stage(found["look"], found["look_seconds"])]
        stages += [_sat_stage(sat) for sat in (first, found.get("second")) if sat is not None]
        if not answers:  # out of time: the first SAT solver's unknown, if it started
            return first or Result(Verdict.UNKNOWN, None, self.name, "look",
                                   found["look_seconds"], {"reason": "time limit reached"}), stages
        answer = answers[0][1]
        if isinstance(answer, Look):
            return look_result(answer, self.name, found["look_seconds"], {}), stages
        return answer, stages

    # ------------------------------------------------------------ the best score

    def check_best(self, options: Options) -> None:
        from blackhole.backends.sat import SatBackend

        SatBackend().check_best(replace(options, budget=None))

    def best(self, problem: Problem, options: Options) -> Longest:
        """The look's best score (`look.longest`) within its budget (`Options.budget`,
        else the engine's `best_budget`), else the SAT backend's proven best; the answer
        names the engine that gave it, and `stats["stages"]` what each stage did."""
        self.check_best(options)
        began = time.perf_counter()
        budget = options.budget
        if budget is None:  # SAT takes over at the look's budget, where it can
            budget = best_budget() if problem.game.plain else UNLIMITED
        found = longest(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stages = [{"engine": "look", "seconds": round(seconds, 6), "nodes": found.stats["nodes"],
                   "found": found.played, "upper_bound": found.upper_bound,
                   "answer": "best" if found.proven else "none"}]
        left = None if options.timeout is None else options.timeout - seconds
        # A game with a talon has no best-score CNF yet: the look's answer stands.
        if found.proven or not problem.game.plain or (left is not None and left <= 0):
            answer = best_result(found, budget, self.name, seconds, problem)
            return replace(answer, stats={**answer.stats, "stages": stages})
        from blackhole.backends.sat import SatBackend

        sat = SatBackend().best(problem, replace(options, timeout=left, budget=None))
        stages.append({"engine": sat.solver, "seconds": round(sat.seconds, 6),
                       "conflicts": sat.stats.get("conflicts"), "found": len(sat.order),
                       "upper_bound": sat.upper_bound,
                       "answer": "best" if sat.proven else "none"})
        # Both bounds hold: the look's line may be the longer, and its bound the lower.
        line = max(found.order, sat.order, key=len)
        bound = min(found.upper_bound, sat.upper_bound)
        solver = sat.solver if len(sat.order) >= len(found.order) else "look"
        return Longest(line, bound, self.name, solver, time.perf_counter() - began,
                       {**sat.stats, "stages": stages})
