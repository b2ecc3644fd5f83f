"""The `blackhole` command line: a thin Typer layer over the library.

One module per group of commands; `common` holds what they share. A command's module is
imported when the command is first looked up (`common.COMMAND_MODULES`), so a command
loads only what it needs.
"""

from blackhole.cli.common import app

__all__ = ["app"]
