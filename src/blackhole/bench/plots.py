"""The plots of a bench report: a cactus plot of the deals each run settled within a
time, SAT against CP-SAT seconds per deal, and the best scores. Matplotlib is imported
only when a plot is drawn (no pyplot: no global state, no display).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blackhole.base.errors import InputError
from blackhole.base.extras import require
from blackhole.bench.report import BestScores, Report

_VERDICT_COLOURS = {"solved": "tab:green", "unsolvable": "tab:red", "unknown": "tab:gray",
                    "disputed": "black"}
_FLOOR = 1e-4  # seconds; the log axes start here


def write_plots(report: Report, folder: Path | str) -> list[Path]:
    """A cactus plot; SAT against CP-SAT seconds per deal when both ran; a histogram of
    best scores when best-score runs ran. PNG and SVG each."""
    require("bench", "matplotlib", "plots")
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the plot folder ({error.strerror})",
                         str(target)) from None
    written = _save(cactus(report), target / "cactus")
    pair = _sat_cpsat([name for name in report.runs if not name.endswith(" (best)")])
    if pair:
        written += _save(_scatter(report, *pair), target / "sat-vs-cpsat")
    if report.best is not None:
        written += _save(histogram(report.best), target / "best-scores")
    return written


def cactus(report: Report) -> Any:
    """The cactus plot, a matplotlib Figure: per run, the deals it settled (a whole number)
    against the seconds allowed per deal, on a log axis."""
    from matplotlib.figure import Figure  # no pyplot: no global state, no display

    figure = Figure(figsize=(7, 4.5))
    axes = figure.subplots()
    for name in report.runs:
        times = sorted(max(s, _FLOOR) for s in report.seconds(name))
        if times:
            axes.step([_FLOOR, *times], range(len(times) + 1), where="post",
                      label=f"{name} ({len(times)}/{len(report.seconds(name, False))})")
    axes.set_xscale("log")
    axes.set_xlabel("seconds per deal")
    axes.set_ylabel("deals settled (solved or unsolvable)")
    _whole_numbers(axes.yaxis)
    axes.set_title("Deals settled within a time")
    axes.grid(True, which="both", alpha=0.3)
    if report.runs:
        axes.legend(loc="lower right")
    return figure


def _whole_numbers(axis: Any) -> None:
    """Ticks at whole numbers only on an axis that counts (deals, scores)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _sat_cpsat(labels: list[str]) -> tuple[str, str] | None:
    """The labels to compare: `sat` and `cpsat` themselves, else their first variants."""
    def pick(base: str) -> str | None:
        if base in labels:
            return base
        return next((label for label in labels if label.partition(":")[0] == base), None)

    sat, cpsat = pick("sat"), pick("cpsat")
    return (sat, cpsat) if sat and cpsat else None


def _scatter(report: Report, sat: str, cpsat: str) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.5, 5.5))
    axes = figure.subplots()
    points: dict[str, tuple[list[float], list[float]]] = {}
    for verdict, sat_seconds, cpsat_seconds in report.paired(sat, cpsat):
        xs, ys = points.setdefault(verdict, ([], []))
        xs.append(max(sat_seconds, _FLOOR))
        ys.append(max(cpsat_seconds, _FLOOR))
    values = [v for xs, ys in points.values() for v in xs + ys] or [_FLOOR, 1.0]
    low, high = min(values) / 1.5, max(values) * 1.5
    axes.plot([low, high], [low, high], color="black", linewidth=0.8, linestyle="--",
              label="equal time")
    for verdict, (xs, ys) in sorted(points.items()):
        axes.scatter(xs, ys, s=12, alpha=0.7, color=_VERDICT_COLOURS.get(verdict, "tab:blue"),
                     label=f"{verdict} ({len(xs)})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    axes.set_xlabel(f"{sat} seconds")
    axes.set_ylabel(f"{cpsat} seconds")
    axes.set_title("Seconds per deal (below the line: CP-SAT faster)")
    axes.legend(loc="upper left")
    return figure


def histogram(best: BestScores) -> Any:
    """The histogram of best scores, a matplotlib Figure: per score, the deals whose best
    it is proven to be, and those where it is the best found; whole numbers on both axes."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4))
    axes = figure.subplots()
    top = best.of if best.of is not None else max([*best.histogram, *best.lower_bounds, 0])
    scores = list(range(top + 1))
    proven = [best.histogram.get(s, 0) for s in scores]
    found = [best.lower_bounds.get(s, 0) for s in scores]
    axes.bar(scores, proven, width=0.8, color="tab:blue", label=f"proven ({best.proven})")
    if any(found):
        axes.bar(scores, found, width=0.8, bottom=proven, color="tab:gray", hatch="//",
                 label=f"found, not proven ({best.deals - best.proven})")
    axes.set_xlabel("best score (cards moved)" + (f" of {best.of}" if best.of else ""))
    axes.set_ylabel("deals")
    _whole_numbers(axes.xaxis)
    _whole_numbers(axes.yaxis)
    axes.set_title("Best score per deal")
    axes.set_xlim(-1, top + 1)
    axes.legend(loc="upper center")
    return figure


def _save(figure: Any, stem: Path) -> list[Path]:
    figure.tight_layout()
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, dpi=120)
    return paths
