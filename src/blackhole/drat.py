"""Independent checker for DRUP/DRAT refutation proofs.

The solver that writes a proof must never be the one that judges it, so this
module depends on the standard library only and shares no code with the rest
of the project.

Algorithm (the published backward-checking scheme of drat-trim, written anew):

* Forward pass: add the formula, then replay the proof (additions and
  deletions) with two-watched-literal unit propagation at the top level until
  unit propagation hits a conflict.  The proof is only as good as the point
  where that happens; lemmas after it are never looked at.  No conflict means
  the proof is rejected (truncated, or the formula is satisfiable).
* Backward pass: mark the clauses behind the final conflict as *core*, then
  walk the proof backwards, undoing every step.  Only core lemmas are checked
  (RUP first, RAT on the lemma's first literal as a fallback) and each check
  marks, through conflict analysis, the clauses it relied on as core.
  Propagation is core-first: formula clauses and core lemmas go to fixpoint
  before a lemma that is not core yet may imply anything, so the conflicts
  found lean on clauses already core and the set of lemmas to check stays
  small (trying formula clauses as non-core too, or a budgeted core phase,
  checked more lemmas on the project's proofs).

Speed, in pure Python, comes from doing less per literal: assignments carry a
stamp (a RUP check is undone by taking the next stamp, not by a walk over its
trail), binary formula clauses are implication lists without clause ids (the
analysis only needs to name lemmas), a ternary clause moves its watch without a
loop, and the formula is loaded in one pass.

Like drat-trim, deletions of unit clauses and of clauses that are the reason
of a top-level literal are ignored (counted in ``ignored_deletions``).  So the
top-level trail only ever grows in the forward pass, the trail before step
``k`` is a prefix of the final trail, and undoing step ``k`` only truncates the
trail to the length recorded there.  Deleting a clause the proof never added
is ignored too.  Ignoring a deletion keeps a clause that is implied (or, for
RAT, satisfiability-preserving) anyway, so it never makes a wrong proof pass.

Bounds: the checker's memory grows with its input, never with a number written in
it.  A proof may use the formula's variables and at most one new variable per
lemma (extended resolution introduces them one definition at a time); any other
variable rejects the proof before a single array is sized by it.  Files are
read up to a cap (``MAX_PROOF_BYTES``, ``MAX_CNF_BYTES``) and a larger one is
rejected unread.  ``check_proof`` also takes a ``deadline``: past it the check
stops with ``timed_out`` set, which is no verdict either way.

Cost: the RUP checks are the cost, counted in ``stats["rup_literals"]`` (the
literals they assign, independent of the machine's load).  On the project's Black
Hole CNFs a check propagates one to three thousand literals (its conflict's cone
is about a tenth of that: Glucose 4's proof of pysol:265 has 1,944 core lemmas and
3.45 million RUP literals), at roughly a microsecond each.  Half of those checks
meet their conflict before any non-core lemma is used, after about 1,200
literals; the other half reach the core fixpoint (about 1,500) first.  Tried and
dropped, each slower on that proof: binary implications to fixpoint before longer
clauses (1.45x), a LIFO queue (1.12x), non-core lemmas alongside core ones
(1.40x, 50% more core lemmas), and formula clauses outside every cone so far
propagated after the others (no gain).  RAT checks scan all clauses, which is
fine for the rare RAT lemma (Glucose writes none).

Compiled core: ``_drat_core.c``, a CPython extension built at install time where a
C compiler is at hand (optional: without it this module checks alone).  It runs
the algorithm above step for step, in the same order, over flat int arrays, so
both engines count the same core lemmas and RUP literals on every proof (the
tests hold them to that).  It may only accept: a lemma that is not RUP (RAT or
wrong), a proof without a conflict, extension variables, input or sizes it does
not take, all go to the Python checker, which gives the verdict; it stops at the
deadline and polls signal handlers (Ctrl-C) every 50 ms.  ``CheckResult.engine``
says who judged; ``engine="python"`` or ``BLACKHOLE_DRAT_ENGINE=python`` skips
the core.  Its speed is measured in docs/performance.md.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from blackhole.engines import DRAT_VARIABLE, ENGINES
from blackhole.errors import ArgumentError, BlackholeError

__all__ = [
    "ENGINE_VARIABLE",
    "MAX_CNF_BYTES",
    "MAX_PROOF_BYTES",
    "CheckResult",
    "DratError",
    "Proof",
    "check_files",
    "c_engine_built",
    "check_proof",
    "parse_any_proof",
    "parse_binary_proof",
    "parse_dimacs",
    "parse_proof",
    "parse_proof_lines",
    "read_capped",
]

# Largest files the checker reads.  The biggest proof of a Black Hole deal seen so far
# is under 2 MB; a parsed literal costs about 40 bytes of memory, so a proof at the cap
# needs a few GB at most.
# `certify` writes no proof larger than this, so `verify` reads every proof it writes
# (glucose4's proof of random:24:ranks=31 takes 153 MB).
MAX_PROOF_BYTES = 2**30
MAX_CNF_BYTES = 64 * 2**20
_MAX_VARINT_SHIFT = 35  # binary literals beyond 2**35 cannot be variables of any input

try:  # the compiled core, built at install time where a C compiler is at hand
    import blackhole._drat_core as _drat_core
except ImportError:  # pragma: no cover - an install without a compiler
    _drat_core = None

# "python" makes check_proof judge every proof with the pure-Python checker alone;
# "auto" (the default) lets the compiled core accept what it can.
ENGINE_VARIABLE = DRAT_VARIABLE
_C_ACCEPT, _C_HANDOVER, _C_TIMEOUT = 0, 1, 2


class DratError(BlackholeError, ValueError):
    """Malformed DIMACS formula or DRAT proof."""


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


class Proof(list[tuple[bool, list[int]]]):
    """Parsed proof steps ``(is_deletion, literals)``.

    ``lines`` holds the 1-based source line of every step so that a rejection
    can point into the proof file; a plain list works as a proof too.
    """

    def __init__(
        self,
        steps: Iterable[tuple[bool, list[int]]] = (),
        lines: Iterable[int] = (),
    ) -> None:
        super().__init__(steps)
        self.lines: list[int] = list(lines)


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """Parse a DIMACS CNF text into ``(num_vars, clauses)``.

    Comment lines (``c``) are skipped, clauses may span lines, a SATLIB-style
    ``%`` line ends the formula.  Without a ``p cnf`` header the variable
    count is the largest variable used.
    """
    header: tuple[int, int] | None = None
    body: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s[0] == "c":
            continue
        if s[0] == "%":
            break
        if s[0] == "p":
            parts = s.split()
            if header is not None:
                raise DratError(f"line {lineno}: second 'p' header")
            if body:
                raise DratError(f"line {lineno}: 'p' header after clauses")
            if len(parts) != 4 or parts[1] != "cnf":
                raise DratError(f"line {lineno}: expected 'p cnf <vars> <clauses>', got {s!r}")
            try:
                header = (int(parts[2]), int(parts[3]))
            except ValueError:
                raise DratError(f"line {lineno}: non-integer counts in header {s!r}") from None
            if header[0] < 0 or header[1] < 0:
                raise DratError(f"line {lineno}: negative counts in header {s!r}")
            continue
        body.append((lineno, s))

    try:
        nums = list(map(int, " ".join(s for _, s in body).split()))
    except ValueError:
        # Slow path only to name the offending line.
        for lineno, s in body:
            for tok in s.split():
                try:
                    int(tok)
                except ValueError:
                    raise DratError(f"line {lineno}: invalid literal {tok!r}") from None
        raise  # pragma: no cover - the loop above always finds it

    clauses: list[list[int]] = []
    cur: list[int] = []
    for x in nums:
        if x:
            cur.append(x)
        else:
            clauses.append(cur)
            cur = []
    if cur:
        raise DratError("last clause is not terminated by 0")

    max_var = max(map(abs, nums), default=0)
    if header is None:
        return max_var, clauses
    num_vars, num_clauses = header
    if max_var > num_vars:
        raise DratError(
            f"literal {max_var} exceeds the {num_vars} variables declared in the header"
        )
    if len(clauses) != num_clauses:
        raise DratError(f"header declares {num_clauses} clauses but {len(clauses)} were found")
    return num_vars, clauses


def parse_proof(text: str) -> Proof:
    """Parse a text DRAT proof: one ``l1 ... 0`` or ``d l1 ... 0`` per line.

    Blank lines and ``c`` comment lines are skipped.  Returns a :class:`Proof`
    (a list of ``(is_deletion, literals)``) that remembers source lines.
    """
    proof = Proof()
    steps = proof
    lines = proof.lines
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s[0] == "c":
            continue
        is_del = s[0] == "d"
        if is_del:
            s = s[1:]
        try:
            nums = list(map(int, s.split()))
        except ValueError:
            raise DratError(f"line {lineno}: invalid token in {line.strip()!r}") from None
        if not nums or nums[-1] != 0:
            raise DratError(f"line {lineno}: clause is not terminated by 0")
        nums.pop()
        if 0 in nums:
            raise DratError(f"line {lineno}: more than one clause on a line")
        steps.append((is_del, nums))
        lines.append(lineno)
    return proof


def parse_proof_lines(lines: Sequence[str]) -> Proof:
    """Parse a text DRAT proof given as its lines (as a solver hands them over), the same
    as ``parse_proof("\\n".join(lines))`` without joining and splitting them again."""
    proof = Proof()
    steps = proof
    numbers = proof.lines
    for lineno, line in enumerate(lines, 1):
        if line[:1] == "d":
            is_del, s = True, line[1:]
        else:
            is_del, s = False, line
        try:
            nums = list(map(int, s.split()))
        except ValueError:
            nums = []  # a comment, a blank or a bad line: the slow path says which
        if not nums or nums[-1] != 0 or 0 in nums[:-1]:
            try:  # a comment or a blank line is skipped; anything else says what is wrong
                found = parse_proof(line)
            except DratError as error:
                raise DratError(f"line {lineno}:{str(error).partition(':')[2]}") from None
            steps.extend(found)
            numbers.extend([lineno] * len(found))
            continue
        nums.pop()
        steps.append((is_del, nums))
        numbers.append(lineno)
    return proof


def parse_binary_proof(data: bytes) -> Proof:
    """Parse a binary DRAT proof (``a``/``d`` bytes, varint literals, 0 ends).

    Step numbers stand in for line numbers in rejection messages.
    """
    proof = Proof()
    i = 0
    n = len(data)
    while i < n:
        tag = data[i]
        i += 1
        if tag not in (0x61, 0x64):
            raise DratError(f"byte {i - 1}: expected 'a' or 'd', got 0x{tag:02x}")
        lits: list[int] = []
        while True:
            code = 0
            shift = 0
            while True:
                if i >= n:
                    raise DratError("binary proof ends inside a clause")
                b = data[i]
                i += 1
                code |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
                if shift > _MAX_VARINT_SHIFT:
                    raise DratError(f"byte {i - 1}: literal too large")
            if code == 0:
                break
            if code == 1:
                raise DratError(f"byte {i - 1}: invalid literal code 1")
            lits.append(-(code >> 1) if code & 1 else code >> 1)
        proof.append((tag == 0x64, lits))
    return proof


def parse_any_proof(data: bytes) -> Proof:
    """A text or binary DRAT proof: text proofs never contain NUL bytes, and every
    step of a binary proof ends with one."""
    if b"\0" in data:
        return parse_binary_proof(data)
    try:
        return parse_proof(data.decode("ascii"))
    except UnicodeDecodeError as error:
        raise DratError(f"byte {error.start}: not a DRAT proof (neither text nor binary)") \
            from None


def read_capped(path: str | Path, cap: int) -> bytes:
    """The bytes of a file of at most ``cap`` bytes; a larger one raises DratError
    after reading no more than ``cap + 1`` bytes (pipes have no size to ask)."""
    chunks, size = [], 0
    with open(path, "rb") as handle:
        # a chunk at a time: read(cap + 1) would set aside cap + 1 bytes before reading
        while size <= cap and (chunk := handle.read(min(_READ_CHUNK, cap + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    if size > cap:
        raise DratError(f"{Path(path).name} is larger than the cap of {cap} bytes")
    return b"".join(chunks)


_READ_CHUNK = 1 << 22


# --------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------


class _OutOfTime(Exception):
    """The deadline passed during a check."""


class _Checker:
    """State of one check.

    Literals index per-literal lists directly (size ``2 * n + 1``: Python's
    negative indexing keeps ``-v`` apart from ``v``), so the hot loops take no
    ``abs()``.

    Assignments carry stamps: literal ``l`` is true iff ``tv[l] >= stamp``.
    The forward pass assigns with ``TOP``, which stays true for the rest of the
    check; each RUP check of the backward pass takes a fresh stamp, so undoing
    its assignments costs nothing.  Top-level literals that the backward pass
    cuts off are reset one by one, each at most once.

    ``why[l]`` says why the true literal ``l`` is true: 0 for an assumption,
    ``c + K`` for clause ``c`` (``K = n + 1``), or the true literal ``t`` whose
    binary formula clause ``(-t l)`` implied it.  Binary formula clauses live
    in implication lists ``imp[t]`` without clause ids: only lemmas are ever
    checked, so only lemmas need to be named by the analysis.  Longer clauses
    and binary lemmas are watched on positions 0 and 1, in ``wcore`` (formula
    clauses and core lemmas) or ``wnon`` (lemmas not core yet).
    """

    # Below 2**30: CPython compares such ints on its fast path, and a stamp as large
    # as 2**62 made every comparison with a top-level literal take the slow one.
    TOP = (1 << 30) - 1

    def __init__(
        self,
        n: int,
        clauses: Sequence[Sequence[int]],
        proof: Sequence[tuple[bool, Sequence[int]]],
        lemmas: int,
        deadline: float | None,
    ) -> None:
        self.formula = clauses
        self.proof = proof
        self.deadline = deadline
        self.n = n
        self.K = n + 1
        size = 2 * n + 1
        self.tv = [0] * size
        self.why = [0] * size
        self.seen = bytearray(size)  # by true literal: its cone is marked already
        self.touched: list[int] = []  # literals marked seen during one RUP check
        self.imp: list[list[int]] = [[] for _ in range(size)]
        self.wcore: list[list[int]] = [[] for _ in range(size)]
        self.wnon: list[list[int]] = [[] for _ in range(size)]
        self.trail: list[int] = []
        self.stamp = self.TOP
        self.cls: list[list[int]] = []
        self.core = bytearray()  # formula clauses are core from the start
        self.active = bytearray()
        self.num_formula = len(clauses)
        self.conf_lit = 0  # the false literal of a binary formula clause in conflict
        # Trail positions, set once the forward pass is over: the backward pass
        # only truncates the trail, so they stay right for what remains.
        self.pos: dict[int, int] | None = None
        self.stats: dict[str, float] = {
            "lemmas": lemmas,  # in the whole proof
            "deletions": len(proof) - lemmas,  # in the whole proof
            "core_lemmas": 0,  # lemmas checked (RUP or RAT)
            "rat_lemmas": 0,  # lemmas that needed the RAT check
            "ignored_deletions": 0,  # of unit/reason clauses, or of unknown clauses
            "trivial": 0,  # 1: the formula alone is refuted by unit propagation
            "rup_literals": 0,  # literals the RUP checks assigned: the checker's work
        }

    # -- propagation -------------------------------------------------------

    def _propagate(self, q: int) -> int:
        """Propagate trail[q:] to fixpoint; return 0, or the conflict: a clause
        code ``c + K``, or the true literal ``t`` of a binary formula clause
        ``(-t conf_lit)`` whose other literal is false.

        Core first: formula clauses and core lemmas are propagated to fixpoint
        before the non-core lemmas watching one more trail literal are looked
        at, so conflicts are found through core clauses whenever possible and
        the set of lemmas to check stays small.

        One loop does both, with the watch scan written out in it: this is where
        the checker spends its time, and a call per false literal cost a fifth
        of it.
        """
        trail = self.trail
        tv = self.tv
        why = self.why
        imp = self.imp
        wcore = self.wcore
        wnon = self.wnon
        cls = self.cls
        K = self.K
        s = self.stamp
        push = trail.append
        qn = q  # the next trail literal whose non-core watches are due
        while True:
            if q < len(trail):
                t = trail[q]
                q += 1
                for o in imp[t]:
                    if tv[o] < s:
                        if tv[-o] >= s:
                            self.conf_lit = o
                            return t
                        tv[o] = s
                        why[o] = t
                        push(o)
                fl = -t
                watch = wcore
            elif qn < len(trail):
                fl = -trail[qn]
                qn += 1
                watch = wnon
            else:
                return 0
            ws = watch[fl]
            if not ws:
                continue
            # Visit the clauses watching fl (false now): move their watch, or
            # assign what they imply, or stop at a conflict.
            i = j = 0
            end = len(ws)
            while i < end:
                c = ws[i]
                i += 1
                cl = cls[c]
                other = cl[0]
                if other == fl:
                    other = cl[1]
                    cl[0] = other
                    cl[1] = fl
                if tv[other] >= s:
                    ws[j] = c
                    j += 1
                    continue
                if len(cl) == 3:  # most clauses: no loop for the one candidate
                    lit = cl[2]
                    if tv[-lit] < s:
                        cl[1] = lit
                        cl[2] = fl
                        watch[lit].append(c)
                        continue
                else:
                    for k in range(2, len(cl)):
                        lit = cl[k]
                        if tv[-lit] < s:
                            cl[1] = lit
                            cl[k] = fl
                            watch[lit].append(c)
                            break
                    else:
                        k = 0
                    if k:
                        continue
                ws[j] = c
                j += 1
                if tv[-other] >= s:
                    ws[j:] = ws[i:]
                    return c + K
                # the implied literal of a watched clause is always cl[0]
                tv[other] = s
                why[other] = c + K
                push(other)
            del ws[j:]

    def _assign(self, lit: int, code: int) -> None:
        self.tv[lit] = self.stamp
        self.why[lit] = code
        self.trail.append(lit)

    def _truncate(self, to: int) -> None:
        """Cut the top-level trail back to ``to`` literals (backward pass)."""
        trail = self.trail
        tv = self.tv
        seen = self.seen
        for lit in trail[to:]:
            tv[lit] = 0
            seen[lit] = 0
        del trail[to:]

    # -- clause (de)activation --------------------------------------------

    def _watch(self, c: int) -> None:
        cl = self.cls[c]
        if c < self.num_formula and len(cl) == 2:
            a, b = cl
            self.imp[-a].append(b)
            self.imp[-b].append(a)
        else:
            w = self.wcore if self.core[c] else self.wnon
            w[cl[0]].append(c)
            w[cl[1]].append(c)

    def _unwatch(self, c: int) -> None:
        cl = self.cls[c]
        if c < self.num_formula and len(cl) == 2:
            a, b = cl
            self.imp[-a].remove(b)
            self.imp[-b].remove(a)
        else:
            w = self.wcore if self.core[c] else self.wnon
            w[cl[0]].remove(c)
            w[cl[1]].remove(c)

    def _attach(self, c: int) -> int:
        """Watch clause ``c`` (length >= 2); return how many of its literals
        are non-false (capped at 2).  Those come first in the clause.

        When a clause comes back in the backward pass with fewer than two
        non-false literals, the other watch is the false literal assigned
        last, so that truncating the trail never leaves a clause whose only
        non-false literal is unwatched.  (In the forward pass any false
        literal will do: the trail never shrinks below this point while the
        clause is active.)
        """
        cl = self.cls[c]
        tv = self.tv
        s = self.stamp
        k = 0
        for i in range(len(cl)):
            if tv[-cl[i]] < s:
                cl[k], cl[i] = cl[i], cl[k]
                k += 1
                if k == 2:
                    break
        pos = self.pos
        if k < 2 and pos is not None:
            for slot in range(k, 2):
                best, best_pos = slot, -1
                for i in range(slot, len(cl)):
                    p = pos[-cl[i]]
                    if p > best_pos:
                        best, best_pos = i, p
                cl[slot], cl[best] = cl[best], cl[slot]
        self._watch(c)
        return k

    def _mark_core(self, c: int) -> None:
        """Lemma ``c`` is needed: it will be checked, and preferred from now on."""
        self.core[c] = 1
        if len(self.cls[c]) >= 2 and self.active[c]:
            cl = self.cls[c]
            self.wnon[cl[0]].remove(c)
            self.wnon[cl[1]].remove(c)
            self.wcore[cl[0]].append(c)
            self.wcore[cl[1]].append(c)

    def _is_reason(self, c: int) -> bool:
        """Is clause ``c`` the reason of a top-level literal?"""
        cl = self.cls[c]
        tv = self.tv
        why = self.why
        top = self.TOP
        if c < self.num_formula and len(cl) == 2:
            a, b = cl
            return (tv[a] == top and why[a] == -b) or (tv[b] == top and why[b] == -a)
        return tv[cl[0]] == top and why[cl[0]] == c + self.K

    # -- conflict analysis ---------------------------------------------------

    def _analyze(self, conf: int, start: Iterable[int] = ()) -> None:
        """Mark as core every lemma in the implication graph of the conflict
        ``conf`` (a ``_propagate`` code, or 0) and of the true literals in
        ``start``.

        A top-level literal stays ``seen`` until the trail is cut below it, so
        its cone is walked once for the whole backward pass; the literals of
        one RUP check are unmarked when it ends (``touched``).
        """
        cls = self.cls
        core = self.core
        why = self.why
        seen = self.seen
        touched = self.touched
        n = self.n
        K = self.K
        stack: list[int] = []  # true literals whose reasons are to be walked
        for lit in start:
            if not seen[lit]:
                seen[lit] = 1
                stack.append(lit)
        if conf > n:
            cl = cls[conf - K]
            if not core[conf - K]:
                self._mark_core(conf - K)
            for lit in cl:
                if not seen[-lit]:
                    seen[-lit] = 1
                    stack.append(-lit)
        elif conf:
            for lit in (conf, -self.conf_lit):
                if not seen[lit]:
                    seen[lit] = 1
                    stack.append(lit)
        touched.extend(stack)
        while stack:
            t = stack.pop()
            w = why[t]
            if w > n:
                c = w - K
                if not core[c]:
                    self._mark_core(c)
                # t is the implied literal; the others are false
                for lit in cls[c]:
                    if lit != t and not seen[-lit]:
                        seen[-lit] = 1
                        stack.append(-lit)
                        touched.append(-lit)
            elif w and not seen[w]:
                seen[w] = 1
                stack.append(w)
                touched.append(w)

    # -- lemma checks --------------------------------------------------------

    def _rup(self, lits: Sequence[int]) -> bool:
        """Is ``lits`` implied by unit propagation on the active clauses?"""
        trail = self.trail
        tv = self.tv
        why = self.why
        s = self.stamp
        base = len(trail)
        conf = 0
        for lit in lits:
            if tv[lit] >= s:
                # true at top level (or a tautology): no propagation needed
                self._analyze(0, (lit,))
                conf = -1
                break
            if tv[-lit] < s:
                tv[-lit] = s
                why[-lit] = 0
                trail.append(-lit)
        else:
            conf = self._propagate(base)
            if conf:
                self._analyze(conf)
        self.stats["rup_literals"] += len(trail) - base
        del trail[base:]
        self.stamp = s + 1  # everything this check assigned is unassigned now
        if self.stamp == self.TOP:  # stamps used up (never seen): start again from 1
            tv[:] = [v if v == self.TOP else 0 for v in tv]
            self.stamp = 1
        seen = self.seen
        top = self.TOP
        for lit in self.touched:
            if tv[lit] != top:
                seen[lit] = 0
        self.touched.clear()
        return conf != 0

    def _rat(self, c: int, pivot: int) -> bool:
        """RAT on ``pivot``: every resolvent with an active clause holding
        ``-pivot`` must be RUP.  Rare in practice, so a linear scan is fine."""
        cls = self.cls
        active = self.active
        lits = cls[c]
        neg = -pivot
        cands = [d for d in range(c) if active[d] and neg in cls[d]]
        for d in cands:
            res = lits + [lit for lit in cls[d] if lit != neg]
            lset = set(res)
            if any(-lit in lset for lit in lset):
                continue  # tautological resolvent
            if not self._rup(res):
                return False
        for d in cands:
            if d >= self.num_formula and not self.core[d]:
                self._mark_core(d)
        return True

    # -- driver --------------------------------------------------------------

    def run(self) -> str:
        """Check; return "" if the proof is valid, else the reason."""
        if not self.formula:
            return "formula has no clauses"
        cls = self.cls
        core = self.core
        active = self.active
        tv = self.tv
        stats = self.stats
        top = self.TOP
        K = self.K

        # Formula: watch the first two literals (nothing is assigned yet),
        # then propagate the unit clauses.
        cls.extend(map(list, self.formula))
        core.extend(b"\1" * len(cls))
        active.extend(b"\1" * len(cls))
        imp, wcore = self.imp, self.wcore
        units: list[int] = []
        for c, cl in enumerate(cls):
            size = len(cl)
            if size == 2:
                a, b = cl
                if a != b:
                    imp[-a].append(b)
                    imp[-b].append(a)
                    continue
                cl = cls[c] = [a]  # a literal written twice
            elif size > 2:
                if len(set(cl)) != size:
                    cl = cls[c] = list(dict.fromkeys(cl))
                    size = len(cl)
                    if size == 2:
                        imp[-cl[0]].append(cl[1])
                        imp[-cl[1]].append(cl[0])
                        continue
                if size > 2:
                    wcore[cl[0]].append(c)
                    wcore[cl[1]].append(c)
                    continue
            if cl:
                units.append(c)
            else:
                stats["trivial"] = 1  # the formula contains the empty clause
                return ""
        conflict = 0
        for c in units:
            lit = cls[c][0]
            if tv[-lit] == top:
                conflict = c + K
                break
            if tv[lit] != top:
                self._assign(lit, c + K)
        if not conflict:
            conflict = self._propagate(0)
        if conflict:
            stats["trivial"] = 1  # unit propagation alone refutes the formula
            return ""
        num_formula = len(cls)

        # Forward pass.
        step_c: list[int] = []  # clause id of an addition, ~id of a deletion
        step_t: list[int] = []  # trail length before the step
        lemma_step: list[int] = []  # proof index of each lemma
        pivots: list[int] = []
        index: dict[tuple[int, ...], list[int]] | None = None
        trail = self.trail
        deadline = self.deadline
        for idx, (is_del, lits0) in enumerate(self.proof):
            if deadline is not None and not idx & 1023 and time.perf_counter() > deadline:
                raise _OutOfTime
            if is_del:
                if index is None:
                    index = _clause_index(cls, active)
                ids = index.get(tuple(sorted(set(lits0))))
                # Like drat-trim, ignore deletions of unit clauses and of
                # clauses that are the reason of a top-level literal: the
                # trail then only grows, which the backward pass relies on.
                if not ids or len(cls[ids[-1]]) < 2 or self._is_reason(ids[-1]):
                    stats["ignored_deletions"] += 1
                    continue
                d = ids.pop()
                self._unwatch(d)
                active[d] = 0
                step_c.append(~d)
                step_t.append(len(trail))
                continue

            lits = list(dict.fromkeys(lits0))
            c = len(cls)
            if not lits:
                # No conflict so far, so the empty clause is not RUP.
                return self._lemma_reason(c - num_formula, idx)
            cls.append(lits)
            core.append(0)
            active.append(1)
            pivots.append(lits[0])
            lemma_step.append(idx)
            step_c.append(c)
            step_t.append(len(trail))
            if index is not None:
                index.setdefault(tuple(sorted(lits)), []).append(c)
            if len(lits) == 1:
                lit = lits[0]
                if tv[-lit] == top:
                    conflict = c + K
                    break
                if tv[lit] != top:
                    self._assign(lit, c + K)
                    conflict = self._propagate(len(trail) - 1)
                    if conflict:
                        break
                continue
            k = self._attach(c)
            if k == 0:
                conflict = c + K
                break
            if k == 1 and tv[lits[0]] != top:
                self._assign(lits[0], c + K)
                conflict = self._propagate(len(trail) - 1)
                if conflict:
                    break
        if not conflict:
            return "proof does not derive the empty clause"

        # Backward pass: each RUP check takes a fresh stamp from here on.
        self._analyze(conflict)
        self.touched.clear()  # the final conflict's cone is all top level
        self.stamp = 1
        self.pos = {lit: i for i, lit in enumerate(trail)}
        for s in range(len(step_c) - 1, -1, -1):
            c = step_c[s]
            if c < 0:
                d = ~c
                active[d] = 1
                self._attach(d)
                continue
            if len(cls[c]) >= 2:
                self._unwatch(c)
            active[c] = 0
            self._truncate(step_t[s])
            if not core[c]:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfTime
            stats["core_lemmas"] += 1
            if self._rup(cls[c]):
                continue
            if self._rat(c, pivots[c - num_formula]):
                stats["rat_lemmas"] += 1
                continue
            return self._lemma_reason(c - num_formula, lemma_step[c - num_formula])
        return ""

    def _lemma_reason(self, lemma_no: int, idx: int) -> str:
        lines = getattr(self.proof, "lines", None)
        if lines is not None and len(lines) == len(self.proof):
            where = f"line {lines[idx]}"
        else:
            where = f"proof step {idx + 1}"
        return f"lemma {lemma_no + 1} ({where}) is not RUP/RAT"


def _clause_index(cls: list[list[int]], active: bytearray) -> dict[tuple[int, ...], list[int]]:
    """The active clauses by their sorted literals (a clause written twice has two ids)."""
    keys = list(map(tuple, map(sorted, cls)))
    index = dict(zip(keys, map(list, zip(range(len(keys)))), strict=True))
    if len(index) < len(keys) or 0 in active:
        index = {}
        for d, key in enumerate(keys):
            if active[d]:
                index.setdefault(key, []).append(d)
    return index


def c_engine_built() -> bool:
    """Is the compiled core of the checker installed?"""
    return _drat_core is not None


def _engine(engine: str | None) -> str:
    choice = os.environ.get(ENGINE_VARIABLE, "auto") if engine is None else engine
    if choice not in ENGINES:
        raise ArgumentError(f"unknown proof-check engine {choice!r} (choose from "
                         f"{', '.join(ENGINES)}; {ENGINE_VARIABLE} sets it)")
    return choice


def _c_check(
    n: int,
    clauses: Sequence[Sequence[int]],
    proof: Sequence[tuple[bool, Sequence[int]]],
    deadline: float | None,
) -> tuple[int, str, dict[str, float]]:
    """Run the compiled core: (status, why it handed over, counters)."""
    assert _drat_core is not None
    left = 0.0 if deadline is None else deadline - time.perf_counter()
    status, note, core, literals, ignored, trivial = _drat_core.check(
        n, _Checker.TOP, clauses, proof, deadline is not None, left)
    return status, note, {"core_lemmas": core, "rat_lemmas": 0, "ignored_deletions": ignored,
                          "trivial": trivial, "rup_literals": literals}


def check_proof(
    clauses: Sequence[Sequence[int]],
    proof: Sequence[tuple[bool, Sequence[int]]],
    *,
    deadline: float | None = None,
    engine: str | None = None,
) -> CheckResult:
    """Check that ``proof`` (DRUP/DRAT steps) refutes the CNF ``clauses``.

    The proof is valid iff unit propagation on the formula plus the lemmas
    reaches a conflict (e.g. the empty clause is added) and every lemma that
    conflict depends on is RUP, or RAT on its first literal, with respect to
    the clauses active when it was added.

    The arrays are sized by the variables the formula and the proof really use
    (a DIMACS header's count is not needed).  A proof variable
    beyond the formula's plus one per lemma is rejected at once.  ``deadline``
    is a ``time.perf_counter()`` value; past it the result has ``timed_out``.

    ``engine`` is "auto" or "python" (None: ``$BLACKHOLE_DRAT_ENGINE``, else
    "auto").  With "auto" the compiled core, when built, checks first; it may only
    accept (or time out): a proof it would reject, one with a lemma that needs RAT
    or with extension variables, anything unusual, goes to the Python checker,
    which gives the verdict.
    """
    start = time.perf_counter()
    core_first = _engine(engine) == "auto" and _drat_core is not None
    flat = list(chain.from_iterable(clauses))
    if 0 in flat:
        raise DratError("a formula clause contains literal 0")
    base = max(max(flat, default=0), -min(flat, default=0))  # the variables used
    del flat
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
    if core_first and top <= base:
        status, _, found = _c_check(base, clauses, proof, deadline)
        seconds = time.perf_counter() - start
        if status == _C_ACCEPT:
            return CheckResult(ok=True, stats={**counts, **found, "seconds": seconds},
                               engine="c")
        if status == _C_TIMEOUT:
            return CheckResult(ok=False, reason="time limit reached during the proof check",
                               stats={**counts, **found, "seconds": seconds},
                               timed_out=True, engine="c")
        counts["c_seconds"] = seconds
    checker = _Checker(max(base, top), clauses, proof, lemmas, deadline)
    collecting = gc.isenabled()
    gc.disable()  # the clause lists hold no cycles; walking them again and again costs
    try:
        reason = checker.run()
        timed_out = False
    except _OutOfTime:
        reason = "time limit reached during the proof check"
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

