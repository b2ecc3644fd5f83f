"""The rendering of a bench report: rich tables (built, not printed) and the `--json`
document."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from blackhole.bench.report import SLOWEST, BestScores, Report


def tables(report: Report) -> list[Any]:
    """Rich renderables for the report: tables (backends, slowest deals, solvability, best
    scores), each after a line of its title, then a line per disagreement and per error."""
    from rich.text import Text

    def secs(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    out: list[Any] = []
    main = _table(out, f"{report.deals} deals, {report.records} results"
                  + (f" ({report.duplicates} superseded)" if report.duplicates else "")
                  + "; seconds per task")
    for column in ("backend", "solved", "unsolv", "unknown", "error", "median", "p90", "p99",
                   "max", "total", "fastest", "answered by"):
        main.add_column(column, justify="left" if column in ("backend", "answered by")
                        else "right",
                        min_width=len(column), no_wrap=True)
    for b in report.backends:
        name = b.backend if b.task == "solve" else f"{b.backend} (best)"
        main.add_row(name, str(b.solved), str(b.unsolvable), str(b.unknown),
                     Text(str(b.error), style="red" if b.error else ""), secs(b.median),
                     secs(b.p90), secs(b.p99), secs(b.max), f"{b.total:.2f}", str(b.fastest),
                     _engines_text(b.engines))
    slowest = _table(out, f"slowest deals (at most {SLOWEST} per run)")
    for column in ("deal", "run", "seconds", "verdict"):
        slowest.add_column(column, justify="right" if column == "seconds" else "left",
                           min_width=len(column), no_wrap=True)
    for b in report.backends:
        for d in b.slowest:
            slowest.add_row(d.deal, b.backend if b.task == "solve" else f"{b.backend} (best)",
                            f"{d.seconds:.3f}", d.verdict)
    solv = _table(out, "solvable fraction (95% Wilson interval)")
    for column in ("source", "settled", "solvable", "fraction", "95% interval", "published"):
        solv.add_column(column, justify="left" if column == "source" else "right",
                        min_width=len(column))
    for s in report.solvability:
        published = "-"
        if s.published is not None:
            where = {True: " (inside)", False: " (outside)", None: ""}[s.published_inside]
            published = f"{s.published:.2%}{where}"
        fraction = "-" if s.fraction is None else f"{s.fraction:.2%}"
        solv.add_row(s.source, str(s.solvable + s.unsolvable), str(s.solvable), fraction,
                     f"{s.low:.2%} – {s.high:.2%}", published)
    if report.best is not None:
        out += _best_table(report.best)
    for d in report.disagreements:
        what = [f"solved by {', '.join(d.solved_by)}"] if d.solved_by else []
        what += [f"unsolvable per {', '.join(d.unsolvable_by)}"] if d.unsolvable_by else []
        what += [f"best {', '.join(f'{run} {best}' for run, best in d.best.items())}"] \
            if d.best else []
        out.append(Text(f"DISAGREEMENT {d.deal}: {'; '.join(what)}", style="bold red"))
    for e in report.errors:
        name = e["backend"] if e["task"] == "solve" else f"{e['backend']} (best)"
        out.append(Text(f"ERROR {e['deal']} ({name}): {e['reason']}", style="red"))
    return out


def _engines_text(engines: dict[str, int]) -> str:
    """One engine by its name; several with their deal counts, the most first."""
    if len(engines) <= 1:
        return next(iter(engines), "-")
    return ", ".join(f"{name} {count}" for name, count in engines.items())


def _table(out: list[Any], title: str) -> Any:
    """A new compact table, appended to `out` after its title. The title is a line of its
    own, as wide as its text: a table narrower than its title does not wrap it."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=0)
    out += [Text(title, style="table.title"), table]
    return table


def _best_table(best: BestScores) -> list[Any]:
    from rich.text import Text

    of = f" of {best.of}" if best.of is not None else ""
    out: list[Any] = [Text(f"best score{of}: {best.deals} deals, {best.proven} proven optimal")]
    table = _table(out, "deals per best score")
    for column in ("best", "proven", "not proven"):
        table.add_column(column, justify="right", min_width=len(column))
    for score in sorted(best.histogram.keys() | best.lower_bounds.keys()):
        table.add_row(str(score), str(best.histogram.get(score, 0)),
                      str(best.lower_bounds.get(score, 0)))
    return out


def report_json(report: Report, plots: Sequence[Path] = (),
                run: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `--json` document of `blackhole report` and `blackhole bench` (docs/bench.md)."""
    data = report.to_json()
    data["plots"] = [str(path) for path in plots]
    if run is not None:
        data["run"] = run
    return data
