"""A bench run on a local Dask cluster, hit by faults at random moments, resumed each time.

    python benchmarks/atlas_faults.py SPEC OUT [--kills K] [--seed S] [--nice N] [--backends B]

Starts a scheduler and one nanny-run worker (two threads) on this machine, then runs
`blackhole bench SPEC --backends auto --dask ADDRESS --out OUT --resume`. After a
random number of new lines it kills, in turn, a worker process (SIGKILL: its nanny
starts a new one and the run goes on) and the client (SIGKILL of the whole bench
process group: the run is started again with `--resume`), K times each. Then it lets
the run finish and checks the file: every deal of SPEC has exactly one line, none lost,
none repeated. Every fault and its moment go to OUT.faults.log. Exit 0 when the check
holds, 1 when it does not.

The same check at a smaller size is tests/test_bench_faults.py (under -m slow).
"""

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
from pathlib import Path

from blackhole.base.errors import InputError
from blackhole.model.sources import expand_specs


def free_port() -> int:
    with socket.socket() as handle:
        handle.bind(("127.0.0.1", 0))
        return handle.getsockname()[1]


class Lines:
    """The lines of a growing results file, counted from where the last count stopped
    (counting a million-line file afresh every two seconds would cost the run a core).
    A file that shrank (resume drops a cut last line) is counted again from the start."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.count = path, 0, 0

    def __call__(self) -> int:
        if not self.path.exists():
            return 0
        with self.path.open("rb") as handle:
            if handle.seek(0, os.SEEK_END) < self.offset:
                self.offset = self.count = 0
            handle.seek(self.offset)
            while chunk := handle.read(1 << 22):
                self.count += chunk.count(b"\n")
                self.offset += len(chunk)
        return self.count


def tool(name: str) -> str:
    """The path of a command this environment installs (`dask`, `blackhole`)."""
    return shutil.which(name) or str(Path(sys.executable).with_name(name))


def start_cluster(nice: list[str] | None = None, worker_env: dict[str, str] | None = None,
                  scheduler_env: dict[str, str] | None = None
                  ) -> tuple[str, list[subprocess.Popen]]:
    """A local Dask scheduler and one nanny-run worker with two threads, each in a
    session of its own (prefixed by `nice`, e.g. ["nice", "-n", "10"]; the worker with
    `worker_env` added to its environment, the scheduler with `scheduler_env`): its
    address, and the processes, scheduler first, for `stop_cluster`."""
    prefix = nice or []
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet: dict = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
                   "start_new_session": True}
    scheduler = subprocess.Popen(prefix + [tool("dask"), "scheduler", "--host", "127.0.0.1",
                                           "--port", str(port), "--no-dashboard"],
                                 env={**os.environ, **(scheduler_env or {})}, **quiet)
    nanny = subprocess.Popen(prefix + [tool("dask"), "worker", address, "--nworkers", "1",
                                       "--nthreads", "2", "--no-dashboard"],
                             env={**os.environ, **(worker_env or {})}, **quiet)
    return address, [scheduler, nanny]


def stop_cluster(processes: list[subprocess.Popen]) -> None:
    """End the cluster's process groups, the worker first, and wait for them."""
    for process in reversed(processes):
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        process.wait()


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def main(argv: list[str]) -> int:
    args = {"--kills": "3", "--seed": "23", "--nice": "10", "--backends": "auto"}
    rest = []
    it = iter(argv[1:])
    for word in it:
        if word in args:
            args[word] = next(it)
        else:
            rest.append(word)
    if len(rest) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec, out = rest[0], Path(rest[1])
    kills, rng = int(args["--kills"]), random.Random(int(args["--seed"]))
    try:
        deals = list(expand_specs(spec))
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    log = out.with_name(out.name + ".faults.log")
    lines = Lines(out)
    blackhole = tool("blackhole")
    nice = ["nice", "-n", args["--nice"]]

    def note(event: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        with log.open("a") as handle:
            handle.write(f"{stamp} lines={lines()} {event}\n")

    address, cluster = start_cluster(nice)
    nanny = cluster[1]
    faults = ["worker", "client"] * kills
    note(f"start {spec} ({len(deals)} deals) on {address}; faults planned: {faults}")
    try:
        while True:
            client = subprocess.Popen(nice + [blackhole, "bench", spec, "--backends",
                                              args["--backends"], "--dask", address, "--out",
                                              str(out), "--resume"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      start_new_session=True)
            note(f"client started (pid {client.pid})")
            while client.poll() is None and faults:
                target = lines() + rng.randint(2_000, 60_000)
                while client.poll() is None and lines() < target:
                    time.sleep(2)
                if client.poll() is not None:
                    break
                fault = faults.pop(0)
                if fault == "worker":
                    # the nanny's children: the Dask worker, not multiprocessing's helpers
                    workers = [pid for pid in children(nanny.pid)
                               if not any(word in Path(f"/proc/{pid}/cmdline").read_bytes()
                                          for word in (b"resource_tracker", b"forkserver"))]
                    if workers:
                        victim = rng.choice(workers)
                        os.kill(victim, signal.SIGKILL)
                        note(f"killed worker process {victim}")
                else:
                    os.killpg(client.pid, signal.SIGKILL)
                    client.wait()
                    note("killed the client")
                    break
            if client.poll() is None:
                client.wait()
            if client.returncode is not None and client.returncode < 0:
                continue  # killed by us: resume
            note(f"client ended with exit {client.returncode}: "
                 f"{client.stderr.read().decode(errors='replace')[-300:]!r}")
            if client.returncode in (0, 1, 3):
                break
            return 1
    finally:
        stop_cluster(cluster)
    seen: Counter[str] = Counter()
    with out.open(encoding="utf-8") as handle:
        for line in handle:
            seen[json.loads(line)["deal"]] += 1
    wanted = set(deals)
    lost = len(wanted - set(seen))
    repeated = sum(1 for count in seen.values() if count > 1)
    extra = len(set(seen) - wanted)
    note(f"check: {len(wanted)} deals, {len(seen)} with a line, lost {lost}, "
         f"repeated {repeated}, foreign {extra}")
    return 0 if lost == repeated == extra == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
