"""A long line found fast, to seed a solver: the lower bound the best-score backends
(`sat`, `cpsat`, `maxsat`) start their climbs from, and the first guess of the hint
engine. It starts with a short look (blackhole.look, the engine of the `look` backend
beside this module), then the `search` referee for a moment.

A seed never gives a backend's answer: `starting_seed` leaves out the last card of a
win, so that the backend's own engine finds the win (and says so in Result.solver).
"""

from __future__ import annotations

import time

from blackhole.backends import Options, Verdict
from blackhole.look import look, quick_budget
from blackhole.model.problem import Problem

# The quick lower bound the best-score climbs start from: the exhaustive search, stopped
# after this many seconds (most lost deals end inside it; on the others it finds a long
# line fast).
LOWER_BOUND_SECONDS = 0.02


def quick_line(problem: Problem, deadline: float | None,
               seconds: float = LOWER_BOUND_SECONDS) -> tuple[int, ...]:
    """A long line found fast (`quick_seed`'s line, without its parks)."""
    return quick_seed(problem, deadline, seconds)[0]


def quick_seed(problem: Problem, deadline: float | None,
               seconds: float = LOWER_BOUND_SECONDS
               ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """A long line found fast, with its parks (a game with a cell; `Result.parks`): a
    win by a short look, or by the solving search in half the time (most winnable
    positions end here), else the longest line the best-score search sees in the rest
    (stopped at the deadline too)."""
    from blackhole.backends.search import SearchBackend, best_score

    quick = look(problem, quick_budget())
    if quick.line is not None:
        return quick.line, quick.parks
    now = time.perf_counter()
    stop = now + seconds if deadline is None else min(now + seconds, deadline)
    if stop <= now:
        return (), ()
    won = SearchBackend().solve(problem, Options(timeout=(stop - now) / 2))
    if won.verdict is Verdict.SOLVED and won.order is not None:
        return won.order, won.parks
    found = best_score(problem, stop)
    return found.order, found.parks


def starting_seed(problem: Problem, deadline: float | None
                  ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The line a best-score backend starts its climb from, with its parks: `quick_seed`,
    less its last card when it wins, so that the backend's own engine finds (and
    answers with) the win. A park made before that card stays: the line then ends with
    the card in the cell."""
    order, parks = quick_seed(problem, deadline)
    if len(order) < len(problem.moves):
        return order, parks
    end = max(len(problem.moves) - 1, 0)
    return order[:end], tuple((node, made) for node, made in parks if made <= end)
