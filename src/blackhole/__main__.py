"""`python -m blackhole`: the same command line as `blackhole`."""

from blackhole.cli import app

app(prog_name="blackhole")
