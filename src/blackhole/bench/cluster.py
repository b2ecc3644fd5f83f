"""Running bench tasks on a Dask cluster.

The client sends the tasks in chunks of several deals, a bounded window of chunks at a
time, and writes each result on its own side, so `--resume` works as it does locally.
Each Dask worker keeps a sandbox pool (the same `SandboxPool` a local run uses, set up by
a worker plugin) with one process per Dask thread, at most one per core; a chunk's deals
go through that pool in batches, and each deal keeps its own hard limit, enforced on the
worker. Chunks cut the scheduler's cost per deal, which on small deals would otherwise
be felt.

Only this module imports `distributed`, and only a run with a Dask address imports it.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
from collections.abc import Iterator
from concurrent.futures import wait
from contextlib import contextmanager
from typing import Any

from distributed import Client, WorkerPlugin, as_completed, get_worker

from blackhole.base.errors import ArgumentError, InputError
from blackhole.bench.plan import Task
from blackhole.bench.pool import SandboxPool, failed
from blackhole.bench.record import Record

PLUGIN = "blackhole-sandboxes"
CONNECT_SECONDS = 10  # to reach the scheduler before giving up
MAX_CHUNK = 64  # deals per Dask task
_ADDRESS_HINT = "(a scheduler address: tcp://HOST:8786)"


class SandboxPlugin(WorkerPlugin):
    """Gives each Dask worker a sandbox pool: one process per thread, at most one per core.

    Registered once per cluster: a second run on the same cluster (another game's, or
    a resumed one) uses the pools in place, rather than closing them under the tasks of
    a run still going."""

    idempotent = True

    def __init__(self, batch: int = 1) -> None:
        self.batch = batch
        self.pool: SandboxPool | None = None

    def setup(self, worker: Any) -> None:
        # A nanny starts its worker as a daemonic process, and multiprocessing lets no
        # daemonic process start children. The sandboxes end with the worker anyway:
        # each watches its parent and ends when it goes.
        multiprocessing.current_process().daemon = False
        self.pool = SandboxPool(sandboxes(worker.state.nthreads), self.batch)

    def teardown(self, worker: Any) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def sandboxes(threads: int) -> int:
    """Sandbox processes on a Dask worker: one per thread, at most one per core. A
    worker with more threads than cores holds more chunks than it runs deals at once,
    so its sandboxes do not wait while a chunk's last deal ends and the next arrives."""
    return max(1, min(threads, os.cpu_count() or 1))


def run_chunk(tasks: list[Task], limit: float, memory_mb: int | None) -> list[Record]:
    """On a Dask worker: every task of the chunk through the worker's sandbox pool."""
    pool = get_worker().plugins[PLUGIN].pool
    futures = [pool.submit(task, limit, memory_mb) for task in tasks]
    wait(futures)  # one wake-up for the chunk, not one per record
    return [future.result() for future in futures]


@contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the scheduler at `address`; InputError (one line) when the address is
    malformed or nothing answers there."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import backends

    try:
        scheme, location = parse_address(address, strict=True)
        if scheme not in backends:
            raise ArgumentError(f"unknown scheme {scheme!r}")
        host, port = parse_host_port(location) if scheme == "tcp" else (None, None)
    except (ValueError, TypeError) as error:
        raise InputError(f"not a Dask address {_ADDRESS_HINT}: {error}", "dask",
                         token=address) from None
    if host is not None:  # a plain probe first: a Client that fails leaves a mess at exit
        try:
            socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
        except OSError as error:
            reason = error.strerror or error.__class__.__name__
            raise InputError(f"cannot reach the Dask scheduler ({reason})", "dask",
                             token=address) from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS)
    except (OSError, ValueError, TimeoutError) as error:
        raise InputError(f"cannot reach the Dask scheduler ({error})", "dask",
                         token=address) from None
    with client:
        yield client


def slots(client: Client) -> int:
    """Tasks the cluster runs at once: its sandboxes."""
    cores = client.run(os.cpu_count)
    return sum(min(threads, cores.get(address) or threads)
               for address, threads in client.nthreads().items()) or 1


def chunk_size(tasks: int, threads: int) -> int:
    """Deals per Dask task: enough to make the scheduler's cost per deal small, few
    enough that every thread gets many chunks (so the run's tail stays short)."""
    return max(1, min(MAX_CHUNK, tasks // (16 * threads)))


def run_dask(client: Client, tasks: list[Task], limit: float, memory_mb: int | None,
             chunk: int | None = None, batch: int = 1) -> Iterator[Record]:
    """Every task on the cluster; records as their chunks finish. The workers' sandbox
    pools are set up first, so a cluster that cannot run the tasks stops the run here."""
    try:
        client.register_plugin(SandboxPlugin(batch), name=PLUGIN)
    except Exception as error:  # a worker without blackhole, or one that cannot fork
        raise InputError(f"the Dask workers cannot run bench tasks (is blackhole installed "
                         f"there?): {error.__class__.__name__}: {error}", "dask") from None
    size = chunk or chunk_size(len(tasks), slots(client))
    return _run_chunks(client, [tasks[i:i + size] for i in range(0, len(tasks), size)],
                       limit, memory_mb)


def _run_chunks(client: Client, chunks: list[list[Task]], limit: float,
                memory_mb: int | None) -> Iterator[Record]:
    """The chunks, a window of twice the cluster's threads at a time (so a thread that
    ends a chunk finds the next one waiting)."""
    waiting = iter(chunks)
    owner: dict[Any, list[Task]] = {}
    running = as_completed()

    def submit(count: int) -> None:
        for _, part in zip(range(count), waiting, strict=False):
            future = client.submit(run_chunk, part, limit, memory_mb, pure=False)
            owner[future] = part
            running.add(future)

    submit(2 * (sum(client.nthreads().values()) or 1))
    for future in running:
        part = owner.pop(future)
        try:
            records = future.result()
        except Exception as error:  # a lost worker, a chunk Dask gave up on
            reason = f"dask: {error.__class__.__name__}: {error}"
            records = [failed(task, 0.0, reason) for task in part]
        yield from records
        submit(1)
