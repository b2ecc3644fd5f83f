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
from collections.abc import Sequence

from blackhole.drat.propagation import Propagation


class OutOfTime(Exception):
    """The deadline passed, or the stop flag was set, during a check."""


class Checker(Propagation):
    """One check of a proof: the RUP and RAT checks of a lemma, and the forward and
    backward passes of `run`, over the state and propagation of `Propagation`."""

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
        if self._load_formula():
            return ""
        steps = _Steps()
        reason = self._forward(steps)
        if reason:
            return reason
        return self._backward(steps)

    def _load_formula(self) -> bool:
        """Watch the formula's first two literals (nothing is assigned yet), then
        propagate the unit clauses; True when that alone refutes it (``trivial``)."""
        cls = self.cls
        core = self.core
        active = self.active
        tv = self.tv
        stats = self.stats
        top = self.TOP
        K = self.K

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
                return True
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
            return True
        return False

    def _forward(self, steps: _Steps) -> str:
        """The forward pass: replay the proof until unit propagation hits a conflict
        (``steps.conflict``), recording each step; "" then, else the reason."""
        cls, core, active, tv = self.cls, self.core, self.active, self.tv
        stats, top, K = self.stats, self.TOP, self.K
        num_formula = len(cls)
        conflict = 0

        step_c = steps.c
        step_t = steps.t
        lemma_step = steps.lemma_step
        pivots = steps.pivots
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
        steps.conflict = conflict
        return ""

    def _backward(self, steps: _Steps) -> str:
        """The backward pass from the final conflict: undo the steps one by one and
        check every core lemma, RUP then RAT; "" when all hold, else the reason. Each
        RUP check takes a fresh stamp from here on."""
        cls = self.cls
        core = self.core
        active = self.active
        stats = self.stats
        trail = self.trail
        num_formula = self.num_formula
        step_c, step_t = steps.c, steps.t
        lemma_step, pivots = steps.lemma_step, steps.pivots
        self._analyze(steps.conflict)
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


class _Steps:
    """What the forward pass records for the backward one, step by step."""

    __slots__ = ("c", "t", "lemma_step", "pivots", "conflict")

    def __init__(self) -> None:
        self.c: list[int] = []  # clause id of an addition, ~id of a deletion
        self.t: list[int] = []  # trail length before the step
        self.lemma_step: list[int] = []  # proof index of each lemma
        self.pivots: list[int] = []
        self.conflict = 0  # the forward pass's final conflict


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
