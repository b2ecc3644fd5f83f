"""Bench: real runs in sandboxed workers, resume, hard limits, checks before any task,
Dask. The report's own tests are in test_report.py."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from blackhole.backends import Options
from blackhole.base.errors import InputError
from blackhole.bench import read_results, run_bench
from blackhole.bench.report import summarize

from .helpers import (
    EXAMPLES,
    GOLF_GAMES,
    ROOT,
    blackhole,
    child_env,
    cli,
    golf_reference,
    reference,
    results_line,
)

# Deals the search referee settles in a few milliseconds, unsolvable and solvable ones.
QUICK = ["pysol:1", "pysol:5", "pysol:6", "pysol:25", "pysol:27", "pysol:29", "pysol:34"]
HARD = "pysol:837"  # unsolvable; the referee needs far more than a minute and ~1 GB


def _pairs(path: Path) -> Counter[tuple[str, str]]:
    return Counter((r.deal, r.backend) for r in read_results(path))


# ---------------------------------------------------------------- running


def test_results_match_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    events = []
    summary = run_bench(QUICK, ["search"], Options(timeout=20), out_path=out, jobs=2,
                        progress=events.append)
    assert summary.written == len(QUICK) and summary.skipped == 0
    assert events[0].record is None and events[0].total == len(QUICK)
    assert [e.done for e in events[1:]] == list(range(1, len(QUICK) + 1))
    for record in read_results(out):
        number = int(record.deal.split(":")[1])
        assert record.verdict == reference()[number]["verdict"]
        assert record.backend == "search" and record.solver == "dfs"
        assert record.peak_mb > 0 and record.wall >= record.seconds
        assert (len(record.moves) == 51) == (record.verdict == "solved")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux /proc only")
def test_each_task_gets_its_own_peak_memory() -> None:
    """A worker reads /proc once a task: a task after a large one that freed its memory
    gets its own, small peak, and one that keeps memory held sees it."""
    from blackhole.bench.worker import _Memory

    memory, size = _Memory(), 200 * 2**20
    memory.before()
    held = b"x" * size  # written, so resident
    large = memory.after()
    del held  # given back to the system between the tasks
    memory.before()
    small = memory.after()
    assert large - small >= 150, (large, small)
    memory.before()
    held = b"y" * size
    memory.after()
    memory.before()
    still = memory.after()  # nothing freed: the held memory is this task's too
    assert still - small >= 150, (still, small)
    del held


def test_existing_results_need_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_bench("pysol:1", ["search"], out_path=out, jobs=1)
    with pytest.raises(InputError, match="--resume"):
        run_bench("pysol:1", ["search"], out_path=out, jobs=1)
    assert run_bench("pysol:1,pysol:5", ["search"], out_path=out, jobs=1,
                     resume=True).written == 1
    assert _pairs(out) == {("pysol:1", "search"): 1, ("pysol:5", "search"): 1}


def test_bad_specs_and_backends_fail_before_running(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with pytest.raises(InputError, match="no such deal file"):
        run_bench(str(tmp_path / "missing.board"), ["search"], out_path=out)
    with pytest.raises(InputError, match="unknown backend"):
        run_bench("pysol:1", ["nope"], out_path=out)
    with pytest.raises(InputError, match="no :VARIANT"):
        run_bench("pysol:1", ["search:x"], out_path=out)
    assert not out.exists()


def test_resume_after_a_killed_run_loses_and_repeats_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    specs = "pysol:1-24"
    script = ("from blackhole.bench import run_bench; from blackhole.backends import Options; "
              f"run_bench({specs!r}, ['search'], Options(timeout=0.4), out_path={str(out)!r}, "
              "jobs=2)")
    child = subprocess.Popen([sys.executable, "-c", script], env=child_env())
    try:
        deadline = time.monotonic() + 60
        while (not out.exists() or out.read_bytes().count(b"\n") < 4) \
                and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
        assert child.poll() is None, "the run ended before it could be killed"
        child.send_signal(signal.SIGKILL)  # as hard an interruption as there is
    finally:
        child.wait()
    before = out.read_bytes()
    first = _pairs(out)
    assert 4 <= sum(first.values()) < 24 and max(first.values()) == 1
    summary = run_bench(specs, ["search"], Options(timeout=0.4), out_path=out, jobs=2,
                        resume=True)
    assert out.read_bytes().startswith(before)  # nothing written earlier was touched
    assert summary.skipped == sum(first.values())
    assert summary.written == 24 - summary.skipped
    pairs = _pairs(out)
    assert set(pairs) == {(f"pysol:{n}", "search") for n in range(1, 25)}
    assert set(pairs.values()) == {1}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_workers_end_with_a_killed_run_even_mid_solve(tmp_path: Path) -> None:
    script = ("from blackhole.bench import run_bench; from blackhole.backends import Options; "
              f"run_bench([{HARD!r}], ['search'], Options(timeout=120), "
              f"out_path={str(tmp_path / 'r.jsonl')!r}, jobs=1)")
    child = subprocess.Popen([sys.executable, "-c", script], env=child_env())
    try:
        deadline = time.monotonic() + 30
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline:  # forkserver and worker
            time.sleep(0.2)
            workers = _descendants(child.pid)
        time.sleep(1.0)  # the worker is deep in the referee's search now
        assert child.poll() is None and len(workers) >= 2
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
    deadline = time.monotonic() + 10
    while [pid for pid in workers if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]


def test_a_task_past_its_hard_limit_is_killed_and_the_run_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    began = time.monotonic()
    summary = run_bench([HARD, "pysol:1", "pysol:5"], ["search"], Options(timeout=120),
                        out_path=out, jobs=1, hard_limit=1.0)
    assert time.monotonic() - began < 60  # not the 120 s the hard deal would run
    assert summary.written == 3
    records = {r.deal: r for r in read_results(out)}
    killed = records[HARD]
    assert killed.verdict == "unknown"
    assert killed.reason == "killed at hard limit 1 s"
    assert 1.0 <= killed.seconds < 30  # the kill may land late on a busy machine
    assert records["pysol:1"].verdict == "unsolvable"  # a fresh worker took over
    assert records["pysol:5"].verdict == "solved"


def test_a_memory_blow_up_is_an_unknown_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_bench([HARD, "pysol:1"], ["search"], Options(timeout=120), out_path=out, jobs=1,
              memory_mb=100, hard_limit=60)  # the referee needs about 1 GB for HARD
    records = {r.deal: r for r in read_results(out)}
    assert records[HARD].verdict == "unknown"
    assert records[HARD].reason == "memory limit"
    assert records["pysol:1"].verdict == "unsolvable"


_UNDER_A_HARD_LIMIT = """
import mmap, resource
from blackhole.bench import worker
before = worker._address_space_peak()
limit = (before + 300 * 1024) * 1024  # bytes: 300 MB above the peak so far
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
assert worker._cap_bytes(4096) == limit, worker._cap_bytes(4096)
held = mmap.mmap(-1, 290 * 2**20)  # address space only: nothing is written
print(worker._ran_into_cap(4096, before))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux /proc only")
def test_the_memory_limit_is_the_hard_limit_where_that_is_lower() -> None:
    """A worker started under a hard address-space limit below --memory-mb runs its
    tasks under that limit, and an error raised at it is the memory limit too."""
    done = subprocess.run([sys.executable, "-c", _UNDER_A_HARD_LIMIT], capture_output=True,
                          text=True, env=child_env(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def _process_parents() -> dict[int, tuple[int, bytes]]:
    """pid → (parent pid, command line) of every process."""
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        table[int(stat.parent.name)] = (int(fields[1]), command)
    return table


def _descendants(pid: int) -> list[int]:
    table = _process_parents()
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, (pp, _) in table.items() if pp == parent]
        found += children
        frontier += children
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sandboxes() -> list[int]:
    """The worker processes of this test process's pools: children of the forkserver
    this process started (the forkserver forks every worker)."""
    table = _process_parents()
    servers = {pid for pid, (parent, command) in table.items()
               if parent == os.getpid() and b"forkserver" in command}
    return [pid for pid, (parent, _) in table.items() if parent in servers]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_worker_killed_from_outside_is_recorded_and_replaced(tmp_path: Path) -> None:
    """As the kernel's OOM killer would: SIGKILL the worker in the middle of a solve."""
    out = tmp_path / "r.jsonl"

    def kill_the_worker() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not out.exists():
            time.sleep(0.05)
        time.sleep(3)  # well inside the solve: a worker killed before it takes its task
        # breaks pebble's whole pool instead (a loaded machine starts workers slowly)
        for pid in _sandboxes():
            os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_the_worker)
    killer.start()
    try:
        run_bench([HARD, "pysol:1"], ["search"], Options(timeout=120), out_path=out, jobs=1,
                  hard_limit=120)
    finally:
        killer.join()
    records = {r.deal: r for r in read_results(out)}
    assert records[HARD].verdict == "unknown"
    assert records[HARD].reason == "worker died (signal 9)"
    assert records[HARD].seconds < 60  # our kill ended it, not a limit
    assert records["pysol:1"].verdict == "unsolvable"


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_solver_backends_agree_with_the_referee(tmp_path: Path, backend: str) -> None:
    out = tmp_path / "r.jsonl"
    run_bench(QUICK[:4], [backend, "search"], Options(timeout=60), out_path=out, jobs=2)
    report = summarize(read_results(out))
    assert not report.disagreements and not report.errors
    assert {b.backend: b.solved + b.unsolvable for b in report.backends} == {
        backend: 4, "search": 4}
    engine = {"sat": "glucose4", "cpsat": "cp-sat:inverse"}[backend]
    assert {b.backend: b.engines for b in report.backends} == {backend: {engine: 4},
                                                               "search": {"dfs": 4}}


# ---------------------------------------------------------------- report figures


def test_a_cut_last_line_is_dropped_on_resume_only(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    whole = results_line("pysol:1", "search", "unsolvable", 0.1)
    path.write_text(whole + '{"deal": "pysol:5", "back')
    with pytest.raises(InputError, match=":2: invalid JSON"):
        read_results(path)
    run_bench("pysol:1,pysol:5", ["search"], out_path=path, jobs=1, resume=True)
    assert path.read_text().startswith(whole)
    assert set(_pairs(path).values()) == {1} and len(_pairs(path)) == 2


# ---------------------------------------------------------------- Dask


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # its own group: it and its children
            process.wait()


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory):
    distributed = pytest.importorskip("distributed")
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("no dask command next to this Python")
    folder = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{_free_port()}"
    common = {"env": child_env(), "cwd": folder, "start_new_session": True,
              "stdout": subprocess.DEVNULL, "stderr": (folder / "log").open("w")}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port",
                                  address.rsplit(":", 1)[1], "--no-dashboard"], **common)
    worker = None
    try:
        worker = subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers",
                                   "1", "--no-dashboard", "--local-directory", str(folder)],
                                  **common)
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        if worker is not None:
            _stop(worker)
        _stop(scheduler)


def test_dask_gives_the_local_verdicts_and_keeps_the_hard_limit(
        dask_cluster: str, tmp_path: Path) -> None:
    specs = [*QUICK, "pysol:2", "pysol:4"]
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    options = Options(timeout=30)
    run_bench(specs, ["search"], options, out_path=local, jobs=2)
    # chunks of 4: the deal killed at its limit shares its chunk with deals after it
    summary = run_bench([*specs[:6], HARD, *specs[6:]], ["search"], options,
                        out_path=remote, dask=dask_cluster, hard_limit=1.0, chunk=4)
    assert summary.written == len(specs) + 1 and summary.slots == 1
    verdicts = {r.deal: r.verdict for r in read_results(local)}
    remote_records = {r.deal: r for r in read_results(remote)}
    assert {d: remote_records[d].verdict for d in specs} == verdicts
    assert remote_records[HARD].verdict == "unknown"
    assert remote_records[HARD].reason == "killed at hard limit 1 s"
    # resumable on the client side, as locally
    again = run_bench([*specs, HARD], ["search"], options, out_path=remote,
                      dask=dask_cluster, resume=True)
    assert [r.deal for r in read_results(remote)][4:8] == [*specs[4:6], HARD, specs[6]]
    assert (again.written, again.skipped) == (0, len(specs) + 1)


def test_dask_settles_the_golf_family_as_black_hole_solve_does(dask_cluster: str,
                                                                tmp_path: Path) -> None:
    """The atlas's Golf runs through Dask: verdicts of each game equal the C solver's,
    the best scores of golf's lost deals equal the library's, and a rerun resumes."""
    from blackhole.questions.best import best_score

    remote = tmp_path / "golf.jsonl"
    specs = [f"pysol:1-20:{game}" for game in GOLF_GAMES]
    summary = run_bench(specs, ["auto"], Options(timeout=30), out_path=remote,
                        dask=dask_cluster)
    records = read_results(remote)
    assert summary.written == len(records) == 20 * len(GOLF_GAMES)
    expected = golf_reference()
    for record in records:
        _, number, game = record.deal.split(":")
        assert record.verdict == expected[int(number), game]["verdict"], record.deal
    lost = [r.deal for r in records if r.deal.endswith(":golf") and r.verdict == "unsolvable"]
    assert len(lost) >= 5
    best = tmp_path / "best.jsonl"
    run_bench(lost, ["auto"], Options(timeout=30), out_path=best, dask=dask_cluster,
              task="best")
    scores = {r.deal: (r.best, r.proven) for r in read_results(best)}
    assert scores == {deal: (best_score(deal).best, True) for deal in lost}
    again = run_bench(specs, ["auto"], Options(timeout=30), out_path=remote,
                      dask=dask_cluster, resume=True)
    assert (again.written, again.skipped) == (0, 20 * len(GOLF_GAMES))


# ---------------------------------------------------------------- the commands


def test_bench_command_runs_and_reports(tmp_path: Path) -> None:
    out, plots = tmp_path / "r.jsonl", tmp_path / "plots"
    result = cli("bench", "pysol:1,pysol:5,pysol:25", "--backends", "search", "--timeout",
                 "10", "--jobs", "2", "--out", str(out), "--plots", str(plots), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["run"]["written"] == 3 and data["run"]["skipped"] == 0
    (search,) = data["backends"]
    assert (search["backend"], search["solved"], search["unsolvable"]) == ("search", 1, 2)
    assert {Path(p).name for p in data["plots"]} == {"cactus.png", "cactus.svg"}
    again = cli("bench", "pysol:1,pysol:5,pysol:25", "--backends", "search", "--out",
                str(out), "--resume")
    assert again.exit_code == 0 and "0 results written" in again.stdout
    assert "search" in again.stdout and "86.94% (outside)" in again.stdout  # 1 of 3
    refused = cli("bench", "pysol:1", "--backends", "search", "--out", str(out))
    assert refused.exit_code == 2 and "--resume" in refused.stderr


def test_bench_passes_cpsat_workers_to_each_solve(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = cli("bench", "pysol:1,pysol:2", "--backends", "cpsat,sat", "--jobs", "1",
                 "--workers", "2", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["verdict"] for r in records if r["deal"] == "pysol:2"} == {"solved"}
    assert {r["verdict"] for r in records if r["deal"] == "pysol:1"} == {"unsolvable"}
    assert [r["stats"]["workers"] for r in records if r["backend"] == "cpsat"] == [2, 2]
    assert {(r["backend"], r["solver"]) for r in records} == {("cpsat", "cp-sat:inverse"),
                                                              ("sat", "glucose4")}


def test_a_bench_with_no_backends_compares_sat_with_cpsat(tmp_path: Path) -> None:
    """Each runs its own engine, so the two rows differ: not the look twice. There is no
    --no-look any more: nothing runs the look unless asked to (look, auto)."""
    out = tmp_path / "r.jsonl"
    result = cli("bench", "pysol:1-3", "--jobs", "1", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    rows = {b["backend"]: b for b in json.loads(result.stdout)["backends"]}
    assert set(rows) == {"sat", "cpsat"}
    assert rows["sat"]["engines"] == {"glucose4": 3}
    assert rows["cpsat"]["engines"] == {"cp-sat:inverse": 3}
    assert rows["sat"]["fastest"] + rows["cpsat"]["fastest"] == 3
    assert rows["sat"]["total"] != rows["cpsat"]["total"]
    refused = cli("bench", "pysol:1", "--no-look", "--out", str(tmp_path / "x.jsonl"))
    assert refused.exit_code == 2 and "--no-look" in refused.stderr


@pytest.mark.parametrize("spec", ["pysol:x", "pysol:0", "random:q", "pysol:3:klondike"])
def test_a_malformed_spec_is_refused_before_any_task(tmp_path: Path, spec: str) -> None:
    out = tmp_path / "r.jsonl"
    result = cli("bench", f"pysol:1,{spec}", "--backends", "sat", "--out", str(out))
    assert result.exit_code == 2
    assert spec in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(("backends", "named"), [("sat:nosuch", "nosuch"),
                                                 ("cpsat:lattice", "lattice")])
def test_a_bad_backend_variant_is_refused_before_any_task(tmp_path: Path, backends: str,
                                                          named: str) -> None:
    out = tmp_path / "r.jsonl"
    result = cli("bench", "pysol:1-2", "--backends", backends, "--out", str(out))
    assert result.exit_code == 2 and named in result.stderr
    assert not out.exists()


def test_a_folder_holding_a_file_that_is_no_deal_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "deals"
    folder.mkdir()
    (folder / "a.board").write_text((EXAMPLES / "pysol-2.board").read_text())
    (folder / "b.json").write_text('{"moves": []}')
    out = tmp_path / "r.jsonl"
    result = cli("bench", str(folder), "--backends", "sat", "--out", str(out))
    assert result.exit_code == 2 and "b.json:1:" in result.stderr
    assert not out.exists()


# ---------------------------------------------------------------- portable, checked results


def _deal_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "dd"
    folder.mkdir()
    for name in ("pysol-1.board", "pysol-2.board", "pysol-25.board"):
        (folder / name).write_text((EXAMPLES / name).read_text())
    return folder


def test_results_of_file_deals_replay_from_another_folder(tmp_path: Path) -> None:
    _deal_folder(tmp_path)
    ran = blackhole("bench", "dd", "--backends", "sat", "--jobs", "1", "--out", "rel.jsonl",
                    "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    report = blackhole("report", "../rel.jsonl", "--json", cwd=elsewhere)
    assert report.returncode == 0, report.stdout + report.stderr
    data = json.loads(report.stdout)
    (sat,) = data["backends"]
    assert data["errors"] == [] and (sat["solved"], sat["unsolvable"]) == (1, 2)
    records = read_results(tmp_path / "rel.jsonl")
    assert {r.deal for r in records} == {f"dd/pysol-{n}.board" for n in (1, 2, 25)}
    assert all(r.board["fans"] for r in records)
    shutil.rmtree(tmp_path / "dd")  # the deals themselves gone: the lines still replay
    again = blackhole("report", "../rel.jsonl", cwd=elsewhere)
    assert again.returncode == 0, again.stdout


def test_resume_refuses_a_deal_file_that_changed(tmp_path: Path) -> None:
    deal = tmp_path / "d.board"
    deal.write_text((EXAMPLES / "pysol-1.board").read_text())
    out = tmp_path / "r.jsonl"
    run_bench(str(deal), ["search"], out_path=out, jobs=1)
    deal.write_text((EXAMPLES / "pysol-25.board").read_text())
    with pytest.raises(InputError, match="holds another deal under this name"):
        run_bench(str(deal), ["search"], out_path=out, jobs=1, resume=True)


def test_retry_unknown_reruns_only_the_unknown_lines(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    specs = ["pysol:1", "pysol:5", "pysol:2"]  # pysol:2 takes the referee ~0.1-0.5 s
    run_bench(specs, ["search"], Options(timeout=20), out_path=out, jobs=1)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    for line in lines:
        if line["deal"] != "pysol:1":
            line.update(verdict="unknown", moves=[], reason="backend limit reached")
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    plain = run_bench(specs, ["search"], Options(timeout=20), out_path=out, jobs=1,
                      resume=True)
    assert (plain.written, plain.skipped) == (0, 3)
    retried = run_bench(specs, ["search"], Options(timeout=20), out_path=out, jobs=1,
                        resume=True, retry_unknown=True)
    assert (retried.written, retried.skipped) == (2, 1)
    records = read_results(out)
    assert [r.deal for r in records[3:]] == ["pysol:5", "pysol:2"]
    (search,) = summarize(records).backends  # the last line of each deal counts
    assert (search.tasks, search.solved, search.unsolvable) == (3, 2, 1)
    assert {d.deal: d.verdict for d in search.slowest} == {
        "pysol:1": "unsolvable", "pysol:5": "solved", "pysol:2": "solved"}


def test_solver_cmd_is_checked_before_any_task(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    missing = cli("bench", "pysol:1-3", "--backends", "external", "--solver-cmd",
                  "no-such-solver -q", "--out", str(out))
    assert missing.exit_code == 2 and "solver command not found" in missing.stderr
    assert "no-such-solver" in missing.stderr and not out.exists()
    stray = cli("bench", "pysol:1", "--backends", "sat", "--solver-cmd", "kissat",
                "--out", str(out))
    assert stray.exit_code == 2 and "--solver-cmd: does not apply" in stray.stderr
    proof = cli("bench", "pysol:1", "--backends", "search", "--proof-arg", "{proof}",
                "--out", str(out))
    assert proof.exit_code == 2 and "--proof-arg: does not apply" in proof.stderr
    assert not out.exists()


def test_solver_cmd_reaches_the_external_backend(tmp_path: Path) -> None:
    """A fake solver that answers SAT with a model that is no solution: the rules engine
    refuses it in the worker, so the line is an error naming the command."""
    fake = tmp_path / "fake-solver"
    fake.write_text(f"#!{sys.executable}\nprint('s SATISFIABLE')\nprint('v 1 0')\n"
                    "raise SystemExit(10)\n")
    fake.chmod(0o755)
    out = tmp_path / "r.jsonl"
    result = cli("bench", "pysol:2", "--backends", "external", "--solver-cmd", str(fake),
                 "--jobs", "1", "--out", str(out), "--json")
    assert result.exit_code == 4
    (record,) = read_results(out)
    assert record.verdict == "error" and record.backend == "external"


@pytest.mark.parametrize(("address", "says"), [
    ("garbage", "not a Dask address"),
    ("http://x:1", "not a Dask address"),
    ("tcp://127.0.0.1:notaport", "not a Dask address"),
])
def test_a_bad_dask_address_is_oneresults_line(tmp_path: Path, address: str, says: str) -> None:
    done = blackhole("bench", "pysol:1", "--dask", address, "--out", "r.jsonl", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr and "--dask" in done.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_an_unreachable_scheduler_is_oneresults_line(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    done = blackhole("bench", "pysol:1", "--dask", address, "--out", "r.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cannot reach the Dask scheduler" in done.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_retry_unknown_and_chunk_need_their_companions(tmp_path: Path) -> None:
    out = str(tmp_path / "r.jsonl")
    alone = cli("bench", "pysol:1", "--retry-unknown", "--out", out)
    assert alone.exit_code == 2 and "add --resume" in alone.stderr
    chunk = cli("bench", "pysol:1", "--chunk", "4", "--out", out)
    assert chunk.exit_code == 2 and "add --dask" in chunk.stderr


# ---------------------------------------------------------------- best-score lines


# ---------------------------------------------------------------- the best-score task


def test_best_task_compares_backends_on_the_best_score(tmp_path: Path) -> None:
    with (ROOT / "tests" / "data" / "pysol-1-1000-best.csv").open(newline="") as handle:
        exact = {int(row["deal"]): int(row["best"]) for row in csv.DictReader(handle)}
    out = tmp_path / "best.jsonl"
    deals = ["pysol:1", "pysol:25", "pysol:27", "pysol:2"]  # bests 3, 2, 0 and a win
    summary = run_bench(deals, ["sat", "search"], Options(timeout=60), out_path=out, jobs=2,
                        task="best")
    assert summary.written == 8
    records = read_results(out)
    report = summarize(records)
    assert report.consistent, (report.errors, report.disagreements)
    scores = {r.deal: r.best for r in records if r.backend == "search"}
    assert scores == {r.deal: r.best for r in records if r.backend == "sat"}
    assert scores["pysol:2"] == 51 and all(r.proven for r in records)
    assert {(r.backend, r.solver) for r in records} == {("sat", "glucose3"),
                                                        ("search", "dfs")}
    for n in (1, 25, 27):  # the independent exact search's scores
        assert scores[f"pysol:{n}"] == exact[n]
    assert report.best.histogram[51] == 1 and report.best.deals == 4
    assert [b.task for b in report.backends] == ["best", "best"]


def test_best_task_refuses_a_backend_that_finds_no_best(tmp_path: Path) -> None:
    result = cli("bench", "pysol:1", "--task", "best", "--backends", "external",
                 "--out", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2 and "finds no best score" in result.stderr
    unknown = cli("bench", "pysol:1", "--task", "guess", "--out", str(tmp_path / "r.jsonl"))
    assert unknown.exit_code == 2 and "--task: unknown task" in unknown.stderr


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_worker_killed_before_its_first_task_loses_no_task() -> None:
    """Pebble gives up its whole pool when a worker dies holding no task: the queued
    tasks go to a fresh pool instead of being lost."""
    from blackhole.bench.plan import Task
    from blackhole.bench.pool import SandboxPool

    options = Options(timeout=20)
    tasks = [Task(spec, "search", "search", options) for spec in ("pysol:1", "pysol:5",
                                                                  "pysol:25")]
    with SandboxPool(1) as pool:
        futures = [pool.submit(task, 25.0, None) for task in tasks]
        deadline = time.monotonic() + 20
        while not (workers := _sandboxes()) and time.monotonic() < deadline:
            time.sleep(0.001)
        for pid in workers:  # caught while it starts, as early as can be
            os.kill(pid, signal.SIGKILL)
        records = [future.result(timeout=60) for future in futures]
    reasons = [r.reason for r in records if r.verdict == "unknown"]
    assert not [r for r in reasons if not r.startswith("worker died")]  # none lost
    assert len(reasons) <= 1  # only a task the worker had taken may go with it
    assert [r.verdict for r in records][1:] == ["solved", "unsolvable"]


_ENVIRONMENT_OF_A_SANDBOX = """
import os
from pathlib import Path
from blackhole.backends import Options
from blackhole.bench.plan import Task
from blackhole.bench.pool import SandboxPool

def parent(pid):
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

with SandboxPool(1) as pool:
    task = Task("pysol:1", "search", "search", Options(timeout=20))
    assert pool.submit(task, 25.0, None).result(timeout=60).verdict == "unsolvable"
    pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    sandboxes = []
    for pid in pids:
        try:
            if parent(parent(pid)) == os.getpid():
                sandboxes.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    assert sandboxes
    for pid in sandboxes:
        print(Path(f"/proc/{pid}/environ").read_bytes().split(b"\\0").__repr__())
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sandboxes_keep_the_default_allocator_under_a_dask_nanny() -> None:
    """Dask's nanny gives its worker MALLOC_TRIM_THRESHOLD_=65536, which slowed the
    solves by a third when the sandboxes inherited it: the pool's workers must not."""
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536", "BLACKHOLE_MARKER": "x"}
    done = subprocess.run([sys.executable, "-c", _ENVIRONMENT_OF_A_SANDBOX], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "BLACKHOLE_MARKER=x" in done.stdout  # the sandbox's environment was read
    assert "MALLOC_TRIM_THRESHOLD_" not in done.stdout
