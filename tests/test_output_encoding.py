"""Any output encoding: where stdout or stderr cannot write suit symbols (an ASCII, Latin-1
or Windows code page console), every command prints the --ascii forms instead of failing,
and its exit code is the answer's. Real processes, since the encoding is the process's."""

from __future__ import annotations

import subprocess

import pytest

from .helpers import blackhole

ENCODINGS = ["ascii", "cp1252", "latin-1"]


def _run(encoding: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    done = blackhole(*args, env={"PYTHONIOENCODING": encoding, "PYTHONUTF8": "0", "LANG": "C"},
                     cwd=cwd, text=False)
    # what was written is in that encoding, whole: nothing was half-printed
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode(encoding),
                                       done.stderr.decode(encoding))


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(("args", "code", "shown"), [
    (("show", "pysol:2"), 0, "QD JC [TC]"),
    (("solve", "pysol:2"), 0, "2S from fan 2"),
    (("hint", "pysol:2"), 0, "2S  winnable, best 51 of 51"),
    (("best", "pysol:25"), 0, "best: 2 of 51"),
    (("analyze", "pysol:25"), 0, "first move that loses"),
    (("solve", "pysol:2", "--after", "KH 5♥"), 2, ""),
], ids=["show", "solve", "hint", "best", "analyze", "bad-input"])
def test_a_console_without_suit_symbols_gets_the_ascii_forms(encoding, args, code,
                                                             shown) -> None:
    done = _run(encoding, *args)
    assert done.returncode == code, done.stderr
    assert "internal error" not in done.stderr and "PYTHONIOENCODING" not in done.stderr
    assert shown in done.stdout
    assert "?" not in done.stdout  # no symbol was lost: each has its plain form
    if code == 2:
        assert done.stderr.count("\n") == 1 and "5H" in done.stderr


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
def test_bench_and_report_print_their_tables(encoding, tmp_path) -> None:
    made = _run(encoding, "bench", "pysol:1-3", "--backends", "look", "--jobs", "1",
                "--out", "r.jsonl", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "internal error" not in made.stderr and "look" in made.stdout
    again = _run(encoding, "report", "r.jsonl", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "solvable fraction" in again.stdout and "66.67%" in again.stdout  # 2 of 3 won
