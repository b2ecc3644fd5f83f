"""Summaries, statistics and plots of a bench results file (one JSON line per task).

Per backend: verdict counts, the time spent per deal (median, p90, p99, max, total; a
deal given up counts at the time it was given up), and how many deals it settled fastest.
Across backends: disagreements (one backend solved a deal another called unsolvable) and
the solvable fraction with a 95% Wilson interval, beside the published figure for the
first million PySolFC deals. When a (deal, backend) pair appears more than once, the
last line wins.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from blackhole.cards import parse_card
from blackhole.deal import Deal, generated_spec, load_deal
from blackhole.errors import InputError
from blackhole.rules import Move, replay

VERDICTS = ("solved", "unsolvable", "unknown", "error")
SETTLED = ("solved", "unsolvable")
PUBLISHED_SOLVABLE = 869_413  # of the first 1,000,000 PySolFC deals
PUBLISHED_DEALS = 1_000_000
Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
_REQUIRED = {"deal": str, "backend": str, "verdict": str, "seconds": (int, float)}
_STANDARD_SOURCES = ("pysol", "random")  # deals from the standard game's shuffles


# ---------------------------------------------------------------- reading


def read_results(path: Path | str, repair_tail: bool = False) -> list[dict[str, Any]]:
    """Every record of a results file; InputError (file, line, token) for a bad line.

    With `repair_tail`, a last line cut short (no newline, not JSON) is removed from the
    file instead, as a run killed in mid-write could leave it; resume uses this.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("no such results file", source) from None
    except OSError as error:
        raise InputError(f"cannot read results file ({error.strerror})", source) from None
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    if tail.strip():
        if repair_tail and not _is_json(tail):
            with open(path, "r+b") as handle:
                handle.truncate(len(data) - len(tail))
        else:
            lines.append(tail)
    records = []
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            records.append(_parse_line(raw, source, number))
    return records


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def _parse_line(raw: bytes, source: str, number: int) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("not UTF-8", source, number,
                         repr(raw[error.start:error.start + 8])) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        token = text[error.pos:error.pos + 16].strip() or "end of line"
        raise InputError(f"invalid JSON ({error.msg})", source, number, token) from None
    if not isinstance(record, dict):
        raise InputError("each line must be a JSON object", source, number, text[:16])
    for key, kind in _REQUIRED.items():
        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool):
            raise InputError(f"missing or bad field {key!r}", source, number,
                             json.dumps(record.get(key)))
    if record["verdict"] not in VERDICTS:
        raise InputError("unknown verdict", source, number, record["verdict"])
    if not 0 <= record["seconds"] < math.inf:  # NaN fails this too
        raise InputError("seconds must be a finite number >= 0", source, number,
                         json.dumps(record["seconds"]))
    return record


def latest(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(deal, backend) → its last record, in first-seen order."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        table[record["deal"], record["backend"]] = record
    return table


def replayed(record: dict[str, Any]) -> dict[str, Any]:
    """A "solved" line counts only when its moves win in the rules engine; otherwise it
    becomes an error line saying why (a results file may have been edited or cut)."""
    if record["verdict"] != "solved":
        return record
    try:
        deal = _deal(record["deal"])
        moves = [Move(card=parse_card(m["card"]), fan=m.get("fan"))
                 for m in record.get("moves") or []]
    except (InputError, ValueError, TypeError, KeyError) as error:
        return {**record, "verdict": "error",
                "reason": f"solved, but its moves cannot be replayed ({error})"}
    judged = replay(deal, moves)
    if judged.won:
        return record
    return {**record, "verdict": "error",
            "reason": f"solved, but its moves do not win: {judged.describe()}"}


@cache
def _deal(spec: str) -> Deal:
    return load_deal(spec)


# ---------------------------------------------------------------- statistics


def quantile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile by linear interpolation between order statistics (numpy's default,
    `statistics.quantiles(method="inclusive")`); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion; (0, 1) for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    scale = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / scale
    half = z / scale * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def deal_source(spec: str) -> str:
    """pysol, pysol:all-in-a-row (another game: not the published figure's), random,
    random:any, or file."""
    try:
        dealt = generated_spec(spec)
    except InputError:
        dealt = None  # a name a results file holds but no spec parses: counted as a file
    if dealt is None:
        return "file"
    kind, _, variant = dealt
    return f"{kind}:{variant}" if variant else kind


# ---------------------------------------------------------------- the report


@dataclass(frozen=True)
class BackendSummary:
    backend: str
    tasks: int
    solved: int
    unsolvable: int
    unknown: int
    error: int
    median: float | None  # seconds per task; an unsettled task counts at its time
    p90: float | None
    p99: float | None
    max: float | None
    total: float
    fastest: int  # deals this backend settled in the least time of all backends


@dataclass(frozen=True)
class Disagreement:
    deal: str
    solved_by: list[str]
    unsolvable_by: list[str]


@dataclass(frozen=True)
class Solvability:
    source: str  # pysol, pysol:all-in-a-row, random, random:any or file
    deals: int
    solvable: int
    unsolvable: int
    unsettled: int  # unknown everywhere, errors, or disputed
    fraction: float | None  # solvable / (solvable + unsolvable)
    low: float  # 95% Wilson interval
    high: float
    published: float | None  # 869413 / 1e6, for the standard game's deals
    published_inside: bool | None


@dataclass(frozen=True)
class Report:
    results: str
    records: int
    duplicates: int  # lines superseded by a later line for the same pair
    deals: int
    backends: list[BackendSummary]
    disagreements: list[Disagreement]
    errors: list[dict[str, str]]  # {"deal", "backend", "reason"}
    solvability: list[Solvability]

    @property
    def consistent(self) -> bool:
        """No disagreement and no error: the CLI exits 0, else 4."""
        return not self.disagreements and not self.errors

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summarize(records: Sequence[dict[str, Any]], results: str = "") -> Report:
    table = {key: replayed(record) for key, record in latest(records).items()}
    by_deal: dict[str, dict[str, dict[str, Any]]] = {}
    by_backend: dict[str, list[dict[str, Any]]] = {}
    for (deal, backend), record in table.items():
        by_deal.setdefault(deal, {})[backend] = record
        by_backend.setdefault(backend, []).append(record)
    order = list(by_backend)
    fastest = dict.fromkeys(order, 0)
    disagreements = []
    for deal, runs in by_deal.items():
        settled = [(r["seconds"], order.index(b), b) for b, r in runs.items()
                   if r["verdict"] in SETTLED]
        if settled:
            fastest[min(settled)[2]] += 1
        solved = [b for b, r in runs.items() if r["verdict"] == "solved"]
        unsolvable = [b for b, r in runs.items() if r["verdict"] == "unsolvable"]
        if solved and unsolvable:
            disagreements.append(Disagreement(deal, solved, unsolvable))
    backends = [_backend_summary(name, by_backend[name], fastest[name]) for name in order]
    errors = [{"deal": r["deal"], "backend": r["backend"], "reason": str(r.get("reason"))}
              for r in table.values() if r["verdict"] == "error"]
    return Report(results, len(records), len(records) - len(table), len(by_deal), backends,
                  disagreements, errors, _solvability(by_deal))


def _backend_summary(name: str, records: list[dict[str, Any]], fastest: int) -> BackendSummary:
    counts = {verdict: 0 for verdict in VERDICTS}
    for record in records:
        counts[record["verdict"]] += 1
    times = [float(record["seconds"]) for record in records]
    return BackendSummary(name, len(records), counts["solved"], counts["unsolvable"],
                          counts["unknown"], counts["error"], quantile(times, 0.5),
                          quantile(times, 0.9), quantile(times, 0.99), max(times, default=None),
                          sum(times), fastest)


def deal_verdict(runs: Iterable[dict[str, Any]]) -> str:
    """One verdict per deal: solved or unsolvable when some backend settled it, "disputed"
    when backends disagree, else unknown."""
    verdicts = {r["verdict"] for r in runs}
    if "solved" in verdicts and "unsolvable" in verdicts:
        return "disputed"
    for verdict in SETTLED:
        if verdict in verdicts:
            return verdict
    return "unknown"


def _solvability(by_deal: dict[str, dict[str, dict[str, Any]]]) -> list[Solvability]:
    groups: dict[str, list[str]] = {}
    for deal, runs in by_deal.items():
        groups.setdefault(deal_source(deal), []).append(deal_verdict(runs.values()))
    out = []
    for source in sorted(groups):
        verdicts = groups[source]
        solvable, unsolvable = verdicts.count("solved"), verdicts.count("unsolvable")
        settled = solvable + unsolvable
        low, high = wilson_interval(solvable, settled)
        standard = source in _STANDARD_SOURCES
        published = PUBLISHED_SOLVABLE / PUBLISHED_DEALS if standard else None
        inside = None if published is None or not settled else low <= published <= high
        out.append(Solvability(source, len(verdicts), solvable, unsolvable,
                               len(verdicts) - settled,
                               solvable / settled if settled else None, low, high,
                               published, inside))
    return out


# ---------------------------------------------------------------- tables (built, not printed)


def tables(report: Report) -> list[Any]:
    """Rich renderables for the report: backends, solvability, disagreements and errors."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    compact = {"box": box.SIMPLE_HEAD, "pad_edge": False, "show_edge": False,
                "padding": 0, "title_justify": "left"}

    def secs(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    out: list[Any] = []
    main = Table(title=f"{report.deals} deals, {report.records} results"
                 + (f" ({report.duplicates} superseded)" if report.duplicates else "")
                 + "; seconds per task", **compact)
    for column in ("backend", "solved", "unsolv", "unknown", "error", "median", "p90", "p99",
                   "max", "total", "fastest"):
        main.add_column(column, justify="left" if column == "backend" else "right",
                        min_width=len(column), no_wrap=True)
    for b in report.backends:
        main.add_row(b.backend, str(b.solved), str(b.unsolvable), str(b.unknown),
                     Text(str(b.error), style="red" if b.error else ""), secs(b.median),
                     secs(b.p90), secs(b.p99), secs(b.max), f"{b.total:.2f}", str(b.fastest))
    out.append(main)
    solv = Table(title="solvable fraction (95% Wilson interval)", **compact)
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
    out.append(solv)
    for d in report.disagreements:
        out.append(Text(f"DISAGREEMENT {d.deal}: solved by {', '.join(d.solved_by)}; "
                        f"unsolvable per {', '.join(d.unsolvable_by)}", style="bold red"))
    for e in report.errors:
        out.append(Text(f"ERROR {e['deal']} ({e['backend']}): {e['reason']}", style="red"))
    return out


# ---------------------------------------------------------------- plots


_VERDICT_COLOURS = {"solved": "tab:green", "unsolvable": "tab:red", "unknown": "tab:gray",
                    "disputed": "black"}
_FLOOR = 1e-4  # seconds; the log axes start here


def write_plots(records: Sequence[dict[str, Any]], folder: Path | str) -> list[Path]:
    """A cactus plot, and SAT vs CP-SAT seconds per deal when both ran; PNG and SVG each."""
    from matplotlib.figure import Figure  # no pyplot: no global state, no display

    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the plot folder ({error.strerror})",
                         str(target)) from None
    table = latest(records)
    by_backend: dict[str, dict[str, dict[str, Any]]] = {}
    for (deal, backend), record in table.items():
        by_backend.setdefault(backend, {})[deal] = record
    written: list[Path] = []

    figure = Figure(figsize=(7, 4.5))
    axes = figure.subplots()
    for backend, runs in by_backend.items():
        times = sorted(max(r["seconds"], _FLOOR) for r in runs.values()
                       if r["verdict"] in SETTLED)
        if times:
            axes.step([_FLOOR, *times], range(len(times) + 1), where="post",
                      label=f"{backend} ({len(times)}/{len(runs)})")
    axes.set_xscale("log")
    axes.set_xlabel("seconds per deal")
    axes.set_ylabel("deals settled (solved or unsolvable)")
    axes.set_title("Deals settled within a time")
    axes.grid(True, which="both", alpha=0.3)
    if by_backend:
        axes.legend(loc="lower right")
    written += _save(figure, target / "cactus")

    pair = _sat_cpsat(list(by_backend))
    if pair:
        written += _save(_scatter(table, by_backend, *pair), target / "sat-vs-cpsat")
    return written


def _sat_cpsat(labels: list[str]) -> tuple[str, str] | None:
    """The labels to compare: `sat` and `cpsat` themselves, else their first variants."""
    def pick(base: str) -> str | None:
        if base in labels:
            return base
        return next((label for label in labels if label.partition(":")[0] == base), None)

    sat, cpsat = pick("sat"), pick("cpsat")
    return (sat, cpsat) if sat and cpsat else None


def _scatter(table: dict[tuple[str, str], dict[str, Any]],
             by_backend: dict[str, dict[str, dict[str, Any]]], sat: str, cpsat: str) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.5, 5.5))
    axes = figure.subplots()
    runs_by_deal: dict[str, list[dict[str, Any]]] = {}
    for (deal, _), record in table.items():
        runs_by_deal.setdefault(deal, []).append(record)
    points: dict[str, tuple[list[float], list[float]]] = {}
    for deal in by_backend[sat].keys() & by_backend[cpsat].keys():
        verdict = deal_verdict(runs_by_deal[deal])
        xs, ys = points.setdefault(verdict, ([], []))
        xs.append(max(by_backend[sat][deal]["seconds"], _FLOOR))
        ys.append(max(by_backend[cpsat][deal]["seconds"], _FLOOR))
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


def _save(figure: Any, stem: Path) -> list[Path]:
    figure.tight_layout()
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, dpi=120)
    return paths


def report_json(report: Report, plots: Sequence[Path] = (),
                run: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `--json` document of `blackhole report` and `blackhole bench` (docs/bench.md)."""
    data = report.to_json()
    data["plots"] = [str(path) for path in plots]
    if run is not None:
        data["run"] = run
    return data
