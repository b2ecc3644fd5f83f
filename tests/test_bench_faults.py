"""Bench under faults: batches keep each deal's hard limit, a dead worker costs only the
deal it ran, a results file cut by a kill is repaired or refused, and a run killed at
random moments, resumed each time, ends with exactly one line per deal (pool and Dask)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from blackhole.backends import Options
from blackhole.bench import read_results, run_bench
from blackhole.bench.plan import Task
from blackhole.bench.pool import SandboxPool

from .helpers import blackhole, child_env, children, command, reference

QUICK = ["pysol:1", "pysol:5", "pysol:6", "pysol:25", "pysol:27", "pysol:29", "pysol:34"]
HANGS = "pysol:837"  # the referee needs far more than a minute on it
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _sandboxes(owner: int) -> list[int]:
    """The sandbox workers of the pools `owner` runs: children of its forkserver."""
    return [worker for server in children(owner) for worker in children(server)]


def _expected(spec: str) -> str:
    return reference()[int(spec.split(":")[1])]["verdict"]


def _lines(path: Path) -> Counter[str]:
    return Counter(json.loads(line)["deal"] for line in path.read_text().splitlines())


# ---------------------------------------------------------------- batches


def test_batches_give_the_verdicts_and_limits_of_single_tasks(tmp_path: Path) -> None:
    """The deal that hangs sits in the middle of a batch: it is killed at its own limit,
    and the deals batched with it, before and after, are answered."""
    specs = [*QUICK[:3], HANGS, *QUICK[3:]]
    runs = {}
    for batch in (1, 8):
        out = tmp_path / f"batch{batch}.jsonl"
        run_bench(specs, ["search"], Options(timeout=20), out_path=out, jobs=1,
                  hard_limit=1.0, batch=batch)
        runs[batch] = {r.deal: r for r in read_results(out)}
    for records in runs.values():
        assert {d: records[d].verdict for d in QUICK} == {d: _expected(d) for d in QUICK}
        hung = records[HANGS]
        assert (hung.verdict, hung.reason) == ("unknown", "killed at hard limit 1 s")
        assert hung.seconds == 1.0
    assert {d: r.verdict for d, r in runs[1].items()} == {d: r.verdict
                                                          for d, r in runs[8].items()}


@needs_proc
def test_a_worker_killed_mid_batch_costs_only_its_deal() -> None:
    tasks = [Task(spec, "search", "search", Options(timeout=60)) for spec in [HANGS, *QUICK]]
    with SandboxPool(1, batch=8) as pool:
        futures = [pool.submit(task, 60.0, None) for task in tasks]
        time.sleep(1.5)  # the worker took the batch and is deep in its first deal
        workers = _sandboxes(os.getpid())
        assert len(workers) == 1
        os.kill(workers[0], signal.SIGKILL)
        records = [future.result(timeout=60) for future in futures]
    assert (records[0].verdict, records[0].reason) == ("unknown", "worker died (signal 9)")
    assert [r.verdict for r in records[1:]] == [_expected(d) for d in QUICK]


@needs_proc
def test_workers_killed_before_they_take_a_task_lose_no_task() -> None:
    """Each fresh worker is killed as soon as it shows, three times over: the tasks
    queued behind it go to the next worker; only a task a worker had begun may be
    charged with its death, and none comes back as a pool failure."""
    tasks = [Task(spec, "search", "search", Options(timeout=20)) for spec in QUICK]
    kills = 0
    with SandboxPool(1, batch=2) as pool:
        futures = [pool.submit(task, 25.0, None) for task in tasks]
        seen: set[int] = set()
        deadline = time.monotonic() + 30
        while kills < 3 and time.monotonic() < deadline:
            for pid in set(_sandboxes(os.getpid())) - seen:
                seen.add(pid)
                os.kill(pid, signal.SIGKILL)
                kills += 1
        records = [future.result(timeout=60) for future in futures]
    assert kills == 3
    died = [r for r in records if r.verdict == "unknown"]
    assert all(r.reason.startswith("worker died") for r in died)  # none lost by the pool
    assert len(died) <= kills
    assert all(r.verdict == _expected(r.deal) for r in records if r not in died)


# ---------------------------------------------------------------- results files


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return blackhole(*args, cwd=cwd, timeout=120)


@pytest.mark.parametrize("tail", ["cut", "whole"])
def test_resume_repairs_a_last_line_a_kill_left(tmp_path: Path, tail: str) -> None:
    """A line cut short is dropped and its deal run again; a whole line that lost only
    its newline is kept, and the next line does not run into it."""
    out = tmp_path / "r.jsonl"
    run_bench("pysol:1,pysol:5", ["search"], out_path=out, jobs=1)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(lines[0] + (lines[1][:40] if tail == "cut" else lines[1].rstrip(b"\n")))
    again = run_bench("pysol:1,pysol:5,pysol:6", ["search"], out_path=out, jobs=1,
                      resume=True)
    assert again.written == (2 if tail == "cut" else 1)
    assert _lines(out) == {"pysol:1": 1, "pysol:5": 1, "pysol:6": 1}
    assert {r.deal: r.verdict for r in read_results(out)} == {
        d: _expected(d) for d in ("pysol:1", "pysol:5", "pysol:6")}


def test_a_corrupted_line_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_bench("pysol:1,pysol:5", ["search"], out_path=out, jobs=1)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(lines[0][:30] + b"\n" + lines[1])  # cut in the middle of the file
    before = out.read_bytes()
    refused = blackhole("bench", "pysol:1,pysol:5,pysol:6", "--backends", "search", "--out",
                        str(out), "--resume", cwd=tmp_path, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and f"{out}:1: invalid JSON" in refused.stderr
    assert out.read_bytes() == before  # nothing read past it, nothing written


# ---------------------------------------------------------------- kills at random moments


def _count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _after_lines(out: Path, more: int, client: subprocess.Popen) -> None:
    """Wait until `more` lines were added to `out` (or the run ended)."""
    target = _count(out) + more
    deadline = time.monotonic() + 120
    while _count(out) < target and client.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def _bench_killed(args: list[str], out: Path, rng: random.Random, kill_worker) -> None:
    """Start the run (resuming); kill one worker after a random number of new lines, then
    the client after a random number more (at most 600 lines a round in all)."""
    client = subprocess.Popen(command(*args, "--out", str(out), "--resume", "--json"),
                              env=child_env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _after_lines(out, rng.randint(20, 300), client)
        if client.poll() is None:
            kill_worker(client.pid)
        _after_lines(out, rng.randint(20, 300), client)
        if client.poll() is None:
            client.send_signal(signal.SIGKILL)
    finally:
        client.wait()
        try:
            os.killpg(client.pid, signal.SIGKILL)  # sandboxes end with it; make sure
        except ProcessLookupError:
            pass


def _killed_four_times_then_finished(args: list[str], out: Path, rng: random.Random,
                                     kill_worker, pause: float = 0) -> None:
    """Four rounds of kills, each resumed; then the run is let finish, and every deal of
    pysol:1-3000 must have exactly one line."""
    for _ in range(4):
        _bench_killed(args, out, rng, kill_worker)
        time.sleep(pause)
    assert len(_lines(out)) < 3000  # the kills came while deals were left
    finish = blackhole(*args, "--out", str(out), "--resume", "--json", timeout=900)
    assert finish.returncode == 0, finish.stderr
    _check_every_deal_once(out, 3000)


def _check_every_deal_once(out: Path, deals: int) -> None:
    lines = _lines(out)
    assert set(lines) == {f"pysol:{n}" for n in range(1, deals + 1)}
    assert set(lines.values()) == {1}  # none lost, none repeated
    records = read_results(out)
    unknown = [(r.deal, r.reason) for r in records if r.verdict == "unknown"]
    assert len(unknown) <= 4, unknown  # at most one per kill
    for record in records:
        number = int(record.deal.split(":")[1])
        if record.verdict != "unknown" and number <= 1000:  # a killed deal may be unknown
            assert record.verdict == _expected(record.deal), record.deal


@pytest.mark.slow
@needs_proc
def test_pool_runs_killed_at_random_moments_lose_and_repeat_nothing(tmp_path: Path) -> None:
    rng = random.Random(23)
    out = tmp_path / "r.jsonl"
    args = ["bench", "pysol:1-3000", "--backends", "auto", "--jobs", "2", "--timeout", "20"]

    def kill_worker(client: int) -> None:
        workers = _sandboxes(client)
        if workers:
            os.kill(rng.choice(workers), signal.SIGKILL)

    _killed_four_times_then_finished(args, out, rng, kill_worker)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def _local_dask(folder: Path, threads: int) -> Iterator[tuple[str, subprocess.Popen]]:
    """A scheduler and one nanny-run worker: (address, nanny)."""
    pytest.importorskip("distributed")
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    if dask is None:
        pytest.skip("no dask command next to this Python")
    address = f"tcp://127.0.0.1:{_free_port()}"
    common = {"env": child_env(), "cwd": folder, "start_new_session": True,
              "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port",
                                  address.rsplit(":", 1)[1], "--no-dashboard"], **common)
    # a nanny restarts its worker when the worker is killed
    nanny = subprocess.Popen([dask, "worker", address, "--nthreads", str(threads),
                              "--nworkers", "1", "--no-dashboard", "--local-directory",
                              str(folder)], **common)
    try:
        deadline = time.monotonic() + 60
        while not children(nanny.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        yield address, nanny
    finally:
        for process in (nanny, scheduler):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.mark.slow
@needs_proc
def test_dask_runs_killed_at_random_moments_lose_and_repeat_nothing(tmp_path: Path) -> None:
    rng = random.Random(19)
    out = tmp_path / "r.jsonl"
    with _local_dask(tmp_path, 2) as (address, nanny):
        args = ["bench", "pysol:1-3000", "--backends", "auto", "--timeout", "20", "--dask",
                address, "--chunk", "8"]

        def kill_worker(client: int) -> None:
            workers = [pid for pid in children(nanny.pid)  # the Dask worker, not helpers
                       if not any(word in Path(f"/proc/{pid}/cmdline").read_bytes()
                                  for word in (b"resource_tracker", b"forkserver"))]
            if workers:
                os.kill(rng.choice(workers), signal.SIGKILL)

        # the pause lets the nanny start a fresh worker
        _killed_four_times_then_finished(args, out, rng, kill_worker, pause=3)


@pytest.mark.slow
@needs_proc
def test_two_runs_share_one_dask_cluster(tmp_path: Path) -> None:
    """A second run on a cluster leaves the first run's sandboxes alone."""
    with _local_dask(tmp_path, 2) as (address, _):
        runs = [subprocess.Popen(command("bench", spec, "--backends", "auto", "--dask", address,
                                         "--chunk", "8", "--out",
                                         str(tmp_path / f"{name}.jsonl"), "--json"),
                                 env=child_env(), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
                for name, spec in (("a", "pysol:1-1000"), ("b", "pysol:1001-2000"))]
        for run in runs:
            assert run.wait(timeout=900) == 0, run.stderr.read()
    a, b = read_results(tmp_path / "a.jsonl"), read_results(tmp_path / "b.jsonl")
    assert len(a) == len(b) == 1000
    assert not [r for r in a + b if r.verdict not in ("solved", "unsolvable")]
    assert {r.deal: r.verdict for r in a} == {r.deal: _expected(r.deal) for r in a}
