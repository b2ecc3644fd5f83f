"""The scripts that make the figures of docs/ (in benchmarks/) run on the results shipped
beside them, and what they check of those results holds."""

from __future__ import annotations

import subprocess
import sys

from .helpers import ROOT


def test_the_hard_deals_results_agree_between_engines(tmp_path) -> None:
    """benchmarks/hard.py's `agree` exits 1 on any deal two engines disagree on."""
    benchmarks = ROOT / "benchmarks"
    results = sorted(str(path) for path in (benchmarks / "results" / "hard").glob("*.gz"))
    assert len(results) == 20
    done = subprocess.run([sys.executable, str(benchmarks / "hard.py"), "agree", *results,
                           "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "0 deals with engines in disagreement, of 500" in done.stdout
