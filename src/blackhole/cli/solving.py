"""solve and encode: one deal through one backend, or its encodings written out."""

import json
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from blackhole import answers
from blackhole.backends import DEFAULT_BACKEND, REGISTRY, Verdict, choose
from blackhole.base.errors import InputError
from blackhole.cli.guard import command_timeout, user_errors
from blackhole.cli.options import (
    AfterOption,
    AsciiFlag,
    BudgetOption,
    DealSpec,
    GameOption,
    JsonFlag,
    SeedOption,
    WorkersOption,
    choices,
    parse_features,
    read_game,
)
from blackhole.cli.output import Styled, card_piece, console, from_where, plain_console, working
from blackhole.encode.cpsat_names import DEFAULT_MODEL, MODELS
from blackhole.model.deal import Position
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.questions.pipeline import Solution


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    pysol = "pysol"


def solve(
    spec: DealSpec,
    backend: Annotated[str, typer.Option(
        help=f"One of: {', '.join(REGISTRY)}. auto (the default) runs the look and a SAT "
             "solver and says which answered; each other runs only its own engine. look's "
             "refutations carry no proof. sat:SOLVER and cpsat:MODEL pick a variant.")]
    = DEFAULT_BACKEND,
    solver: Annotated[str | None, typer.Option(
        help="SAT solver name (sat backend; auto: its SAT solver).")] = None,
    model: Annotated[str | None, typer.Option(
        help=f"CP-SAT model (cpsat backend): {choices(MODELS, DEFAULT_MODEL)}.")] = None,
    workers: WorkersOption = None,
    seed: SeedOption = None,
    timeout: Annotated[float | None, typer.Option(
        help="Wall-clock limit in seconds (> 0); reaching it gives 'unknown'.",
        show_default=False)] = None,
    solver_cmd: Annotated[str | None, typer.Option(
        help="External DIMACS solver command, e.g. 'cadical -q'.")] = None,
    proof_arg: Annotated[str | None, typer.Option(
        help="External: arguments asking for a DRAT proof in the file {proof} (default "
             "'{proof}' for cadical and kissat; '' asks none, so UNSAT is unknown).")] = None,
    features: Annotated[str | None, typer.Option(
        help="Encoding features, comma-separated ('none' for the plain encoding).")] = None,
    budget: BudgetOption = None,
    as_json: JsonFlag = False,
    format: Annotated[OutputFormat, typer.Option(
        help="text, json (same as --json) or pysol (black-hole-solve's output).")]
    = OutputFormat.text,
    ascii_only: AsciiFlag = False,
    after: AfterOption = None,
    game: GameOption = None,
) -> None:
    """Solve a deal, or a position with --after; every solution is replayed through the
    rules engine before it is shown."""
    with user_errors():
        if as_json and format is OutputFormat.pysol:
            raise InputError("--json and --format pysol ask for two outputs: give one",
                             "--format", token=format.value)
        name, options = choose(backend, timeout, solver=solver, model=model,
                               workers=workers, seed=seed, solver_cmd=solver_cmd,
                               proof_arg=proof_arg, features=parse_features(features),
                               budget=budget)
        position = load_position(spec, after, read_game(game))
        options = replace(options, timeout=command_timeout(options.timeout))
        with working(f"solving {spec}"):
            found = answers.solve(spec, position, name, options)
    solution = found.found
    if as_json or format is OutputFormat.json:
        typer.echo(json.dumps(found.document))
    elif format is OutputFormat.pysol:
        from blackhole.model.solutions import black_hole_solve_text

        typer.echo("Intractable!\n" if solution.verdict is Verdict.UNKNOWN  # as it says it
                   else black_hole_solve_text(solution.moves,
                                              solution.verdict is Verdict.SOLVED), nl=False)
    else:
        _print_solution(solution, position, ascii_only)
    raise typer.Exit(found.exit_code)


def _print_solution(solution: Solution, position: Position, ascii_only: bool) -> None:
    """Moves numbered, and cards counted, from the start of the deal."""
    out = plain_console if ascii_only else console
    result = solution.result
    if result.backend == "auto":
        ran = list(dict.fromkeys(stage["engine"] for stage in result.stats.get("stages", ())))
        engine = f"auto: {result.solver} answered" if result.verdict is not Verdict.UNKNOWN \
            else f"auto: {' and '.join(ran or [result.solver])} ran"
    elif result.backend == result.solver:
        engine = result.backend
    else:
        engine = f"{result.backend}/{result.solver}"
    how = f"{engine} in {result.seconds:.3f} s"
    if result.verdict is Verdict.SOLVED:
        text = Styled(f"solved ({how})\n", style="bold green")
        for number, (card, fan, kind) in enumerate(solution.moves, start=position.made + 1):
            text.append(f"{number:>3}. ")
            text.append(*card_piece(card, ascii_only))
            text.append(from_where(fan, card, position.deal, kind) + "\n")
        judged = solution.replay
        text.append(f"{position.moved + judged.played} of {position.of} cards moved; "
                    "replayed by the rules engine")
        out.print(text)  # one print: Rich's cost is per call
    elif result.verdict is Verdict.UNSOLVABLE:
        why = ("its search covered every line; no proof" if result.solver == "look"
               else "a complete method found no solution")
        out.print(Styled(f"unsolvable ({how}; {why})", style="bold red"))
    else:
        # the backend's reason (the look's move budget, an unchecked UNSAT), else the limit
        why = result.stats.get("reason") or "time limit reached"
        out.print(Styled(f"unknown: {why} ({how})", style="yellow"))


class EncodeFormat(StrEnum):
    problem_json = "problem-json"
    dimacs = "dimacs"
    cpsat = "cpsat"


def encode(
    spec: DealSpec,
    format: Annotated[EncodeFormat, typer.Option(help="What to write.")]
    = EncodeFormat.problem_json,
    features: Annotated[str | None, typer.Option(
        help="Encoding features, comma-separated ('none' for the plain encoding).")] = None,
    model: Annotated[str | None, typer.Option(
        help=f"CP-SAT model (cpsat format): {choices(MODELS, DEFAULT_MODEL)}.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write to this file, not stdout.")] = None,
    after: AfterOption = None,
) -> None:
    """Write the deal's problem (graph), its CNF (DIMACS) or its CP-SAT model (text proto)."""
    from blackhole.encode import export

    with user_errors():
        # every encoding reads the game; a model that cannot take it says so
        problem = build_problem(load_position(spec, after).deal, "encode", RULES_HELD)
        text = export(problem, format.value, features=parse_features(features), model=model)
        if out is not None:
            try:
                out.write_text(text, encoding="utf-8")
            except OSError as error:
                raise InputError(f"cannot write ({error.strerror})", str(out)) from None
    if out is None:
        typer.echo(text, nl=False)
