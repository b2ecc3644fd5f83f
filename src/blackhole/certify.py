"""Certificates of unsolvability, and their independent check.

`certify` encodes a deal with the plain certification encoding (`cnf.CERTIFY_FEATURES`:
only clauses that every real solution satisfies, no symmetry breaking), has a
proof-logging SAT solver refute it, and writes a certificate folder:

    deal.board     the deal, in board format
    formula.cnf    the CNF (DIMACS), exactly as the project's encoder writes it
    proof.drup     the solver's DRUP proof (text)
    manifest.json  hashes, encoding name/version/features, solver, sizes, times

The proof is then checked by `blackhole.drat`, the project's own checker, which shares
no code with the solver. `verify` trusts nothing in the folder but the deal: it
re-derives the CNF from deal.board with the project's encoder, compares hashes, and
checks the proof again. A solvable deal gets its winning moves instead, replayed by the
rules engine.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from blackhole import __version__, drat
from blackhole.backends import Result, Verdict
from blackhole.cards import STANDARD_RANKS
from blackhole.deal import Deal, board_text, parse_board
from blackhole.encode import cnf
from blackhole.errors import InputError
from blackhole.problem import build_problem
from blackhole.solve import Solution, decode, solution_json

CERTIFICATE_FORMAT = "blackhole-certificate/1"
DEAL_FILE, CNF_FILE, PROOF_FILE, MANIFEST_FILE = (
    "deal.board", "formula.cnf", "proof.drup", "manifest.json")
SOLUTION_FILE = "solution.json"
# pysat solvers whose proofs check: MapleSAT (mpl) writes variables off by one, and
# Minisat-GH cannot log proofs in this python-sat.
PROOF_SOLVERS = ("g4", "g3", "mcb", "mcm")  # lingeling has no limited solve in pysat
CHECKERS = ("blackhole", "drat-trim")


@dataclass(frozen=True)
class Certificate:
    """What `certify` did for one deal."""

    verdict: Verdict
    folder: Path
    check: drat.CheckResult | None = None  # the independent check, when unsolvable
    solution: Solution | None = None  # the winning moves, when solvable
    manifest: dict = field(default_factory=dict)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def certify(deal: Deal, spec: str, folder: Path, solver: str = "g4",
            timeout: float | None = None, checker: str = "blackhole") -> Certificate:
    """Refute the deal's plain CNF with a proof, write the certificate, check it."""
    check_choices(solver, checker)
    if deal.ranks != STANDARD_RANKS:  # deal.board is the certificate's statement
        raise InputError(f"certificates hold only {STANDARD_RANKS}-rank decks", spec,
                         token=f"ranks {deal.ranks}")
    began = time.perf_counter()
    problem = build_problem(deal)
    encoding = cnf.build_cnf(problem, cnf.CERTIFY_FEATURES)
    encode_seconds = time.perf_counter() - began
    satisfiable, model, proof_lines, stats = _solve_with_proof(encoding, solver, timeout)
    solve_seconds = time.perf_counter() - began - encode_seconds
    board = board_text(deal)
    _fresh_folder(folder)
    _write(folder / DEAL_FILE, board)
    if satisfiable is None:
        return Certificate(Verdict.UNKNOWN, folder)
    if satisfiable:
        result = Result(Verdict.SOLVED, encoding.decode(model), "sat", solver,
                        time.perf_counter() - began, stats)
        solution = decode(problem, result, deal)  # replays through the rules engine
        _write(folder / SOLUTION_FILE, json.dumps(solution_json(spec, solution)) + "\n")
        return Certificate(Verdict.SOLVED, folder, solution=solution)
    cnf_text = encoding.dimacs()
    proof_text = "".join(line + "\n" for line in proof_lines)
    _write(folder / CNF_FILE, cnf_text)
    _write(folder / PROOF_FILE, proof_text)
    manifest = {
        "format": CERTIFICATE_FORMAT,
        "claim": "the deal has no winning move sequence",
        "deal": {"spec": spec, "file": DEAL_FILE, "sha256": sha256(board.encode())},
        "encoding": {"name": "blackhole-sat", "version": cnf.ENCODING_VERSION,
                     "features": sorted(encoding.features)},
        "cnf": {"file": CNF_FILE, "sha256": sha256(cnf_text.encode()),
                "variables": encoding.num_vars, "clauses": len(encoding.clauses)},
        "proof": {"file": PROOF_FILE, "format": "drup", "sha256": sha256(proof_text.encode()),
                  "lines": len(proof_lines), "bytes": len(proof_text.encode())},
        "solver": {"name": solver, "package": "python-sat", "stats": stats},
        "tool": {"name": "blackhole", "version": __version__},
        "seconds": {"encode": round(encode_seconds, 6), "solve": round(solve_seconds, 6)},
    }
    check = check_certificate(folder, checker, manifest)
    manifest["seconds"]["check"] = round(check.stats.get("seconds", 0.0), 6)
    manifest["checker"] = {"name": checker, "ok": check.ok, "reason": check.reason}
    _write(folder / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
    return Certificate(Verdict.UNSOLVABLE, folder, check=check, manifest=manifest)


def _solve_with_proof(encoding: cnf.Encoding, solver: str, timeout: float | None):
    """(satisfiable or None when out of time, model, proof lines, stats)."""
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=encoding.clauses, with_proof=True) as sat:
        timer = None
        if timeout is not None:
            timer = threading.Timer(timeout, sat.interrupt)
            timer.start()
        try:
            answer = sat.solve_limited(expect_interrupt=True)
        finally:
            if timer is not None:
                timer.cancel()
        stats = dict(sat.accum_stats())
        if answer is None:
            return None, None, [], stats
        if answer:
            return True, sat.get_model(), [], stats
        return False, None, list(sat.get_proof()), stats


def verify(folder: Path, checker: str = "blackhole") -> drat.CheckResult:
    """Re-derive the CNF from the stored deal, compare hashes, and check the proof."""
    if not folder.is_dir():
        raise InputError("no such certificate folder", str(folder))
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return _refused(f"no {MANIFEST_FILE} in the folder")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return _refused(f"{MANIFEST_FILE} is not valid JSON ({error})")
    if not isinstance(manifest, dict):
        return _refused(f"{MANIFEST_FILE} is not a JSON object")
    return check_certificate(folder, checker, manifest)


def check_certificate(folder: Path, checker: str, manifest: dict) -> drat.CheckResult:
    """Every link of the chain deal → CNF → proof, from the files on disk."""
    try:
        if manifest.get("format") != CERTIFICATE_FORMAT:
            return _refused(f"unknown certificate format {manifest.get('format')!r}")
        board = (folder / DEAL_FILE).read_bytes()
        if sha256(board) != manifest["deal"]["sha256"]:
            return _refused(f"{DEAL_FILE} does not match the manifest's hash")
        encoding_info = manifest["encoding"]
        if encoding_info.get("version") != cnf.ENCODING_VERSION:
            return _refused(f"certificate uses encoding {encoding_info.get('version')!r}; this "
                            f"tool re-derives {cnf.ENCODING_VERSION!r}")
        features = frozenset(encoding_info.get("features", ()))
        if not features <= cnf.CERTIFY_FEATURES:
            extra = ", ".join(sorted(features - cnf.CERTIFY_FEATURES))
            return _refused(f"encoding features not allowed in a certificate: {extra}")
        deal = parse_board(board.decode("utf-8"), str(folder / DEAL_FILE))
        encoding = cnf.build_cnf(build_problem(deal), features)
        derived = encoding.dimacs().encode()
        stored = (folder / CNF_FILE).read_bytes()
        if sha256(derived) != manifest["cnf"]["sha256"]:
            return _refused("the manifest's CNF hash is not the hash of the CNF re-derived "
                            "from the deal")
        if stored != derived:
            return _refused(f"{CNF_FILE} differs from the CNF re-derived from the deal")
        proof_bytes = (folder / PROOF_FILE).read_bytes()
        if sha256(proof_bytes) != manifest["proof"]["sha256"]:
            return _refused(f"{PROOF_FILE} does not match the manifest's hash")
    except (OSError, KeyError, TypeError, UnicodeDecodeError, InputError) as error:
        return _refused(f"certificate incomplete or damaged ({error.__class__.__name__}: "
                        f"{error})")
    if checker == "drat-trim":
        return _drat_trim(folder / CNF_FILE, folder / PROOF_FILE)
    if checker != "blackhole":
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "--checker",
                         token=checker)
    try:
        proof = drat.parse_proof(proof_bytes.decode("utf-8"))
    except (drat.DratError, UnicodeDecodeError) as error:
        return _refused(f"{PROOF_FILE} is malformed: {error}")
    return drat.check_proof(encoding.num_vars, encoding.clauses, proof)


def check_choices(solver: str, checker: str) -> None:
    """The proof solver and the checker, before any work is done."""
    if solver not in PROOF_SOLVERS:
        raise InputError(f"not a proof-logging solver (choose from {', '.join(PROOF_SOLVERS)})",
                         "--solver", token=solver)
    if checker not in CHECKERS:
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "--checker",
                         token=checker)
    if checker == "drat-trim" and shutil.which("drat-trim") is None:
        raise InputError("drat-trim is not on PATH", "--checker", token="drat-trim")


def certificate_folders(specs: list[str], out: Path) -> list[Path]:
    """`out` itself for one deal; else one subfolder per deal, named after its spec or
    file, made unique (x.board and x.json both certify, as x and x-2)."""
    if len(specs) == 1:
        return [out]
    folders, used = [], set()
    for spec in specs:
        path = Path(spec)
        base = path.stem if path.suffix else spec.replace(":", "-").replace("/", "_")
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        folders.append(out / name)
    return folders


def _fresh_folder(folder: Path) -> None:
    """Make the folder, removing a certificate an earlier run left there, so no stale
    manifest sits next to the new files."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in (DEAL_FILE, CNF_FILE, PROOF_FILE, MANIFEST_FILE, SOLUTION_FILE):
            (folder / name).unlink(missing_ok=True)
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(path)) from None


def _refused(reason: str) -> drat.CheckResult:
    return drat.CheckResult(ok=False, reason=reason, stats={"seconds": 0.0})


def _drat_trim(cnf_path: Path, proof_path: Path) -> drat.CheckResult:
    """A second opinion from drat-trim, when it is on PATH."""
    binary = shutil.which("drat-trim")
    if binary is None:
        raise InputError("drat-trim is not on PATH", "--checker", token="drat-trim")
    began = time.perf_counter()
    run = subprocess.run([binary, str(cnf_path), str(proof_path)], capture_output=True,
                         text=True, check=False)
    seconds = time.perf_counter() - began
    ok = "s VERIFIED" in run.stdout
    reason = "" if ok else (run.stdout.strip().splitlines() or ["drat-trim gave no verdict"])[-1]
    return drat.CheckResult(ok=ok, reason=reason, stats={"seconds": seconds})
