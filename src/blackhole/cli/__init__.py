"""The `blackhole` command line: a thin Typer layer over the library.

One module per group of commands; `common` holds what they share. Importing this package
registers every command on `app`.
"""

from blackhole.cli import bench, certificates, deals, play, positions, solving  # noqa: F401
from blackhole.cli.common import app

__all__ = ["app"]
