"""The report of a bench results file (one `Record` per line): what it holds per backend
and across backends. Each line is checked first (`blackhole.bench.checks`), the statistics
are in `blackhole.bench.stats`, the tables and the JSON document in
`blackhole.bench.render`, the plots in `blackhole.bench.plots`.

Per backend: verdict counts, the time spent per deal (median, p90, p99, max, total; a
deal given up counts at the time it was given up), the engines that answered (a record's
`solver`: `auto` names the look or its SAT solver per deal), and how many deals it
settled fastest, counted only where engines that really differ ran on the deal (two
runs answered by the same engine are no race).
Across backends: disagreements (one backend solved a deal another called unsolvable, or
best scores that cannot all be right) and the solvable fraction with a 95% Wilson
interval, beside the published figure for the first million PySolFC deals. When a
(task, deal, backend) appears more than once, the last line wins.

The file is read once, one line at a time: each line is checked, and only a few numbers
of it are kept (`Columns`: its verdict, seconds, engine and best score, never its
moves): about 230 bytes a deal, where the report held some 17 kB a line before.

Nothing in a results file is taken on trust, whoever wrote it: a line whose claims fail
its check is counted as an error, saying why.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from blackhole.bench.checks import checked, derived_position
from blackhole.bench.record import VERDICTS, Record
from blackhole.bench.stats import Solvability, deal_source, quantile_sorted, solvability


def run_name(record: Record) -> str:
    """How the report names a line's run: the backend label, marked for a best task."""
    return record.backend if record.task == "solve" else f"{record.backend} (best)"


# ---------------------------------------------------------------- the report


@dataclass(frozen=True)
class SlowDeal:
    """One of a run's slowest deals."""

    deal: str
    seconds: float
    verdict: str


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
    slowest: list[SlowDeal] = field(default_factory=list)  # the most seconds first


@dataclass(frozen=True)
class Disagreement:
    """Runs that cannot all be right about a deal: solved against unsolvable, or (best
    task) a proven best that another run's replayed line beats or misses."""

    deal: str
    solved_by: list[str]
    unsolvable_by: list[str]
    best: dict[str, int] = field(default_factory=dict)  # run → its best, when in dispute


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
    columns: Columns | None = field(default=None, repr=False, compare=False)

    @property
    def consistent(self) -> bool:
        """No disagreement and no error: the CLI exits 0, else 4."""
        return not self.disagreements and not self.errors

    @property
    def runs(self) -> list[str]:
        """The runs' names (`run_name`), in the order the file first names them."""
        return [] if self.columns is None else [r.name for r in self.columns.runs.values()]

    def seconds(self, run: str, settled: bool = True) -> list[float]:
        """The seconds of a run's deals (the settled ones only, by default)."""
        return [] if self.columns is None else self.columns.seconds(run, settled)

    def paired(self, first: str, second: str) -> list[tuple[str, float, float]]:
        """(the deal's verdict, `first`'s seconds, `second`'s) for each deal both ran."""
        return [] if self.columns is None else self.columns.paired(first, second)

    def to_json(self) -> dict[str, Any]:
        data = asdict(replace(self, columns=None))
        del data["columns"]
        return data


# ---------------------------------------------------------------- one pass over the lines

_ABSENT = 255  # a verdict code: the run has no line for the deal
_CODE = {verdict: code for code, verdict in enumerate(VERDICTS)}
_SOLVED, _UNSOLVABLE, _ERROR = _CODE["solved"], _CODE["unsolvable"], _CODE["error"]
_SETTLED_CODES = (_SOLVED, _UNSOLVABLE)
_NO_SCORE = -1  # a best or upper bound the line does not give
_PROVEN = {False: 0, True: 1, None: 2}
SLOWEST = 5  # deals listed per run


class _Run:
    """The last line of one run (task, backend) about each deal, in columns indexed by
    the deal's number in the file: a few bytes a deal, whatever the line held."""

    __slots__ = ("number", "task", "backend", "name", "verdict", "seconds", "engine",
                 "first", "best", "upper", "proven")

    def __init__(self, number: int, task: str, backend: str) -> None:
        self.number, self.task, self.backend = number, task, backend
        self.name = backend if task == "solve" else f"{backend} (best)"
        self.verdict = bytearray()  # a code of VERDICTS, or _ABSENT
        self.seconds = array("d")
        self.engine = array("I")  # an engine's number
        self.first = array("I")  # when the file first named (task, deal, backend)
        best = task == "best"
        self.best = array("i") if best else None  # the best score, or _NO_SCORE
        self.upper = array("i") if best else None
        self.proven = bytearray() if best else None  # _PROVEN's codes

    def reach(self, deal: int) -> None:
        """Make room for `deal`."""
        missing = deal + 1 - len(self.verdict)
        if missing <= 0:
            return
        self.verdict.extend(bytes([_ABSENT]) * missing)
        for column in (self.seconds, self.engine, self.first, self.best, self.upper):
            if column is not None:
                column.frombytes(bytes(column.itemsize * missing))
        if self.proven is not None:
            self.proven.extend(bytes(missing))

    def has(self, deal: int) -> bool:
        return deal < len(self.verdict) and self.verdict[deal] != _ABSENT

    def present(self) -> list[int]:
        return [deal for deal, code in enumerate(self.verdict) if code != _ABSENT]

    def scored(self, deal: int) -> bool:
        """Whether its line about `deal` is a best-score line that found a score."""
        return (self.best is not None and self.verdict[deal] != _ERROR
                and self.best[deal] != _NO_SCORE)


class _Kept(NamedTuple):
    """What a line leaves in `Columns`."""

    task: str
    deal: str
    backend: str
    code: int  # of VERDICTS
    seconds: float
    engine: str
    best: int  # or _NO_SCORE
    upper: int
    proven: int  # of _PROVEN
    of: int | None
    reason: str | None  # of an error line


class Columns:
    """What the report keeps of a results file read one line at a time: for each (task,
    deal, backend), its last line's verdict, seconds, engine and best score (not its
    moves), and the reasons of error lines: about 230 bytes a deal, most of them its name
    and its index."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self.deals: list[str] = []  # the deals in the order the file first names them
        self._source = array("H")  # each deal's source, a number of self.sources
        self._source_numbers: dict[str, int] = {}
        self.sources: list[str] = []
        self.runs: dict[tuple[str, str], _Run] = {}
        self._engine_numbers: dict[str, int] = {}
        self.engines: list[str] = []
        self.of: dict[int, int] = {}  # deal → the score of a win, where a best line ran
        self.errors: dict[tuple[int, int], str] = {}  # (run, deal) → why it is an error
        self.records = 0
        self.keys = 0

    def take(self, record: Record, check: bool = True) -> None:
        """One line of the file, checked first (`checked`) unless `check` is False."""
        line = checked(record) if check else record
        of = None
        if line.task == "best" and line.verdict != "error" and line.best is not None:
            of = derived_position(line).of
        self.add(line, of)

    def add(self, record: Record, of: int | None = None) -> None:
        """A checked line; `of`, a scored best line's score of a win."""
        self.records += 1
        self._put(_Kept(record.task, record.deal, record.backend, _CODE[record.verdict],
                        round(float(record.seconds), 6), engine_of(record),  # as written
                        _NO_SCORE if record.best is None else record.best,
                        _NO_SCORE if record.upper_bound is None else record.upper_bound,
                        _PROVEN[record.proven], of,
                        str(record.reason) if record.verdict == "error" else None))

    def extend(self, later: Columns) -> None:
        """Add the lines `later` kept, as if read after this file's (the last line of a
        (task, deal, backend) wins, and a new one comes after those known)."""
        self.records += later.records
        keys = sorted((each.first[number], each.number, number)
                      for each in later.runs.values() for number in each.present())
        runs = list(later.runs.values())
        for _, which, deal in keys:
            run = runs[which]
            best = run.best is not None and run.upper is not None and run.proven is not None
            self._put(_Kept(run.task, later.deals[deal], run.backend, run.verdict[deal],
                            run.seconds[deal], later.engines[run.engine[deal]],
                            run.best[deal] if best else _NO_SCORE,  # type: ignore[index]
                            run.upper[deal] if best else _NO_SCORE,  # type: ignore[index]
                            run.proven[deal] if best else _PROVEN[None],  # type: ignore[index]
                            later.of.get(deal), later.errors.get((run.number, deal))))

    def _put(self, kept: _Kept) -> None:
        deal = self._index.get(kept.deal)
        if deal is None:
            deal = self._index[kept.deal] = len(self.deals)
            self.deals.append(kept.deal)
            self._source.append(_number(self._source_numbers, self.sources,
                                        deal_source(kept.deal)))
        run = self.runs.get((kept.task, kept.backend))
        if run is None:
            run = self.runs[kept.task, kept.backend] = _Run(len(self.runs), kept.task,
                                                            kept.backend)
        run.reach(deal)
        if run.verdict[deal] == _ABSENT:
            run.first[deal] = self.keys
            self.keys += 1
        run.verdict[deal] = kept.code
        run.seconds[deal] = kept.seconds
        run.engine[deal] = _number(self._engine_numbers, self.engines, kept.engine)
        if run.best is not None and run.upper is not None and run.proven is not None:
            run.best[deal], run.upper[deal], run.proven[deal] = kept.best, kept.upper, \
                kept.proven
        if kept.of is not None:
            self.of[deal] = kept.of
        if kept.reason is not None:
            self.errors[run.number, deal] = kept.reason
        else:
            self.errors.pop((run.number, deal), None)

    def source(self, deal: int) -> str:
        return self.sources[self._source[deal]]

    def _run(self, name: str) -> _Run:
        return next(run for run in self.runs.values() if run.name == name)

    def seconds(self, name: str, settled: bool = True) -> list[float]:
        run = self._run(name)
        return [run.seconds[deal] for deal, code in enumerate(run.verdict)
                if code != _ABSENT and (not settled or code in _SETTLED_CODES)]

    def paired(self, first: str, second: str) -> list[tuple[str, float, float]]:
        a, b = self._run(first), self._run(second)
        return [(deal_verdict_of(self, deal), a.seconds[deal], b.seconds[deal])
                for deal in range(len(self.deals)) if a.has(deal) and b.has(deal)]

    def lines_of(self, deal: int) -> list[_Run]:
        """The runs with a line about `deal`, in the order the file first named them."""
        return sorted((run for run in self.runs.values() if run.has(deal)),
                      key=lambda run: run.first[deal])


def _number(numbers: dict[str, int], names: list[str], name: str) -> int:
    """The number of `name` in `names`, added when new."""
    number = numbers.get(name)
    if number is None:
        number = numbers[name] = len(names)
        names.append(name)
    return number


def deal_verdict_of(columns: Columns, deal: int) -> str:
    """One verdict per deal: solved or unsolvable when some run settled it, "disputed"
    when runs disagree, else unknown."""
    codes = {run.verdict[deal] for run in columns.runs.values() if run.has(deal)}
    if _SOLVED in codes and _UNSOLVABLE in codes:
        return "disputed"
    return "solved" if _SOLVED in codes else "unsolvable" if _UNSOLVABLE in codes \
        else "unknown"


def summarize(records: Iterable[Record], results: str = "") -> Report:
    """The report of a results file's records, read once, one at a time (each line
    checked first); only a few numbers per line are kept (`Columns`)."""
    columns = Columns()
    for record in records:
        columns.take(record)
    return report_of(columns, results)


def summarize_run(path: Path | str, before: int, lines: Columns) -> Report:
    """The report of a results file a bench run has just appended to: the lines the file
    held before (its first `before` bytes), read and checked as `summarize` does, then
    the run's own, as the run kept them (`BenchSummary.lines`)."""
    from blackhole.bench.record import iter_results

    columns = Columns()
    for record in iter_results(path, end=before):
        columns.take(record)
    columns.extend(lines)
    return report_of(columns, str(path))


def report_of(columns: Columns, results: str = "") -> Report:
    """The report of what `Columns` kept of a results file."""
    runs = list(columns.runs.values())
    fastest = [0] * len(runs)
    disagreements = []
    verdicts: dict[str, Counter[str]] = {}  # source → deals per verdict
    histogram: dict[int, int] = {}
    lower: dict[int, int] = {}
    wins: set[int] = set()
    best_deals = 0
    for deal in range(len(columns.deals)):
        ran = [run for run in runs if run.has(deal)]
        for task in {run.task for run in ran}:
            race = [run for run in ran if run.task == task]
            if len({run.engine[deal] for run in race}) > 1:  # a race of engines
                settled = [(run.seconds[deal], run.number) for run in race
                           if run.verdict[deal] in _SETTLED_CODES]
                if settled:
                    fastest[min(settled)[1]] += 1
        codes = {run.verdict[deal] for run in ran}
        scored = [run for run in ran if run.scored(deal)]
        disputed = _disputed(scored, deal)
        if (_SOLVED in codes and _UNSOLVABLE in codes) or disputed:
            disagreements.append(_disagreement(columns, deal, disputed))
        verdicts.setdefault(columns.source(deal), Counter())[deal_verdict_of(columns, deal)] += 1
        if scored and not disputed:
            best_deals += 1
            score = max(run.best[deal] for run in scored)  # type: ignore[index]
            table = histogram if any(run.proven[deal] == 1  # type: ignore[index]
                                     for run in scored) else lower
            table[score] = table.get(score, 0) + 1
            wins.add(columns.of[deal])
    best = None
    if any(run.task == "best" for run in runs):
        best = BestScores(best_deals, sum(histogram.values()), dict(sorted(histogram.items())),
                          dict(sorted(lower.items())), wins.pop() if len(wins) == 1 else None)
    errors = [{"deal": columns.deals[deal], "backend": runs[run].backend,
               "task": runs[run].task, "reason": reason}
              for (run, deal), reason in sorted(columns.errors.items(),
                                                key=lambda item: runs[item[0][0]].first[
                                                    item[0][1]])]
    backends = [_backend_summary(columns, run, fastest[run.number]) for run in runs]
    return Report(results, columns.records, columns.records - columns.keys,
                  len(columns.deals), backends, disagreements, errors,
                  solvability(verdicts), best, columns)


def _disputed(scored: list[_Run], deal: int) -> bool:
    """Whether these best-score lines cannot all hold: a proven best that another line's
    replayed score differs from, or an upper bound below a replayed score."""
    if not scored:
        return False
    reached = max(run.best[deal] for run in scored)  # type: ignore[index]
    return any(run.proven[deal] == 1 and run.best[deal] != reached  # type: ignore[index]
               for run in scored) or any(
        run.upper[deal] != _NO_SCORE and run.upper[deal] < reached  # type: ignore[index]
        for run in scored)


def _disagreement(columns: Columns, deal: int, disputed: bool) -> Disagreement:
    ran = columns.lines_of(deal)
    solved = [run.name for run in ran if run.verdict[deal] == _SOLVED]
    unsolvable = [run.name for run in ran if run.verdict[deal] == _UNSOLVABLE]
    best = {run.name: run.best[deal] for run in ran  # type: ignore[index]
            if run.scored(deal)} if disputed else {}
    return Disagreement(columns.deals[deal], solved, unsolvable, best)


def _backend_summary(columns: Columns, run: _Run, fastest: int) -> BackendSummary:
    counts = dict.fromkeys(VERDICTS, 0)
    engines: dict[int, int] = {}
    deals = run.present()
    for deal in deals:
        code = run.verdict[deal]
        counts[VERDICTS[code]] += 1
        if code in _SETTLED_CODES:
            engines[run.engine[deal]] = engines.get(run.engine[deal], 0) + 1
    named = sorted(((columns.engines[engine], count) for engine, count in engines.items()),
                   key=lambda item: (-item[1], item[0]))
    times = sorted(run.seconds[deal] for deal in deals)
    slowest = [SlowDeal(columns.deals[deal], run.seconds[deal], VERDICTS[run.verdict[deal]])
               for deal in heapq.nlargest(SLOWEST, deals, key=run.seconds.__getitem__)]
    return BackendSummary(run.backend, run.task, len(deals), counts["solved"],
                          counts["unsolvable"], counts["unknown"], counts["error"],
                          quantile_sorted(times, 0.5), quantile_sorted(times, 0.9),
                          quantile_sorted(times, 0.99), times[-1] if times else None,
                          math.fsum(times), fastest, dict(named), slowest)


def engine_of(record: Record) -> str:
    """The engine that answered a line: its `solver` (look, glucose4, cp-sat:inverse, ...),
    else its backend label (a line written without one)."""
    return record.solver or record.backend
