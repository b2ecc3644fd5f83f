"""Independent checker for DRUP/DRAT refutation proofs.

The solver that writes a proof must never be the one that judges it, so this
package depends on the standard library only (and the project's error types and
engine switch) and shares no code with the rest of the project.

``parse`` reads DIMACS formulas and DRAT proofs, ``check`` judges a proof (with the
compiled core ``blackhole._drat_core`` first, when built), ``python_engine`` is the
pure-Python checker that gives every verdict the core does not (``propagation`` its
state, watches, propagation and conflict analysis).
"""

from __future__ import annotations

from blackhole.drat.check import (
    CheckResult,
    c_engine_built,
    check_files,
    check_proof,
)
from blackhole.drat.parse import (
    MAX_CNF_BYTES,
    MAX_PROOF_BYTES,
    DratError,
    FlatProof,
    Proof,
    parse_any_proof,
    parse_binary_proof,
    parse_dimacs,
    parse_proof,
    parse_proof_lines,
    read_capped,
)

__all__ = [
    "MAX_CNF_BYTES",
    "MAX_PROOF_BYTES",
    "CheckResult",
    "DratError",
    "FlatProof",
    "Proof",
    "check_files",
    "c_engine_built",
    "check_proof",
    "parse_any_proof",
    "parse_binary_proof",
    "parse_dimacs",
    "parse_proof",
    "parse_proof_lines",
    "read_capped",
]
