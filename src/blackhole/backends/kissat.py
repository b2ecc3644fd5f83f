"""Kissat, as an engine of its own: the `external` backend's run (the CNF written as
DIMACS, the binary in its own process group, killed at the timeout or on Ctrl-C, its
model checked against every clause, its DRAT proof checked by `blackhole.drat`), with
the binary found here rather than named by the user.

The binary is the one the `passagemath-kissat` wheel ships (the `[kissat]` extra: a
standalone kissat that needs only libc), found beside its namespace package
`sage_wheels` without importing anything of it; else `kissat` on PATH. Where neither is
there, the backend is a `MissingExtra` (exit 2) that says what to install.
"""

from __future__ import annotations

import os
import shutil
from importlib.util import find_spec
from pathlib import Path

from blackhole.backends import Options
from blackhole.backends.external import PROOF, ExternalBackend
from blackhole.extras import EXTRAS, missing

PACKAGE = EXTRAS["kissat"][0]  # the wheel's folder that holds bin/kissat
ARGUMENTS = ("-q",)  # only the answer: the `s` line and the model's `v` lines


def wheel_binary() -> Path | None:
    """The kissat binary of the installed `passagemath-kissat` wheel, or None."""
    spec = find_spec(PACKAGE)
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        path = Path(folder) / "bin" / "kissat"
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def binary() -> str:
    """The kissat binary to run: the wheel's, else `kissat` on PATH; else the error that
    says how to install it."""
    found = wheel_binary()
    if found is not None:
        return str(found)
    on_path = shutil.which("kissat")
    if on_path is None:
        raise missing("kissat", "the kissat backend (and no kissat is on PATH)")
    return on_path


class KissatBackend(ExternalBackend):
    name = "kissat"
    reads = frozenset({"features"})

    def command(self, options: Options) -> tuple[list[str], str, list[str] | None]:
        argv = [binary(), *ARGUMENTS]
        return argv, " ".join(["kissat", *ARGUMENTS]), [PROOF]
