"""The MaxSAT backend: the best score as weighted MaxSAT, solved by pysat's RC2.

The hard clauses are the optional-position CNF of `blackhole.encode.cnf` (every legal
line, a prefix of positions filled); each position q gives the soft clause filled(q) of
weight 1. RC2 is core-guided: it refutes ever larger sets of soft clauses until the
rest can be satisfied, so its first model is optimal, and the cost it has proven so far
(the soft clauses that must be false) bounds the best score from above when the time
limit stops it first. It starts, as the other backends do, from the line of a short
search (a hard clause: at least that many cards are played), which is also the line it
shows when the limit stops it before the optimum.

A game with a free cell (Worm Hole) takes the same soft clauses on the optional-position
CNF with the cell (`blackhole.encode.cnf_cell`, encodings/worm-hole.md "The best score"):
filled(q) is the q-th card into the hole, whether from its fan or from the cell, so a card
left in the cell scores nothing; the optimum's parks are read back with its hole order.

`solve` asks the same question: a deal is won when the optimum fills every position.

The time limit holds from the start: the CNF is built, and its clauses loaded into RC2's
oracle, against the deadline (a deadline passed there leaves the short search's line,
unproven), and RC2 runs in a worker thread that the deadline and Ctrl-C interrupt
(`blackhole.base.deadline.stoppable`).
"""

from __future__ import annotations

import time
from typing import Any

from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from blackhole.backends import Backend, Longest, Options, Result, Verdict, seeding
from blackhole.backends.pysat_tools import INTERRUPTIBLE, best_features, solver_name
from blackhole.base import deadline as clock
from blackhole.base.errors import InputError, InternalError
from blackhole.encode import cnf
from blackhole.encode.cnf import Encoding, build_cnf, gc_paused
from blackhole.model.problem import Problem

DEFAULT_SOLVER = "glucose3"  # RC2's own default oracle (g3)


def oracle_name(options: Options) -> str:
    """The SAT oracle RC2 runs: one that a timer can interrupt."""
    name = solver_name(options.solver or DEFAULT_SOLVER)
    if name not in INTERRUPTIBLE:
        raise InputError(f"RC2 needs a solver it can interrupt (choose from "
                         f"{', '.join(INTERRUPTIBLE)})", "solver", token=name)
    return name


class MaxsatBackend(Backend):
    name = "maxsat"
    reads = frozenset({"solver", "features"})
    # the optional-position CNF scores Black Hole's rules and its free cell (a talon's
    # fan-card score is the look's); `solve` is the same optimum, so it plays the same
    plays = cnf.OPTIONAL_PLAYS
    best_plays = cnf.OPTIONAL_PLAYS

    def check(self, options: Options) -> None:
        super().check(options)
        oracle_name(options)
        best_features(options)

    def solve(self, problem: Problem, options: Options) -> Result:
        found = self.best(problem, options)
        won = len(found.order) == len(problem.moves)
        verdict = Verdict.SOLVED if won else Verdict.UNSOLVABLE if found.proven \
            else Verdict.UNKNOWN
        return Result(verdict, found.order if won else None, self.name, found.solver,
                      found.seconds, found.stats, parks=found.parks if won else ())

    def best(self, problem: Problem, options: Options) -> Longest:
        self.check_best(options)
        self.check_game(problem, "best")  # the optional CNF plays more than RC2 scores
        oracle = oracle_name(options)
        began = time.perf_counter()
        deadline = clock.after(options.timeout, began)
        lower, lower_parks = seeding.starting_seed(problem, deadline)
        n = len(problem.moves)
        stats: dict[str, Any] = {"lower_bound": len(lower)}
        with gc_paused():  # the CNF is dropped inside, before the collector resumes
            try:
                encoding = build_cnf(problem, best_features(options), optional=True,
                                     deadline=deadline)
            except clock.OutOfTime:
                stats["stopped"] = "encoding"
                return Longest(lower, n, self.name, f"rc2/{oracle}",
                               time.perf_counter() - began, stats, parks=lower_parks)
            formula = WCNF()  # the soft clauses; the hard ones go to the oracle below
            for literal in encoding.filled:
                formula.append([literal], weight=1)
            formula.nv = encoding.num_vars  # RC2 numbers its own variables after these
            built = time.perf_counter()
            with RC2(formula, solver=oracle) as rc2:
                try:
                    _load(rc2, encoding.clauses, deadline)
                    if lower:  # a line this long exists: a hard clause, as cpsat posts it
                        rc2.oracle.add_clause([encoding.filled_literal(len(lower))])
                    built = time.perf_counter()
                    model = _compute(rc2, deadline)
                except clock.OutOfTime:
                    model = None
                cost = rc2.cost
                stats.update({"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                              "soft": len(encoding.filled),
                              "features": sorted(encoding.features), "cost": cost,
                              **(rc2.oracle.accum_stats() or {})})
            line = None if model is None else _decoded(encoding, model, oracle)
            del encoding
        stats.update(encode_seconds=round(built - began, 6),
                     solve_seconds=round(time.perf_counter() - built, 6))
        if line is None:  # stopped: RC2 shows no line before the optimum
            return Longest(lower, n - cost, self.name, f"rc2/{oracle}",
                           time.perf_counter() - began, stats, parks=lower_parks)
        order, parks = line
        if len(order) != n - cost:
            raise InternalError(f"maxsat/{oracle}: an optimum of cost {cost} plays "
                                f"{len(order)} of {n} cards")
        return Longest(order, len(order), self.name, f"rc2/{oracle}",
                       time.perf_counter() - began, stats, parks=parks)


def _decoded(encoding: Encoding, model: list[int], oracle: str
             ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The hole order and the parks (a game with a cell; `Result.parks`) of RC2's model."""
    try:
        return encoding.decode(model), encoding.decode_parks(model)
    except ValueError as error:
        raise InternalError(f"maxsat/{oracle}: model does not decode: {error}") from None


_LOAD_CHUNK = 20_000  # hard clauses given to the oracle between two looks at the clock


def _load(rc2: RC2, clauses: list[list[int]], deadline: float | None) -> None:
    """The hard clauses into RC2's oracle, a chunk at a time (OutOfTime at the deadline):
    what RC2 would do with them itself, as they are its formula's hard clauses."""
    for start in range(0, len(clauses), _LOAD_CHUNK):
        clock.check(deadline)
        rc2.oracle.append_formula(clauses[start:start + _LOAD_CHUNK])
    clock.check(deadline)


def _compute(rc2: RC2, deadline: float | None) -> list[int] | None:
    """RC2's optimal model, or None when the deadline comes first; Ctrl-C interrupts it
    and raises KeyboardInterrupt."""
    if deadline is not None and deadline <= time.perf_counter():
        return None
    return clock.stoppable(lambda: rc2.compute(expect_interrupt=True), rc2.interrupt,
                           deadline)
