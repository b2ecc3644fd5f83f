"""bench and report: many deals through several backends, and their summary."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from blackhole.backends import Options
from blackhole.bench import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, GRACE
from blackhole.cli.common import EXIT_INTERNAL, EXIT_OK, JsonFlag, app, console, user_errors


@contextmanager
def _bench_progress(show: bool) -> Iterator[Callable]:
    """A live bar on stderr: tasks done, time left, counts per verdict and per backend."""
    from collections import Counter

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    colours = {"solved": "green", "unsolvable": "red", "unknown": "yellow", "error": "magenta"}
    verdicts: Counter[str] = Counter()
    per_backend: dict[str, Counter[str]] = {}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                        TextColumn("{task.fields[counts]}"),
                        console=Console(stderr=True), disable=not show)
    bar = progress.add_task("bench", total=None, counts="")

    def update(event) -> None:
        if not progress.live.is_started:  # only once the run is planned: no bar before errors
            progress.start()
        if event.record is not None:
            verdicts[event.record["verdict"]] += 1
            per_backend.setdefault(event.record["backend"], Counter())[
                event.record["verdict"]] += 1
        counts = " ".join(f"[{colours[v]}]{v} {verdicts[v]}[/]" for v in colours if verdicts[v])
        counts += "".join(f" | {b} " + "/".join(str(c[v]) for v in colours)
                          for b, c in per_backend.items())
        progress.update(bar, total=event.total, completed=event.done, counts=counts,
                        description=f"bench (+{event.skipped} before)" if event.skipped
                        else "bench")

    try:
        yield update
    finally:
        progress.stop()


def _report(results: Path, plots: Path | None, as_json: bool, run: dict | None = None) -> None:
    """Print the report of a results file; exit 4 on a disagreement or an error record."""
    from blackhole.report import read_results, report_json, summarize, tables, write_plots

    with user_errors():
        records = read_results(results)
        summary = summarize(records, str(results))
        written = write_plots(records, plots) if plots is not None else []
    if as_json:
        typer.echo(json.dumps(report_json(summary, written, run)))
    else:
        for item in tables(summary):
            console.print(item)
        if written:
            console.print("plots: " + ", ".join(map(str, written)))
    raise typer.Exit(EXIT_OK if summary.consistent else EXIT_INTERNAL)


PlotsOption = Annotated[Path | None, typer.Option(
    help="Write a cactus plot (and SAT vs CP-SAT seconds) here, as PNG and SVG.")]


@app.command()
def bench(
    specs: Annotated[str, typer.Argument(
        help="Deals: pysol:1-1000, random:1-500, a folder of deal files, comma lists.",
        show_default=False)],
    backends: Annotated[str | None, typer.Option(
        help="Comma list (default: every installed backend but external); "
             "sat:SOLVER and cpsat:MODEL pick variants.")] = None,
    timeout: Annotated[float, typer.Option(
        min=0.0, help=f"Backend seconds per task; its worker is killed {GRACE:g} s later.")]
    = DEFAULT_TIMEOUT,
    jobs: Annotated[int | None, typer.Option(
        min=1, help="Worker processes (default: the CPU count).")] = None,
    workers: Annotated[int, typer.Option(
        min=1, help="Search threads inside each CP-SAT solve; "
                    "with --jobs 1 --workers 2 one solve uses both cores.")] = 1,
    out: Annotated[Path, typer.Option(help="Results file, one JSON line per task.")]
    = Path("results.jsonl"),
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue --out, skipping the (deal, backend) pairs it holds.")]
    = False,
    dask: Annotated[str | None, typer.Option(
        help="Run on a Dask cluster: the scheduler's address, tcp://HOST:8786.")] = None,
    memory: Annotated[int, typer.Option(
        min=0, help="Address-space cap per worker in MB (0: none).")] = DEFAULT_MEMORY_MB,
    plots: PlotsOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Compare backends over many deals, each task in a killable worker; then the report."""
    from blackhole.bench import run_bench

    labels = [name.strip() for name in backends.split(",") if name.strip()] if backends else None
    with user_errors():
        try:
            with _bench_progress(show=not as_json) as on_event:
                summary = run_bench(specs, labels, Options(timeout=timeout, workers=workers),
                                    out_path=out,
                                    jobs=jobs, resume=resume, memory_mb=memory or None,
                                    dask_address=dask, progress=on_event)
        except KeyboardInterrupt:
            typer.echo(f"interrupted: finished results are in {out}; "
                       "run again with --resume", err=True)
            raise typer.Exit(130) from None
    if not as_json:
        figures = "" if not summary.written else (
            f"; slots busy {summary.utilisation:.0%}, "
            f"{summary.overhead_ms:.1f} ms per task beyond the solves")
        console.print(f"{summary.written} results written to {out} ({summary.skipped} tasks "
                      f"skipped, already there) in {summary.seconds:.1f} s{figures}")
    _report(out, plots, as_json, run=summary.to_json())


@app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(
        help="A results file written by `blackhole bench`.", show_default=False)],
    plots: PlotsOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Summarise bench results: counts, times, fastest, disagreements, solvable fraction."""
    _report(results, plots, as_json)
