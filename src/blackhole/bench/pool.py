"""The sandbox pool: worker processes that run tasks under a hard wall limit per task.

Each worker has a pipe of its own to the pool, and one manager thread owns every pipe:
it hands an idle worker a batch of tasks, reads back one record per task as each one
ends (within a few milliseconds: it gathers the records that come close together), and
so always knows which task a worker is running and since when. That thread is
the one deadline-and-kill loop of bench, for local runs and on every Dask worker alike:

- a task past its hard limit has its worker killed (SIGKILL, `children.kill_tree`; a
  solver binary it ran dies with it, `blackhole.base.children`), and becomes an `unknown`
  record that says so; the worker's temp files go with it (`worker.scratch`);
- a worker that dies on its own (the kernel's OOM killer, a crash inside a solver
  library) costs only the task it was running, an `unknown` record with the worker's
  last words;
- either way the tasks of its batch that had not started go back to the front of the
  queue, for a fresh worker: a batch shares its worker, never its fate;
- a worker that dies before it has taken its batch (killed while it starts or idles)
  costs no task at all: the whole batch goes back.

A batch costs one message out and one acknowledgement back; each task costs one record
back. Batches cut the pool's cost per task where tasks take a millisecond or two.

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
import shutil
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from blackhole.base import children
from blackhole.base.errors import InternalError
from blackhole.bench.plan import Task
from blackhole.bench.record import Record
from blackhole.bench.worker import HOST, TOOK, last_words, scratch, serve

_PRELOAD = ["blackhole.bench.worker"]  # imported once in the forkserver
_QUEUED_BATCHES = 2  # batches a worker holds: one running, one waiting in its pipe
# (the second only while the queue is long: at a run's end no worker sits on tasks that
# another, idle, could run)
# A record that arrives is read after this pause, with every other record that came
# meanwhile: on quick deals records come a millisecond or two apart, and reading each as
# it came cost this thread (and the one waiting for records) a wake-up each. A worker
# holds a batch in its pipe, so it never waits for the pause; a task's hard limit
# starts at most this much late.
_GATHER_SECONDS = 0.004
_STILLBORN = 5  # workers in a row that die before any task: the pool gives up
# Allocator settings the sandboxes must not inherit (see above): the forkserver, started
# from this process's environment, would pass them to every worker.
_NOT_INHERITED = ("MALLOC_TRIM_THRESHOLD_",)


@dataclass
class _Job:
    """A submitted task and the future its record goes to."""

    task: Task
    limit: float
    memory_mb: int | None
    record: Future[Record]
    sent: float  # when it was submitted


@dataclass
class _Worker:
    """One sandbox process, and the batches handed to it, oldest first. The running task
    is the first of the first batch, once that batch is taken (`taken`)."""

    process: Any
    pipe: Connection
    batches: deque[list[_Job]] = field(default_factory=deque)
    taken: bool = False  # whether the first batch was taken
    began: float = 0.0  # when the running task began

    @property
    def running(self) -> _Job | None:
        return self.batches[0][0] if self.taken and self.batches else None

    def deadline(self) -> float | None:
        job = self.running
        return None if job is None else self.began + job.limit


class SandboxPool:
    """`workers` processes; `submit` gives a Future that always resolves to a Record.
    A worker is handed up to `batch` tasks at once."""

    def __init__(self, workers: int, batch: int = 1) -> None:
        self._size = workers
        self._batch = max(1, batch)
        for name in _NOT_INHERITED:
            os.environ.pop(name, None)
        self._folder = str(children.make_folder("blackhole-bench-"))
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_PRELOAD)
        # Workers end when this end closes: with the pool, or with this process.
        self._lifeline, self._lifeline_end = self._context.Pipe(duplex=False)
        self._lock = threading.Lock()
        self._queue: deque[_Job] = deque()
        self._workers: list[_Worker] = []
        self._closed = False
        self._stillborn = 0
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        self._manager = threading.Thread(target=self._manage, name="sandbox-pool",
                                         daemon=True)
        self._manager.start()

    # ---------------------------------------------------------------- the public side

    def submit(self, task: Task, limit: float, memory_mb: int | None) -> Future[Record]:
        """Run `task` in a worker, killing the worker `limit` seconds after it began the
        task; `memory_mb` caps the worker's address space during the task."""
        record: Future[Record] = Future()
        with self._lock:
            if self._closed:
                raise InternalError("the sandbox pool is closed")
            self._queue.append(_Job(task, limit, memory_mb, record, time.perf_counter()))
            queued = len(self._queue)
        # The manager needs waking only when the new task lets it hand out a batch it
        # could not before: the queue was empty, or it has just grown past the run's
        # tail (see _dispatch). Otherwise the next record wakes it anyway; a wake for
        # every task (a write, then a pass of the manager) cost more than reading its
        # record.
        if queued == 1 or queued == self._size * self._batch:
            self._wake()
        return record

    def close(self) -> None:
        """Stop every worker at once (a task still running is abandoned, and its future,
        like those of the tasks still queued, gets an `unknown` record)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._wake()
        self._manager.join()
        os.close(self._wake_read)
        os.close(self._wake_write)
        self._lifeline_end.close()
        self._lifeline.close()
        children.remove_folder(Path(self._folder))

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- the manager thread

    def _wake(self) -> None:
        try:
            os.write(self._wake_write, b"x")
        except OSError:  # full (the manager will wake anyway), or closed
            pass

    def _manage(self) -> None:
        try:
            while not self._closed:
                self._dispatch()
                self._wait()
        except BaseException as error:  # a bug here must not leave futures hanging
            with self._lock:
                self._closed = True  # nor let a later submit wait for a thread gone
            self._give_up(f"pool: {error.__class__.__name__}: {error}")
            raise
        self._give_up("pool: closed before the task ran")

    def _dispatch(self) -> None:
        """Start missing workers, and give each worker with room a batch."""
        while len(self._workers) < self._size and self._queue:
            try:
                self._workers.append(self._start_worker())
            except OSError as error:  # no fork (out of memory, out of processes)
                self._give_up(f"pool: cannot start a worker ({error})")
                return
        for worker in self._workers:
            while len(worker.batches) < _QUEUED_BATCHES:
                with self._lock:
                    if not self._queue:
                        return
                    if worker.batches and len(self._queue) < self._size * self._batch:
                        break  # the run's tail: keep the rest for whichever worker is free
                    # a fair share, so that the run's last tasks spread over every worker
                    size = min(self._batch, max(1, -(-len(self._queue) // self._size)))
                    batch = [self._queue.popleft() for _ in range(min(size, len(self._queue)))]
                worker.batches.append(batch)
                # The second batch waits in the pipe while the first runs: a batch of
                # tasks (a few hundred bytes each, a few kB with a board) fits in the
                # pipe's buffer, so a worker deep in a solve never blocks this thread.
                try:
                    worker.pipe.send([(job.task, job.memory_mb) for job in batch])
                except OSError:  # it died: its death is read in _wait
                    break

    def _wait(self) -> None:
        now = time.perf_counter()
        deadlines = [d for w in self._workers if (d := w.deadline()) is not None]
        timeout = max(0.0, min(deadlines) - now) if deadlines else None
        handles: list[Any] = [self._wake_read]
        for worker in self._workers:
            handles += [worker.pipe, worker.process.sentinel]
        ready = wait(handles, timeout)
        if self._wake_read in ready:
            os.read(self._wake_read, 4096)
        if _GATHER_SECONDS and any(worker.pipe in ready for worker in self._workers):
            time.sleep(_GATHER_SECONDS)  # see _GATHER_SECONDS
            ready = [worker.pipe for worker in self._workers] + ready
        for worker in list(self._workers):
            if worker.pipe in ready or worker.process.sentinel in ready:
                self._read(worker)
        now = time.perf_counter()
        for worker in list(self._workers):
            deadline = worker.deadline()
            if worker in self._workers and deadline is not None and now >= deadline:
                self._kill(worker)

    def _read(self, worker: _Worker) -> None:
        """Every message the worker has sent; its death, if it has gone."""
        if self._drain(worker) or not worker.process.is_alive():
            self._bury(worker)

    def _drain(self, worker: _Worker) -> bool:
        """Take in the messages waiting in the worker's pipe; True when the pipe ended."""
        try:
            while worker.pipe.poll():
                self._take(worker, worker.pipe.recv())
        except (EOFError, OSError):
            return True
        return False

    @staticmethod
    def _take(worker: _Worker, message: Any) -> None:
        """A batch taken, or the record of the running task (the next one begins)."""
        worker.began = time.perf_counter()
        if message == TOOK:
            worker.taken = True
            return
        batch = worker.batches[0]
        job = batch.pop(0)
        if not batch:
            worker.batches.popleft()
            worker.taken = False
        job.record.set_result(message)

    def _kill(self, worker: _Worker) -> None:
        """The running task passed its hard limit: kill its worker."""
        job = worker.running
        if job is None:
            return
        children.kill_tree(worker.process.pid)
        worker.process.join()
        self._drain(worker)
        if worker.running is job:  # its record did not arrive in the meantime
            self._drop(worker, failed(job.task, job.limit,
                                      f"killed at hard limit {job.limit:g} s"))
        else:
            self._drop(worker, None)

    def _bury(self, worker: _Worker) -> None:
        """The worker died on its own: the task it ran goes with it, the rest go back."""
        worker.process.join(timeout=5)
        if worker.process.exitcode is None:  # its pipe broke, yet it lives: end it
            children.kill_tree(worker.process.pid)
            worker.process.join()
        self._drain(worker)
        job, reason = worker.running, self._death(worker)
        if job is not None:
            self._stillborn = 0
            self._drop(worker, failed(job.task, time.perf_counter() - worker.began, reason))
            return
        self._stillborn += 1
        self._drop(worker, None)
        if self._stillborn >= _STILLBORN:
            self._stillborn = 0
            self._give_up(f"pool: {_STILLBORN} workers in a row died before taking a task "
                          f"({reason})")

    def _drop(self, worker: _Worker, record: Record | None) -> None:
        """Remove a dead worker: its running task gets `record`; its other tasks go back to
        the front of the queue, in their order."""
        self._workers.remove(worker)
        worker.pipe.close()
        try:  # its last words, read by now
            os.unlink(os.path.join(self._folder, f"{worker.process.pid}.err"))
        except OSError:
            pass
        # its temp files (a solver's CNF and proof), which a killed worker leaves
        shutil.rmtree(scratch(self._folder, worker.process.pid), ignore_errors=True)
        jobs = [job for batch in worker.batches for job in batch]
        if record is not None and jobs:
            jobs.pop(0).record.set_result(record)
        with self._lock:
            self._queue.extendleft(reversed(jobs))

    def _death(self, worker: _Worker) -> str:
        code = worker.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        words = last_words(self._folder, worker.process.pid)
        return f"worker died ({how})" + (f": {words}" if words else "")

    def _start_worker(self) -> _Worker:
        ours, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(target=serve, name="blackhole-sandbox",
                                        args=(theirs, self._folder, self._lifeline))
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def _give_up(self, reason: str) -> None:
        """Stop every worker; every task not finished gets an `unknown` record."""
        for worker in list(self._workers):
            children.kill_tree(worker.process.pid)
            worker.process.join()
            self._drop(worker, None)
        with self._lock:
            jobs, self._queue = list(self._queue), deque()
        now = time.perf_counter()
        for job in jobs:
            if not job.record.done():
                job.record.set_result(failed(job.task, now - job.sent, reason))


def failed(task: Task, seconds: float, reason: str, verdict: str = "unknown") -> Record:
    """The record of a task that gave no answer of its own: killed, dead or lost."""
    return Record(task.deal, task.label, verdict, seconds, task=task.kind, wall=seconds,
                  model=task.options.model, timeout=task.options.timeout, reason=reason,
                  host=HOST, board=task.board)
