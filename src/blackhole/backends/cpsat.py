"""CP-SAT backend: build one of the models of `blackhole.encode.cpsat` (encodings/cpsat.md)
and run OR-Tools CP-SAT on it: options, parameters, the status ladder and read back.

The time limit holds from the start: the model is built against the deadline (UNKNOWN
when it passes first), and CP-SAT runs in a worker thread that the deadline and Ctrl-C
stop (`blackhole.base.deadline.stoppable`; CP-SAT's own SIGINT handler is off, so that Ctrl-C
is a KeyboardInterrupt, not an UNKNOWN). CP-SAT reads its time limit only once it has
loaded the model, which on a large deck takes seconds: past a short grace after the
deadline the solve is left to end in its thread and the answer is UNKNOWN.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

from ortools.sat.python import cp_model

from blackhole.backends import Backend, Longest, Options, Result, Verdict
from blackhole.base import deadline as clock
from blackhole.base.errors import InputError, InternalError
from blackhole.encode import cnf
from blackhole.encode.cpsat import (
    OPTIONAL_FEATURES,
    Built,
    build_best,
    build_model,
    choose_features,
    choose_model,
)
from blackhole.encode.cpsat_names import MODEL_PLAYS
from blackhole.model.problem import Problem

# Solver parameters per model, measured over pysol:1-1000 (see encodings/cpsat.md).
# CP-SAT 9.15's presolve drops solutions of the inverse model (it called 10 solvable deals
# of pysol:1-1000 unsolvable; tests/test_cpsat_regressions.py), so no model is presolved.
# Probing, SAT inprocessing and the LP cost more than they save on models this small.
_LIGHT: dict[str, object] = {
    "cp_model_presolve": False,
    "cp_model_probing_level": 0,
    "use_sat_inprocessing": False,
    "linearization_level": 0,
}
_TUNING: dict[str, dict[str, object]] = {
    "inverse": _LIGHT,
    "boolean": _LIGHT,
    "optional": _LIGHT,
    "cnf": _LIGHT,
    "optional-cnf": _LIGHT,
    "circuit": {"cp_model_presolve": False, "linearization_level": 0},
}
_MIN_SOLVER_SECONDS = 0.01  # a solver always gets a moment, even after a slow build
_STOP_GRACE = 0.2  # seconds CP-SAT may take to end once asked to stop


def check_options(options: Options) -> None:
    """The Options fields this backend reads, before any work (errors name the field)."""
    choose_features(choose_model(options.model), options.features)
    if options.workers < 0:  # Options allows 0, CP-SAT's own choice; the CLI asks for >= 1
        raise InputError("workers must be 0 (CP-SAT chooses) or more", "workers",
                         token=str(options.workers))


def solver_parameters(solver: cp_model.CpSolver, model_name: str, options: Options,
                      seconds_left: float | None) -> None:
    """Every parameter this backend sets, in one place."""
    params = solver.parameters
    params.catch_sigint_signal = False  # Ctrl-C is the caller's (see `run`)
    params.num_workers = options.workers
    params.random_seed = options.seed
    if seconds_left is not None:
        params.max_time_in_seconds = max(seconds_left, _MIN_SOLVER_SECONDS)
    for key, value in _TUNING[model_name].items():
        setattr(params, key, value)


_VERDICTS = {
    cp_model.OPTIMAL: Verdict.SOLVED,
    cp_model.FEASIBLE: Verdict.SOLVED,
    cp_model.INFEASIBLE: Verdict.UNSOLVABLE,
    cp_model.UNKNOWN: Verdict.UNKNOWN,
}


def verdict_of(status: int, model_name: str) -> Verdict:
    """The status ladder; a status outside it (MODEL_INVALID) is our bug."""
    if status not in _VERDICTS:
        raise InternalError(f"CP-SAT returned {cp_model.CpSolver().status_name(status)} "
                            f"on the {model_name} model")
    return _VERDICTS[status]


def run(built: Built, options: Options, began: float) -> tuple[cp_model.CpSolver, int]:
    """Solve a built model under the options; the time limit counts from `began`. Ctrl-C
    stops CP-SAT and raises KeyboardInterrupt; OutOfTime when CP-SAT has not ended soon
    after the deadline (it was still loading the model)."""
    solver = cp_model.CpSolver()
    deadline = clock.after(options.timeout, began)
    solver_parameters(solver, built.name, options, clock.left(deadline))
    status = clock.stoppable(lambda: solver.solve(built.model), solver.stop_search, deadline,
                             _STOP_GRACE)
    return solver, status


def run_stats(solver: cp_model.CpSolver, status: int, built: Built,
              options: Options) -> dict[str, Any]:
    return {
        "status": solver.status_name(status),
        "model": built.name,
        "features": sorted(built.features),
        "workers": options.workers,
        "seed": options.seed,
        "conflicts": solver.num_conflicts,
        "branches": solver.num_branches,
        "wall_time": solver.wall_time,
        "deterministic_time": solver.deterministic_time,
        "vars": len(built.model.proto.variables),
        "constraints": len(built.model.proto.constraints),
        "families": dict(built.families),
        "variables": dict(built.variables),
    }


class CpsatBackend(Backend):
    name = "cpsat"
    reads = frozenset({"model", "workers", "seed", "features"})
    # what some model plays (`MODEL_PLAYS`); the model chosen refuses what it does not
    plays = frozenset().union(*MODEL_PLAYS.values())
    # the best score: Black Hole's rules, and a free cell (`build_best`)
    best_plays = cnf.OPTIONAL_PLAYS

    def check(self, options: Options) -> None:
        super().check(options)
        check_options(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        check_options(options)
        building = time.perf_counter()
        try:
            built = build_model(problem, options.model, options.features,
                                deadline=clock.after(options.timeout, began))
            built_at = time.perf_counter()
            solver, status = run(built, options, began)
        except clock.OutOfTime:
            return Result(Verdict.UNKNOWN, None, self.name,
                          f"cp-sat:{choose_model(options.model)}", time.perf_counter() - began,
                          {"stopped": "model"})
        verdict = verdict_of(status, built.name)
        order = built.read_order(solver) if verdict is Verdict.SOLVED else None
        parks = built.read_parks(solver) if verdict is Verdict.SOLVED else ()
        stats = run_stats(solver, status, built, options)
        stats["build_seconds"] = built_at - building
        return Result(verdict, order, self.name, f"cp-sat:{built.name}",
                      time.perf_counter() - began, stats, parks=parks)

    def check_best(self, options: Options) -> None:
        """The optional-position model is the only one, and its features are its own."""
        if options.model is not None:
            raise InputError("the best score has one CP-SAT model, the optional-position "
                             "one: give no model", "model", token=options.model)
        unknown = sorted(set(options.features or ()) - OPTIONAL_FEATURES)
        if unknown:
            raise InputError("not a feature of the optional-position model (it has "
                             f"{', '.join(sorted(OPTIONAL_FEATURES))})", "features",
                             token=",".join(unknown))
        check_options(replace(options, features=None))

    def best(self, problem: Problem, options: Options) -> Longest:
        """Maximise the filled positions of the optional-position model (`build_best`:
        for a game with a cell, the optional-position CNF's clauses), from the quick
        lower bound (a short search) posted as a bound on the objective; at the limit the
        best line found and CP-SAT's bound on the objective."""
        from blackhole.backends.seeding import starting_seed

        self.check_best(options)
        self.check_game(problem, "best")
        began = time.perf_counter()
        deadline = clock.after(options.timeout, began)
        lower, lower_parks = starting_seed(problem, deadline)
        model_name = "optional-cnf" if problem.cells else "optional"
        try:
            built = build_best(problem, options.features, deadline=deadline)
            if lower:  # a line this long exists: the search need not look below it
                built.model.add(built.filled[len(lower) - 1] == 1)
            built_at = time.perf_counter()
            solver, status = run(built, options, began)
        except clock.OutOfTime:  # the line of the short search, and no bound
            return Longest(lower, len(problem.moves), self.name, f"cp-sat:{model_name}",
                           time.perf_counter() - began,
                           {"lower_bound": len(lower), "stopped": "model"}, parks=lower_parks)
        verdict = verdict_of(status, built.name)
        if verdict is Verdict.UNSOLVABLE:
            raise InternalError("CP-SAT found no line at all, where the empty line is legal")
        order = built.read_order(solver) if verdict is Verdict.SOLVED else ()
        parks = built.read_parks(solver) if verdict is Verdict.SOLVED else ()
        if len(order) < len(lower):
            order, parks = lower, lower_parks
        bound = len(problem.moves)  # UNKNOWN: CP-SAT's bound may not be computed yet
        if status == cp_model.OPTIMAL:
            bound = len(order)
        elif status == cp_model.FEASIBLE:
            bound = max(len(order), min(bound, math.floor(solver.best_objective_bound + 1e-6)))
        stats = run_stats(solver, status, built, options)
        stats.update(lower_bound=len(lower), build_seconds=built_at - began)
        return Longest(order, bound, self.name, f"cp-sat:{built.name}",
                       time.perf_counter() - began, stats, parks=parks)
