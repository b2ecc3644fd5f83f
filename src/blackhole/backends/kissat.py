"""Kissat, as an engine of its own: the `external` backend's run (the CNF written as
DIMACS; the binary and its folder owned by `blackhole.base.children`, so that the binary is
killed and the folder removed at the timeout, on Ctrl-C or SIGTERM, or when the process
that started it dies; its model checked against every clause, its DRAT proof checked by
`blackhole.drat`), with the binary found here rather than named by the user; and
`refute`, kissat's run for a certificate (`certify --solver kissat`), whose proof is
text.

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
from typing import Any

from blackhole import drat
from blackhole.backends import Options
from blackhole.backends.external import (
    PROOF,
    ExternalBackend,
    check_model,
    parse_answer,
    run_binary,
)
from blackhole.base import children
from blackhole.base import deadline as clock
from blackhole.base.errors import InternalError
from blackhole.base.extras import EXTRAS, missing
from blackhole.encode.cnf import Encoding

PACKAGE = EXTRAS["kissat"][0]  # the wheel's folder that holds bin/kissat
ARGUMENTS = ("-q",)  # only the answer: the `s` line and the model's `v` lines
TEXT_PROOF = "--no-binary"  # a certificate's proof is text (the backend takes binary)


def wheel_binary() -> Path | None:
    """The kissat binary of the installed `passagemath-kissat` wheel, or None."""
    spec = find_spec(PACKAGE)
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        path = Path(folder) / "bin" / "kissat"
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def installed() -> bool:
    """Is there a kissat to run (the wheel's, or one on PATH)?"""
    return wheel_binary() is not None or shutil.which("kissat") is not None


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


def refute(encoding: Encoding, deadline: float | None) -> tuple[
        bool | None, list[int], list[str] | None, dict[str, Any]]:
    """Kissat on the encoding's CNF, asked for a text DRAT proof, for a certificate:
    (True, its model, None, stats), (False, [], the proof's lines, stats), or (None, [],
    None, stats) when the deadline came first or the proof is larger than the checker
    reads (why in stats["reason"]). Its model is checked against every clause."""
    argv = [binary(), *ARGUMENTS]
    stats: dict[str, Any] = {"command": " ".join([KissatBackend.name, *ARGUMENTS])}
    with children.folder() as folder:
        path = folder / "formula.cnf"
        proof = folder / "proof.drat"
        path.write_text(encoding.dimacs(names=False), encoding="ascii")
        output, code = run_binary(argv + [str(path), TEXT_PROOF, str(proof)],
                                  KissatBackend.name, clock.left(deadline))
        stats["exit_code"] = code
        answer, model = (None, []) if output is None else \
            parse_answer(output, code, KissatBackend.name, encoding.num_vars)
        if answer:
            check_model(encoding.clauses, model, KissatBackend.name)
            return True, model, None, stats
        if answer is None:
            return None, [], None, stats
        try:
            data = drat.read_capped(proof, drat.MAX_PROOF_BYTES)
        except FileNotFoundError:
            raise InternalError("kissat said UNSATISFIABLE but wrote no proof") from None
        except drat.DratError as error:
            stats["reason"] = f"kissat's proof is larger than verify reads: {error}"
            return None, [], None, stats
    return False, [], data.decode("ascii").splitlines(), stats
