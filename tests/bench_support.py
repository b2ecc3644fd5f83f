"""What the bench and report tests share: running the CLI, and results lines that hold
real winning moves (report replays every solved line)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from blackhole.backends import Options, Verdict
from blackhole.pipeline import solve_deal
from blackhole.sources import load_deal

from .conftest import ROOT

SRC = ROOT / "src"


def child_env() -> dict[str, str]:
    """The environment of a child Python that imports this checkout's blackhole."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)}


def run_cli(*args: str):
    """The command in this process, through Typer's runner."""
    from typer.testing import CliRunner

    from blackhole.cli import app

    return CliRunner().invoke(app, list(args))


def run_command(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command as a user runs it: its own process, in `cwd`."""
    return subprocess.run([sys.executable, "-m", "blackhole", *args], cwd=cwd,
                          env=child_env(), capture_output=True, text=True, timeout=300)


def results_line(deal: str, backend: str, verdict: str, seconds: float,
                 solver: str | None = None) -> str:
    """A results line, naming the engine that answered when `solver` is given; a solved
    one carries real winning moves, as report replays them."""
    moves = winning_moves(deal) if verdict == "solved" else []
    line = {"deal": deal, "backend": backend, "verdict": verdict, "seconds": seconds,
            "moves": moves}
    if solver is not None:
        line["solver"] = solver
    return json.dumps(line) + "\n"


@cache
def winning_moves(deal: str) -> list[dict[str, Any]]:
    solution = solve_deal(load_deal(deal), "look", Options())
    assert solution.verdict is Verdict.SOLVED, f"{deal} is no solvable deal for a fixture"
    return [{"card": str(card), "fan": fan} for card, fan in solution.moves]
