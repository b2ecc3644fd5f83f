"""Many deals × backends, each task in a sandboxed worker process, results as JSON lines.

Every (deal, backend) task runs in a long-lived worker process (a "sandbox": a child
Python interpreter speaking one JSON line per task over its stdin/stdout). The parent
gives each task a hard wall limit (the backend's timeout plus a grace period); a worker
that overruns it, or dies (out of memory, a crash in a solver library), is killed and
replaced, and the task is recorded as "unknown" with the reason. Each worker may also run
under an address-space cap (RLIMIT_AS), so a memory blow-up ends as MemoryError there.

Each finished task is appended to the results file as one JSON line in a single write,
so an interrupted run loses nothing; `resume=True` skips the (deal, backend) pairs the
file already holds. The same sandboxes run on a Dask cluster: each Dask worker keeps its
own pool of sandboxes (a worker plugin), so the hard limit is enforced on the worker.

A backend entry may name a variant: `sat:glucose4` sets the SAT solver and `cpsat:MODEL`
the CP-SAT model; the entry as written is the result's `backend` key.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from blackhole.backends import REGISTRY, Options, available_backends, make_backend
from blackhole.deal import expand_specs, generated_spec, load_deal
from blackhole.errors import InputError, InternalError
from blackhole.report import VERDICTS, read_results

DEFAULT_TIMEOUT = 60.0  # backend seconds per task
GRACE = 5.0  # seconds past the backend's timeout before the worker is killed
DEFAULT_MEMORY_MB = 4096  # address-space cap per worker (RLIMIT_AS)
_VARIANT_FIELD = {"sat": "solver", "cpsat": "model"}  # what `backend:VARIANT` sets
_WORKER_BOOT = "import sys; from blackhole.bench import worker_main; worker_main(sys.argv[1:])"


@dataclass(frozen=True)
class Task:
    deal: str  # one deal spec
    label: str  # the backend entry as the user wrote it, e.g. "sat:glucose4"
    backend: str  # the registry name, e.g. "sat"
    options: Options

    def message(self) -> dict[str, Any]:
        opts = {f.name: getattr(self.options, f.name) for f in fields(Options)}
        if opts["features"] is not None:
            opts["features"] = sorted(opts["features"])
        return {"deal": self.deal, "label": self.label, "backend": self.backend,
                "options": opts}


@dataclass(frozen=True)
class BenchEvent:
    """Sent to the progress callback once at the start (record None), then per result."""

    total: int  # tasks in this run (after skipping finished ones)
    done: int  # tasks finished in this run so far
    skipped: int  # finished pairs found in the results file (resume)
    record: dict[str, Any] | None


@dataclass(frozen=True)
class BenchSummary:
    written: int  # results written by this run
    skipped: int  # pairs already in the results file
    seconds: float  # wall seconds of the whole run
    slots: int  # tasks in flight at once (jobs, or Dask threads)
    busy: float  # Σ seconds from sending each task to its result, seen by the pool
    solving: float  # Σ the backends' own seconds

    @property
    def overhead_ms(self) -> float | None:
        """Per task, the time in flight beyond the solve: start, load, build, replay, IPC."""
        return (self.busy - self.solving) / self.written * 1000 if self.written else None

    @property
    def utilisation(self) -> float | None:
        """The share of the run's slot-seconds with a task in flight (1.0: never idle)."""
        return self.busy / (self.slots * self.seconds) if self.written and self.seconds else None

    def to_json(self) -> dict[str, Any]:
        return {"written": self.written, "skipped": self.skipped,
                "seconds": round(self.seconds, 3), "slots": self.slots,
                "busy": round(self.busy, 3), "solving": round(self.solving, 3),
                "overhead_ms": _rounded(self.overhead_ms, 2),
                "utilisation": _rounded(self.utilisation, 3)}


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


ProgressCallback = Callable[[BenchEvent], None]


# ---------------------------------------------------------------- planning


def default_backends() -> list[str]:
    return [name for name in available_backends() if name != "external"]


def backend_options(label: str, options: Options) -> tuple[str, Options]:
    """`sat` → ("sat", options); `sat:glucose4` → ("sat", options with solver=glucose4)."""
    name, _, variant = label.partition(":")
    if name not in REGISTRY:
        raise InputError(f"unknown backend (choose from {', '.join(REGISTRY)})", "--backends",
                         token=label)
    if not variant:
        return name, options
    if name not in _VARIANT_FIELD:
        raise InputError("this backend takes no :VARIANT", "--backends", token=label)
    return name, replace(options, **{_VARIANT_FIELD[name]: variant})


def plan_tasks(specs: str | Sequence[str], backends: Sequence[str] | None,
               options: Options) -> list[Task]:
    """Every (deal, backend) task, deal-major, so partial runs compare backends fairly."""
    deals = list(dict.fromkeys(expand_specs(specs)))
    if not deals:
        raise InputError("no deals to run", "SPECS", token=str(specs))
    for spec in deals:
        if spec == "-":
            raise InputError("bench reads no deal from stdin", "SPECS", token=spec)
        if generated_spec(spec) is None:  # a file: read it now, so a bad one stops the run
            if not Path(spec).is_file():
                raise InputError("no such deal file (or spec: pysol:N, random:SEED, folder)",
                                 spec)
            load_deal(spec)
    labels = list(dict.fromkeys(backends if backends else default_backends()))
    if not labels:
        raise InputError("no backend available", "--backends")
    chosen = []
    for label in labels:
        name, opts = backend_options(label, options)
        make_backend(name).check(opts)  # a missing module or a bad variant stops it here
        chosen.append((label, name, opts))
    return [Task(deal, label, name, opts) for deal in deals for label, name, opts in chosen]


# ---------------------------------------------------------------- the run


def run_bench(specs: str | Sequence[str], backends: Sequence[str] | None = None,
              options: Options | None = None, *, out_path: Path | str,
              jobs: int | None = None, resume: bool = False, hard_limit: float | None = None,
              memory_mb: int | None = DEFAULT_MEMORY_MB, dask_address: str | None = None,
              progress: ProgressCallback | None = None) -> BenchSummary:
    """Run every (deal, backend) task and append one JSON line per result to `out_path`.

    `options.timeout` (default 60 s) is the backend's own limit; `hard_limit` (default
    timeout + 5 s) is when the worker is killed. Without `resume` an existing non-empty
    results file is an error, so no run is overwritten by accident.
    """
    began = time.perf_counter()
    options = options or Options(timeout=DEFAULT_TIMEOUT)
    limit = hard_limit if hard_limit is not None else (options.timeout or DEFAULT_TIMEOUT) + GRACE
    tasks = plan_tasks(specs, backends, options)
    out = Path(out_path)
    finished: set[tuple[str, str]] = set()
    if out.exists() and out.stat().st_size > 0:
        if not resume:
            raise InputError("results file exists (use --resume to continue it, or remove it)",
                             str(out))
        records = read_results(out, repair_tail=True)
        finished = {(r["deal"], r["backend"]) for r in records}
    todo = [t for t in tasks if (t.deal, t.label) not in finished]
    skipped = len(tasks) - len(todo)
    if progress:
        progress(BenchEvent(len(todo), 0, skipped, None))
    done, busy, solving = 0, 0.0, 0.0
    with ExitStack() as stack:
        fd = _open_results(out)
        stack.callback(os.close, fd)
        if dask_address:
            client = stack.enter_context(_dask_client(dask_address))
            slots = sum(client.nthreads().values()) or 1
            results = _run_dask(client, todo, limit, memory_mb, slots)
        else:
            slots = jobs or os.cpu_count() or 1
            results = _run_local(todo, slots, limit, memory_mb)
        stack.enter_context(closing(results))  # an interrupt here stops the workers at once
        for record, in_flight in results:
            os.write(fd, (json.dumps(record, default=str) + "\n").encode())  # one write
            done += 1
            busy += in_flight
            solving += record["seconds"]
            if progress:
                progress(BenchEvent(len(todo), done, skipped, record))
    return BenchSummary(done, skipped, time.perf_counter() - began, slots, busy, solving)


def _open_results(out: Path) -> int:
    """The results file, opened for appending whole lines."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as error:
        raise InputError(f"cannot write the results file ({error.strerror})", str(out)) from None


def _run_local(tasks: list[Task], jobs: int, limit: float,
               memory_mb: int | None) -> Iterator[tuple[dict[str, Any], float]]:
    """A pool of sandboxes fed one task at a time; (result, seconds in flight) as they end."""
    pending = list(reversed(tasks))
    selector = selectors.DefaultSelector()
    busy: dict[Sandbox, tuple[Task, float]] = {}  # worker → its task, and when it was sent
    idle: list[Sandbox] = []
    try:
        while pending or busy:
            while pending and len(busy) < jobs:
                sandbox = idle.pop() if idle else Sandbox(memory_mb)
                task = pending.pop()
                try:
                    sandbox.send(task)
                except OSError:  # it died while idle: hand the task to a fresh one
                    sandbox.kill()
                    sandbox = Sandbox(memory_mb)
                    sandbox.send(task)
                busy[sandbox] = (task, time.perf_counter())
                selector.register(sandbox.stdout, selectors.EVENT_READ, sandbox)
            first_deadline = min(sent + limit for _, sent in busy.values())
            wait = max(0.0, first_deadline - time.perf_counter())
            for key, _ in selector.select(wait):
                sandbox = key.data
                task, started = busy[sandbox]
                record = sandbox.receive()
                if record is None and sandbox.alive():
                    continue  # part of a line; the rest follows
                selector.unregister(sandbox.stdout)
                del busy[sandbox]
                elapsed = time.perf_counter() - started
                if record is None:  # the worker died mid-task
                    reason = sandbox.death()
                    sandbox.kill()
                    yield failed_record(task, elapsed, reason), elapsed
                else:
                    idle.append(sandbox)
                    yield record, elapsed
            now = time.perf_counter()
            for sandbox, (task, started) in list(busy.items()):
                if now - started >= limit:
                    selector.unregister(sandbox.stdout)
                    del busy[sandbox]
                    sandbox.kill()
                    reason = f"killed at hard limit {limit:g} s"
                    yield failed_record(task, now - started, reason), now - started
    finally:
        for sandbox in [*busy, *idle]:
            sandbox.close()
        selector.close()


def failed_record(task: Task, seconds: float, reason: str) -> dict[str, Any]:
    """The result line of a task whose worker was killed or died: verdict unknown."""
    return make_record(task.deal, task.label, task.options, verdict="unknown", seconds=seconds,
                       wall=seconds, reason=reason)


def make_record(deal: str, label: str, options: Options, *, verdict: str, seconds: float,
                wall: float, solver: str | None = None, peak_mb: float | None = None,
                stats: dict[str, Any] | None = None, moves: list | None = None,
                reason: str | None = None) -> dict[str, Any]:
    """One results line; every key is always present (see docs/bench.md)."""
    assert verdict in VERDICTS
    return {"deal": deal, "backend": label, "verdict": verdict, "seconds": round(seconds, 6),
            "wall": round(wall, 6), "solver": solver, "model": options.model,
            "timeout": options.timeout, "peak_mb": peak_mb, "stats": stats or {},
            "moves": moves or [], "reason": reason, "host": socket.gethostname()}


# ---------------------------------------------------------------- sandboxes


class Sandbox:
    """A worker process: one task line in on stdin, one result line out on stdout."""

    def __init__(self, memory_mb: int | None) -> None:
        self._stderr = tempfile.TemporaryFile()  # its last words, should it die
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_BOOT, str(memory_mb or 0)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            env=_worker_env(), bufsize=0)
        self.stdout = self.process.stdout
        self._buffer = b""

    def send(self, task: Task) -> None:
        self.process.stdin.write((json.dumps(task.message()) + "\n").encode())

    def receive(self) -> dict[str, Any] | None:
        """Read what is there; the record once its line is complete, else None."""
        chunk = os.read(self.stdout.fileno(), 1 << 16)
        if not chunk:
            self.process.wait()
            return None
        self._buffer += chunk
        line, newline, rest = self._buffer.partition(b"\n")
        if not newline:
            return None
        self._buffer = rest
        return json.loads(line)

    def alive(self) -> bool:
        return self.process.poll() is None

    def death(self) -> str:
        code = self.process.returncode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        self._stderr.seek(max(0, self._stderr.seek(0, os.SEEK_END) - 400))
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return f"worker died ({how})" + (f": {lines[-1].strip()}" if lines else "")

    def run(self, task: Task, limit: float) -> dict[str, Any]:
        """Send one task and wait for its result, killing the worker at `limit` seconds."""
        started = time.perf_counter()
        self.send(task)
        with selectors.DefaultSelector() as selector:
            selector.register(self.stdout, selectors.EVENT_READ)
            while True:
                left = started + limit - time.perf_counter()
                if left <= 0:
                    self.kill()
                    return failed_record(task, time.perf_counter() - started,
                                         f"killed at hard limit {limit:g} s")
                if selector.select(left):
                    record = self.receive()
                    if record is not None:
                        return record
                    if not self.alive():
                        return failed_record(task, time.perf_counter() - started,
                                             self.death())

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._close_pipes()

    def close(self) -> None:
        """Ask the worker to stop (end of its input); kill it if it does not."""
        try:
            self.process.stdin.close()
            self.process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def _close_pipes(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout, self._stderr):
            try:
                pipe.close()
            except OSError:
                pass


def _worker_env() -> dict[str, str]:
    """The worker imports this same blackhole package, wherever it was imported from."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return env


# ---------------------------------------------------------------- the worker side


def worker_main(argv: Sequence[str]) -> None:
    """The sandbox's loop: task lines from stdin, result lines to the original stdout.

    Anything a solver library writes to stdout goes to /dev/null instead, so it cannot
    corrupt the protocol. The worker ends when its input ends or its parent is gone.
    """
    memory_mb = int(argv[0]) if argv else 0
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    _watch_parent(os.getppid())  # before the cap, which would leave no room for its stack
    if memory_mb > 0:
        cap = memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    for line in sys.stdin:
        message = json.loads(line)
        opts = dict(message["options"])
        if opts.get("features") is not None:
            opts["features"] = frozenset(opts["features"])
        record = run_task(message["deal"], message["label"], message["backend"],
                          Options(**opts))
        channel.write(json.dumps(record, default=str) + "\n")


def _watch_parent(parent: int) -> None:
    """End this worker soon after its parent dies, even in the middle of a solve."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def run_task(spec: str, label: str, backend: str, options: Options) -> dict[str, Any]:
    """Load, solve, replay one deal in this process and describe the outcome as a record."""
    from blackhole.deal import load_deal
    from blackhole.pipeline import solution_json, solve_deal

    _reset_peak()
    began = time.perf_counter()
    seconds: float | None = None
    solver = stats = moves = reason = None
    try:
        solution = solve_deal(load_deal(spec), backend, options)
        data = solution_json(spec, solution)
        verdict, seconds, solver = data["verdict"], data["seconds"], data["solver"]
        stats, moves = data["stats"], data["moves"]
        if verdict == "unknown":
            reason = "backend limit reached"
    except MemoryError:
        verdict, reason = "unknown", "memory limit"
    except (InternalError, InputError) as error:
        verdict, reason = "error", str(error)
    except Exception as error:  # a crash inside a backend is a result too, not a stop
        verdict, reason = "error", f"{error.__class__.__name__}: {error}"
    wall = time.perf_counter() - began
    return make_record(spec, label, options, verdict=verdict,
                       seconds=wall if seconds is None else seconds, wall=wall,
                       solver=solver, peak_mb=_peak_mb(), stats=stats, moves=moves,
                       reason=reason)


def _reset_peak() -> None:
    """Reset this process's peak resident size (Linux), so each task gets its own peak."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_mb() -> float:
    """Peak resident MB since the last reset (VmHWM), else the process's lifetime peak."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# ---------------------------------------------------------------- Dask


class SandboxPlugin:
    """Each Dask worker keeps a pool of sandboxes for its threads (see DaskSandboxPlugin).

    The hard limit is enforced on the Dask worker: the task waits for its sandbox with a
    deadline and kills it when the deadline passes, just as the local pool does.
    """

    name = "blackhole-sandboxes"

    def __init__(self, memory_mb: int | None) -> None:
        self.memory_mb = memory_mb
        self._idle: list[Sandbox] = []
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"memory_mb": self.memory_mb}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["memory_mb"])

    def teardown(self, worker: Any) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for sandbox in idle:
            sandbox.close()

    def run(self, task: Task, limit: float) -> dict[str, Any]:
        with self._lock:
            sandbox = self._idle.pop() if self._idle else None
        sandbox = sandbox or Sandbox(self.memory_mb)
        record = sandbox.run(task, limit)
        if sandbox.alive():
            with self._lock:
                self._idle.append(sandbox)
        else:
            sandbox.kill()
        return record


def __getattr__(name: str) -> Any:
    """`DaskSandboxPlugin` (SandboxPlugin as a Dask WorkerPlugin) is built on first use,
    so neither the sandboxes nor a local run import distributed; pickle finds it by name."""
    if name == "DaskSandboxPlugin":
        from distributed import WorkerPlugin

        plugin = type(name, (SandboxPlugin, WorkerPlugin), {"__module__": __name__})
        globals()[name] = plugin
        return plugin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _dask_task(task: Task, limit: float) -> tuple[dict[str, Any], float]:
    from distributed import get_worker

    began = time.perf_counter()
    record = get_worker().plugins[SandboxPlugin.name].run(task, limit)
    return record, time.perf_counter() - began


@contextmanager
def _dask_client(address: str) -> Iterator[Any]:
    from distributed import Client

    try:
        client = Client(address, timeout=15)
    except OSError as error:
        raise InputError(f"cannot reach the Dask scheduler ({error})", "--dask",
                         token=address) from None
    with client:
        yield client


def _run_dask(client: Any, tasks: list[Task], limit: float, memory_mb: int | None,
              slots: int) -> Iterator[tuple[dict[str, Any], float]]:
    """Send tasks to the cluster, a bounded window at a time; results as they finish.

    The seconds in flight are measured on the workers (the sandbox round trip), since
    the client cannot see when a queued task starts.
    """
    from distributed import as_completed

    plugin = __getattr__("DaskSandboxPlugin")(memory_mb)
    client.register_plugin(plugin, name=SandboxPlugin.name)
    queue = iter(tasks)
    owner: dict[Any, Task] = {}
    running = as_completed()

    def submit(count: int) -> None:
        for _, task in zip(range(count), queue, strict=False):
            future = client.submit(_dask_task, task, limit, pure=False)
            owner[future] = task
            running.add(future)

    submit(max(4, 2 * slots))
    for future in running:
        task = owner.pop(future)
        try:
            record, in_flight = future.result()
        except Exception as error:  # a lost worker, a task Dask gave up on
            reason = f"dask: {error.__class__.__name__}: {error}"
            record, in_flight = failed_record(task, 0.0, reason), 0.0
        yield record, in_flight
        submit(1)
