"""The SAT backend: encode the Problem (blackhole.encode.cnf), solve with a python-sat
solver (the shared pysat helpers are in blackhole.backends.pysat_tools, which says how a
timeout and Ctrl-C stop a solver). With `Options.proof` the solver logs a DRUP proof,
which an unsatisfiable answer returns in `Result.proof` (one line a string, as pysat
gives it). A deadline that passes while the CNF is built or loaded is UNKNOWN at once.
"""

from __future__ import annotations

import time
from typing import Any

from blackhole.backends import Backend, Longest, Options, Result, Verdict
from blackhole.backends.pysat_tools import (
    BEST_SOLVER,
    LineSolver,
    Runner,
    best_features,
    check_proof_solver,
    features_of,
    loaded_solver,
    read_answer,
    run_solver,
    solver_name,
)
from blackhole.base import deadline as clock
from blackhole.base.errors import InputError
from blackhole.encode import cnf
from blackhole.encode.cnf import build_cnf, gc_paused
from blackhole.model.problem import Problem


class SatBackend(Backend):
    name = "sat"
    reads = frozenset({"solver", "features", "proof"})
    # the CNF reads a game's arcs and talon (encodings/golf.md) and its cell
    # (encodings/worm-hole.md)
    plays = cnf.PLAYS
    # the optional-position CNF scores Black Hole's rules and its cell (encodings/sat.md,
    # encodings/worm-hole.md "The best score"); a talon's fan-card score is the look's
    best_plays = cnf.OPTIONAL_PLAYS

    def check(self, options: Options) -> None:
        super().check(options)
        check_proof_solver(solver_name(options.solver), options.proof)
        features_of(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        return self.solve_with(problem, options, run_solver)

    def solve_with(self, problem: Problem, options: Options, run: Runner) -> Result:
        """`solve`, with `run` running the loaded solver to its answer: `run_solver`, or
        one that may stop early (the `auto` portfolio's, when the look answers first)."""
        solver = solver_name(options.solver)
        check_proof_solver(solver, options.proof)
        features = features_of(options, problem)
        began = time.perf_counter()
        with gc_paused():  # the encoding is freed inside, before the collector resumes
            return self._solve(problem, options, solver, features, began, run)

    def _solve(self, problem: Problem, options: Options, solver: str,
               features: frozenset[str], began: float, run: Runner) -> Result:
        deadline = clock.after(options.timeout, began)
        encoding_began = time.perf_counter()
        try:
            encoding = build_cnf(problem, features, deadline=deadline)
            sat = loaded_solver(solver, encoding.clauses, deadline, with_proof=options.proof)
        except clock.OutOfTime:
            return Result(Verdict.UNKNOWN, None, self.name, solver,
                          time.perf_counter() - began, {"stopped": "encoding"})
        encoded = time.perf_counter()
        stats: dict[str, Any] = {"vars": encoding.num_vars,
                                 "clauses": len(encoding.clauses), "features": sorted(features)}
        proof = None
        with sat:
            answer = run(sat, solver, deadline)
            model = sat.get_model() if answer else None
            if options.proof and answer is False:
                proof = list(sat.get_proof())
            stats.update(sat.accum_stats() or {})
        solved = time.perf_counter()
        stats["encode_seconds"] = round(encoded - encoding_began, 6)
        stats["solve_seconds"] = round(solved - encoded, 6)
        verdict, order = read_answer(answer, model, encoding, f"sat/{solver}")
        parks = encoding.decode_parks(model) if order is not None and model else ()
        return Result(verdict, order, self.name, solver, time.perf_counter() - began, stats,
                      proof, parks)

    def check_best(self, options: Options) -> None:
        super().check_best(options)
        if options.proof:
            raise InputError("the best score logs no proof here (its certificate is "
                             "written by certify_best)", "proof", token="True")
        best_features(options)

    def best(self, problem: Problem, options: Options) -> Longest:
        """The longest line: one incremental solver over the optional-position CNF, from a
        quick lower bound (a short search), asking for one card more than the longest line
        found until that is refuted; the refutation of filled(best + 1) is the proof. The
        short search only seeds the climb: when it wins, the solver still finds the win
        (pointed at it by the phases), so the answer is always the solver's."""
        from blackhole.backends.seeding import starting_seed

        self.check_best(options)
        self.check_game(problem, "best")  # the optional CNF plays more than this scores
        solver = solver_name(options.solver, BEST_SOLVER)
        features = best_features(options)
        began = time.perf_counter()
        deadline = clock.after(options.timeout, began)
        lower, parks = starting_seed(problem, deadline)
        with gc_paused(), LineSolver(problem, solver, features, deadline) as lines:
            built = time.perf_counter()
            climb = lines.longest(lower=lower, lower_parks=parks)
            stats = lines.stats()
        stats.update(lower_bound=len(lower), encode_seconds=round(built - began, 6),
                     solve_seconds=round(time.perf_counter() - built, 6))
        return Longest(climb.order, climb.upper_bound, self.name, solver,
                       time.perf_counter() - began, stats, parks=climb.parks)
