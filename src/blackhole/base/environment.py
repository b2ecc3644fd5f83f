"""The environment variables the package reads, each named once; the readers import the
names from here.

Two switch between a compiled core and its pure-Python twin: `look` (the look) and `drat`
(the proof checker) each read theirs, and the command line checks both before any work,
without importing either module. `auto` reads the cores it may take, and the command line
whether to show an internal error's traceback. This module imports nothing of the package.
"""

from __future__ import annotations

import os

# "python": the pure-Python code alone; "auto" (the default): the compiled core when it
# is built.
ENGINES = ("auto", "python")
LOOK_VARIABLE = "BLACKHOLE_LOOK_ENGINE"
# The look's switch under its former name: deprecated, read only while LOOK_VARIABLE is
# unset, and removed in a later release.
LOOK_VARIABLE_DEPRECATED = "BLACKHOLE_PROBE_ENGINE"
DRAT_VARIABLE = "BLACKHOLE_DRAT_ENGINE"
# A whole number: the cores `auto` takes as free, in place of its estimate.
CORES_VARIABLE = "BLACKHOLE_AUTO_CORES"
# Set and not empty: an internal error shows its traceback (as --debug does).
DEBUG_VARIABLE = "BLACKHOLE_DEBUG"


def look_switch() -> tuple[str, str | None]:
    """The variable that decides the look's engine and its value (None: neither set):
    LOOK_VARIABLE when set, else its deprecated former name."""
    for name in (LOOK_VARIABLE, LOOK_VARIABLE_DEPRECATED):
        value = os.environ.get(name)
        if value is not None:
            return name, value
    return LOOK_VARIABLE, None


def engine_switches() -> tuple[tuple[str, str | None], ...]:
    """Each engine switch that decides, and its value (None: unset): the look's, then the
    proof checker's."""
    return look_switch(), (DRAT_VARIABLE, os.environ.get(DRAT_VARIABLE))
