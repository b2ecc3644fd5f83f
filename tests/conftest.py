"""Shared test data: the independent C solver's verdicts for PySolFC deals 1-1000."""

from __future__ import annotations

import csv
import signal
from functools import cache
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests check outcomes, never time: no per-example deadline, which a busy
# machine would turn into a failure.
settings.register_profile("outcomes", deadline=None)
settings.load_profile("outcomes")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
REFERENCE_CSV = ROOT / "tests" / "data" / "pysol-1-1000.csv"


@pytest.fixture(autouse=True)
def no_terminal_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output is checked as a pipe gives it: the width of the terminal that started the
    tests (pytest-xdist's workers set COLUMNS=80) does not leak into it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@cache
def reference() -> dict[int, dict[str, str]]:
    """deal number → {"verdict", "states_checked", "seconds"} from black-hole-solve 1.14.0."""
    with REFERENCE_CSV.open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


def easy_for_search(limit: int = 20000) -> list[int]:
    """Deals the pure-Python referee settles quickly: few states for the C solver too."""
    return [n for n, row in reference().items() if int(row["states_checked"]) < limit]


@pytest.fixture(scope="session")
def ref() -> dict[int, dict[str, str]]:
    return reference()


def default_sigint() -> None:
    """For a child process (`preexec_fn`): Ctrl-C as a terminal delivers it, even when the
    tests run in the background, where the shell has them, and so their children, ignore
    SIGINT (and a Python started so keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found.append(int(stat.parent.name))
    return found
