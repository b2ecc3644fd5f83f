"""What every command shares: the app, the console, the exit codes, deal specs, errors."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from blackhole.backends import Verdict
from blackhole.errors import InputError, InternalError

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


def card_text(card, ascii_only: bool) -> Text:
    if ascii_only:
        return Text(str(card))
    return Text(card.unicode(), style="red" if card.is_red else "bold")


def parse_features(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    if text.strip().lower() == "none":
        return frozenset()
    return frozenset(name.strip() for name in text.split(",") if name.strip())



# ---------------------------------------------------------------- positions (deal helper)

AfterOption = Annotated[str | None, typer.Option(
    "--after", metavar="MOVES",
    help="Start from the position after these moves: cards separated by spaces or commas, "
         "or @FILE in any solution format check reads.", show_default=False)]


def load_at(spec: str, after: str | None):
    """`blackhole.deal.load_position` for a command: the moves given inline are named by
    their flag, `--after`, in errors (the library names the field, `after`)."""
    from blackhole.deal import load_position

    try:
        return load_position(spec, after)
    except InputError as error:
        if error.source != "after":
            raise
        raise InputError(error.detail, "--after", error.line, error.token) from None
