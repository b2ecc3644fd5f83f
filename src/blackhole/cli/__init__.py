"""The `blackhole` command line: a thin Typer layer over the library.

One module per group of commands, over the shared ones: `commands` (the app and the
table of commands), `guard` (the exit-code guard), `output` (pipes, styling, cards, the
spinner) and `options` (the options several commands share). A command's module is
imported when the command is first looked up (`commands.COMMANDS`), so a command loads
only what it needs.
"""

from blackhole.cli.commands import app

__all__ = ["app"]
