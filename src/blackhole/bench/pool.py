"""The sandbox pool: worker processes that run tasks under a hard wall limit.

It is pebble's ProcessPool. Pebble starts each task's clock when a worker takes it, and
its manager thread kills a worker whose task passes the limit and starts a fresh one:
that thread is the one deadline-and-kill loop of bench, for local runs and on every Dask
worker alike. A worker that dies on its own (the kernel's OOM killer, a crash inside a
solver library) is replaced the same way. Either way the task becomes an `unknown` record
that says why, and the run goes on.

Workers are forked from a forkserver, a clean process that has imported the worker's
modules once: a fresh worker costs a fork, not a Python start-up, and no worker inherits
the threads or locks of the process that runs the pool.

The workers keep glibc's default allocator. Dask's nanny starts its worker with
MALLOC_TRIM_THRESHOLD_=65536 (to hand memory back to the system early); inherited by the
sandboxes, it made glibc trim after most frees, and the same deals took 11% more solver
time (`bench pysol:1-2000 --backends sat --jobs 2`, two interleaved pairs on an idle
machine: 44.0 and 43.6 against 39.7 and 39.2 s).
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import tempfile
import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from pebble import ProcessExpired, ProcessPool

from blackhole.bench.plan import Task
from blackhole.bench.record import Record
from blackhole.bench.worker import last_words, run_task, start

_PRELOAD = ["blackhole.bench.worker"]  # imported once in the forkserver
_RESCHEDULES = 2  # times a task aborted with its broken pool is handed to a fresh one
# Allocator settings the sandboxes must not inherit (see above): the forkserver, started
# from this process's environment, would pass them to every worker.
_NOT_INHERITED = ("MALLOC_TRIM_THRESHOLD_",)


class SandboxPool:
    """`workers` processes; `submit` gives a Future that always resolves to a Record."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        for name in _NOT_INHERITED:
            os.environ.pop(name, None)
        self._folder = tempfile.TemporaryDirectory(prefix="blackhole-bench-")
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_PRELOAD)
        # Workers end when this end closes: with the pool, or with this process.
        self._lifeline, self._lifeline_end = self._context.Pipe(duplex=False)
        self._lock = threading.Lock()
        self._closed = False
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPool:
        return ProcessPool(max_workers=self._workers, initializer=start,
                           initargs=(self._folder.name, self._lifeline),
                           context=self._context)

    def _running_pool(self) -> ProcessPool:
        """The pool, or a new one if it broke (see `_schedule`)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox pool is closed")
            if not self._pool.active:
                self._pool.stop()
                self._pool.join()
                self._pool = self._new_pool()
            return self._pool

    def submit(self, task: Task, limit: float, memory_mb: int | None) -> Future[Record]:
        """Run `task` in a worker, killing the worker `limit` seconds after it took the
        task; `memory_mb` caps the worker's address space during the task."""
        record: Future[Record] = Future()
        self._schedule(task, limit, memory_mb, record, time.perf_counter(), _RESCHEDULES)
        return record

    def _schedule(self, task: Task, limit: float, memory_mb: int | None,
                  record: Future[Record], sent: float, tries: int) -> None:
        """Hand `task` to the pool; `record` gets its Record whatever happens.

        Pebble gives up its whole pool when a worker dies while it holds no task it has
        acknowledged (killed from outside while idle or starting): every task queued in
        it is aborted without having run. Such a task is handed to a fresh pool, up to
        `tries` more times, from a thread of its own (the abort arrives on a thread of
        the broken pool, which the fresh pool's set-up joins)."""
        def again(reason: str) -> None:
            if tries > 0:
                threading.Thread(target=self._schedule, daemon=True,
                                 args=(task, limit, memory_mb, record, sent, tries - 1)).start()
            else:
                record.set_result(failed(task, time.perf_counter() - sent, reason))

        def done(inner: Future[Record]) -> None:
            try:
                record.set_result(inner.result())
            except TimeoutError:
                record.set_result(failed(task, limit, f"killed at hard limit {limit:g} s"))
            except ProcessExpired as death:
                record.set_result(failed(task, time.perf_counter() - sent,
                                         self._death(death)))
            except BrokenProcessPool as error:
                again(f"pool: {error.__class__.__name__}: {error}")
            except Exception as error:  # the task could not be sent or read back
                record.set_result(failed(task, time.perf_counter() - sent,
                                         f"pool: {error.__class__.__name__}: {error}"))

        try:
            pool = self._running_pool()
            pool.schedule(run_task, (task, memory_mb), timeout=limit).add_done_callback(done)
        except RuntimeError as error:  # closed, or it broke between the two calls
            if self._closed:
                record.set_result(failed(task, time.perf_counter() - sent, f"pool: {error}"))
            else:
                again(f"pool: {error}")

    def _death(self, death: ProcessExpired) -> str:
        code = death.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        words = last_words(self._folder.name, death.pid)
        return f"worker died ({how})" + (f": {words}" if words else "")

    def close(self) -> None:
        """Stop every worker at once (a task still running is abandoned)."""
        with self._lock:
            self._closed = True
            self._pool.stop()
            self._pool.join()
        self._lifeline_end.close()
        self._lifeline.close()
        self._folder.cleanup()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def failed(task: Task, seconds: float, reason: str, verdict: str = "unknown") -> Record:
    """The record of a task that gave no answer of its own: killed, dead or lost."""
    return Record(task.deal, task.label, verdict, seconds, task=task.kind, wall=seconds,
                  model=task.options.model, timeout=task.options.timeout, reason=reason,
                  host=socket.gethostname(), board=task.board)
