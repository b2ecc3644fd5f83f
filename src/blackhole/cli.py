"""The `blackhole` command line: a thin Typer layer over the library.

Exit codes: 0 solved / ok, 1 unsolvable or a failed check, 2 bad input or usage,
3 unknown (a limit was reached), 4 internal error (a cross-check failed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from blackhole.backends import REGISTRY, Options, Verdict, check_options_apply, make_backend
from blackhole.bench import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, GRACE
from blackhole.deal import board_text, deal_json, expand_specs, load_deal
from blackhole.errors import InputError, InternalError
from blackhole.problem import build_problem
from blackhole.rules import replay
from blackhole.solutions import black_hole_solve_text, parse_solution
from blackhole.solve import Solution, solution_json, solve_deal

app = typer.Typer(help="Solve, compare and certify deals of the patience game Black Hole.",
                  no_args_is_help=True, add_completion=False)
# Piped output (files, CI logs) gets room for the widest report table instead of Rich's
# 80 columns, which would crop its figures; a terminal keeps its own width.
console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
VERDICT_EXIT = {Verdict.SOLVED: EXIT_OK, Verdict.UNSOLVABLE: EXIT_NO,
                Verdict.UNKNOWN: EXIT_UNKNOWN}

DealSpec = Annotated[str, typer.Argument(
    help="A board or JSON file, '-' for stdin, pysol:N[:all-in-a-row] or random:SEED[:any].",
    show_default=False)]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


@contextmanager
def user_errors() -> Iterator[None]:
    """Bad input → one line on stderr and exit 2; failed cross-check → exit 4."""
    try:
        yield
    except InputError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except InternalError as error:
        typer.echo(f"internal error: {error}", err=True)
        raise typer.Exit(EXIT_INTERNAL) from None


def _card_text(card, ascii_only: bool) -> Text:
    if ascii_only:
        return Text(str(card))
    return Text(card.unicode(), style="red" if card.is_red else "bold")


@app.command()
def show(spec: DealSpec,
         ascii_only: Annotated[bool, typer.Option("--ascii", help="Plain ASCII, no colour.")]
         = False) -> None:
    """Draw a deal: the hole, then each fan bottom → top with its top card marked."""
    with user_errors():
        deal = load_deal(spec)
    out = Console(highlight=False, no_color=ascii_only, emoji=False)
    brackets = ascii_only or not out.is_terminal  # underline only shows on a terminal
    hole = Text("hole: ")
    hole.append(_card_text(deal.foundation, ascii_only) if deal.foundation else Text("empty"))
    out.print(hole)
    for number, fan in enumerate(deal.fans, start=1):
        line = Text(f"{number:>3}  ")
        for i, card in enumerate(fan):
            text = _card_text(card, ascii_only)
            if i == len(fan) - 1:  # the top card
                text = Text("[") + text + Text("]") if brackets else text
                text.stylize("underline")
            line.append(text)
            line.append(" ")
        out.print(line)
    arrow = "->" if ascii_only else "→"
    out.print(Text(f"fans run bottom {arrow} top; "
                   + ("[top card]" if brackets else "the top card is underlined")))


class DealFormat(StrEnum):
    board = "board"
    json = "json"


@app.command("deal")
def deal_command(spec: DealSpec,
                 format: Annotated[DealFormat, typer.Option(help="Output format.")]
                 = DealFormat.board) -> None:
    """Write a deal as a board file or as JSON."""
    with user_errors():
        deal = load_deal(spec)
        text = json.dumps(deal_json(deal)) + "\n" if format is DealFormat.json \
            else board_text(deal)
    typer.echo(text, nl=False)


@app.command()
def check(spec: DealSpec,
          solution: Annotated[Path, typer.Argument(
              help="Our JSON, a list of cards, or black-hole-solve's output ('-': stdin).")],
          as_json: JsonFlag = False) -> None:
    """Replay a solution through the rules engine; exit 0 if it wins, 1 if not."""
    with user_errors():
        deal = load_deal(spec)
        source = str(solution)
        if source == "-":
            text = sys.stdin.read()
        elif solution.is_file():
            text = solution.read_text(encoding="utf-8", errors="replace")
        else:
            raise InputError("no such solution file", source)
        judged = replay(deal, parse_solution(text, source))
    if as_json:
        typer.echo(json.dumps({"deal": spec, "outcome": judged.outcome.value,
                               "played": judged.played, "total": judged.total,
                               "illegal_move": None if judged.index is None
                               else judged.index + 1, "reason": judged.reason}))
    else:
        style = "green" if judged.won else "red"
        console.print(Text(judged.describe(), style=style))
    raise typer.Exit(EXIT_OK if judged.won else EXIT_NO)


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    pysol = "pysol"


def _features(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    if text.strip().lower() == "none":
        return frozenset()
    return frozenset(name.strip() for name in text.split(",") if name.strip())


@app.command()
def solve(
    spec: DealSpec,
    backend: Annotated[str, typer.Option(
        help=f"One of: {', '.join(REGISTRY)}.")] = "sat",
    solver: Annotated[str | None, typer.Option(help="SAT solver name (sat backend).")] = None,
    model: Annotated[str | None, typer.Option(
        help="CP-SAT model (cpsat backend): inverse (default), boolean or circuit.")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="CP-SAT search workers (default 1).", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        help="CP-SAT random seed (default 0).", show_default=False)] = None,
    timeout: Annotated[float | None, typer.Option(
        min=0.0, help="Wall-clock limit in seconds; reaching it gives 'unknown'.")] = None,
    solver_cmd: Annotated[str | None, typer.Option(
        help="External DIMACS solver command, e.g. 'cadical -q'.")] = None,
    features: Annotated[str | None, typer.Option(
        help="Encoding features, comma-separated ('none' for the plain encoding).")] = None,
    as_json: JsonFlag = False,
    format: Annotated[OutputFormat, typer.Option(
        help="text, json (same as --json) or pysol (black-hole-solve's output).")]
    = OutputFormat.text,
) -> None:
    """Solve a deal; every solution is replayed through the rules engine before it is shown."""
    flags = {"solver": ("--solver", solver), "model": ("--model", model),
             "workers": ("--workers", workers), "seed": ("--seed", seed),
             "solver_cmd": ("--solver-cmd", solver_cmd), "features": ("--features", features)}
    given = {name: flag for name, (flag, value) in flags.items() if value is not None}
    options = Options(timeout=timeout, solver=solver, model=model, workers=workers or 1,
                      seed=seed or 0, solver_cmd=solver_cmd, features=_features(features))
    with user_errors():
        check_options_apply(make_backend(backend), given)
        solution = solve_deal(load_deal(spec), backend, options)
    if as_json or format is OutputFormat.json:
        typer.echo(json.dumps(solution_json(spec, solution)))
    elif format is OutputFormat.pysol:
        typer.echo(black_hole_solve_text(solution.moves, solution.verdict is Verdict.SOLVED),
                   nl=False)
    else:
        _print_solution(solution)
    raise typer.Exit(VERDICT_EXIT[solution.verdict])


def _print_solution(solution: Solution) -> None:
    result = solution.result
    how = f"{result.backend}/{result.solver} in {result.seconds:.3f} s"
    if result.verdict is Verdict.SOLVED:
        console.print(Text(f"solved ({how})", style="bold green"))
        for number, (card, fan) in enumerate(solution.moves, start=1):
            line = Text(f"{number:>3}. ")
            line.append(_card_text(card, ascii_only=False))
            line.append(f" from fan {fan + 1}")
            console.print(line)
        judged = solution.replay
        console.print(f"{judged.played} of {judged.total} cards moved; "
                      "replayed by the rules engine")
    elif result.verdict is Verdict.UNSOLVABLE:
        console.print(Text(f"unsolvable ({how}; a complete method found no solution)",
                           style="bold red"))
    else:
        console.print(Text(f"unknown: limit reached ({how})", style="yellow"))


class EncodeFormat(StrEnum):
    problem_json = "problem-json"
    dimacs = "dimacs"
    cpsat = "cpsat"


@app.command()
def encode(
    spec: DealSpec,
    format: Annotated[EncodeFormat, typer.Option(help="What to write.")]
    = EncodeFormat.problem_json,
    features: Annotated[str | None, typer.Option(
        help="Encoding features, comma-separated ('none' for the plain encoding).")] = None,
    model: Annotated[str | None, typer.Option(
        help="CP-SAT model (cpsat format): inverse (default), boolean or circuit.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write to this file, not stdout.")] = None,
) -> None:
    """Write the deal's problem (graph), its CNF (DIMACS) or its CP-SAT model (text proto)."""
    from blackhole.encode import export

    with user_errors():
        problem = build_problem(load_deal(spec))
        text = export(problem, format.value, features=_features(features), model=model)
        if out is not None:
            try:
                out.write_text(text, encoding="utf-8")
            except OSError as error:
                raise InputError(f"cannot write ({error.strerror})", str(out)) from None
    if out is None:
        typer.echo(text, nl=False)




@app.command("certify")
def certify_command(
    specs: Annotated[str, typer.Argument(
        help="A deal spec, or several: ranges such as pysol:1-1000, folders, @list.txt.",
        show_default=False)],
    out: Annotated[Path, typer.Option(help="Certificate folder (one subfolder per deal "
                                           "when several are given).")] = Path("certificate"),
    solver: Annotated[str, typer.Option(
        help="Proof-logging pysat solver: g4, g3, mcb or mcm.")] = "g4",
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    timeout: Annotated[float | None, typer.Option(min=0.0, help="Seconds per deal.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Prove a deal unsolvable with a checked DRUP certificate, or give its winning moves."""
    from blackhole.certify import certificate_folders, certify, check_choices

    with user_errors():
        deal_specs = expand_specs(specs)
        check_choices(solver, checker)
        many = len(deal_specs) > 1
        rows = []
        for spec, folder in zip(deal_specs, certificate_folders(deal_specs, out), strict=True):
            deal = load_deal(spec)
            rows.append((spec, certify(deal, spec, folder, solver, timeout, checker)))
            if not as_json and many:
                _print_certificate(*rows[-1])
    if as_json:
        typer.echo(json.dumps([_certificate_json(spec, c) for spec, c in rows]))
    elif many:
        _print_certificate_summary([c for _, c in rows])
    else:
        _print_certificate(*rows[0])
    raise typer.Exit(max(_certificate_exit(c) for _, c in rows))


def _certificate_exit(cert) -> int:
    if cert.verdict is Verdict.UNSOLVABLE:
        return EXIT_NO if cert.check.ok else EXIT_INTERNAL
    return VERDICT_EXIT[cert.verdict]


def _certificate_json(spec: str, cert) -> dict:
    data = {"deal": spec, "verdict": cert.verdict.value, "folder": str(cert.folder)}
    if cert.check is not None:
        data.update(certified=cert.check.ok, reason=cert.check.reason,
                    proof_lines=cert.manifest["proof"]["lines"],
                    proof_bytes=cert.manifest["proof"]["bytes"],
                    seconds=cert.manifest["seconds"])
    if cert.solution is not None:
        data["moves"] = [{"card": str(card), "fan": fan} for card, fan in cert.solution.moves]
    return data


def _print_certificate(spec: str, cert) -> None:
    if cert.verdict is Verdict.UNSOLVABLE:
        seconds = cert.manifest["seconds"]
        proof = cert.manifest["proof"]
        if cert.check.ok:
            console.print(Text(f"{spec}: certified unsolvable", style="bold red"),
                          f"({proof['lines']} proof lines, {proof['bytes']} bytes; solve "
                          f"{seconds['solve']:.3f} s, check {seconds['check']:.3f} s) "
                          f"→ {cert.folder}")
        else:
            console.print(Text(f"{spec}: proof REJECTED by the checker: {cert.check.reason}",
                               style="bold red on white"))
    elif cert.verdict is Verdict.SOLVED:
        console.print(Text(f"{spec}: solvable", style="bold green"),
                      f"— no certificate of unsolvability; the winning moves "
                      f"({cert.solution.replay.played} cards, replayed) are in "
                      f"{cert.folder / 'solution.json'}")
    else:
        console.print(Text(f"{spec}: unknown (time limit reached)", style="yellow"))


def _print_certificate_summary(certs: list) -> None:
    from statistics import median

    proofs = [c for c in certs if c.check is not None]
    counts = {v: sum(c.verdict is v for c in certs) for v in Verdict}
    console.print(f"{len(certs)} deals: {counts[Verdict.UNSOLVABLE]} certified unsolvable "
                  f"({sum(not c.check.ok for c in proofs)} rejected), "
                  f"{counts[Verdict.SOLVED]} solvable, {counts[Verdict.UNKNOWN]} unknown")
    if proofs:
        total = [sum(c.manifest["seconds"].values()) for c in proofs]
        lines = [c.manifest["proof"]["lines"] for c in proofs]
        size = [c.manifest["proof"]["bytes"] for c in proofs]
        console.print(f"per certificate (encode + solve + check): median {median(total):.3f} s, "
                      f"max {max(total):.3f} s, total {sum(total):.1f} s; proof lines median "
                      f"{median(lines):.0f}, max {max(lines)}; bytes max {max(size)}")


@app.command()
def verify(
    folder: Annotated[Path, typer.Argument(help="A folder written by `blackhole certify`.")],
    checker: Annotated[str, typer.Option(help="blackhole (own checker) or drat-trim.")]
    = "blackhole",
    as_json: JsonFlag = False,
) -> None:
    """Re-derive the CNF from the certificate's deal and check its proof: VERIFIED or why not."""
    from blackhole.certify import verify as verify_certificate

    with user_errors():
        check = verify_certificate(folder, checker)
    if as_json:
        typer.echo(json.dumps({"folder": str(folder), "verified": check.ok,
                               "reason": check.reason, "stats": check.stats}))
    elif check.ok:
        console.print(Text("VERIFIED", style="bold green"),
                      f"the deal in {folder} has no solution "
                      f"(proof checked in {check.stats.get('seconds', 0):.3f} s)")
    else:
        console.print(Text("NOT VERIFIED", style="bold red"), check.reason)
    raise typer.Exit(EXIT_OK if check.ok else EXIT_NO)


# ---------------------------------------------------------------- bench and report


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
