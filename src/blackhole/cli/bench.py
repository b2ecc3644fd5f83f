"""bench and report: many deals through several backends, and their summary."""

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blackhole.backends import REGISTRY, Options
from blackhole.base.errors import InputError
from blackhole.base.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from blackhole.base.extras import require
from blackhole.bench.plan import DEFAULT_BACKENDS, DEFAULT_TIMEOUT, GRACE
from blackhole.bench.run import DEFAULT_MEMORY_MB, BenchSummary
from blackhole.cli.guard import FLAG_OF, user_errors
from blackhole.cli.options import BudgetOption, JsonFlag
from blackhole.cli.output import PIPED_WIDTH, make_console

if TYPE_CHECKING:
    from rich.console import Console

# run_bench's parameters, as the bench command's options and arguments name them
_BENCH_FLAGS = {**FLAG_OF, "specs": "SPECS", "backends": "--backends", "task": "--task",
                "dask": "--dask", "chunk": "--chunk", "jobs": "--jobs"}
SHOW_EVERY = 0.05  # seconds between updates of the progress bar (the first and last always)


@contextmanager
def _bench_errors() -> Iterator[None]:
    """user_errors, naming bench's own settings by their flags too."""
    with user_errors():
        try:
            yield
        except InputError as error:
            typer.echo(f"error: {error.describe(_BENCH_FLAGS)}", err=True)
            raise typer.Exit(EXIT_USAGE) from None


def _stdout() -> "Console":
    """The console of bench's and report's output. A terminal keeps its own width. To a
    pipe or a file, tables fit COLUMNS (PIPED_WIDTH when it is unset or no whole number
    above 0) as far as their columns can narrow, and no line is wrapped or cut
    (`soft_wrap`): a title, the run's summary, an error is one line however long."""
    if sys.stdout.isatty():
        return make_console()
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH
    return make_console(width=width, soft_wrap=True)


@contextmanager
def _bench_progress(show: bool) -> Iterator[Callable]:
    """A live bar on stderr: tasks done, time left, counts per verdict and per backend."""
    from collections import Counter

    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from blackhole.bench.report import run_name

    colours = {"solved": "green", "unsolvable": "red", "unknown": "yellow", "error": "magenta"}
    verdicts: Counter[str] = Counter()
    per_backend: dict[str, Counter[str]] = {}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                        TextColumn("{task.fields[counts]}"),
                        console=make_console(stderr=True), disable=not show)
    bar = progress.add_task("bench", total=None, counts="")

    shown = [0.0]  # when the bar was last updated

    def update(event) -> None:
        if not progress.live.is_started:  # only once the run is planned: no bar before errors
            progress.start()
        if event.record is not None:
            verdicts[event.record.verdict] += 1
            per_backend.setdefault(run_name(event.record), Counter())[event.record.verdict] += 1
        now = time.monotonic()  # the bar is drawn 10 times a second: a few updates will do
        if event.record is not None and event.done < event.total \
                and now - shown[0] < SHOW_EVERY:
            return
        shown[0] = now
        counts = " ".join(f"[{colours[v]}]{v} {verdicts[v]}[/]" for v in colours if verdicts[v])
        counts += "".join(f" | {escape(b)} " + "/".join(str(c[v]) for v in colours)
                          for b, c in per_backend.items())
        progress.update(bar, total=event.total, completed=event.done, counts=counts,
                        description=f"bench (+{event.skipped} before)" if event.skipped
                        else "bench")

    try:
        yield update
    finally:
        if progress.live.is_started:
            progress.stop()


def _report(results: Path, plots: Path | None, as_json: bool,
            run: BenchSummary | None = None) -> None:
    """Print the report of a results file (after a bench `run`, of the lines it held
    and the run's); exit 4 on a disagreement or an error line."""
    from blackhole.bench.plots import write_plots
    from blackhole.bench.record import iter_results
    from blackhole.bench.render import report_json, tables
    from blackhole.bench.report import summarize, summarize_run

    with _bench_errors():  # one line at a time: a million lines fit in little memory
        if run is not None and run.lines is not None:
            summary = summarize_run(results, run.before, run.lines)
        else:
            summary = summarize(iter_results(results), str(results))
        written = write_plots(summary, plots) if plots is not None else []
    if as_json:
        typer.echo(json.dumps(report_json(summary, written,
                                          None if run is None else run.to_json())))
    else:
        out = _stdout()
        for item in tables(summary):
            out.print(item)
        if written:
            out.print("plots: " + ", ".join(map(str, written)), markup=False)
    raise typer.Exit(EXIT_OK if summary.consistent else EXIT_INTERNAL)


PlotsOption = Annotated[Path | None, typer.Option(
    help="Write the plots here (cactus, SAT vs CP-SAT seconds, best scores), PNG and SVG.")]


def bench(
    specs: Annotated[str, typer.Argument(
        help="Deals: pysol:1-1000, random:1-500, a folder of deal files, comma lists.",
        show_default=False)],
    backends: Annotated[str | None, typer.Option(
        help=f"Comma list (default: {','.join(DEFAULT_BACKENDS)}, the two technologies "
             f"compared); also {', '.join(n for n in REGISTRY if n not in DEFAULT_BACKENDS)}; "
             "sat:SOLVER and cpsat:MODEL pick variants.")]
    = None,
    task: Annotated[str, typer.Option(
        help="What each task asks: solve (can the deal be won?) or best (its best score, "
             "proven optimal; default backends: those that find one).")] = "solve",
    timeout: Annotated[float, typer.Option(
        help=f"Backend seconds per task; its worker is killed {GRACE:g} s later.")]
    = DEFAULT_TIMEOUT,
    jobs: Annotated[int | None, typer.Option(
        min=1, help="Worker processes (default: the CPU count).")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help=f"Search threads inside each CP-SAT solve (default {Options.workers}); "
                    "with --jobs 1 --workers 2 one solve uses both cores.")] = None,
    solver_cmd: Annotated[str | None, typer.Option(
        help="The external backend's solver command, e.g. \"kissat -q\" "
             "(checked before any task runs).")] = None,
    proof_arg: Annotated[str | None, typer.Option(
        help="The external solver's arguments that ask for a DRAT proof in {proof} "
             "(default for cadical and kissat); an UNSAT answer without a checked proof "
             "is unknown.")] = None,
    out: Annotated[Path, typer.Option(help="Results file, one JSON line per task.")]
    = Path("results.jsonl"),
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue --out, skipping the tasks it holds.")] = False,
    retry_unknown: Annotated[bool, typer.Option(
        "--retry-unknown", help="With --resume, run again the tasks whose result is unknown "
                                "(say, with a larger --timeout).")] = False,
    dask: Annotated[str | None, typer.Option(
        help="Run on a Dask cluster: the scheduler's address, tcp://HOST:8786.")] = None,
    chunk: Annotated[int | None, typer.Option(
        min=1, help="Deals per Dask task (default: from the run's size, at most 64).")]
    = None,
    memory: Annotated[int, typer.Option(
        min=0, help="Address-space cap per worker in MB (0: none).")] = DEFAULT_MEMORY_MB,
    budget: BudgetOption = None,
    plots: PlotsOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Compare backends over many deals, each task in a killable worker; then the report.

    Deals only, from their start: bench takes no positions (no --after); solve, best and
    certify do."""
    from blackhole.bench import run_bench

    labels = [name.strip() for name in backends.split(",") if name.strip()] if backends else None
    given = {"workers": workers, "solver_cmd": solver_cmd, "proof_arg": proof_arg,
             "budget": budget}
    with _bench_errors():
        if retry_unknown and not resume:
            raise InputError("reruns the tasks of an earlier run: add --resume",
                             "--retry-unknown")
        if chunk is not None and dask is None:
            raise InputError("sets the deals per Dask task: add --dask", "--chunk")
        if plots is not None:  # before the run, not after it
            require("bench", "matplotlib", "plots")
        options = Options(timeout=timeout, workers=workers or 1, solver_cmd=solver_cmd,
                          proof_arg=proof_arg, budget=budget)
        try:
            with _bench_progress(show=not as_json) as on_event:
                summary = run_bench(specs, labels, options, out_path=out, jobs=jobs,
                                    resume=resume, retry_unknown=retry_unknown,
                                    memory_mb=memory or None, dask=dask, chunk=chunk,
                                    task=task,
                                    given=[name for name, value in given.items()
                                           if value is not None],
                                    progress=on_event)
        except KeyboardInterrupt:
            typer.echo(f"interrupted: finished results are in {out}; "
                       "run again with --resume", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if not as_json:
        figures = "" if not summary.written else (
            f"; {summary.per_slot_second:.1f} tasks per second per slot, slots busy "
            f"{summary.utilisation:.0%}, {summary.overhead_ms:.1f} ms per task beyond "
            "the solves")
        _stdout().print(f"{summary.written} results written to {out} ({summary.skipped} "
                        f"tasks skipped, already there) in {summary.seconds:.1f} s{figures}",
                        markup=False)
    _report(out, plots, as_json, run=summary)


def report_command(
    results: Annotated[Path, typer.Argument(
        help="A results file written by `blackhole bench`.", show_default=False)],
    plots: PlotsOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Summarise bench results: counts, times, fastest, disagreements, solvable fraction.
    Every claim is checked again: a solved line's moves must win its deal."""
    _report(results, plots, as_json)
