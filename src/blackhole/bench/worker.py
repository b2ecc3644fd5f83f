"""What runs inside a sandbox worker process: its set-up, and one task → one Record.

`serve` is the worker's whole life: `start` sets the process up, then each batch of tasks
read from the pool's pipe is acknowledged (`TOOK`) and its tasks are run in order, each
record sent back as soon as it is made. `run_task` runs one task and never raises:
whatever happens inside a backend becomes the record's verdict.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from blackhole.base import children
from blackhole.base.errors import InputError, InternalError
from blackhole.bench.plan import Task
from blackhole.bench.record import Record, record_moves
from blackhole.model.deal import Position
from blackhole.model.formats import parse_json_position
from blackhole.model.positions import load_position
from blackhole.questions.pipeline import solve_deal

TOOK = "took"  # a worker's acknowledgement of a batch, before its first task begins


def serve(pipe: Connection, folder: str, lifeline: Connection) -> None:
    """Run the batches the pool sends on `pipe` until the pool closes it."""
    start(folder, lifeline)
    lifeline.close()
    while True:
        try:
            batch = pipe.recv()
        except (EOFError, OSError):
            return
        pipe.send(TOOK)
        for task, memory_mb in batch:
            pipe.send(run_task(task, memory_mb))


def start(folder: str, lifeline: Connection) -> None:
    """Set up a fresh worker process.

    Ctrl-C is the pool owner's to handle. SIGTERM ends the process at once, even in the
    middle of a solver's C code (the pool itself kills with SIGKILL). Anything
    written to stdout (solver chatter) is dropped, and stderr goes to `folder/PID.err`,
    where the pool reads a dead worker's last words. Temp files (a solver's CNF and
    proof) go to the worker's own folder, `scratch`. `lifeline` is the read end of a pipe
    whose write end only the pool's owner holds: the worker ends with the owner
    (`children.end_with_owner`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    log = os.open(Path(folder) / f"{os.getpid()}.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                  0o600)
    os.dup2(log, 2)
    os.close(log)
    own = scratch(folder, os.getpid())
    own.mkdir(mode=0o700, exist_ok=True)
    tempfile.tempdir = str(own)
    children.end_with_owner(lifeline.fileno())


def scratch(folder: str, pid: int | None) -> Path:
    """The folder where worker `pid` keeps its temp files: the pool removes it once the
    worker has gone, as a worker killed at its hard limit cannot."""
    return Path(folder) / f"{pid}.tmp"


def last_words(folder: str, pid: int | None) -> str:
    """The last line a worker wrote to stderr, or ""."""
    try:
        with open(Path(folder) / f"{pid}.err", "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 400))
            lines = handle.read().decode(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""


def run_task(task: Task, memory_mb: int | None) -> Record:
    """Load, solve and replay one deal in this process, under the address-space cap."""
    reached = _MEMORY.before()
    began = time.perf_counter()
    try:
        with _memory_cap(memory_mb):
            outcome = _RUNNERS[task.kind](task)
    except MemoryError:
        outcome = {"verdict": "unknown", "reason": "memory limit"}
    except (InternalError, InputError) as error:
        outcome = {"verdict": "error", "reason": str(error)}
    except (Exception, SystemExit) as error:  # a crash inside a backend is a result too
        if _ran_into_cap(memory_mb, reached):
            outcome = {"verdict": "unknown", "reason": "memory limit"}
        else:
            outcome = {"verdict": "error",
                       "reason": f"{error.__class__.__name__}: {error}"}
    wall = time.perf_counter() - began
    outcome.setdefault("seconds", wall)
    return Record(task.deal, task.label, task=task.kind, wall=wall, model=task.options.model,
                  timeout=task.options.timeout, peak_mb=_MEMORY.after(), host=HOST,
                  board=task.board, **outcome)


def _position(task: Task) -> Position:
    if task.board is None:
        return load_position(task.deal)
    return parse_json_position(json.dumps(task.board), task.deal)


def _solve(task: Task) -> dict[str, Any]:
    solution = solve_deal(_position(task).deal, task.backend, task.options)
    result = solution.result
    return {"verdict": result.verdict.value, "seconds": result.seconds,
            "solver": result.solver, "stats": result.stats,
            "moves": record_moves(solution.moves),
            "reason": "backend limit reached" if result.verdict.value == "unknown" else None}


def _best(task: Task) -> dict[str, Any]:
    from blackhole.questions.best import best_position

    found = best_position(_position(task), task.backend, task.options)
    verdict = "solved" if found.won else "unsolvable" if found.proven else "unknown"
    return {"verdict": verdict, "seconds": found.seconds, "solver": found.solver,
            "stats": found.stats, "moves": record_moves(found.moves),
            "best": found.best, "upper_bound": found.upper_bound, "proven": found.proven,
            "reason": "backend limit reached" if verdict == "unknown" else None}


_RUNNERS = {"solve": _solve, "best": _best}


@contextmanager
def _memory_cap(memory_mb: int | None) -> Iterator[None]:
    """Lower the soft address-space limit for the task only, so that running out of
    memory is a MemoryError inside the task, never inside the pool's own messaging."""
    cap = _cap_bytes(memory_mb)
    if cap is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _cap_bytes(memory_mb: int | None) -> int | None:
    """The address-space cap a task runs under: `memory_mb`, or the process's hard limit
    where that is lower; None without a cap."""
    if not memory_mb:
        return None
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cap = memory_mb * 1024 * 1024
    return cap if hard == resource.RLIM_INFINITY else min(cap, hard)


def _ran_into_cap(memory_mb: int | None, before: int | None) -> bool:
    """Whether this task's address space reached its cap: a failed allocation does not
    always surface as a MemoryError (CPython 3.11 raises `SystemError: error return
    without exception set` when it cannot grow its frame stack), so an error raised while
    the address space stood at the cap is the memory limit too. Only a task that took
    the process's peak there counts (VmPeak is never reset: after one task at the cap,
    the worker's later errors stay errors)."""
    after, cap = _address_space_peak(), _cap_bytes(memory_mb)
    if cap is None or before is None or after is None:
        return False
    return before < CAP_REACHED * cap / 1024 <= after


# The share of the cap at which the address space counts as having reached it: the
# allocation that failed was refused because it would have crossed the cap.
CAP_REACHED = 0.9


def _address_space_peak() -> int | None:
    """The process's peak address space in kB (VmPeak), else None."""
    return _MEMORY.status_kb(b"VmPeak:").get(b"VmPeak:")


class _Memory:
    """A worker's memory figures, task by task: the peak address space before the task
    (for `_ran_into_cap`: the one read after the task before, as VmPeak never falls) and
    the task's own peak resident size. Linux's /proc files are opened once a process and
    read again in place."""

    def __init__(self) -> None:
        self.address_space: int | None = None
        self._files: tuple[int, int | None, int | None] | None = None  # pid, status, clear

    def before(self) -> int | None:
        """A fresh resident peak for the task about to begin, and the peak address space
        (kB) so far."""
        clear = self._open()[1]
        if clear is not None:
            try:
                os.write(clear, b"5")  # reset the peak resident size (Linux)
            except OSError:
                pass
        if self.address_space is None:
            self.address_space = _address_space_peak()
        return self.address_space

    def after(self) -> float:
        """The task's peak resident MB (VmHWM), else the process's lifetime peak."""
        status = self.status_kb(b"VmHWM:", b"VmPeak:")
        self.address_space = status.get(b"VmPeak:")
        resident = status.get(b"VmHWM:")
        if resident is None:
            resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(resident / 1024, 1)

    def status_kb(self, *fields: bytes) -> dict[bytes, int]:
        """kB figures of this process's /proc status, by field (`b"VmHWM:"`); none where
        there is no such file."""
        status = self._open()[0]
        found: dict[bytes, int] = {}
        if status is None:
            return found
        try:
            text = os.pread(status, 16384, 0)
        except OSError:
            return found
        for name in fields:
            at = text.find(b"\n" + name)
            if at < 0:
                continue
            value = text[at + 1 + len(name):].split(b"\n", 1)[0].split()
            if value and value[0].isdigit():
                found[name] = int(value[0])
        return found

    def _open(self) -> tuple[int | None, int | None]:
        """This process's /proc status (to read) and clear_refs (to write), opened on first
        use in each process (a forked child opens its own)."""
        if self._files is None or self._files[0] != os.getpid():
            self._files = (os.getpid(), _open_or_none("/proc/self/status", os.O_RDONLY),
                           _open_or_none("/proc/self/clear_refs", os.O_WRONLY))
        return self._files[1], self._files[2]


def _open_or_none(path: str, flags: int) -> int | None:
    try:
        return os.open(path, flags | os.O_CLOEXEC)
    except OSError:
        return None


_MEMORY = _Memory()
HOST = socket.gethostname()  # the host every record of this process names
