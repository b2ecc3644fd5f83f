"""The same bench run through the local pool and through a local Dask cluster, timed.

    python benchmarks/pool_vs_dask.py SPEC OUTDIR [--rounds N] [--backends B]

For each round it runs, in turn,
  blackhole bench SPEC --backends B --jobs 2 --out OUTDIR/pool-K.jsonl
  blackhole bench SPEC --backends B --dask ADDRESS --out OUTDIR/dask-K.jsonl
the second on a scheduler and one worker process with two threads that it starts on
this machine (and stops at the end), and times each as a whole process. It prints one
Markdown row per run (wall seconds, deals per second, the sandboxes' summed task time,
and the CPU seconds of every process but the sandboxes: the bench command's own, and
for Dask the scheduler's and the Dask worker's) and the ratio of Dask's wall time to the
pool's, both as measured and at equal machine speed (from the CPU each run spends
beside its sandboxes per second of sandbox time: this machine's speed changes by more
than the difference between the two), and checks that
every run gives every deal the same verdict: exit 1 when two runs disagree or a run
failed, else 0. `--profiler-off` starts the Dask worker with its statistical profiler
off (DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False); `--quiet` does that too and
starts the scheduler and the worker with their event-loop check once a second
(DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=1s): the settings docs/bench.md advises.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from blackhole.base.errors import InputError
from blackhole.model.sources import expand_specs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atlas_faults import children, start_cluster, stop_cluster, tool  # noqa: E402


def verdicts(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8") as handle:
        return {row["deal"]: row["verdict"] for row in map(json.loads, handle)}


def sandbox_seconds(path: Path) -> float:
    """The sandboxes' time on the run's tasks: the sum of the lines' `wall`."""
    with path.open(encoding="utf-8") as handle:
        return sum(row.get("wall") or row["seconds"] for row in map(json.loads, handle))


def timed(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, the command's CPU seconds, its exit code."""
    began, used = time.perf_counter(), children_cpu()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1, 3):
        sys.stderr.write(done.stderr.decode(errors="replace")[-500:])
    return time.perf_counter() - began, children_cpu() - used, done.returncode


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu(pid: int) -> float:
    """CPU seconds a live process has used (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cluster_cpu(cluster: list[subprocess.Popen]) -> tuple[float, float]:
    """CPU seconds so far of the scheduler and of the Dask worker (the nanny's child
    that has used the most: the nanny also forks a short-lived helper)."""
    scheduler, nanny = cluster
    return cpu(scheduler.pid), max((cpu(pid) for pid in children(nanny.pid)), default=0.0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--backends", default="auto")
    parser.add_argument("--profiler-off", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    try:
        deals = len(expand_specs(args.spec))
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.outdir.mkdir(parents=True, exist_ok=True)
    blackhole = tool("blackhole")
    profiler_off = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    tick = {"DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s"}
    worker_env = ({**profiler_off, **tick} if args.quiet
                  else profiler_off if args.profiler_off else None)
    address, cluster = start_cluster(worker_env=worker_env,
                                     scheduler_env=tick if args.quiet else None)
    rows, runs, failed = [], [], False
    print("| run | round | wall s | deals/s | sandbox task s | CPU s: bench command | "
          "scheduler | Dask worker | CPU beside the sandboxes per sandbox second |")
    print("|---|---|---|---|---|---|---|---|---|")
    try:
        for round_ in range(1, args.rounds + 1):
            for how, extra in (("pool", ["--jobs", "2"]), ("dask", ["--dask", address])):
                out = args.outdir / f"{how}-{round_}.jsonl"
                out.unlink(missing_ok=True)
                before = cluster_cpu(cluster)
                seconds, used, code = timed([blackhole, "bench", args.spec, "--backends",
                                             args.backends, *extra, "--out", str(out)])
                after = cluster_cpu(cluster)
                failed |= code not in (0, 1, 3)
                sandbox = sandbox_seconds(out)
                beside = used + (sum(after) - sum(before) if how == "dask" else 0.0)
                rows.append((how, round_, seconds, beside / sandbox))
                runs.append(out)
                others = (f"{after[0] - before[0]:.1f} | {after[1] - before[1]:.1f}"
                          if how == "dask" else "— | —")
                print(f"| {how} | {round_} | {seconds:.1f} | {deals / seconds:.1f} | "
                      f"{sandbox:.1f} | {used:.1f} | {others} | {beside / sandbox:.3f} |",
                      flush=True)
    finally:
        stop_cluster(cluster)
    pool = [s for how, _, s, _ in rows if how == "pool"]
    dask_ = [s for how, _, s, _ in rows if how == "dask"]
    print(f"\nDask / pool, wall time: {sum(dask_) / sum(pool):.3f} "
          f"({len(pool)} run(s) each of {deals:,} deals)")
    # With every core busy, a run's wall time goes as its sandbox time plus the CPU
    # spent beside it, and the machine's speed scales both: at equal speed, Dask takes
    # (1 + its share) / (1 + the pool's) of the pool's time.
    share = {how: sum(r[3] for r in rows if r[0] == how) / len(pool) for how in ("pool", "dask")}
    print(f"Dask / pool at equal machine speed: {(1 + share['dask']) / (1 + share['pool']):.3f} "
          f"(CPU beside the sandboxes per sandbox second: pool {share['pool']:.3f}, "
          f"Dask {share['dask']:.3f})")
    first = verdicts(runs[0])
    differ = [run.name for run in runs[1:] if verdicts(run) != first]
    print("verdicts: " + (f"differ in {', '.join(differ)}" if differ else "the same in every run"))
    return 1 if differ or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
