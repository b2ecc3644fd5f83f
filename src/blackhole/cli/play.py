"""play: Black Hole, All in a Row and the Golf family in the terminal (a Textual app),
with undo, hints and a coach."""

import sys
from typing import Annotated

import typer

from blackhole.cli.guard import user_errors
from blackhole.cli.options import OTHER_GAMES, AfterOption


def play(spec: Annotated[str | None, typer.Argument(
             help=f"A board or JSON file, pysol:N[:GAME] or random:SEED[:GAME] (GAME: "
                  f"{OTHER_GAMES}; random:SEED:any too); a fresh random deal when left "
                  "out.", show_default=False)] = None,
         after: AfterOption = None,
         ascii_only: Annotated[bool, typer.Option(
             "--ascii", help="Plain ASCII cards (KH, not K♥), for terminals without suit "
                             "symbols.")] = False) -> None:
    """Play a deal: a fan's letter (or a click) plays its top card; t (or Space) turns
    the talon in Golf; u undo, r redo, H hint, w coach, s save, N new deal, ? rules,
    Q quit."""
    from blackhole.base.extras import require

    with user_errors():
        require("play", "textual", "play")
        from blackhole.play.app import PlayApp
        from blackhole.play.session import need_terminal

        game = PlayApp(spec, after, ascii_only=ascii_only)
        need_terminal(sys.stdin, sys.stdout)
    game.run()
    typer.echo(game.summary())
