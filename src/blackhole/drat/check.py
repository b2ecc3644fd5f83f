"""The proof check: ``check_proof`` judges a parsed proof against a formula with the
compiled core first (when built) and the pure-Python engine (``python_engine.py``) for
every verdict the core does not give.

Bounds: the checker's memory grows with its input, never with a number written in
it.  A proof may use the formula's variables and at most one new variable per
lemma (extended resolution introduces them one definition at a time, as kissat
does); any other variable rejects the proof before a single array is sized by it.
Files are read up to a cap (``MAX_PROOF_BYTES``, ``MAX_CNF_BYTES``) and a larger one
is rejected unread.  ``check_proof`` also takes a ``deadline``: past it the check
stops with ``timed_out`` set, which is no verdict either way.

Cost: the RUP checks are the cost, counted in ``stats["rup_literals"]`` (the
literals they assign, independent of the machine's load).  On the project's Black
Hole CNFs a check propagates one to three thousand literals (its conflict's cone
is about a tenth of that: Glucose 4's proof of pysol:265 has 1,944 core lemmas and
3.45 million RUP literals), at roughly a microsecond each in Python and 50 to 150
nanoseconds in the compiled core, most of it waiting for memory.  Half of those
checks meet their conflict before any non-core lemma is used, after about 1,200
literals; the other half reach the core fixpoint (about 1,500) first.  Tried and
dropped, each slower on that proof: binary implications to fixpoint before longer
clauses (1.45x), a LIFO queue (1.12x), non-core lemmas alongside core ones (1.40x,
50% more core lemmas), and formula clauses outside every cone so far propagated
after the others (no gain).

RAT: a lemma that is not RUP is checked for RAT on its first literal: every
resolvent with an active earlier clause holding the pivot's negation must be RUP,
each its own RUP check (counted in ``rup_literals``).  The candidates come from a
list of the clauses holding each literal, made once, at the first RAT check.
Glucose writes no RAT lemma; kissat writes them for the variables it introduces
(14,202 of the 103,080 core lemmas of its proof of random:29:ranks=31).

Compiled core: ``_drat_core.c``, a CPython extension built at install time where a
C compiler is at hand (optional: without it the Python engine checks alone).  It
runs the algorithm of ``python_engine.py`` step for step, in the same order, over
flat int arrays, RAT checks and extension variables included, so both engines count
the same core lemmas, RUP literals and RAT lemmas on every proof (the tests hold
them to that).  It may only accept: a lemma that is neither RUP nor RAT, a proof
without a conflict, input or sizes it does not take, all go to the Python checker,
which gives the verdict; it stops at the deadline and polls signal handlers
(Ctrl-C) every 50 ms.  A :class:`~blackhole.drat.parse.FlatProof` (what the parsers
return) is read in place: the core copies only the formula and the lemmas.
``CheckResult.engine`` says who judged; ``engine="python"`` or
``BLACKHOLE_DRAT_ENGINE=python`` skips the core.  Its speed and memory are measured
in docs/performance.md.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from blackhole.base.environment import DRAT_VARIABLE, ENGINES
from blackhole.base.errors import ArgumentError
from blackhole.drat.parse import (
    MAX_CNF_BYTES,
    MAX_PROOF_BYTES,
    DratError,
    FlatProof,
    parse_any_proof,
    parse_dimacs,
    read_capped,
)
from blackhole.drat.python_engine import Checker, OutOfTime

try:  # the compiled core, built at install time where a C compiler is at hand
    import blackhole._drat_core as _drat_core
except ImportError:  # pragma: no cover - an install without a compiler
    _drat_core = None

_C_ACCEPT, _C_HANDOVER, _C_TIMEOUT = 0, 1, 2


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a proof check.

    ``reason`` is empty when ``ok``; otherwise it says exactly why the proof
    was rejected.  ``stats`` holds counters: ``lemmas`` and ``deletions`` in
    the proof, ``core_lemmas`` (checked), ``rat_lemmas`` (needed RAT),
    ``ignored_deletions``, ``trivial`` (formula refuted without the proof),
    ``rup_literals`` and ``seconds``; ``c_seconds`` is the time the compiled core
    spent before it handed a proof over.  ``timed_out`` means the deadline came
    first: ``ok`` is then False, yet the proof is neither accepted nor refuted.
    ``engine`` says who judged: "c" (the compiled core accepted, or ran out of
    time) or "python".
    """

    ok: bool
    reason: str = ""
    stats: dict[str, float] = field(default_factory=dict, compare=False)
    timed_out: bool = False  # stopped at the deadline: no verdict either way
    engine: str = field(default="", compare=False)  # "c" or "python": who judged


def c_engine_built() -> bool:
    """Is the compiled core of the checker installed?"""
    return _drat_core is not None


def _engine(engine: str | None) -> str:
    choice = os.environ.get(DRAT_VARIABLE, "auto") if engine is None else engine
    if choice not in ENGINES:
        raise ArgumentError(f"unknown proof-check engine {choice!r} (choose from "
                         f"{', '.join(ENGINES)}; {DRAT_VARIABLE} sets it)")
    return choice


def _c_check(
    n: int,
    clauses: Sequence[Sequence[int]],
    proof: Sequence[tuple[bool, Sequence[int]]],
    deadline: float | None,
    stop: bytearray | None = None,
) -> tuple[int, str, dict[str, float]]:
    """Run the compiled core: (status, why it handed over, counters).  A FlatProof's
    arrays are read in place."""
    assert _drat_core is not None
    left = 0.0 if deadline is None else deadline - time.perf_counter()
    if isinstance(proof, FlatProof):
        found = _drat_core.check_flat(n, Checker.TOP, clauses, proof.literals, proof.starts,
                                      proof.deletions, deadline is not None, left, stop)
    else:
        found = _drat_core.check(n, Checker.TOP, clauses, proof, deadline is not None, left,
                                 stop)
    status, note, core, literals, ignored, trivial, rat = found
    return status, note, {"core_lemmas": core, "rat_lemmas": rat, "ignored_deletions": ignored,
                          "trivial": trivial, "rup_literals": literals}


def _ended_early(stop: bytearray | None) -> str:
    if stop is not None and stop[0]:
        return "stopped before the proof check ended"
    return "time limit reached during the proof check"


def check_proof(
    clauses: Sequence[Sequence[int]],
    proof: Sequence[tuple[bool, Sequence[int]]],
    *,
    deadline: float | None = None,
    engine: str | None = None,
    stop: bytearray | None = None,
) -> CheckResult:
    """Check that ``proof`` (DRUP/DRAT steps) refutes the CNF ``clauses``.

    The proof is valid iff unit propagation on the formula plus the lemmas
    reaches a conflict (e.g. the empty clause is added) and every lemma that
    conflict depends on is RUP, or RAT on its first literal, with respect to
    the clauses active when it was added.

    The arrays are sized by the variables the formula and the proof really use
    (a DIMACS header's count is not needed).  A proof variable
    beyond the formula's plus one per lemma is rejected at once.  ``deadline``
    is a ``time.perf_counter()`` value; past it the result has ``timed_out``, as it has
    once another thread sets the first byte of ``stop`` (both engines look at it every
    50 ms or so).

    ``engine`` is "auto" or "python" (None: ``$BLACKHOLE_DRAT_ENGINE``, else
    "auto").  With "auto" the compiled core, when built, checks first (RUP, RAT and
    extension variables alike); it may only accept (or time out): a proof it would
    reject, or anything unusual, goes to the Python checker, which gives the verdict.
    """
    start = time.perf_counter()
    if stop is not None and (not isinstance(stop, bytearray) or len(stop) < 1):
        raise ArgumentError("stop must be a bytearray of at least one byte")
    core_first = _engine(engine) == "auto" and _drat_core is not None
    flat = list(chain.from_iterable(clauses))
    if 0 in flat:
        raise DratError("a formula clause contains literal 0")
    base = max(max(flat, default=0), -min(flat, default=0))  # the variables used
    del flat
    if isinstance(proof, FlatProof):  # no literal 0, and its largest variable known
        lemmas, top = proof.lemmas, proof.top
    else:
        lemmas = sum(not is_del for is_del, _ in proof)
        flat = list(chain.from_iterable(lits for _, lits in proof))
        if 0 in flat:
            raise DratError("a proof clause contains literal 0")
        top = max(max(flat, default=0), -min(flat, default=0))
        del flat
    if top > base + lemmas:
        stats = {"lemmas": lemmas, "deletions": len(proof) - lemmas,
                 "seconds": time.perf_counter() - start}
        return CheckResult(ok=False, reason=f"proof variable {top} is beyond the formula's "
                           f"{base} variables plus one per lemma ({lemmas})", stats=stats,
                           engine="python")
    counts = {"lemmas": lemmas, "deletions": len(proof) - lemmas}
    if core_first:
        status, _, found = _c_check(max(base, top), clauses, proof, deadline, stop)
        seconds = time.perf_counter() - start
        if status == _C_ACCEPT:
            return CheckResult(ok=True, stats={**counts, **found, "seconds": seconds},
                               engine="c")
        if status == _C_TIMEOUT:
            return CheckResult(ok=False, reason=_ended_early(stop),
                               stats={**counts, **found, "seconds": seconds},
                               timed_out=True, engine="c")
        counts["c_seconds"] = seconds
    checker = Checker(max(base, top), clauses, proof, lemmas, deadline, stop)
    collecting = gc.isenabled()
    gc.disable()  # the clause lists hold no cycles; walking them again and again costs
    try:
        reason = checker.run()
        timed_out = False
    except OutOfTime:
        reason = _ended_early(stop)
        timed_out = True
    finally:
        if collecting:
            gc.enable()
    stats = {**checker.stats, **counts}
    stats["seconds"] = time.perf_counter() - start
    return CheckResult(ok=not reason, reason=reason, stats=stats, timed_out=timed_out,
                       engine="python")


def check_files(cnf_path: str | Path, proof_path: str | Path, *,
                deadline: float | None = None, engine: str | None = None) -> CheckResult:
    """Parse a DIMACS file and a DRAT proof file (text or binary) and check.

    Files over ``MAX_CNF_BYTES`` / ``MAX_PROOF_BYTES`` raise DratError unread.
    """
    cnf = read_capped(cnf_path, MAX_CNF_BYTES)
    _, clauses = parse_dimacs(cnf.decode("latin-1"))
    proof = parse_any_proof(read_capped(proof_path, MAX_PROOF_BYTES))
    return check_proof(clauses, proof, deadline=deadline, engine=engine)

