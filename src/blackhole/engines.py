"""The switches between a compiled core and its pure-Python twin, named once.

`probe` (the look) and `drat` (the proof checker) each read their variable; the command
line checks both before any work, without importing either module.
"""

from __future__ import annotations

# "python": the pure-Python code alone; "auto" (the default): the compiled core when it
# is built.
ENGINES = ("auto", "python")
PROBE_VARIABLE = "BLACKHOLE_PROBE_ENGINE"
DRAT_VARIABLE = "BLACKHOLE_DRAT_ENGINE"
VARIABLES = (PROBE_VARIABLE, DRAT_VARIABLE)
