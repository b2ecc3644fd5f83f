"""The state of the pure-Python proof checker (``python_engine.py``) and what its checks
stand on: the literal arrays and stamps, the watch lists and implication lists,
top-level propagation, attaching and detaching clauses, and the conflict analysis that
marks clauses core. ``python_engine.Checker`` adds the RUP and RAT checks of a lemma
and the forward and backward passes over a proof."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Propagation:
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
