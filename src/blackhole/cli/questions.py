"""best, hint and analyze: the questions a player asks about a position."""

import json
from collections.abc import Sequence
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from blackhole import answers
from blackhole.backends import DEFAULT_BACKEND, FINDS_BEST, Options, Verdict, choose
from blackhole.base.errors import InputError
from blackhole.cli.guard import command_timeout, user_errors
from blackhole.cli.options import (
    AfterOption,
    AsciiFlag,
    BudgetOption,
    DealSpec,
    JsonFlag,
    SeedOption,
    WorkersOption,
    parse_features,
)
from blackhole.cli.output import card_text, console, from_where, plain_console, working
from blackhole.model.cards import Card
from blackhole.model.deal import Kind
from blackhole.model.positions import load_position
from blackhole.model.sources import stdin_once

if TYPE_CHECKING:
    from rich.console import Console

    from blackhole.certificates import Certificate
    from blackhole.model.deal import Position
    from blackhole.questions.advice import Analysis, Hint
    from blackhole.questions.best import Best

TimeoutOption = Annotated[float | None, typer.Option(
    help="Wall-clock limit in seconds (> 0); at the limit the answer is not proven "
         "(exit 3).", show_default=False)]


class Objective(StrEnum):
    cards = "cards"
    turns = "turns"


def best(
    spec: DealSpec,
    backend: Annotated[str, typer.Option(
        help=f"One of: {', '.join(FINDS_BEST)}. auto (the default) takes the look's best "
             "score within its budget, else sat's climb; look proves by exhausting its "
             "search, with no certificate; sat:SOLVER and maxsat:SOLVER pick the SAT "
             "solver. --certify proves the optimum with SAT whichever answered.")]
    = DEFAULT_BACKEND,
    solver: Annotated[str | None, typer.Option(
        help="SAT solver name (sat backend; maxsat: RC2's oracle).")] = None,
    workers: WorkersOption = None,
    seed: SeedOption = None,
    budget: BudgetOption = None,
    features: Annotated[str | None, typer.Option(
        help="Encoding features, comma-separated ('none' for the plain encoding).")] = None,
    timeout: TimeoutOption = None,
    certify: Annotated[Path | None, typer.Option(
        help="Write an optimality certificate to this folder.", show_default=False)] = None,
    as_json: JsonFlag = False,
    ascii_only: AsciiFlag = False,
    after: AfterOption = None,
    objective: Annotated[Objective, typer.Option(
        help="cards: the most cards moved; turns: the fewest talon turns that win "
             "(a game with a talon), by the engine --backend names (any that solves).")]
    = Objective.cards,
) -> None:
    """The best score of a deal or position: the most cards any legal line moves, counted
    from the start of the deal (51 is a win), with one line that reaches it, replayed by
    the rules engine. Exit 0 when proven optimal, 3 when the limit came first (or the
    certificate asked for could not be written: its proof would be too large).

    --objective turns gives the fewest talon turns of a win instead (counted from the
    start of the deal): exit 0 proven, 1 when no line wins, 3 when a limit came first."""
    from blackhole.certificates import certify_found
    from blackhole.questions.best import choose_best

    if objective is Objective.turns:
        _fewest_turns(spec, backend, after, as_json, ascii_only, certify,
                      dict(solver=solver, workers=workers, seed=seed, budget=budget,
                           features=parse_features(features), timeout=timeout))
    with user_errors():
        name, options = choose_best(backend, timeout, solver=solver, workers=workers,
                                    seed=seed, budget=budget,
                                    features=parse_features(features))
        position = load_position(spec, after)
        options = replace(options, timeout=command_timeout(options.timeout))
        with working(f"weighing {spec}"):
            answer = answers.best(spec, position, name, options)
        found, cert = answer.found, None
        if certify is not None and found.proven:
            with working(f"certifying the best score of {spec}"):
                cert = certify_found(found, position, certify, spec,
                                     timeout=command_timeout(timeout))
        if certify is not None:
            answer = answers.with_certificate(answer, cert)
    if as_json:
        typer.echo(json.dumps(answer.document))
    else:
        out = plain_console if ascii_only else console
        how = f"{found.backend}/{found.solver} in {found.seconds:.3f} s"
        if found.proven:
            out.print(Text(f"best: {found.best} of {found.of} (proven optimal; {how})",
                           style="bold green" if found.won else "bold"))
        else:
            out.print(Text(f"best found: {found.best} of {found.of}, at most "
                           f"{found.upper_bound} (limit reached, not proven; {how})",
                           style="yellow"))
        if found.moved:
            out.print(f"from a position with {found.moved} of {found.of} already moved")
        _print_line(out, found.moves, position, ascii_only)
        out.print(f"{found.replay.describe(found.moved, found.of)}; replayed by the rules "
                  "engine")
        if certify is not None:
            out.print(_certificate_note(found, cert, certify))
    raise typer.Exit(answer.exit_code)


def _fewest_turns(spec: str, backend: str, after: str | None, as_json: bool,
                  ascii_only: bool, certify: Path | None, given: dict) -> None:
    """`best --objective turns`: the fewest talon turns of a win, printed."""
    with user_errors():
        if certify is not None:
            raise InputError("--certify proves a best score of cards; the fewest turns "
                             "are proven by the engine named, with no certificate yet",
                             "--certify", token=str(certify))
        timeout = given.pop("timeout")
        name, options = choose(backend, timeout, **given)
        position = load_position(spec, after)
        options = replace(options, timeout=command_timeout(options.timeout))
        with working(f"counting the turns of {spec}"):
            answer = answers.turns(spec, position, name, options)
    found = answer.found
    if as_json:
        typer.echo(json.dumps(answer.document))
        raise typer.Exit(answer.exit_code)
    out = plain_console if ascii_only else console
    engines = ", ".join(dict.fromkeys(f"{step.backend}/{step.solver}"
                                      for step in found.steps))
    how = f"{len(found.steps)} solve(s) by {engines} in {found.seconds:.3f} s"
    if found.won is False:
        out.print(Text(f"no line wins, so no turns to count ({how})", style="bold"))
    elif found.won is None:
        out.print(Text(f"unknown: no engine settled a win before the limit ({how})",
                       style="yellow"))
    elif found.proven:
        of = found.turned + len(position.deal.talon)
        out.print(Text(f"fewest turns: {found.fewest} of {of} (proven minimal; {how})",
                       style="bold green"))
    else:
        out.print(Text(f"a win with {found.at_most} turns; at least {found.at_least} "
                       f"(limit reached, not proven; {how})", style="yellow"))
    if found.moves:
        _print_line(out, found.moves, position, ascii_only)
        out.print(f"{found.replay.describe(position.moved, position.of)}; replayed by the "
                  "rules engine")
    raise typer.Exit(answer.exit_code)


def _certificate_note(found: "Best", cert: "Certificate | None", folder: Path) -> str:
    if cert is not None and cert.verdict is Verdict.UNKNOWN:
        return f"no certificate written: {cert.reason}; {cert.left_in_place()}"
    if cert is not None and found.won:
        return (f"certificate: {cert.folder / 'solution.json'} (the winning line, replayed; "
                f"blackhole verify {cert.folder} checks it again)")
    if cert is not None:
        return (f"certificate: {cert.folder} (no line scores {found.best + 1}: DRUP proof "
                f"of {cert.proof.lines if cert.proof else 0} lines, checked; blackhole verify "
                f"{cert.folder} checks it again)")
    return f"no certificate written to {folder}: the best score is not proven"


def _print_line(out: "Console", moves: Sequence[tuple[Card, int]], position: "Position",
                ascii_only: bool) -> None:
    """The line, numbered after the moves made to reach the position it starts from."""
    for number, (card, fan, *kind) in enumerate(moves, start=position.made + 1):
        line = Text(f"{number:>3}. ")
        line.append(card_text(card, ascii_only))
        line.append(from_where(fan, card, position.deal, kind[0] if kind else None))
        out.print(line)


def hint(
    spec: DealSpec,
    timeout: TimeoutOption = None,
    as_json: JsonFlag = False,
    ascii_only: AsciiFlag = False,
    after: AfterOption = None,
) -> None:
    """Every legal move from a deal or position, best first: whether the game stays
    winnable after it, and the best score still reachable (counted from the start of the
    deal, so a move that keeps the win shows 51). Exit 3 when the limit came first."""
    with user_errors():
        Options(timeout=timeout)
        position = load_position(spec, after)
        with working(f"weighing the moves of {spec}"):
            answer = answers.hint(spec, position, command_timeout(timeout))
    found = answer.found
    if as_json:
        typer.echo(json.dumps(answer.document))
    else:
        out = plain_console if ascii_only else console
        if not found.moves:
            out.print(f"no legal move: {position.moved} of {position.of} moved")
        for h in found.moves:
            out.print(_hint_line(h, position, ascii_only))
        unknown = f", {found.summary.unknown} not proven (limit reached)" \
            if found.summary.unknown else ""
        out.print(f"{len(found.moves)} legal move(s){unknown}, {found.seconds:.3f} s")
    raise typer.Exit(answer.exit_code)


def _hint_line(h: "Hint", position: "Position", ascii_only: bool) -> Text:
    """One move: where it comes from (and " into the cell" for a park), winnable or not
    and its best score; "?" and the bounds where the limit left them open."""
    kind = h.move.kind
    if kind is Kind.UNPARK:
        line = Text("cell:   ")
    elif h.fan is None:
        line = Text("talon:  ")
    elif position.deal.tableau.chains:
        line = Text(f"fan {h.fan + 1:>2}: ")
    else:  # "row 4: "
        line = Text(from_where(h.fan, h.card, position.deal).removeprefix(" from ") + ": ")
    line.append(card_text(h.card, ascii_only))
    if kind is Kind.PARK:
        line.append(from_where(None, kind=kind))
    if h.proven:
        verdict = "winnable" if h.winnable else "not winnable"
        line.append(f"  {verdict}, best {h.best} of {h.of}",
                    style="green" if h.winnable else "red")
        return line
    verdict = "not winnable" if h.winnable is False else "winnable ?"
    line.append(f"  {verdict}, best ? of {h.of}", style="yellow")
    line.append(f" (a line of {h.found} found, at most {h.upper_bound}; limit reached)",
                style="yellow")
    return line


def analyze(
    spec: DealSpec,
    line: Annotated[str | None, typer.Option(
        "--line", metavar="MOVES",
        help="The line to analyse, from the position: cards separated by spaces or commas, "
             "or @FILE in any solution format check reads (default: the solver's best "
             "line).", show_default=False)] = None,
    timeout: TimeoutOption = None,
    as_json: JsonFlag = False,
    ascii_only: AsciiFlag = False,
    after: AfterOption = None,
) -> None:
    """Walk a line move by move (a given one, or the solver's best): at each move how
    many legal moves keep the best score, the critical moves (the only good choice among
    several), and the first move that loses. Exit 3 when the limit came first."""
    with user_errors():
        Options(timeout=timeout)
        stdin_once(("the deal", spec == "-"), ("--after", after == "@-"),
                   ("--line", line == "@-"))
        position = load_position(spec, after)
        # an illegal move names --line (the library says "line")
        moves = None if line is None else answers.read_line(position, line, "--line")
        with working(f"analysing {spec}"):
            answer = answers.analyze(spec, position, moves, command_timeout(timeout))
    if as_json:
        typer.echo(json.dumps(answer.document))
    else:
        _print_analysis(answer.found, position, ascii_only)
    raise typer.Exit(answer.exit_code)


def _print_analysis(found: "Analysis", position: "Position", ascii_only: bool) -> None:
    from blackhole.questions.advice import unknown_text

    out = plain_console if ascii_only else console
    what = "the given line" if found.given else "a best line"
    best = f"{found.best} of {found.of}" if found.best_proven else \
        f"? of {found.of} (a line of {found.found} found, at most {found.upper_bound}; " \
        "limit reached)"
    out.print(Text(f"best from here: {best}; analysing {what}", style="bold"))
    for step in found.steps:
        text = Text(f"{step.number:>3}. ")
        text.append(card_text(step.card, ascii_only))
        text.append(f"{from_where(step.fan, step.card, position.deal, step.move.kind)}: "
                    f"{unknown_text(step.good)} of {step.legal} "
                    f"legal move(s) keep {unknown_text(step.best_before)}")
        if step.critical:
            text.append("  CRITICAL", style="bold yellow")
        elif step.critical is None:
            text.append("  critical ?", style="yellow")
        if step.loses:
            text.append(f"  LOSES: best now {unknown_text(step.best_after)}", style="bold red")
        elif step.loses is None:
            text.append("  loses ?", style="yellow")
        out.print(text)
    loss = found.first_loss
    if not found.first_loss_known:
        first = "unknown (limit reached)"
    elif loss is None:
        first = "none"
    else:
        kind = loss.move.kind  # a move of the cell says so; a play, its card alone
        where = from_where(loss.fan, loss.card, position.deal, kind) \
            if kind in (Kind.PARK, Kind.UNPARK) else ""
        first = (f"move {loss.number} ({loss.card}{where}), best "
                 f"{unknown_text(loss.best_before)} to {unknown_text(loss.best_after)}")
    unknown = f" ({found.critical_unknown} unknown: limit reached)" \
        if found.critical_unknown else ""
    out.print(f"{found.critical} critical move(s){unknown}; first move that loses: {first}; "
              f"the line ends at {found.score} of {found.of} ({found.seconds:.3f} s)")
