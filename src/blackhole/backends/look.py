"""The look as a backend: the fast complete depth-first search of `blackhole.probe`.

It runs the compiled core where it was built at install time, else the same search in
Python (`BLACKHOLE_PROBE_ENGINE=python` asks for that). It is complete: it answers
solved (a line, replayed like every other answer), unsolvable (its search covered the
whole tree) or unknown (at `Options.budget` moves, or at the timeout). Its refutations
carry no proof: they rest on the soundness of its cuts (encodings/look.md), not on a
certificate anyone can check. For a checked refutation use `certify`, or `sat` with a
proof asked for.

`quick_line` and `starting_line` live here too: a long line found fast, with which the
best-score backends start their climbs (a helper that seeds them, never their answer).
"""

from __future__ import annotations

import time
from typing import Any

from blackhole.backends import Backend, Options, Result, Verdict
from blackhole.probe import Look, engine_in_use, probe, quick_budget
from blackhole.problem import Problem

UNLIMITED = 1 << 62  # moves: more than any search here could try
# The quick lower bound the best-score climbs start from: the exhaustive search, stopped
# after this many seconds (most lost deals end inside it; on the others it finds a long
# line fast).
LOWER_BOUND_SECONDS = 0.02


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


def quick_line(problem: Problem, deadline: float | None,
               seconds: float = LOWER_BOUND_SECONDS) -> tuple[int, ...]:
    """A long line found fast: a win by a short look, or by the solving search in half
    the time (most winnable positions end here), else the longest line the best-score
    search sees in the rest (stopped at the deadline too)."""
    from blackhole.backends.search import SearchBackend, best_score

    line = probe(problem, quick_budget()).line
    if line is not None:
        return line
    now = time.perf_counter()
    stop = now + seconds if deadline is None else min(now + seconds, deadline)
    if stop <= now:
        return ()
    won = SearchBackend().solve(problem, Options(timeout=(stop - now) / 2))
    if won.verdict is Verdict.SOLVED and won.order is not None:
        return won.order
    return best_score(problem, stop).order


def starting_line(problem: Problem, deadline: float | None) -> tuple[int, ...]:
    """The line a best-score backend starts its climb from: `quick_line`, less its last
    card when it wins, so that the backend's own engine finds (and answers with) the win."""
    return quick_line(problem, deadline)[:max(len(problem.moves) - 1, 0)]
