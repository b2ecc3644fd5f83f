"""The report reads a results file once, one line at a time, keeping a few numbers per
line: its figures are those of the report that held every line in memory, on a real run's
file and on the same file with forged lines; plain and gzip files give the same report;
and the memory it keeps does not grow with the moves of the lines it has read."""

from __future__ import annotations

import gzip
import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from blackhole.bench.record import iter_results
from blackhole.bench.report import SLOWEST, summarize

from .helpers import ROOT, cli

DATA = ROOT / "tests" / "data"
BEFORE = json.loads((DATA / "bench-reports-before.json").read_text())


def _same(new: Any, old: Any, where: str = "report") -> None:
    """Equal, floats to a relative 1e-12 (a total is now summed exactly: math.fsum)."""
    if isinstance(old, float) and isinstance(new, float):
        assert math.isclose(new, old, rel_tol=1e-12), where
    elif isinstance(old, dict):
        assert isinstance(new, dict) and list(new) == list(old), where
        for key in old:
            _same(new[key], old[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for number, (a, b) in enumerate(zip(new, old, strict=True)):
            _same(a, b, f"{where}[{number}]")
    else:
        assert new == old, where


def _new_figures(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what it did not have before: the slowest deals per backend."""
    report = json.loads(json.dumps(report))
    for backend in report["backends"]:
        del backend["slowest"]
    for key in ("plots", "results"):
        report.pop(key, None)
    return report


@pytest.mark.parametrize("name", ["bench-real.jsonl.gz", "bench-mixed.jsonl.gz"])
def test_the_streamed_report_gives_the_figures_of_the_report_before(name: str) -> None:
    report = summarize(iter_results(DATA / name))
    _same(_new_figures(report.to_json()), BEFORE[name])
    assert report.consistent is (name == "bench-real.jsonl.gz")


def _last_lines(path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    last = {}
    with gzip.open(path, "rt") as handle:
        for text in handle:
            line = json.loads(text)
            last[line.get("task", "solve"), line["deal"], line["backend"]] = line
    return last


def test_the_slowest_deals_are_each_runs_longest_last_lines() -> None:
    path = DATA / "bench-mixed.jsonl.gz"
    last = _last_lines(path)
    for backend in summarize(iter_results(path)).backends:
        mine = sorted((line for (task, _, label), line in last.items()
                       if (task, label) == (backend.task, backend.backend)),
                      key=lambda line: -line["seconds"])[:SLOWEST]
        shown = [(d.deal, d.seconds) for d in backend.slowest]
        assert shown == [(line["deal"], line["seconds"]) for line in mine]
    cut = next(b for b in summarize(iter_results(path)).backends if b.backend == "cpsat")
    assert [d.verdict for d in cut.slowest] == ["error", "solved"]  # the forged win


def test_a_gzip_file_and_the_plain_file_give_one_report(tmp_path: Path) -> None:
    plain = tmp_path / "mixed.jsonl"
    plain.write_bytes(gzip.decompress((DATA / "bench-mixed.jsonl.gz").read_bytes()))
    shown = {}
    for path in (plain, DATA / "bench-mixed.jsonl.gz"):
        result = cli("report", str(path), "--json")
        assert result.exit_code == 4  # the forged lines: a disagreement and an error
        shown[path.name] = {k: v for k, v in json.loads(result.stdout).items()
                            if k != "results"}
    assert shown["mixed.jsonl"] == shown["bench-mixed.jsonl.gz"]
    _same(_new_figures(shown["mixed.jsonl"]), BEFORE["bench-mixed.jsonl.gz"])


def _copies(lines: list[dict[str, Any]], copies: int) -> str:
    """The lines again and again, each copy under other backend names (`auto#2`), so
    nothing is superseded and the deals stay the same."""
    return "".join(json.dumps({**line, "backend": f"{line['backend']}#{copy}"}) + "\n"
                   for copy in range(copies) for line in lines)


def test_the_memory_kept_does_not_grow_with_the_moves_read(tmp_path: Path) -> None:
    """Three times the lines, most of them wins of 51 moves (each some 5 kB): the
    report's peak grows by far less than the lines' size (it held every line before:
    some 10 kB of Python objects each)."""
    with gzip.open(DATA / "bench-real.jsonl.gz", "rt") as handle:
        lines = [json.loads(text) for text in handle][:40]  # auto and sat, 21 deals
    assert sum(len(line["moves"]) == 51 for line in lines) > 30
    peaks = []
    for copies in (1, 3):
        path = tmp_path / f"copies{copies}.jsonl"
        path.write_text(_copies(lines, copies))
        if copies == 1:
            summarize(iter_results(path))  # the deals dealt once, outside the measure
        tracemalloc.start()
        report = summarize(iter_results(path))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert (report.records, report.deals) == (len(lines) * copies,
                                                  len({line["deal"] for line in lines}))
        assert report.duplicates == 0 and report.consistent
    grown = (peaks[1] - peaks[0]) / (len(lines) * 2)  # bytes per line read
    assert grown < 1000, peaks


def test_bench_reports_the_file_it_resumed_as_report_does(tmp_path: Path) -> None:
    """bench counts its own lines as it writes them (each win was replayed in its worker)
    and checks the lines the file held before: the same report as `report` of the file,
    with a line superseded by the run (--retry-unknown) and new deals after the old."""
    out = tmp_path / "r.jsonl"
    lines = [json.loads(text) for text in
             gzip.decompress((DATA / "bench-real.jsonl.gz").read_bytes()).splitlines()]
    for line in lines:
        if (line["deal"], line["backend"]) == ("pysol:2", "look"):
            line.update(verdict="unknown", moves=[], reason="backend limit reached")
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = cli("bench", "pysol:1-4,pysol:61,pysol:62", "--backends", "look", "--jobs", "1",
              "--out", str(out), "--resume", "--retry-unknown", "--json")
    assert ran.exit_code == 0, ran.output
    after_run = json.loads(ran.stdout)
    assert after_run["run"]["written"] == 3  # pysol:2 again, 61 and 62
    reported = cli("report", str(out), "--json")
    assert reported.exit_code == 0, reported.output
    again = json.loads(reported.stdout)
    assert {k: v for k, v in after_run.items() if k != "run"} == again
    look = next(b for b in again["backends"] if b["backend"] == "look")
    assert (look["tasks"], look["solved"], look["unknown"]) == (6, 5, 0)
    assert again["duplicates"] == 1
