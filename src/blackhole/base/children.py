"""Every process and temp folder the tool starts, owned so that nothing outlives its work.

- An outside binary (a DIMACS solver, kissat) runs through `run`: in a session of its
  own, so that ending it (`kill_tree`) ends whatever it started too; on Linux with
  PR_SET_PDEATHSIG set to SIGKILL, so that the kernel kills it when the thread that
  started it dies, however that thread's process ends (SIGKILL included). Where prctl
  is missing the binary ends at its limit, on Ctrl-C and on `end_all`, not on SIGKILL.
- A temp folder (a CNF and its proof, a pool's scratch space) comes from `folder` or
  `make_folder` and goes with `remove_folder`.
- Both are registered while they live, and `end_all` kills every registered process
  tree and removes every registered folder: the CLI calls it as a command ends (`owned`,
  which also turns SIGTERM and SIGHUP into the Ctrl-C path, exit 130), and `atexit`
  calls it as the interpreter ends. A thread that is still running a binary when the
  main thread ends (`auto` races kissat on a side thread) has its binary killed there.
- A process that may be SIGKILLed (a web page's or the bench's worker) cannot clean up
  after itself: its owner hands it a folder for its temp files (`tempfile.tempdir`),
  kills it with `kill_tree` and then removes the folder. Such a worker ends with its
  owner, however the owner ends (`end_with_owner`).

A forked child starts with an empty registry: what its parent owns is the parent's to
end. This module imports nothing of the rest of the tool.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

STOP_POLL = 0.02  # seconds between two looks at a stop flag while a binary runs
PREFIX = "blackhole-"  # every temp folder of the tool starts so
ENDING_SIGNALS = ("SIGTERM", "SIGHUP")  # what `owned` turns into Ctrl-C, where they exist
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class Ended(Exception):
    """The process is ending (`end_all` ran at exit): no new binary or folder starts."""


class _Owned:
    """What one process owns: the binaries it runs and its temp folders."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.processes: set[subprocess.Popen] = set()
        self.folders: set[Path] = set()
        self.ending = False  # set at exit: nothing new may start


_lock = threading.Lock()
_owned = _Owned()


def _mine() -> _Owned:
    """This process's registry (a forked child starts with an empty one); under _lock."""
    global _owned
    if _owned.pid != os.getpid():
        _owned = _Owned()
    return _owned


def run(argv: list[str], timeout: float | None,
        stop: bytearray | None = None) -> tuple[str | None, int | None]:
    """Run a binary to its end: its standard output and exit code, or (None, None) when
    `timeout` seconds passed or the first byte of `stop` was set (looked at every
    STOP_POLL seconds); the binary is then killed with all it started, as it is when
    this call ends on an exception (Ctrl-C). OSError when it cannot be started."""
    if timeout is not None and timeout <= 0:
        return None, None
    process = spawn(argv)
    ends = None if timeout is None else time.perf_counter() + timeout
    try:
        while True:
            left = None if ends is None else max(0.0, ends - time.perf_counter())
            wait = left if stop is None else STOP_POLL if left is None else min(STOP_POLL,
                                                                                  left)
            try:
                output, _ = process.communicate(timeout=wait)
                return output, process.returncode
            except subprocess.TimeoutExpired:
                if (left is not None and left <= wait) or (stop is not None and stop[0]):
                    _end(process)
                    return None, None
    except BaseException:
        _end(process)
        raise
    finally:
        with _lock:
            _mine().processes.discard(process)


def spawn(argv: list[str]) -> subprocess.Popen:
    """Start a binary, registered until `run` has ended it: its output piped, in a session
    of its own, and (on Linux) killed by the kernel when the thread that started it dies.
    OSError when it cannot be started; Ended once `end_all` has run."""
    with _lock:
        owned = _mine()
        if owned.ending:
            raise Ended("the process is ending")
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, start_new_session=True,
                                   preexec_fn=_die_with_parent())
        owned.processes.add(process)
    return process


def kill_tree(pid: int) -> None:
    """SIGKILL the process group that `pid` leads (a process started in a session or a
    group of its own, with all it started), or the process alone where it leads none.
    The caller makes sure `pid` is its child and not yet reaped."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:  # no such group (yet): the process alone
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _end(process: subprocess.Popen) -> None:
    """Kill a binary's tree and reap it (its pipes drained)."""
    if process.returncode is None:
        kill_tree(process.pid)
    process.communicate()


@cache
def _die_with_parent() -> Callable[[], None] | None:
    """The function a child runs between fork and exec to ask the kernel for SIGKILL when
    the thread that forked it dies (Linux's prctl), or None where there is no prctl.

    Its cost: with it subprocess forks instead of using vfork, which copies the page
    tables of the process that starts the binary, about 8 ms more per 100 MB of it
    (measured 2026-12-07: `true` started from a 400 MB process in 19-26 ms against 1-4
    ms). Kissat solves once per solve, and on pysol:1-60 a `kissat` solve took about 100
    ms a deal either way (6.3 s against 5.7-7.5 s for the 60, noise larger than the
    difference)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def ask() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return ask


def make_folder(prefix: str = PREFIX) -> Path:
    """A new private temp folder, registered until `remove_folder`."""
    with _lock:
        owned = _mine()
        if owned.ending:
            raise Ended("the process is ending")
        path = Path(tempfile.mkdtemp(prefix=prefix))
        owned.folders.add(path)
    return path


def remove_folder(path: Path) -> None:
    """Remove a folder of `make_folder` with all it holds (gone already is fine)."""
    shutil.rmtree(path, ignore_errors=True)
    with _lock:
        _mine().folders.discard(path)


@contextlib.contextmanager
def folder(prefix: str = PREFIX) -> Iterator[Path]:
    """A private temp folder for the block, removed as the block ends however it ends."""
    path = make_folder(prefix)
    try:
        yield path
    finally:
        remove_folder(path)


def end_all(final: bool = False) -> None:
    """Kill every registered binary with all it started, and remove every registered
    folder: for the end of a command or of the process. A thread still running a binary
    sees it end at once. `final` (at exit): from here on `spawn` and `make_folder` raise
    Ended, so that a thread still running starts nothing that would outlive the process."""
    with _lock:
        owned = _mine()
        owned.ending = owned.ending or final
        processes, folders = list(owned.processes), list(owned.folders)
    for process in processes:
        if process.returncode is None:  # the thread that runs it reaps it
            kill_tree(process.pid)
    for path in folders:
        shutil.rmtree(path, ignore_errors=True)
    with _lock:
        owned.folders.difference_update(folders)


@contextlib.contextmanager
def owned() -> Iterator[None]:
    """A command's whole run: SIGTERM and SIGHUP raise KeyboardInterrupt as Ctrl-C does
    (where they would end the process at once; a signal set to be ignored, as `nohup`
    sets SIGHUP, stays so), and whatever the command left running or on disk is ended
    (`end_all`) as it ends. The handlers go back as they were; from a thread other than
    the main one, where no handler can be set, only the ending is done."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for name in ENDING_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is signal.SIG_DFL:
                previous[number] = signal.signal(number, _interrupt)
    try:
        yield
    finally:
        end_all()
        for number, handler in previous.items():
            signal.signal(number, handler)


def _interrupt(number: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _default_in_child() -> None:
    """In a forked child (a pool's worker), SIGTERM and SIGHUP go back to ending the
    process at once: `owned` turns them into Ctrl-C for the command's own process only,
    and a worker that took SIGTERM as an exception could outlive the pool that ends it."""
    for name in ENDING_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is _interrupt:
            with contextlib.suppress(ValueError):  # not the main thread: nothing to undo
                signal.signal(number, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_default_in_child)


def end_with_owner(lifeline: int) -> None:
    """End this process as soon as the process that owns it ends, even in the middle of a
    solve, with no thread. `lifeline` is the read end of a pipe whose write end only the
    owner holds: the kernel sends SIGIO when its last writer goes (the owner, however it
    ends), and SIGIO's default action ends the process; a binary it runs then dies with
    it (`spawn`). For a worker forked from a forkserver, whose parent is not its owner:
    "end with the parent" would not do, as the forkserver lives until its last child has
    gone. Where the system has no SIGIO for pipes, the worker ends when its owner kills
    it or when its work is done."""
    try:
        import fcntl

        fd = os.dup(lifeline)  # kept open for the process's life; the caller's may close
        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
        signal.signal(signal.SIGIO, signal.SIG_DFL)
    except (ImportError, OSError, AttributeError):
        return
    if select.select([fd], [], [], 0)[0]:  # the owner was gone before the signal was set
        os._exit(0)


def _new_lock() -> None:
    """In a forked child: a lock of its own (the parent's may have been held by a thread
    the child does not have)."""
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_new_lock)
atexit.register(end_all, final=True)
