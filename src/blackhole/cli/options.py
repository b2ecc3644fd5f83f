"""The options and arguments that several commands share, and the reading of --features.
"""

from collections.abc import Sequence
from typing import Annotated

import typer

from blackhole.backends import Options
from blackhole.base.errors import InputError
from blackhole.model.games import DEFAULT_GAME, GAME_NAMES, Variant, game_named


def choices(names: Sequence[str], default: str | None = None) -> str:
    """Names as a help text lists them: "a (default), b or c"."""
    shown = [f"{name} (default)" if name == default else name for name in names]
    return " or ".join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 1 else shown)


OTHER_GAMES = ", ".join(n for n in GAME_NAMES if n != DEFAULT_GAME.name)  # named in specs
DealSpec = Annotated[str, typer.Argument(
    help="A board or JSON file, '-' for stdin, pysol:N[:GAME] or random:SEED[:any|:GAME]; "
         f"GAME one of {OTHER_GAMES}.",
    show_default=False)]
GameOption = Annotated[str | None, typer.Option(
    "--game", metavar="NAME",
    help=f"The game a file is played by: {choices(GAME_NAMES)}. A board with a Talon line "
         "(Golf) needs it, or a 'Game: NAME' line; a dealt spec names its own.",
    show_default=False)]


def read_game(name: str | None) -> Variant | None:
    """The game `--game` names (None when it is not given); an unknown name is an
    InputError listing the names."""
    return None if name is None else game_named(name, "--game")
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WorkersOption = Annotated[int | None, typer.Option(
    min=1, help=f"CP-SAT search workers (default {Options.workers}).", show_default=False)]
SeedOption = Annotated[int | None, typer.Option(
    help=f"CP-SAT random seed (default {Options.seed}).", show_default=False)]
BudgetOption = Annotated[int | None, typer.Option(
    min=1, metavar="NODES",
    help="The look's moves (look and auto backends): at this many the look gives up "
         "(look: unknown; auto: SAT goes on). Default: none for look; auto's own.",
    show_default=False)]
AsciiFlag = Annotated[bool, typer.Option(
    "--ascii", help="Plain ASCII cards (KH, not K♥) and no colour.")]


AfterOption = Annotated[str | None, typer.Option(
    "--after", metavar="MOVES",
    help="Start from the position after these moves: cards separated by spaces or commas, "
         "or @FILE in any solution format check reads.", show_default=False)]


def parse_features(text: str | None) -> frozenset[str] | None:
    """`--features a,b` → {a, b}; `none` → the plain encoding; an empty list is an error
    (`,,,` would otherwise run the plain encoding without saying so)."""
    if text is None:
        return None
    if text.strip().lower() == "none":
        return frozenset()
    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise InputError("names no feature (use 'none' for the plain encoding)", "features",
                         token=text)
    return names
