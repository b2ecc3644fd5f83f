"""Edges of what bench, report and atlas read and write: an atlas file that inflates past
any real one, the report's width and lines on a pipe and on a terminal, and the plots'
count axes."""

from __future__ import annotations

import gzip
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from blackhole.atlas import MAX_TEXT
from blackhole.bench.plots import cactus, histogram
from blackhole.bench.record import iter_results
from blackhole.bench.report import summarize

from .helpers import blackhole, child_env, command

# A small parent that runs a command and prints its exit code, its peak resident memory
# (kB, from wait4: the child's own, not the test process's) and its stderr. The child's
# address space is capped at 512 MB, so a reader that held a whole bomb fails fast.
_PEAK = """
import json, os, resource, subprocess, sys
cap = 512 * 2**20
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
err = child.stderr.read().decode()
_, status, usage = os.wait4(child.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss, err]))
"""
PEAK_KB = 128 * 1024  # the lookup of a shipped file peaks at some 25 MB, a refused bomb at 45


def _bench(folder: Path, specs: str, *more: str) -> Path:
    """A real results file of the look over `specs`."""
    done = blackhole("bench", specs, "--backends", "look", "--jobs", "1", "--out", "r.jsonl",
                     *more, cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "r.jsonl"


def _lines_from(text: str, first: str) -> list[str]:
    """The lines of `text` from the one that starts with `first` to the end."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    return lines[start:]


# ---------------------------------------------------------------- an atlas bomb


def _bomb_over_the_cap(path: Path) -> None:
    """One gzip member of zeros, a megabyte more than an atlas file may inflate to."""
    chunk = bytes(2**20)
    with gzip.open(path, "wb", compresslevel=1) as stream:
        for _ in range(MAX_TEXT // len(chunk) + 1):
            stream.write(chunk)


def _bomb_of_2_gb(path: Path) -> None:
    """2 GB of zeros: 32 gzip members of 64 MB each (gzip reads them as one stream)."""
    member = gzip.compress(bytes(64 * 2**20), compresslevel=1)
    with path.open("wb") as stream:
        for _ in range(32):
            stream.write(member)


@pytest.mark.parametrize("make", [_bomb_over_the_cap, _bomb_of_2_gb])
def test_an_atlas_file_that_inflates_past_the_cap_is_refused_in_bounded_memory(
        make, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.atlas.gz"
    make(bomb)
    assert bomb.stat().st_size < 16 * 2**20  # small on disk: a bomb
    done = subprocess.run([sys.executable, "-c", _PEAK,
                           *command("atlas", "pysol:1", "--file", str(bomb))],
                          env=child_env(), capture_output=True, text=True, timeout=120)
    code, peak_kb, stderr = json.loads(done.stdout)
    assert code == 2, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert str(bomb) in stderr and f"inflates to more than {MAX_TEXT // 2**20} MB" in stderr
    assert peak_kb < PEAK_KB, f"peak {peak_kb} kB"


def test_the_cap_is_far_above_the_shipped_atlases() -> None:
    """Each shipped file's text is within the most its range can take (every deal lost,
    with a best score: a line "1 NN" of 5 bytes a deal, and the header), and the cap is
    three times that for a million deals."""
    from blackhole.atlas import read_atlas, shipped_games, shipped_path

    for game in shipped_games():
        with gzip.open(shipped_path(game)) as stream:
            header, text = stream.readline(), stream.read()
        atlas = read_atlas(shipped_path(game))
        deals = atlas.last - atlas.first + 1
        assert len(text) <= 5 * deals and deals <= 10**6, game
        assert 3 * (5 * 10**6 + len(header)) < MAX_TEXT, game


# ---------------------------------------------------------------- the report's lines


def test_piped_report_tables_take_the_width_of_columns(tmp_path: Path) -> None:
    """COLUMNS sets the tables' width on a pipe, above the default 120 as below it."""
    long = Path("a" * 60) / ("b" * 60) / "deal.json"
    (tmp_path / long).parent.mkdir(parents=True)
    dealt = blackhole("deal", "pysol:2", "--format", "json", cwd=tmp_path)
    (tmp_path / long).write_text(dealt.stdout)
    results = _bench(tmp_path, f"{long},pysol:1")
    wide = blackhole("report", str(results), cwd=tmp_path, env={"COLUMNS": "200"})
    assert wide.returncode == 0, wide.stderr
    assert any(line.startswith(f"{long} look") for line in wide.stdout.splitlines())
    narrow = blackhole("report", str(results), cwd=tmp_path, env={"COLUMNS": "60"})
    assert narrow.returncode == 0, narrow.stderr
    table = _lines_from(narrow.stdout, "source ")
    assert len(table) >= 4 and max(map(len, table)) == 60, table
    unset = blackhole("report", str(results), cwd=tmp_path)
    assert max(map(len, _lines_from(unset.stdout, "source "))) <= 120
    assert str(long) not in unset.stdout  # 120 columns: the long deal is cut


@pytest.mark.parametrize("columns", [None, "30"])
def test_piped_report_titles_and_prose_are_whole_lines(columns, tmp_path: Path) -> None:
    """On a pipe, a table's title and every line of prose are one line each, whatever
    the width of the tables."""
    settings = {} if columns is None else {"COLUMNS": columns}
    bench = blackhole("bench", "pysol:1-3", "--backends", "look", "--jobs", "1", "--out",
                      "r.jsonl", cwd=tmp_path, env=settings)
    assert bench.returncode == 0, bench.stderr
    written = [line for line in bench.stdout.splitlines()
               if line.startswith("3 results written to r.jsonl ")]
    assert len(written) == 1 and written[0].endswith("ms per task beyond the solves")
    (tmp_path / "forged.jsonl").write_text(json.dumps(
        {"deal": "pysol:2", "backend": "look", "verdict": "solved", "seconds": 0.1,
         "moves": []}) + "\n")
    error = ("ERROR pysol:2 (look): solved, but its moves do not win: unfinished: 0 of 51 "
             "cards moved, a legal move remains")
    for results, code in (("r.jsonl", 0), ("forged.jsonl", 4)):
        report = blackhole("report", results, cwd=tmp_path, env=settings)
        assert report.returncode == code, report.stderr
        lines = report.stdout.splitlines()
        for title in ("slowest deals (at most 5 per run)",
                      "solvable fraction (95% Wilson interval)"):
            assert title in lines, report.stdout
        assert (error in lines) == (code == 4), report.stdout


def test_report_titles_are_whole_lines_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal 60 columns wide, the slowest deals' table is narrower than its
    title, and the title is still one line."""
    _bench(tmp_path, "pysol:1-3")
    leader, follower = pty.openpty()
    child = subprocess.Popen(command("report", "r.jsonl"),
                             cwd=tmp_path, env=child_env(COLUMNS="60", TERM="xterm"),
                             stdin=subprocess.DEVNULL, stdout=follower,
                             stderr=subprocess.PIPE)
    os.close(follower)
    shown = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not data:
            break
        shown += data
    os.close(leader)
    assert child.wait(timeout=60) == 0, child.stderr.read()
    child.stderr.close()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode())
    lines = [line.rstrip() for line in text.replace("\r", "").splitlines()]
    assert "slowest deals (at most 5 per run)" in lines, text
    assert "deal    run  seconds verdict" in lines  # the table, 31 columns wide


# ---------------------------------------------------------------- the plots


def _whole_ticks(axis, limits: tuple[float, float]) -> list[float]:
    low, high = sorted(limits)
    shown = [tick for tick in axis.get_majorticklocs() if low <= tick <= high]
    assert len(shown) >= 2
    return shown


def test_the_plots_count_in_whole_numbers(tmp_path: Path) -> None:
    """Three deals (two won, one lost at its best score): the cactus plot's deals axis
    and the best-score histogram's axes tick at whole numbers only."""
    report = summarize(iter_results(_bench(tmp_path, "pysol:1-3", "--task", "best")))
    assert report.best is not None and report.best.deals == 3
    settled = cactus(report).axes[0]
    bars = histogram(report.best).axes[0]
    for axis, limits in ((settled.yaxis, settled.get_ylim()), (bars.yaxis, bars.get_ylim()),
                         (bars.xaxis, bars.get_xlim())):
        ticks = _whole_ticks(axis, limits)
        assert all(float(tick).is_integer() for tick in ticks), ticks
