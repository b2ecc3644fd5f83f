"""Time limits that hold for the whole of a command, and solver calls that stop on time.

A deadline is a `time.perf_counter()` reading, or None for no limit, as every layer
passes it. Two kinds of work must end at it:

- Building a model or a CNF is Python, and on a large deck takes longer than the
  limit. The encoders check the clock as they go (`check`, `paced`) and raise
  `OutOfTime` once it has passed; the backend then answers unknown, never a guess.
- A solver call blocks in C. Called from the main thread, `stoppable` runs it in a
  worker thread while the main thread waits, so that the deadline and Ctrl-C both reach
  it: the main thread asks the solver to stop, waits for it, and then returns (or raises
  the KeyboardInterrupt, which the CLI turns into exit 130). A solver that does not stop
  within its grace is left to finish in its thread (named `SOLVER_THREAD`; the CLI ends
  the process without waiting for it) and the call raises `OutOfTime`. Called from any
  other thread (which Ctrl-C never reaches), the solver runs in that thread and a timer
  stops it at the deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

SOLVER_THREAD = "blackhole-solver"  # the name of every thread `stoppable` starts
CHECK_EVERY = 1024  # items between two looks at the clock in `paced`
# The waiting main thread wakes this often: Ctrl-C delivered to another thread (the
# solver's, say) wakes no one, and Python acts on it when the main thread next runs.
_WAKE = 0.05


class OutOfTime(Exception):
    """The deadline passed before the work was done: the answer is unknown."""


def after(seconds: float | None, began: float | None = None) -> float | None:
    """The deadline `seconds` after `began` (now when None); None for no limit."""
    if seconds is None:
        return None
    return (time.perf_counter() if began is None else began) + seconds


def left(deadline: float | None) -> float | None:
    """Seconds until the deadline (negative once it has passed); None for no limit."""
    return None if deadline is None else deadline - time.perf_counter()


def check(deadline: float | None) -> None:
    """Raise OutOfTime when the deadline has passed."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise OutOfTime("the time limit came first")


def paced(items: Iterable[T], deadline: float | None, every: int = CHECK_EVERY) -> Iterator[T]:
    """The items, with a look at the clock every `every` of them (OutOfTime once the
    deadline has passed): for loops that build a model one constraint at a time."""
    if deadline is None:
        yield from items
        return
    for count, item in enumerate(items):
        if count % every == 0:
            check(deadline)
        yield item


def stoppable(work: Callable[[], T], stop: Callable[[], object], deadline: float | None,
              grace: float | None = None) -> T:
    """`work()` (a solver call that `stop()` ends early), run so that the deadline and
    Ctrl-C reach it. At the deadline `stop()` is called once and the solver's own answer
    is returned (what it says when stopped, often "unknown"). On Ctrl-C `stop()` is called
    and KeyboardInterrupt raised once the solver has ended. `grace`: the seconds the
    solver may take to end after `stop()`; past them it is left running and OutOfTime is
    raised (None waits for it, which a solver must have when `work` uses memory that the
    caller frees afterwards)."""
    if threading.current_thread() is not threading.main_thread():
        return _timed(work, stop, deadline)
    done = threading.Event()
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as error:  # noqa: BLE001 — handed to the waiting thread
            outcome.append((False, error))
        finally:
            done.set()

    # Not a daemon: a program that ends while a solver is left running waits for it to
    # stop (C++ torn down under a running solver aborts the process); the CLI does not.
    threading.Thread(target=run, name=SOLVER_THREAD).start()
    try:
        if not _wait(done, deadline):
            stop()
            if not _wait(done, after(grace)):
                raise OutOfTime("the solver did not stop at the time limit")
    except KeyboardInterrupt:
        stop()
        _wind_down(done, grace)
        raise
    ok, value = outcome[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]


def _timed(work: Callable[[], T], stop: Callable[[], object], deadline: float | None) -> T:
    """`work()` in this thread, with a timer that calls `stop()` at the deadline."""
    if deadline is None:
        return work()
    timer = threading.Timer(max(deadline - time.perf_counter(), 0.0), stop)
    timer.daemon = True
    timer.start()
    try:
        return work()
    finally:
        timer.cancel()


def _wait(done: threading.Event, until: float | None) -> bool:
    """Wait for `done` until the deadline `until` (None: for ever), waking every _WAKE
    seconds; whether it came."""
    while True:
        remaining = left(until)
        if remaining is not None and remaining <= 0:
            return done.is_set()
        if done.wait(_WAKE if remaining is None else min(remaining, _WAKE)):
            return True


def _wind_down(done: threading.Event, grace: float | None) -> None:
    """Wait (up to `grace` seconds) for a stopped solver to end, through further Ctrl-C:
    its memory must not be freed under it."""
    end = after(grace)
    while True:
        try:
            _wait(done, end)
            return
        except KeyboardInterrupt:
            continue


def solver_left_running() -> bool:
    """Whether a solver that did not stop in its grace is still running in its thread."""
    return any(thread.name == SOLVER_THREAD and thread.is_alive()
               for thread in threading.enumerate())
