"""The pure-Python engine of the proof checker: the backward check that gives every
verdict the compiled core does not (``check.py`` chooses between them).

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
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence


class OutOfTime(Exception):
    """The deadline passed, or the stop flag was set, during a check."""


class Checker:
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
        stop: bytearray | None = None,
    ) -> None:
        self.formula = clauses
        self.proof = proof
        self.deadline = deadline
        self.stop = stop  # its first byte set (by another thread) ends the check as late
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
        self.occ: list[list[int]] | None = None  # clause ids by literal, for RAT checks
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
        """RAT on ``pivot``: every resolvent with an active clause ``d < c`` holding
        ``-pivot`` must be RUP (tautologies skipped), in order of ``d``; then those
        clauses that are lemmas are core.  The clauses holding each literal are
        listed once, at the first RAT check (a clause's literals change order,
        never their set)."""
        cls = self.cls
        active = self.active
        lits = cls[c]
        neg = -pivot
        if self.occ is None:
            self.occ = occ = [[] for _ in range(2 * self.n + 1)]
            for d, cl in enumerate(cls):
                for lit in cl:
                    occ[lit].append(d)
        cands = []
        for d in self.occ[neg]:
            if d >= c:
                break
            if active[d]:
                cands.append(d)
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

    def _late(self) -> bool:
        """Past the deadline, or stopped by another thread."""
        return (self.deadline is not None and time.perf_counter() > self.deadline) or (
            self.stop is not None and self.stop[0] != 0)

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
        # One int object per literal for every lemma (a literal read from a flat proof
        # is a new object each time): 28 bytes less for each literal a lemma holds.
        n = self.n
        canon = [*range(n + 1), *range(-n, 0)]  # canon[lit] is lit
        trail = self.trail
        for idx, (is_del, lits0) in enumerate(self.proof):
            if not idx & 1023 and self._late():
                raise OutOfTime
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

            lits = list(dict.fromkeys(map(canon.__getitem__, lits0)))
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
            if self._late():
                raise OutOfTime
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
