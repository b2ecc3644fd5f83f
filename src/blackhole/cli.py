"""The `blackhole` command line: a thin Typer layer over the library.

Exit codes: 0 solved / ok, 1 unsolvable or a failed check, 2 bad input or usage,
3 unknown (a limit was reached), 4 internal error (a cross-check failed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from blackhole.backends import REGISTRY, Options, Verdict
from blackhole.deal import board_text, deal_json, load_deal
from blackhole.errors import InputError, InternalError
from blackhole.problem import build_problem
from blackhole.rules import replay
from blackhole.solutions import black_hole_solve_text, parse_solution
from blackhole.solve import Solution, solution_json, solve_deal

app = typer.Typer(help="Solve, compare and certify deals of the patience game Black Hole.",
                  no_args_is_help=True, add_completion=False)
console = Console(highlight=False)

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
VERDICT_EXIT = {Verdict.SOLVED: EXIT_OK, Verdict.UNSOLVABLE: EXIT_NO,
                Verdict.UNKNOWN: EXIT_UNKNOWN}

DealSpec = Annotated[str, typer.Argument(
    help="A board or JSON file, '-' for stdin, pysol:N or random:SEED[:any].",
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
    hole = Text("hole: ")
    hole.append(_card_text(deal.foundation, ascii_only) if deal.foundation else Text("empty"))
    out.print(hole)
    for number, fan in enumerate(deal.fans, start=1):
        line = Text(f"{number:>3}  ")
        for i, card in enumerate(fan):
            top = i == len(fan) - 1
            text = _card_text(card, ascii_only)
            if top:
                text = Text("[") + text + Text("]") if ascii_only else text
                text.stylize("underline")
            line.append(text)
            line.append(" ")
        out.print(line)
    out.print("fans run bottom → top; the top card is marked" if not ascii_only
              else "fans run bottom -> top; [top card]")


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
    if format is DealFormat.json:
        typer.echo(json.dumps(deal_json(deal)))
    else:
        typer.echo(board_text(deal), nl=False)


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
    model: Annotated[str | None, typer.Option(help="CP-SAT model (cpsat backend).")] = None,
    workers: Annotated[int, typer.Option(min=1, help="CP-SAT workers.")] = 1,
    seed: Annotated[int, typer.Option(help="CP-SAT random seed.")] = 0,
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
    options = Options(timeout=timeout, solver=solver, model=model, workers=workers, seed=seed,
                      solver_cmd=solver_cmd, features=_features(features))
    with user_errors():
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
    model: Annotated[str | None, typer.Option(help="CP-SAT model (cpsat format).")] = None,
    out: Annotated[Path | None, typer.Option(help="Write to this file, not stdout.")] = None,
) -> None:
    """Write the deal's problem (graph), its CNF (DIMACS) or its CP-SAT model (text proto)."""
    with user_errors():
        problem = build_problem(load_deal(spec))
        chosen = _features(features)
        if format is EncodeFormat.problem_json:
            text = json.dumps(problem.to_json()) + "\n"
        elif format is EncodeFormat.dimacs:
            from blackhole.cnf import DEFAULT_FEATURES, build_cnf

            text = build_cnf(problem, DEFAULT_FEATURES if chosen is None else chosen).dimacs()
        else:
            from blackhole.backends.cpsat import export_model

            text = export_model(problem, Options(model=model, features=chosen))
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


