"""The `blackhole` command line: a thin Typer layer over the library.

One module per group of commands, over three shared ones: `guard` (the exit-code guard,
the app and the table of commands), `output` (pipes, styling, cards, the spinner) and
`options` (the options several commands share). A command's module is imported when the
command is first looked up (`guard.COMMANDS`), so a command loads only what it needs.
"""

from blackhole.cli.guard import app

__all__ = ["app"]
