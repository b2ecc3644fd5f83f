"""The app and the table of commands.

A command's module is imported only when that command runs (`COMMANDS`, the one list of
the commands: name, module and function), so a one-deal command loads none of bench's,
certify's or play's imports, to keep start-up quick. Every command runs under the
exit-code guard (`blackhole.cli.guard.GuardedGroup`).
"""

# No `from __future__ import annotations` in the command modules: Typer reads each command's
# annotations, and strings would be evaluated again (twice) on every start.

import importlib
from typing import Annotated, Any

import typer
import typer.main
import typer.models

from blackhole.base import environment
from blackhole.base.exits import EXIT_OK
from blackhole.base.version import installed_version
from blackhole.cli.guard import GuardedGroup

# Every command: its name, in the order `blackhole --help` lists them, and the module of
# blackhole.cli and the function that run it. The one list of the commands: the modules
# register none themselves, so nothing can disagree with it.
COMMANDS = {
    "bench": "bench:bench", "report": "bench:report_command",
    "certify": "certificates:certify_command", "verify": "certificates:verify",
    "show": "deals:show", "deal": "deals:deal_command", "check": "deals:check",
    "play": "play:play",
    "best": "questions:best", "hint": "questions:hint", "analyze": "questions:analyze",
    "solve": "solving:solve", "encode": "solving:encode",
    "atlas": "atlas:atlas", "atlas-build": "atlas:atlas_build",
    "serve": "web:serve",
}


class CommandGroup(GuardedGroup):
    """The app's group of commands: each is loaded when it is looked up, not all at
    start-up."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:  # an unknown name loads all: "did you mean ...?"
            for name in (cmd_name,) if cmd_name in COMMANDS else COMMANDS:
                self._load(name)
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        for name in COMMANDS:
            self._load(name)
        return list(COMMANDS)

    def _load(self, name: str) -> None:
        """Import the module of command `name` and add the command as Typer would have
        built it from `@app.command(name)`."""
        if name in self.commands:
            return
        module, _, function = COMMANDS[name].partition(":")
        callback = getattr(importlib.import_module(f"blackhole.cli.{module}"), function)
        self.commands[name] = typer.main.get_command_from_info(
            typer.models.CommandInfo(name=name, callback=callback),
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode)


app = typer.Typer(cls=CommandGroup,
                  help="Solve, compare and certify deals of the patience game Black Hole.",
                  no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, rich_markup_mode=None)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"blackhole {installed_version()}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _global_options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option(
        "--debug",
        help=f"Show the traceback of an internal error (or set {environment.DEBUG_VARIABLE}=1).")]
    = False,
) -> None:
    """Solve, compare and certify deals of the patience game Black Hole."""
