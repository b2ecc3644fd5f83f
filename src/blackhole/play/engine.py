"""The one place the game asks the hint engine anything (`blackhole.questions.best`,
`blackhole.questions.advice`).

The game never decides who can win by itself: whether a position is still winnable, the
best score still reachable and the best move all come from `blackhole.questions.best` and
`blackhole.questions.advice`, which prove what they say. Every call runs in a background thread
(`in_background`), under a time limit; an answer reached at the limit says so (`proven`
is False).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from blackhole.model.deal import Position

HINT_SECONDS = 20.0  # a hint or a coach answer; a fresh deal takes well under a second
BEST_SECONDS = 60.0  # the best score of a whole deal, for the end screen


def _best_module() -> Any:
    """`blackhole.questions.best`, or None when this build does not hold it (imported on the first
    question, not with the game: loading it takes a good part of a first hint's time)."""
    try:
        import blackhole.questions.best
    except ModuleNotFoundError as error:
        if error.name != "blackhole.questions.best":
            raise
        return None
    return blackhole.questions.best


def missing() -> str | None:
    """Why hints and the coach cannot answer, or None when they can."""
    if _best_module() is None:
        return "hints need blackhole.questions.best, which this build does not have"
    return None


def best_of(position: Position, timeout: float | None = BEST_SECONDS) -> Any:
    """`blackhole.questions.best.best_score`: the most cards any line from `position` moves, counted
    from the start of the deal, with one line that reaches it."""
    return _best_module().best_score(position, timeout=timeout)


def hints_of(position: Position, timeout: float | None = HINT_SECONDS) -> list[Any]:
    """`blackhole.questions.advice.hints`: every legal move from `position`, best first."""
    from blackhole.questions.advice import hints

    return hints(position, timeout=timeout)


def in_background(call: Callable[..., Any], *args: Any) -> Future:
    """`call(*args)` in a daemon thread; the future holds its answer or its exception.

    A daemon thread, not a pool's: quitting the game must not wait for a question the
    player no longer cares about (the solvers release the GIL, so the screen never
    waits either)."""
    future: Future = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(call(*args))
        except BaseException as error:  # handed to whoever awaits the answer
            future.set_exception(error)

    threading.Thread(target=run, name="blackhole-engine", daemon=True).start()
    return future
