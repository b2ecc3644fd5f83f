"""Memory: a deck whose model would not fit in 1 GiB is refused before anything is built,
and every engine stays within 1 GiB at 52 ranks (real processes, peak RSS from wait4)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from blackhole.backends import REGISTRY, make_backend
from blackhole.base.errors import InputError
from blackhole.model.formats import deal_json
from blackhole.model.sources import random_deal

from .helpers import child_env, command, nearly_sorted_deal

GIB = 2**30


# Runs the command and prints its exit code and peak RSS (KiB). A process forked from
# pytest starts with pytest's pages mapped, and its ru_maxrss counts them (600 MB late in
# the suite); forked from this small process, the command's own peak is what is read.
_MEASURE = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def run_measured(args: list[str], timeout: float) -> tuple[int, str, int]:
    """Run a real process: its exit code, its stderr and its own peak RSS in bytes (read
    by a small parent process, `_MEASURE`)."""
    with tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen([sys.executable, "-c", _MEASURE, *args],
                                   stdout=subprocess.PIPE, stderr=err, text=True,
                                   env=child_env(), start_new_session=True)
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        err.seek(0)
        code, peak_kib = (int(word) for word in out.split())
        return code, err.read(), peak_kib * 1024


@pytest.fixture(scope="module")
def huge_deck(tmp_path_factory) -> Path:
    """A 200-rank deck (799 cards to play) as JSON: 638,401 card-position cells."""
    path = tmp_path_factory.mktemp("huge") / "r200.json"
    path.write_text(json.dumps(deal_json(random_deal(1, ranks=200))))
    return path


def test_every_random_deck_fits_and_a_huge_deck_is_refused_by_every_model() -> None:
    largest_random = random_deal(1, ranks=100).cards_in_fans  # the spec's largest deck
    for name in REGISTRY:
        backend = make_backend(name)
        backend.check_size(largest_random)
        if backend.max_cells is None:  # the look and the referee build no model
            backend.check_size(799)
            continue
        with pytest.raises(InputError, match="799 cards"):
            backend.check_size(799)


@pytest.mark.parametrize("backend", ["sat", "auto"])
def test_a_huge_deck_is_refused_up_front_by_a_real_process(backend, huge_deck) -> None:
    code, err, peak = run_measured(command("solve", str(huge_deck), "--backend",
                                           backend), timeout=120)
    assert code == 2 and err.count("\n") == 1, err
    assert '"ranks" must be a whole number from 2 to 100' in err and "r200.json" in err
    assert peak < 300 * 2**20  # refused before the model: building it takes over 1 GiB


def test_a_deal_made_in_python_past_the_bound_is_refused_before_its_model() -> None:
    import blackhole

    with pytest.raises(InputError, match="too large for the auto backend: 799 cards"):
        blackhole.solve(random_deal(1, ranks=200))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["auto", "sat"])
def test_the_largest_deck_stays_within_a_gib(backend, tmp_path) -> None:
    """The largest deck a file can hold (100 ranks), nearly sorted, so that no engine
    settles it and each runs to its limit: `auto` races the look and glucose4 (and no
    second solver: two CNFs of this size would not fit the promise)."""
    path = tmp_path / "nearly-sorted-100.json"
    path.write_text(json.dumps(deal_json(nearly_sorted_deal(100, 1))))
    code, err, peak = run_measured(command("solve", str(path), "--backend", backend,
                                           "--timeout", "30"), timeout=300)
    assert code == 3, err  # unknown at the limit: it ran the whole 30 s
    assert peak <= GIB, f"{backend}: {peak / 2**20:.0f} MB"


ENGINES = ["look", "sat:glucose4", "sat:cadical195", "kissat", "cpsat:inverse",
           "cpsat:boolean", "maxsat", "search", "auto"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_stays_within_a_gib_at_52_ranks(engine, seed) -> None:
    code, err, peak = run_measured(command("solve", f"random:{seed}:ranks=52",
                                           "--backend", engine, "--timeout", "30"), timeout=300)
    assert code in (0, 1, 3), err
    assert peak <= GIB, f"{engine}: {peak / 2**20:.0f} MB"


@pytest.mark.slow
def test_certify_stays_within_a_gib_at_52_ranks(tmp_path) -> None:
    code, err, peak = run_measured(command("certify", "random:2:ranks=52", "--out",
                                           str(tmp_path / "cert"), "--timeout", "60"), timeout=300)
    assert code in (0, 1, 3), err
    assert peak <= GIB, f"certify: {peak / 2**20:.0f} MB"


@pytest.mark.slow
def test_the_looks_memo_stops_growing_at_its_cap() -> None:
    """16 million moves of the look on a 52-rank deck it cannot settle: the memo's table
    stops at its cap (256 MiB), where it once grew past 1 GiB; the answer stays unknown,
    never a guess."""
    code, err, peak = run_measured(command("solve", "random:2:ranks=52", "--backend",
                                           "look", "--budget", "16000000"), timeout=600)
    assert code == 3, err
    assert peak <= 600 * 2**20, f"look: {peak / 2**20:.0f} MB"
