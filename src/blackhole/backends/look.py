"""The look as a backend: the fast complete depth-first search of `blackhole.look`.

It runs the compiled core where it was built at install time, else the same search in
Python (`BLACKHOLE_LOOK_ENGINE=python` asks for that). It plays every game of the table:
fans and columns, the talon, and layouts that are not chains (TriPeaks, Escalator:
`blackhole.look.covers`), as `look_cuts.PLAYS` declares. It is complete: it answers
solved (a line, replayed like every other answer), unsolvable (its search covered the
whole tree) or unknown (at `Options.budget` moves, or at the timeout). Its refutations
carry no proof: they rest on the soundness of its cuts (encodings/look.md), not on a
certificate anyone can check. For a checked refutation use `certify`, or `sat` with a
proof asked for.

It finds best scores too (`best`, by `look.longest`): the longest line, and that no
line is longer, by exhausting the search; the optimum rests on that exhaustion and the
soundness of its cuts, not on a certificate. `best --certify` (`blackhole.questions.best.
certify_best`) has a SAT solver prove it, with a DRUP proof that is checked.

The short searches that seed the best-score backends' climbs sit beside this module, in
`blackhole.backends.seeding`.
"""

from __future__ import annotations

import time
from typing import Any

from blackhole.backends import Backend, Longest, Options, Result, Verdict
from blackhole.look import Look, engine_in_use, longest, look
from blackhole.look import cuts as look_cuts
from blackhole.model.problem import Problem

UNLIMITED = 1 << 62  # moves: more than any search here could try


def look_result(outcome: Look, name: str, seconds: float, stats: dict[str, Any]) -> Result:
    """A Look as the Result of backend `name` (the engine that answered is "look")."""
    if outcome.line is not None:
        verdict = Verdict.SOLVED
    elif outcome.refuted:
        verdict = Verdict.UNSOLVABLE
    else:
        verdict = Verdict.UNKNOWN
    return Result(verdict, outcome.line, name, "look", seconds, stats, parks=outcome.parks)


class LookBackend(Backend):
    name = "look"
    plays = look_cuts.PLAYS  # its moves follow the game's table, its talon and its covers
    best_plays = look_cuts.PLAYS  # its longest line counts tableau cards
    reads = frozenset({"budget"})
    max_cells = None  # no model: the search holds the fans and a memo of the states it left

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        budget = UNLIMITED if options.budget is None else options.budget
        engine = look_engine(problem)
        outcome = look(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stats: dict[str, Any] = {"nodes": outcome.nodes, "engine": engine}
        result = look_result(outcome, self.name, seconds, stats)
        if result.verdict is Verdict.UNKNOWN:
            stats["reason"] = ("move budget reached" if outcome.nodes >= budget
                               else "time limit reached")
        return result

    def best(self, problem: Problem, options: Options) -> Longest:
        """The longest line by the look's exhaustive search (`look.longest`), under
        `Options.budget` moves (None: no limit) and the timeout; at the limit the longest
        line found and the bound shown so far, unproven."""
        self.check_best(options)
        began = time.perf_counter()
        budget = UNLIMITED if options.budget is None else options.budget
        found = longest(problem, budget, seconds=options.timeout)
        return best_result(found, budget, self.name, time.perf_counter() - began, problem)


def look_engine(problem: Problem) -> str:
    """Which of the look's engines searches `problem`: the compiled core where it is
    built ("c"; it plays every game the look plays, a cell's too), else "python"."""
    del problem  # every problem alike, as `engine_in_use` says
    return engine_in_use()


def best_result(found: Longest, budget: int, name: str, seconds: float,
                problem: Problem) -> Longest:
    """The look's longest line of `problem` as the answer of backend `name` (the engine
    that answered is "look"), with its moves and, unproven, why it stopped."""
    nodes = found.stats["nodes"]
    stats: dict[str, Any] = {"nodes": nodes, "engine": look_engine(problem)}
    if not found.proven:
        stats["reason"] = ("move budget reached" if nodes >= budget
                           else "time limit reached")
    return Longest(found.order, found.upper_bound, name, "look", seconds, stats,
                   found.turned, found.parks)
