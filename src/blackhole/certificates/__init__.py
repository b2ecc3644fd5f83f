"""Certificates of unsolvability, and their independent check.

A certificate is a folder that proves what it claims from its own files: an unsolvable
deal's CNF and the DRUP proof that refutes it, a best score's bounded CNF and its proof,
or a solvable deal's winning moves (`files` names them). The modules, from the bottom:

    drat_trim     drat-trim as a second opinion (an outside program, when on PATH)
    files         the names, the manifest and `Certificate`; readers shared by the rest
    place         made aside, renamed into place only when complete and checked
    labels        the deal a certificate names, and how that name is checked
    make          `certify`, `certify_best`, `certify_win`, `certify_found`: encode,
                  solve, check, write
    batch         many deals: planned before any work, in worker processes, resumed
    verification  `verify`: re-derive the CNF from the deal, check hashes and the proof

The proof checker itself is `blackhole.drat`, which shares no code with any solver.
"""

from blackhole.certificates.files import Certificate
from blackhole.certificates.make import certify, certify_best, certify_found, certify_win
from blackhole.certificates.verification import Verification, verify

__all__ = ["Certificate", "Verification", "certify", "certify_best", "certify_found",
           "certify_win", "verify"]
