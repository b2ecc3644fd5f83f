"""A bench run: plan the tasks, skip the finished ones, run the rest, write each result.

Each finished task is appended to the results file as one line in a single write, so
an interrupted run loses nothing it has written; `resume=True` skips the tasks the file
already holds (`retry_unknown=True` reruns those whose last line is `unknown`). Resume
first repairs the file's end (a last line cut short by a kill is dropped and its task
run again), and refuses a file with a bad line anywhere else. It reads the file one line
at a time, keeping only what each line settles, so a million lines resume in little
memory.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blackhole.backends import Options
from blackhole.base.errors import InputError
from blackhole.base.extras import require
from blackhole.bench.plan import DEFAULT_TIMEOUT, GRACE, Task, plan_tasks
from blackhole.bench.record import Record, iter_results
from blackhole.bench.report import Columns

DEFAULT_MEMORY_MB = 4096  # address-space cap per worker during a task (RLIMIT_AS)
DEFAULT_BATCH = 8  # tasks a sandbox worker is handed at once


@dataclass(frozen=True)
class BenchEvent:
    """Sent to the progress callback once at the start (record None), then per result."""

    total: int  # tasks in this run (after skipping finished ones)
    done: int  # tasks finished in this run so far
    skipped: int  # finished tasks found in the results file (resume)
    record: Record | None


@dataclass(frozen=True)
class BenchSummary:
    written: int  # results written by this run
    skipped: int  # tasks already in the results file
    seconds: float  # wall seconds of the whole run
    slots: int  # tasks in flight at once (jobs, or Dask threads)
    busy: float  # Σ seconds the workers spent on tasks (each record's `wall`)
    solving: float  # Σ the backends' own seconds
    before: int = 0  # bytes of the results file before this run's first line
    # what the report needs of this run's lines (blackhole.bench.report.summarize_run)
    lines: Columns | None = field(default=None, repr=False, compare=False)

    @property
    def overhead_ms(self) -> float | None:
        """Per task, the slot time not spent solving: worker start-up, loading the deal,
        what a backend does outside its own clock, replay, messaging, idle slots."""
        if not self.written:
            return None
        return (self.slots * self.seconds - self.solving) / self.written * 1000

    @property
    def worker_ms(self) -> float | None:
        """Per task, the time inside the worker beyond the backend's own seconds."""
        return (self.busy - self.solving) / self.written * 1000 if self.written else None

    @property
    def utilisation(self) -> float | None:
        """The share of the run's slot-seconds during which a worker ran a task."""
        return self.busy / (self.slots * self.seconds) if self.written and self.seconds else None

    @property
    def per_slot_second(self) -> float | None:
        """Tasks finished per second per slot (per core, one slot per core)."""
        return self.written / (self.slots * self.seconds) if self.written and self.seconds \
            else None

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written, "skipped": self.skipped,
                "seconds": round(self.seconds, 3), "slots": self.slots,
                "busy": round(self.busy, 3), "solving": round(self.solving, 3),
                "overhead_ms": _rounded(self.overhead_ms, 2),
                "worker_ms": _rounded(self.worker_ms, 2),
                "utilisation": _rounded(self.utilisation, 3),
                "per_slot_second": _rounded(self.per_slot_second, 2)}


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


ProgressCallback = Callable[[BenchEvent], None]


def run_bench(specs: str | Sequence[str], backends: Sequence[str] | None = None,
              options: Options | None = None, *, out_path: Path | str,
              jobs: int | None = None, resume: bool = False, retry_unknown: bool = False,
              hard_limit: float | None = None, memory_mb: int | None = DEFAULT_MEMORY_MB,
              dask: str | None = None, chunk: int | None = None,
              task: str = "solve", given: Sequence[str] = (),
              batch: int = DEFAULT_BATCH,
              progress: ProgressCallback | None = None) -> BenchSummary:
    """Run every (deal, backend) task and append one line per result to `out_path`.

    `options.timeout` (default 60 s) is the backend's own limit; `hard_limit` (default
    timeout + 5 s) is when the worker is killed. Without `resume` an existing non-empty
    results file is an error, so no run is overwritten by accident. `chunk` sets the
    deals per Dask task (default: chosen from the run's size), and `batch` the tasks a
    sandbox worker is handed at once (each keeps its own hard limit). `given` names the
    Options fields the user set (each must apply to some chosen backend).
    """
    began = time.perf_counter()
    options = options or Options(timeout=DEFAULT_TIMEOUT)
    if options.timeout is None:
        raise InputError("bench needs a limit per task", "timeout", token="none")
    limit = hard_limit if hard_limit is not None else options.timeout + GRACE
    tasks = plan_tasks(specs, backends, options, task, given)
    out = Path(out_path)
    if out.name.endswith(".gz"):
        raise InputError("results are written as plain lines (compress the file once the "
                         "run is over)", str(out))
    todo = _unfinished(tasks, out, resume, retry_unknown)
    skipped = len(tasks) - len(todo)
    before = out.stat().st_size if out.exists() else 0  # whole lines only, once repaired
    done, busy, solving = 0, 0.0, 0.0
    lines = Columns()
    with ExitStack() as stack:
        if dask:
            require("bench", "distributed", "a run on a Dask cluster")
            from blackhole.bench import cluster

            client = stack.enter_context(cluster.connect(dask))
            slots = cluster.slots(client)
            results = cluster.run_dask(client, todo, limit, memory_mb, chunk, batch)
        else:
            slots = jobs or os.cpu_count() or 1
            results = _run_local(todo, slots, limit, memory_mb, batch)
        fd = _open_results(out)
        stack.callback(os.close, fd)
        stack.enter_context(closing(results))  # an interrupt here stops the workers at once
        if progress:
            progress(BenchEvent(len(todo), 0, skipped, None))
        for record in results:
            os.write(fd, record.line())  # one write per line
            # A win was replayed through the rules engine in its worker before it came
            # here (pipeline.decode): the report need not deal it again. A best line is
            # checked here, as the report checks one (its score against its moves).
            lines.take(record, check=record.task != "solve")
            done += 1
            busy += record.wall or record.seconds
            solving += record.seconds
            if progress:
                progress(BenchEvent(len(todo), done, skipped, record))
    return BenchSummary(done, skipped, time.perf_counter() - began, slots, busy, solving,
                        before, lines)


def _unfinished(tasks: list[Task], out: Path, resume: bool, retry_unknown: bool) -> list[Task]:
    """The tasks the results file does not settle yet."""
    if not (out.exists() and out.stat().st_size > 0):
        return tasks
    if not resume:
        raise InputError("results file exists (use --resume to continue it, or remove it)",
                         str(out))
    settled: dict[tuple[str, str, str], tuple[str, Any]] = {}  # key → verdict, board
    for record in iter_results(out, repair_tail=True):
        settled[record.key] = (record.verdict, record.board)
    todo = []
    for task in tasks:
        verdict, board = settled.get(task.key, (None, None))
        if verdict is None or (retry_unknown and verdict == "unknown"):
            todo.append(task)
        elif task.board is not None and board != task.board:
            raise InputError("the results file holds another deal under this name (the file "
                             "changed since; use a new --out)", task.deal)
    return todo


def _open_results(out: Path) -> int:
    """The results file, opened for appending whole lines."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as error:
        raise InputError(f"cannot write the results file ({error.strerror})", str(out)) from None


def _run_local(tasks: list[Task], jobs: int, limit: float, memory_mb: int | None,
               batch: int) -> Iterator[Record]:
    """The tasks through a local sandbox pool, enough of them in it that every worker
    holds a batch and the next (so a worker never waits for work); records as they
    finish."""
    from blackhole.bench.pool import SandboxPool

    finished: queue.SimpleQueue = queue.SimpleQueue()
    waiting = iter(tasks)
    in_pool = 0
    with SandboxPool(jobs, batch) as pool:
        while True:
            while in_pool < 2 * jobs * batch + jobs:
                task = next(waiting, None)
                if task is None:
                    break
                pool.submit(task, limit, memory_mb).add_done_callback(finished.put)
                in_pool += 1
            if not in_pool:
                return
            record = finished.get().result()
            in_pool -= 1
            yield record
