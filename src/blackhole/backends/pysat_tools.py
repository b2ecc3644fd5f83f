"""The pysat toolkit the SAT-based parts share: the solver names and their aliases, which
solvers log checkable proofs, loading a CNF and running a solver under a deadline and
Ctrl-C, reading its answer, and the incremental `LineSolver` of the longest line. The
`sat` backend, `maxsat`, `external`, `auto`, the certificates and `best` import it.

Timeouts: the CNF is loaded into the solver with an eye on the clock (a deadline that
passes there is OutOfTime at once). Every solver first runs a short slice of conflicts
(sized to a small share of the timeout), which settles most deals without starting a
thread. After that, solvers with `interrupt()` search in a worker thread that the
deadline or Ctrl-C stops (`blackhole.base.deadline.stoppable`); the others (the CaDiCaL
family) go on in slices of a conflict budget, sized from their measured speed so that the
last slice ends close to the deadline. Either way a timeout is no answer, never a guess.

Ctrl-C is a KeyboardInterrupt from every solver call here. Solvers with `interrupt()`
never install pysat's own SIGINT handler (it jumps back into the solving thread from
whichever thread the signal reaches): Ctrl-C during their first slice is seen when the
slice ends, and later the worker is stopped. The CaDiCaL family has pysat's handler,
whose error `interruptible` turns back into a KeyboardInterrupt.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pysat.solvers import Solver, SolverNames

from blackhole.backends import Options, Verdict
from blackhole.base import deadline as clock
from blackhole.base.errors import InputError, InternalError
from blackhole.encode.cnf import (
    DEFAULT_FEATURES,
    PREFIX_FEATURES,
    Encoding,
    build_cnf,
    default_features,
    known_features,
)
from blackhole.model.longest import Longest
from blackhole.model.problem import Problem

# glucose4 needed the fewest conflicts on the deals the look leaves to a solver
# (pysol:1-1000: 232,700 against glucose3's 281,895; encodings/sat.md).
DEFAULT_SOLVER = "glucose4"
# The best score's incremental climbs run on glucose3, the fastest measured for them
# (docs/performance.md, best scores).
BEST_SOLVER = "glucose3"
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
# A certificate's solver when none is named: the default solver, which logs a checkable
# proof.
DEFAULT_PROOF_SOLVER = DEFAULT_SOLVER

_FIRST_SLICE = 2000  # conflicts, at most, in the first slice (most deals need fewer)
_MIN_SLICE = 20
_SLOW_RATE = 3000  # conflicts per second, about the slowest seen (large deals, busy CPU)
_SLICE_SHARE = 0.05  # a slice aims at this share of the timeout
_LOAD_CHUNK = 20_000  # clauses given to a solver between two looks at the clock


# Runs a loaded solver (solver name, deadline) to True, False or None (no answer).
Runner = Callable[[Solver, str, float | None], bool | None]


def solver_name(name: str | None, default: str = DEFAULT_SOLVER) -> str:
    """The canonical solver name for `name` (a name above or a pysat alias such as g3)."""
    if name is None:
        return default
    wanted = name.strip().lower()
    for canonical in SOLVERS:
        if wanted == canonical or wanted in getattr(SolverNames, canonical, ()):
            return canonical
    raise InputError(f"unknown SAT solver (choose from {', '.join(SOLVERS)})", "solver",
                     token=name)


def short_name(solver: str) -> str:
    """The shortest name pysat knows a canonical solver by (g4 for glucose4)."""
    return min(getattr(SolverNames, solver, (solver,)), key=len)


def check_proof_solver(solver: str, proof: bool) -> None:
    if proof and solver not in PROOF_SOLVERS:
        raise InputError(f"no checkable proof from this solver (choose from "
                         f"{', '.join(PROOF_SOLVERS)})", "solver", token=solver)


def features_of(options: Options, problem: Problem | None = None) -> frozenset[str]:
    """The CNF features the options choose (an InputError names unknown ones); none
    chosen: the default of the problem's game (`default_features`), or Black Hole's."""
    if options.features is None:
        return DEFAULT_FEATURES if problem is None else default_features(problem)
    return known_features(options.features)


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


def loaded_solver(solver: str, clauses: Sequence[Sequence[int]], deadline: float | None,
                  *, with_proof: bool = False) -> Solver:
    """A pysat solver holding the clauses, loaded a chunk at a time with a look at the
    clock in between (a large CNF takes seconds to load): OutOfTime when the deadline
    passes first, the solver then deleted."""
    if deadline is None:
        return Solver(name=solver, bootstrap_with=clauses, with_proof=with_proof)
    sat = Solver(name=solver, with_proof=with_proof)
    try:
        for start in range(0, len(clauses), _LOAD_CHUNK):
            clock.check(deadline)
            sat.append_formula(clauses[start:start + _LOAD_CHUNK])
        clock.check(deadline)
    except BaseException:
        sat.delete()
        raise
    return sat


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C during a pysat call in the main thread is pysat's own error ("Caught
    keyboard interrupt"): raise it as the KeyboardInterrupt it is."""
    try:
        yield
    except Exception as error:
        if "keyboard interrupt" in str(error).lower():
            raise KeyboardInterrupt from None
        raise


def run_solver(sat: Solver, solver: str, deadline: float | None,
         assumptions: Sequence[int] = ()) -> bool | None:
    """True (satisfiable), False (unsatisfiable) or None (the deadline came first), under
    the assumptions (literals). Ctrl-C raises KeyboardInterrupt."""
    with interruptible():
        return _run_solver(sat, solver, deadline, assumptions)


def _run_solver(sat: Solver, solver: str, deadline: float | None,
                assumptions: Sequence[int]) -> bool | None:
    stoppable = solver in INTERRUPTIBLE
    if deadline is None and not stoppable:  # pysat's handler sees Ctrl-C
        return sat.solve(assumptions=assumptions)
    total = None if deadline is None else deadline - time.perf_counter()
    if total is not None and total <= 0:
        return None
    # A first slice of conflicts, sized to a small share of the timeout even at a slow
    # rate: most deals end inside it, without the cost of starting a thread.
    budget = _FIRST_SLICE if total is None else \
        max(_MIN_SLICE, min(_FIRST_SLICE, int(total * _SLOW_RATE * _SLICE_SHARE)))
    answer, rate = conflict_slice(sat, budget, assumptions)
    if answer is not None:
        return answer
    if not stoppable:
        assert deadline is not None and total is not None
        return _run_in_slices(sat, deadline, total, rate, assumptions)
    sat.conf_budget(-1)  # no budget from here on: the deadline or Ctrl-C stops the search
    if deadline is not None and deadline <= time.perf_counter():
        return None
    return clock.stoppable(
        lambda: sat.solve_limited(assumptions=assumptions, expect_interrupt=True),
        sat.interrupt, deadline)


def conflict_slice(sat: Solver, budget: int,
                   assumptions: Sequence[int] = ()) -> tuple[bool | None, float]:
    """Search for at most `budget` more conflicts: the answer and conflicts per second.
    Solvers with interrupt() run it without pysat's SIGINT handler (a Ctrl-C is seen
    when the slice ends); the others' Ctrl-C error is a KeyboardInterrupt."""
    before = sat.accum_stats().get("conflicts", 0)
    started = time.perf_counter()
    sat.conf_budget(budget)
    with interruptible():
        answer = sat.solve_limited(assumptions=assumptions, expect_interrupt=True)
    spent = time.perf_counter() - started
    done = max(sat.accum_stats().get("conflicts", 0) - before, 1)
    return answer, done / max(spent, 1e-6)


def _run_in_slices(sat: Solver, deadline: float, total: float, rate: float,
                   assumptions: Sequence[int] = ()) -> bool | None:
    """Conflict-budget slices for solvers without interrupt(); each call resumes the search
    with what it learned so far. A slice aims at a small share of the timeout (or what is
    left of it) at the rate measured in the slice before."""
    while (left := deadline - time.perf_counter()) > 0:
        budget = int(rate * min(left, _SLICE_SHARE * total))
        if budget < 1:
            return None
        answer, rate = conflict_slice(sat, budget, assumptions)
        if answer is not None:
            return answer
    return None


# ---------------------------------------------------------------- the longest line

def best_features(options: Options) -> frozenset[str]:
    """The features of the optional-position CNF: the default ones (every one of them is
    sound for prefixes), or the options' (an InputError names one that is not)."""
    if options.features is None:
        return known_features(DEFAULT_FEATURES & PREFIX_FEATURES, optional=True)
    return known_features(options.features, optional=True)


class LineSolver:
    """One incremental SAT solver over the optional-position CNF of a Problem, asked for
    the longest line that starts with given cards.

    Every question is the CNF plus assumptions: "card c is at position q" for the first
    cards, and filled(k) ("at least k cards are played"). A model is a line of k or more
    cards, and the refutation of filled(b + 1) proves that no line (with those first
    cards) plays more than b. The solver keeps what it learns from one question to the
    next, so the hints of every move from a position, or every step of a line, cost one
    encoding and one solver.
    """

    def __init__(self, problem: Problem, solver: str, features: frozenset[str],
                 deadline: float | None) -> None:
        self.problem = problem
        self.solver = solver
        self.deadline = deadline
        self.n = len(problem.moves)
        self.calls = 0
        self.timed_out = False
        # When the deadline passes while the CNF is built or loaded, there is no solver:
        # every question is then answered None (unknown), as at the deadline.
        self.encoding: Encoding | None = None
        self.sat: Solver | None = None
        try:
            self.encoding = build_cnf(problem, features, optional=True, deadline=deadline)
            self.sat = loaded_solver(solver, self.encoding.clauses, deadline)
        except clock.OutOfTime:
            self.timed_out = True

    def __enter__(self) -> LineSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        """Free the solver and the CNF (before a caller's `gc_paused` resumes)."""
        if self.sat is not None:
            self.sat.delete()
        self.sat = self.encoding = None

    def stats(self) -> dict[str, Any]:
        if self.encoding is None or self.sat is None:
            return {"calls": self.calls, "stopped": "encoding"}
        return {"vars": self.encoding.num_vars, "clauses": len(self.encoding.clauses),
                "features": sorted(self.encoding.features), "calls": self.calls,
                **(self.sat.accum_stats() or {})}

    def filled_literal(self, k: int) -> int:
        """The literal "at least k cards are played" (0 when the time ran out before the
        CNF was ready: no question is asked then)."""
        return 0 if self.encoding is None else self.encoding.filled_literal(k)

    def placed(self, prefix: Sequence[int]) -> list[int]:
        """The literals "node prefix[i] is at position i + 1"."""
        if self.encoding is None:
            return []
        pool = self.encoding.pool
        literals = []
        for q, node in enumerate(prefix, start=1):
            try:
                literals.append(pool.id(("at", node, q)))
            except KeyError:
                raise InternalError(f"sat: the encoding rules out {self.problem.cards[node]} "
                                    f"at position {q}, which a legal line plays there") from None
        return literals

    def ask(self, assumptions: list[int]) -> tuple[int, ...] | bool | None:
        """A line satisfying the assumptions, False when there is none, None at the
        deadline."""
        found = self.ask_line(assumptions)
        return found if found is None or found is False else found[0]

    def ask_line(self, assumptions: list[int]
                 ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]] | bool | None:
        """`ask`, with the line's parks (a game with a cell; `Result.parks`)."""
        self.calls += 1
        if self.sat is None or self.encoding is None:
            return None
        answer = run_solver(self.sat, self.solver, self.deadline, assumptions)
        if answer is None:
            self.timed_out = True
            return None
        if not answer:
            return False
        model = self.sat.get_model() or []
        try:
            return self.encoding.decode(model), self.encoding.decode_parks(model)
        except ValueError as error:
            raise InternalError(f"sat/{self.solver}: model does not decode: {error}") from None

    def longest(self, prefix: Sequence[int] = (), lower: Sequence[int] = (),
                upper: int | None = None, *, top_first: bool = False,
                lower_parks: Sequence[tuple[int, int]] = ()) -> Longest:
        """The longest line that starts with `prefix` (a legal line), climbing from
        `lower` (a known legal line starting with `prefix`, or nothing; with its parks in
        a game with a cell) one card past the longest found at a time, up to `upper` (a
        proven bound, or the cards to play). With `top_first` the bound is asked first:
        cheaper when the line most likely reaches it (a move in a winnable game)."""
        prefix = tuple(prefix)
        best = tuple(lower) if len(lower) > len(prefix) else prefix
        parks = tuple(lower_parks) if len(lower) > len(prefix) else ()
        if best[:len(prefix)] != prefix:
            raise InternalError("sat: a lower-bound line that does not start with its prefix")
        high = self.n if upper is None else min(upper, self.n)
        fixed = self.placed(prefix)
        self._phase(best)
        while len(best) < high:
            wanted = high if top_first else len(best) + 1
            top_first = False
            found = self.ask_line([*fixed, self.filled_literal(wanted)])
            if found is None:
                break
            if found is False:
                high = wanted - 1
                continue
            if found[0][:len(prefix)] != prefix or len(found[0]) < wanted:
                raise InternalError(f"sat/{self.solver}: a line that breaks its assumptions")
            best, parks = found
        return Longest(best, max(high, len(best)), parks=parks)

    def _phase(self, line: Sequence[int]) -> None:
        """Point the solver's first guesses at `line`: a longer line most often shares
        much of it."""
        if self.sat is None or self.encoding is None:
            return
        slots = self.encoding.slots
        literals = [var for q, node in enumerate(line, start=1)
                    for var, placed in slots[q - 1] if placed == node]
        literals += [self.encoding.filled_literal(q) for q in range(1, len(line) + 1)]
        try:
            self.sat.set_phases(literals)
        except NotImplementedError:  # a solver without phases only guesses worse
            pass
