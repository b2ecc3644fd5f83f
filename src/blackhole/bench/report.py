"""Summaries and statistics of a bench results file (one `Record` per line); the plots
are in `blackhole.bench.plots`.

Per backend: verdict counts, the time spent per deal (median, p90, p99, max, total; a
deal given up counts at the time it was given up), the engines that answered (a record's
`solver`: `auto` names the look or its SAT solver per deal), and how many deals it
settled fastest, counted only where engines that really differ ran on the deal (two
runs answered by the same engine are no race).
Across backends: disagreements (one backend solved a deal another called unsolvable, or
best scores that cannot all be right) and the solvable fraction with a 95% Wilson
interval, beside the published figure for the first million PySolFC deals. When a
(task, deal, backend) appears more than once, the last line wins.

Nothing in a results file is taken on trust, whoever wrote it: each line's claims are
checked against its deal (dealt again, or read from the line's own board) before they
count. A line whose claims fail is counted as an error, saying why.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from blackhole.bench.record import SETTLED, VERDICTS, Record, latest, position_of_record
from blackhole.cards import parse_card
from blackhole.deal import Position
from blackhole.errors import InputError
from blackhole.rules import Move, Outcome, replay
from blackhole.sources import generated_spec

PUBLISHED_SOLVABLE = 869_413  # of the first 1,000,000 PySolFC deals
PUBLISHED_DEALS = 1_000_000
Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
_STANDARD_SOURCES = ("pysol", "random")  # deals from the standard game's shuffles


# ---------------------------------------------------------------- checking each line


def checked(record: Record) -> Record:
    """The record when its claims hold, else the same line as an error saying why.

    A "solved" line must carry moves that win its deal. A best-score line must carry
    legal moves that score exactly its `best`, within its upper bound; its verdict must
    fit (solved: the best is a win; unsolvable: a proven best short of one).
    """
    if record.verdict not in SETTLED and record.best is None:
        return record
    if record.verdict == "unsolvable" and record.task == "solve":
        return record  # a claim of no solution is checked by comparing backends
    try:
        position = _position(record)
    except InputError as error:
        return record.with_error(f"its deal cannot be derived again: {error}")
    moves = []
    for card, fan in record.moves:
        try:
            moves.append(Move(card=parse_card(card), fan=fan))
        except ValueError as error:
            return record.with_error(f"its moves cannot be replayed ({error}: {card[:12]!r})")
    judged = replay(position.deal, moves)
    if record.task == "solve":
        if judged.won:
            return record
        return record.with_error("solved, but its moves do not win: "
                                 + judged.describe(position.moved, position.of))
    return _checked_best(record, position, judged.outcome, position.moved + judged.played)


def _checked_best(record: Record, position: Position, outcome: Outcome, score: int) -> Record:
    if outcome is Outcome.ILLEGAL:
        return record.with_error("its best line is illegal")
    if record.best is None:
        return record.with_error(f"{record.verdict}, but it gives no best score")
    if score != record.best:
        return record.with_error(f"claims best {record.best}, but its moves score {score}")
    bound = record.upper_bound
    if bound is not None and (bound < record.best or bound > position.of):
        return record.with_error(f"upper bound {bound} outside {record.best}..{position.of}")
    if record.proven and bound is not None and bound != record.best:
        return record.with_error(f"proven, but its upper bound {bound} is not its best")
    won = record.best == position.of
    if record.verdict == "solved" and not won:
        return record.with_error(f"solved, but its best is {record.best} of {position.of}")
    if record.verdict == "unsolvable" and (won or not record.proven):
        return record.with_error(f"unsolvable, but its best {record.best} of {position.of} "
                                 + ("is a win" if won else "is not proven"))
    return record


def _position(record: Record) -> Position:
    """The record's deal, derived once per (deal, board) however many lines name it."""
    board = None if record.board is None else json.dumps(record.board, sort_keys=True)
    return _derived(record.deal, board)


@cache
def _derived(deal: str, board: str | None) -> Position:
    return position_of_record(Record(deal, "", "unknown", 0.0,
                                     board=None if board is None else json.loads(board)))


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
    random:any, random:ranks=R, or file."""
    try:
        dealt = generated_spec(spec)
    except InputError:
        dealt = None  # a name a results file holds but no spec parses: counted as a file
    if dealt is None:
        return "file"
    kind, _, variant = dealt
    return f"{kind}:{variant}" if variant else kind


def run_name(record: Record) -> str:
    """How the report names a line's run: the backend label, marked for a best task."""
    return record.backend if record.task == "solve" else f"{record.backend} (best)"


# ---------------------------------------------------------------- the report


@dataclass(frozen=True)
class BackendSummary:
    backend: str
    task: str  # solve or best
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
    fastest: int  # deals settled in the least time, against runs of other engines
    engines: dict[str, int] = field(default_factory=dict)  # engine that answered → deals


@dataclass(frozen=True)
class Disagreement:
    """Runs that cannot all be right about a deal: solved against unsolvable, or (best
    task) a proven best that another run's replayed line beats or misses."""

    deal: str
    solved_by: list[str]
    unsolvable_by: list[str]
    best: dict[str, int] = field(default_factory=dict)  # run → its best, when in dispute


@dataclass(frozen=True)
class Solvability:
    source: str  # pysol, pysol:all-in-a-row, random, random:any, ..., or file
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
class BestScores:
    """The best score per deal where best-score runs ran: the proven optimum, else the
    highest score a replayed line reached (a lower bound)."""

    deals: int
    proven: int
    histogram: dict[int, int]  # proven best → deals
    lower_bounds: dict[int, int]  # unproven best found → deals
    of: int | None  # the win (51 for a standard deal), when every deal has the same


@dataclass(frozen=True)
class Report:
    results: str
    records: int
    duplicates: int  # lines superseded by a later line for the same task
    deals: int
    backends: list[BackendSummary]
    disagreements: list[Disagreement]
    errors: list[dict[str, str]]  # {"deal", "backend", "task", "reason"}
    solvability: list[Solvability]
    best: BestScores | None = None
    lines: list[Record] = field(default_factory=list, repr=False)  # checked, current

    @property
    def consistent(self) -> bool:
        """No disagreement and no error: the CLI exits 0, else 4."""
        return not self.disagreements and not self.errors

    def to_json(self) -> dict[str, Any]:
        data = asdict(replace(self, lines=[]))
        del data["lines"]
        return data


def summarize(records: Sequence[Record], results: str = "") -> Report:
    """The report of a results file's records (each line checked first)."""
    lines = [checked(record) for record in latest(records).values()]
    by_deal: dict[str, list[Record]] = {}
    by_run: dict[tuple[str, str], list[Record]] = {}
    for record in lines:
        by_deal.setdefault(record.deal, []).append(record)
        by_run.setdefault((record.task, record.backend), []).append(record)
    fastest = dict.fromkeys(by_run, 0)
    order = list(by_run)
    disagreements = []
    for deal, runs in by_deal.items():
        for task in {r.task for r in runs}:
            ran = [r for r in runs if r.task == task]
            settled = [(r.seconds, order.index((task, r.backend))) for r in ran
                       if r.verdict in SETTLED]
            if settled and len({engine_of(r) for r in ran}) > 1:  # a race of engines
                fastest[order[min(settled)[1]]] += 1
        disagreement = _disagreement(deal, runs)
        if disagreement is not None:
            disagreements.append(disagreement)
    backends = [_backend_summary(task, name, by_run[task, name], fastest[task, name])
                for task, name in order]
    errors = [{"deal": r.deal, "backend": r.backend, "task": r.task, "reason": str(r.reason)}
              for r in lines if r.verdict == "error"]
    best = _best_scores(by_deal) if any(r.task == "best" for r in lines) else None
    return Report(results, len(records), len(records) - len(lines), len(by_deal), backends,
                  disagreements, errors, _solvability(by_deal), best, lines)


def _disagreement(deal: str, runs: list[Record]) -> Disagreement | None:
    solved = [run_name(r) for r in runs if r.verdict == "solved"]
    unsolvable = [run_name(r) for r in runs if r.verdict == "unsolvable"]
    scored = _scored(runs)
    disputed = _best_disputed(scored)
    if not (solved and unsolvable) and not disputed:
        return None
    best = {run_name(r): r.best for r in scored} if disputed else {}
    return Disagreement(deal, solved, unsolvable, best)


def _scored(runs: Iterable[Record]) -> list[Record]:
    """The best-score lines that found a score (each already checked)."""
    return [r for r in runs if r.task == "best" and r.verdict != "error" and r.best is not None]


def _best_disputed(scored: list[Record]) -> bool:
    """Whether these best-score lines cannot all hold: a proven best that another line's
    replayed score differs from, or an upper bound below a replayed score."""
    reached = max((r.best for r in scored), default=0)
    return any(r.proven and r.best != reached for r in scored) or any(
        r.upper_bound is not None and r.upper_bound < reached for r in scored)


def _backend_summary(task: str, name: str, records: list[Record],
                     fastest: int) -> BackendSummary:
    counts = dict.fromkeys(VERDICTS, 0)
    for record in records:
        counts[record.verdict] += 1
    times = [float(record.seconds) for record in records]
    engines: dict[str, int] = {}
    for record in records:
        if record.verdict in SETTLED:
            engines[engine_of(record)] = engines.get(engine_of(record), 0) + 1
    engines = dict(sorted(engines.items(), key=lambda item: (-item[1], item[0])))
    return BackendSummary(name, task, len(records), counts["solved"], counts["unsolvable"],
                          counts["unknown"], counts["error"], quantile(times, 0.5),
                          quantile(times, 0.9), quantile(times, 0.99), max(times, default=None),
                          sum(times), fastest, engines)


def engine_of(record: Record) -> str:
    """The engine that answered a line: its `solver` (look, glucose4, cp-sat:inverse, ...),
    else its backend label (a line written without one)."""
    return record.solver or record.backend


def deal_verdict(runs: Iterable[Record]) -> str:
    """One verdict per deal: solved or unsolvable when some run settled it, "disputed"
    when runs disagree, else unknown."""
    verdicts = {r.verdict for r in runs}
    if "solved" in verdicts and "unsolvable" in verdicts:
        return "disputed"
    for verdict in SETTLED:
        if verdict in verdicts:
            return verdict
    return "unknown"


def _solvability(by_deal: dict[str, list[Record]]) -> list[Solvability]:
    groups: dict[str, list[str]] = {}
    for deal, runs in by_deal.items():
        groups.setdefault(deal_source(deal), []).append(deal_verdict(runs))
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


def deal_best(runs: Iterable[Record]) -> tuple[int, bool] | None:
    """The deal's best score from its best-score lines, and whether it is proven; None
    when no line found one (or the lines are in dispute)."""
    scored = _scored(runs)
    if not scored or _best_disputed(scored):
        return None
    return max(r.best for r in scored), any(r.proven for r in scored)


def _best_scores(by_deal: dict[str, list[Record]]) -> BestScores:
    histogram: dict[int, int] = {}
    lower: dict[int, int] = {}
    wins = set()
    deals = 0
    for runs in by_deal.values():
        found = deal_best(runs)
        if found is None:
            continue
        deals += 1
        score, proven = found
        table = histogram if proven else lower
        table[score] = table.get(score, 0) + 1
        wins.add(_position(next(r for r in runs if r.task == "best")).of)
    return BestScores(deals, sum(histogram.values()), dict(sorted(histogram.items())),
                      dict(sorted(lower.items())), wins.pop() if len(wins) == 1 else None)


# ---------------------------------------------------------------- tables (built, not printed)


def tables(report: Report) -> list[Any]:
    """Rich renderables for the report: backends, solvability, best scores, disagreements
    and errors."""
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
    if report.best is not None:
        out += _best_table(report.best, compact)
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


def _best_table(best: BestScores, compact: dict[str, Any]) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    of = f" of {best.of}" if best.of is not None else ""
    table = Table(title="deals per best score", **compact)
    for column in ("best", "proven", "not proven"):
        table.add_column(column, justify="right", min_width=len(column))
    for score in sorted(best.histogram.keys() | best.lower_bounds.keys()):
        table.add_row(str(score), str(best.histogram.get(score, 0)),
                      str(best.lower_bounds.get(score, 0)))
    return [Text(f"best score{of}: {best.deals} deals, {best.proven} proven optimal"), table]


def report_json(report: Report, plots: Sequence[Path] = (),
                run: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `--json` document of `blackhole report` and `blackhole bench` (docs/bench.md)."""
    data = report.to_json()
    data["plots"] = [str(path) for path in plots]
    if run is not None:
        data["run"] = run
    return data
