"""The look as a backend: the fast complete depth-first search of `blackhole.probe`.

It runs the compiled core where it was built at install time, else the same search in
Python (`BLACKHOLE_PROBE_ENGINE=python` asks for that). It is complete: it answers
solved (a line, replayed like every other answer), unsolvable (its search covered the
whole tree) or unknown (at `Options.budget` moves, or at the timeout). Its refutations
carry no proof: they rest on the soundness of its cuts (encodings/look.md), not on a
certificate anyone can check. For a checked refutation use `certify`, or `sat` with a
proof asked for.

The short searches that seed the best-score backends' climbs sit beside this module, in
`blackhole.backends.seeding`.
"""

from __future__ import annotations

import time
from typing import Any

from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.probe import Look, engine_in_use, probe
from blackhole.problem import Problem

UNLIMITED = 1 << 62  # moves: more than any search here could try


def look_result(look: Look, name: str, seconds: float, stats: dict[str, Any]) -> Result:
    """A Look as the Result of backend `name` (the engine that answered is "look")."""
    if look.line is not None:
        verdict = Verdict.SOLVED
    elif look.refuted:
        verdict = Verdict.UNSOLVABLE
    else:
        verdict = Verdict.UNKNOWN
    return Result(verdict, look.line, name, "look", seconds, stats)


class LookBackend(Backend):
    name = "look"
    reads = frozenset({"budget"})
    max_cells = None  # no model: the search holds the fans and a memo of the states it left

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        budget = UNLIMITED if options.budget is None else options.budget
        engine = engine_in_use()
        look = probe(problem, budget, seconds=options.timeout)
        seconds = time.perf_counter() - began
        stats: dict[str, Any] = {"nodes": look.nodes, "engine": engine}
        result = look_result(look, self.name, seconds, stats)
        if result.verdict is Verdict.UNKNOWN:
            stats["reason"] = ("move budget reached" if look.nodes >= budget
                               else "time limit reached")
        return result
