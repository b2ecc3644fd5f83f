"""show, deal and check: drawing, writing and replaying deals."""

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from blackhole.base.exits import EXIT_NO, EXIT_OK
from blackhole.cli.guard import user_errors
from blackhole.cli.options import AfterOption, DealSpec, GameOption, JsonFlag, read_game
from blackhole.cli.output import card_text, console, make_console
from blackhole.model.deal import Deal
from blackhole.model.formats import moves_json, position_json, saved_board
from blackhole.model.positions import check_answer, load_position
from blackhole.model.rows import placed_rows

if TYPE_CHECKING:
    from rich.console import Console


def show(spec: DealSpec,
         after: AfterOption = None,
         game: GameOption = None,
         ascii_only: Annotated[bool, typer.Option("--ascii", help="Plain ASCII, no colour.")]
         = False) -> None:
    """Draw a deal or position: the hole, then each fan bottom → top, its top card marked
    (and a talon, its next card first)."""
    with user_errors():
        position = load_position(spec, after, read_game(game))
    deal = position.deal
    out = make_console(no_color=ascii_only)
    brackets = ascii_only or not out.is_terminal  # underline only shows on a terminal
    hole = Text("hole: ")
    hole.append(card_text(deal.foundation, ascii_only) if deal.foundation else Text("empty"))
    if position.made:
        hole.append(f"   ({position.progress})")
    out.print(hole)
    if deal.game.rules.cells:
        from blackhole.play.board import cell_text

        out.print(cell_text(deal, lambda card: card_text(card, ascii_only)))
    if deal.game.rules.talon:
        talon = Text(f"talon ({len(deal.talon)}, next first): ")
        for card in deal.talon:
            talon.append(card_text(card, ascii_only))
            talon.append(" ")
        out.print(talon)
    if not deal.tableau.chains:
        _show_rows(out, deal, ascii_only, brackets)
        return
    for number, fan in enumerate(deal.fans, start=1):
        line = Text(f"{number:>3}  ")
        if not fan:
            line.append("-  (empty)")
        for i, card in enumerate(fan):
            text = card_text(card, ascii_only)
            if i == len(fan) - 1:  # the top card
                text = Text("[") + text + Text("]") if brackets else text
                text.stylize("underline")
            line.append(text)
            line.append(" ")
        out.print(line)
    arrow = "->" if ascii_only else "→"
    out.print(Text(f"fans run bottom {arrow} top; "
                   + ("[top card]" if brackets else "the top card is underlined")))


def _show_rows(out: "Console", deal: Deal, ascii_only: bool, brackets: bool) -> None:
    """A layout that is not fans, row by row as it lies (`placed_rows`), a free card
    marked as a fan's top card is."""
    for row in placed_rows(deal.tableau, deal.game, deal.ranks):
        line = Text()
        for column, card, free in row:
            line.append(" " * max(0, 3 * column - len(line)))
            text = Text("-") if card is None else card_text(card, ascii_only)
            if free and card is not None:
                text = Text("[") + text + Text("]") if brackets else text
                text.stylize("underline")
            line.append(text)
        out.print(line)
    out.print(Text("rows run top to bottom; a free card (none on it) is "
                   + ("[bracketed]" if brackets else "underlined")))


class DealFormat(StrEnum):
    board = "board"
    json = "json"


def deal_command(spec: DealSpec,
                 format: Annotated[DealFormat, typer.Option(help="Output format.")]
                 = DealFormat.board,
                 after: AfterOption = None,
                 game: GameOption = None) -> None:
    """Write a deal or position as a board file or as JSON (which keeps the moves made).

    A board of a deck of other than 13 ranks starts with a `Ranks: R` line; Golf's starts
    with its `Game:` line, then its `Talon:` line, as black-hole-solve reads it."""
    with user_errors():
        position = load_position(spec, after, read_game(game))
        text = json.dumps(position_json(position)) + "\n" if format is DealFormat.json \
            else saved_board(position.deal)
    typer.echo(text, nl=False)


def check(spec: DealSpec,
          solution: Annotated[Path, typer.Argument(
              help="Our JSON, a list of cards, or black-hole-solve's output ('-': stdin).")],
          after: AfterOption = None,
          game: GameOption = None,
          as_json: JsonFlag = False) -> None:
    """Replay a solution through the rules engine; exit 0 if it wins, 1 if not.

    With --after the solution is replayed from that position, and cards count from the
    start of the deal. An answer that `solve --json` or `best --json` gave from a position
    names its moves before (its "after"): they are replayed first.
    """
    with user_errors():
        position, judged = check_answer(spec, after, str(solution), read_game(game))
    illegal = None if judged.index is None else position.made + judged.index + 1
    if as_json:
        typer.echo(json.dumps({"deal": spec, "after": moves_json(position.after),
                               "moved": position.moved, "outcome": judged.outcome.value,
                               "played": position.moved + judged.played, "total": position.of,
                               "illegal_move": illegal, "reason": judged.reason}))
    else:
        style = "green" if judged.won else "red"
        text = f"illegal at move {illegal}: {judged.reason}" if illegal is not None \
            else judged.describe(position.moved, position.of)
        console.print(Text(text, style=style))
    raise typer.Exit(EXIT_OK if judged.won else EXIT_NO)
