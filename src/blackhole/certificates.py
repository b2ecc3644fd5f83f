"""Certificates of unsolvability, and their independent check.

`certify` encodes a deal once with the plain certification encoding
(`cnf.CERTIFY_FEATURES`: only clauses that every real solution satisfies, no symmetry
breaking), has a proof-logging pysat solver (the `sat` backend's) refute it, checks the
proof with `blackhole.drat` (the project's own checker, which shares no code with the
solver) against the CNF it built from the deal, and writes a folder:

    deal.board     the deal, in board format
    formula.cnf    the CNF (DIMACS, `dimacs()`), one clause a line after comments naming
                   the encoding
    proof.drup     the solver's DRUP proof (text)
    manifest.json  the deal (spec and board), hashes, encoding, solver, sizes, times

A solvable deal gets `solution.json` instead: its winning moves, replayed by the rules
engine. A deal whose limit runs out keeps only `deal.board`: unknown is no verdict.

`certify_best` writes the same kind of folder for a best score: the CNF "at least
best+1 cards are scored from this position" (the optional-position encoding and the
bound as a unit clause), its DRUP proof and a manifest naming the deal, the position's
moves and the bound; `verify` re-derives that CNF from the deal, the position and the
bound.

`verify` trusts nothing in the folder but the deal, and the deal only as far as it can
be checked: a generated spec (`pysol:N`, `random:SEED`) is dealt again and must equal
deal.board. It re-derives the CNF from deal.board with the project's encoder, compares
it and every hash, and checks the proof again within bounded memory (`drat`'s caps). On
a solved deal's folder it replays `solution.json` through the rules engine.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from blackhole import __version__, drat
from blackhole.backends import Result, Verdict
from blackhole.deal import (
    Deal,
    Position,
    board_text,
    generated_spec,
    load_deal,
    load_position,
    parse_board,
    position_of,
)
from blackhole.encode import cnf
from blackhole.errors import InputError, InternalError
from blackhole.pipeline import Solution, decode, solution_json
from blackhole.problem import build_problem
from blackhole.rules import replay
from blackhole.solutions import parse_solution

# 2: the manifest holds the board; 3: formula.cnf is `dimacs()`'s text, without the comment
# line per variable of `Encoding.dimacs()` (format 2, still verified)
CERTIFICATE_FORMAT = "blackhole-certificate/3"
FORMATS = ("blackhole-certificate/2", CERTIFICATE_FORMAT)
CLAIM = "the deal has no winning move sequence"
BEST_CLAIM = "no line from the position scores more than the bound"
DEAL_FILE, CNF_FILE, PROOF_FILE, MANIFEST_FILE = (
    "deal.board", "formula.cnf", "proof.drup", "manifest.json")
SOLUTION_FILE = "solution.json"
SMALL_FILE_CAP = 2**20  # bytes: the deal, the manifest and solution.json are far smaller
DEFAULT_SOLVER = "glucose4"  # any of the sat backend's PROOF_SOLVERS, by any alias
CHECKERS = ("blackhole", "drat-trim")


@dataclass(frozen=True)
class Seconds:
    encode: float = 0.0
    solve: float = 0.0
    check: float = 0.0
    write: float = 0.0  # rendering and writing formula.cnf and proof.drup

    @property
    def total(self) -> float:
        return self.encode + self.solve + self.check + self.write


@dataclass(frozen=True)
class FileFacts:
    """What the manifest says about one file of the certificate."""

    name: str
    sha256: str
    bytes: int
    lines: int = 0  # proof lines (steps); 0 for other files


@dataclass(frozen=True)
class Certificate:
    """What `certify` did for one deal; the manifest is written from these fields."""

    spec: str
    verdict: Verdict
    folder: Path
    board: str  # the deal, as deal.board holds it
    solver: str
    seconds: Seconds = Seconds()
    features: frozenset[str] = frozenset()
    variables: int = 0
    clauses: int = 0
    cnf: FileFacts | None = None  # set when unsolvable
    proof: FileFacts | None = None  # set when unsolvable
    check: drat.CheckResult | None = None  # our checker's verdict, when unsolvable
    checker: str = "blackhole"
    solution: Solution | None = None  # the winning moves, when solvable
    reason: str = ""  # why the verdict is unknown
    solver_stats: dict[str, Any] = field(default_factory=dict, compare=False)
    resumed: bool = False  # found complete in its folder by --resume, not made again
    best: int | None = None  # an optimality certificate's bound: no line scores more
    moved: int = 0  # cards moved before the position (optimality certificates)
    history: tuple[str, ...] = ()  # those moves, when known (optimality certificates)

    @property
    def certified(self) -> bool:
        """Unsolvable with a proof that passed the check."""
        return self.verdict is Verdict.UNSOLVABLE and self.check is not None and self.check.ok


@dataclass(frozen=True)
class Verification:
    """What `verify` found in a folder."""

    ok: bool
    claim: str  # "unsolvable", "best", "solved", or "" when the folder says neither
    spec: str  # the deal the folder is about, as its manifest or solution names it
    reason: str = ""  # why not, when not ok
    dealt: bool = False  # the spec was dealt again and equals deal.board
    check: drat.CheckResult | None = None  # the proof check, for an unsolvable claim
    played: int = 0  # cards the solution moves, for a solved claim
    best: int | None = None  # the bound, for a "best" claim: no line scores more
    seconds: float = 0.0


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- certify


def check_choices(solver: str | None, checker: str) -> str:
    """The canonical proof solver for `solver` (any name or alias `solve` takes), after
    checking it and the checker once, before any work."""
    from blackhole.backends.sat import check_proof_solver, solver_name

    canonical = solver_name(solver or DEFAULT_SOLVER)
    check_proof_solver(canonical, proof=True)
    if checker not in CHECKERS:
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "checker",
                         token=checker)
    if checker == "drat-trim" and shutil.which("drat-trim") is None:
        raise InputError("drat-trim is not on PATH", "checker", token="drat-trim")
    return canonical


def certify(deal: Deal, spec: str, folder: Path, solver: str = DEFAULT_SOLVER,
            timeout: float | None = None, checker: str = "blackhole") -> Certificate:
    """Refute the deal's plain CNF with a proof and check it, then write the certificate.

    The CNF is built once, from the deal: the solver gets a copy of its clauses and the
    check reads the same clauses in memory (not the solver's word for them), so the proof
    is checked against the statement the deal says. `timeout` bounds the whole of it
    (encode, solve and check); at the limit the verdict is unknown and the folder holds
    only the deal. `solver` must be canonical (`check_choices`)."""
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout
    board = board_text(_standard(deal, spec))
    _fresh_folder(folder)
    _write(folder / DEAL_FILE, board)
    problem = build_problem(deal)
    encoding = cnf.build_cnf(problem, cnf.CERTIFY_FEATURES)  # the statement the proof refutes
    encoded = time.perf_counter()
    answer, order, proof_lines, stats = _refute(encoding, solver, deadline)
    solved = time.perf_counter()
    seconds = Seconds(encode=encoded - began, solve=solved - encoded)
    base = dict(spec=spec, folder=folder, board=board, solver=solver,
                features=encoding.features, variables=encoding.num_vars,
                clauses=len(encoding.clauses), checker=checker, solver_stats=stats)
    if answer is None:
        return Certificate(verdict=Verdict.UNKNOWN, seconds=seconds,
                           reason="time limit reached while solving", **base)
    if answer:
        result = Result(Verdict.SOLVED, order, "sat", solver, solved - encoded, stats)
        solution = decode(problem, result, deal)  # replays through the rules engine
        _write(folder / SOLUTION_FILE, json.dumps(solution_json(spec, solution)) + "\n")
        return Certificate(verdict=Verdict.SOLVED, seconds=seconds, solution=solution, **base)
    if proof_lines is None:
        raise InternalError(f"sat/{solver} said unsatisfiable but returned no proof")
    if checker == "blackhole":
        check = drat.check_proof(encoding.num_vars, encoding.clauses,
                                 drat.parse_proof_lines(proof_lines), deadline=deadline)
        if check.timed_out:
            return Certificate(verdict=Verdict.UNKNOWN, reason="time limit reached while "
                               "checking the proof", seconds=replace(
                                   seconds, check=check.stats["seconds"]), **base)
    checked = time.perf_counter()
    cnf_bytes, proof_bytes = _write_statement(folder, encoding, proof_lines)
    written = time.perf_counter()
    if checker != "blackhole":  # drat-trim reads the files
        left = None if deadline is None else deadline - written
        check = _drat_trim(folder / CNF_FILE, folder / PROOF_FILE, left)
        if check.timed_out:
            for name in (CNF_FILE, PROOF_FILE):
                (folder / name).unlink()
            return Certificate(verdict=Verdict.UNKNOWN, reason="time limit reached while "
                               "checking the proof", seconds=seconds, **base)
    cert = Certificate(
        verdict=Verdict.UNSOLVABLE, check=check,
        seconds=Seconds(seconds.encode, seconds.solve, check.stats.get("seconds", 0.0),
                        write=written - checked),
        cnf=FileFacts(CNF_FILE, sha256(cnf_bytes), len(cnf_bytes)),
        proof=FileFacts(PROOF_FILE, sha256(proof_bytes), len(proof_bytes), len(proof_lines)),
        **base)
    _write(folder / MANIFEST_FILE, json.dumps(manifest(cert), indent=2) + "\n")
    return cert


def _refute(encoding: cnf.Encoding, solver: str, deadline: float | None) -> tuple[
        bool | None, tuple[int, ...] | None, list[str] | None, dict[str, Any]]:
    """Solve the encoding's clauses with a proof-logging pysat solver, under the deadline:
    (True, the winning order, None, stats), (False, None, the DRUP lines, stats) or
    (None, None, None, stats) when the deadline came first."""
    from pysat.solvers import Solver

    from blackhole.backends.sat import check_proof_solver, read_answer, run_solver

    check_proof_solver(solver, proof=True)
    stats: dict[str, Any] = {"vars": encoding.num_vars, "clauses": len(encoding.clauses),
                             "features": sorted(encoding.features)}
    if deadline is not None and deadline <= time.perf_counter():
        return None, None, None, stats
    proof = model = None
    with cnf.gc_paused(), Solver(name=solver, bootstrap_with=encoding.clauses,
                                 with_proof=True) as sat:
        answer = run_solver(sat, solver, deadline)
        if answer:
            model = sat.get_model()
        elif answer is False:
            proof = list(sat.get_proof())
        stats.update(sat.accum_stats() or {})
    _, order = read_answer(answer, model, encoding, f"sat/{solver}")
    return answer, order, proof, stats


def dimacs(encoding: cnf.Encoding) -> str:
    """The certificate's DIMACS text of an encoding (format 3): `Encoding.dimacs()`
    without the comment line per variable of format 2, which took longer than building
    the CNF."""
    return encoding.dimacs(names=False)


def _write_statement(folder: Path, encoding: cnf.Encoding,
                     proof_lines: Sequence[str]) -> tuple[bytes, bytes]:
    """Write formula.cnf and proof.drup; their bytes, for the manifest's hashes and sizes."""
    cnf_bytes = dimacs(encoding).encode()
    proof_bytes = proof_text(proof_lines).encode()
    _write_bytes(folder / CNF_FILE, cnf_bytes)
    _write_bytes(folder / PROOF_FILE, proof_bytes)
    return cnf_bytes, proof_bytes


def proof_text(lines: Sequence[str]) -> str:
    """A DRUP proof as pysat gives it (one step a string) in the file's text."""
    return "\n".join(lines) + "\n" if lines else ""


def _standard(deal: Deal, spec: str) -> Deal:
    """The deal, when deal.board (the certificate's statement) can hold it: refused
    before any work, naming the spec."""
    board_text(replace(deal, name=spec))
    return deal


def manifest(cert: Certificate) -> dict[str, Any]:
    """The manifest of a proof's certificate (unsolvable, or a best score), from its
    fields."""
    assert cert.cnf is not None and cert.proof is not None and cert.check is not None
    claim: dict[str, Any] = {"claim": CLAIM}
    if cert.best is not None:
        claim = {"claim": BEST_CLAIM,
                 "position": {"moved": cert.moved, "moves": list(cert.history)},
                 "bound": {"best": cert.best,
                           "refuted": f"at least {cert.best + 1} cards moved from the start"}}
    return {
        "format": CERTIFICATE_FORMAT,
        **claim,
        "deal": {"spec": cert.spec, "file": DEAL_FILE, "sha256": sha256(cert.board.encode()),
                 "board": cert.board},
        "encoding": {"name": "blackhole-sat", "version": cnf.ENCODING_VERSION,
                     "features": sorted(cert.features)},
        "cnf": {"file": cert.cnf.name, "sha256": cert.cnf.sha256, "bytes": cert.cnf.bytes,
                "variables": cert.variables, "clauses": cert.clauses},
        "proof": {"file": cert.proof.name, "format": "drup", "sha256": cert.proof.sha256,
                  "lines": cert.proof.lines, "bytes": cert.proof.bytes},
        "solver": {"name": cert.solver, "package": "python-sat", "stats": cert.solver_stats},
        "tool": {"name": "blackhole", "version": __version__},
        "seconds": {"encode": round(cert.seconds.encode, 6),
                    "solve": round(cert.seconds.solve, 6),
                    "check": round(cert.seconds.check, 6),
                    "write": round(cert.seconds.write, 6)},
        "checker": {"name": cert.checker, "ok": cert.check.ok, "reason": cert.check.reason,
                    **({"engine": cert.check.engine} if cert.check.engine else {})},
    }


# ---------------------------------------------------------------- best scores


def bound_encoding(position: Position, best: int,
                   features: frozenset[str] = cnf.CERTIFY_FEATURES) -> tuple[cnf.Encoding, int]:
    """The CNF "at least best+1 cards are scored from this position" and its bound
    literal: the position's encoding with optional positions, plus the unit clause
    "at least best+1-moved cards are played from here". `best` counts from the start of
    the deal, as `Position.moved` does."""
    more = best + 1 - position.moved
    if not position.moved <= best < position.of:
        raise InputError(f"a best score from this position is {position.moved} to "
                         f"{position.of - 1} (at {position.of} the deal is won: no line "
                         "can score more)", "best", token=str(best))
    encoding = cnf.build_cnf(build_problem(position.deal), features, optional=True)
    return encoding.at_least(more), encoding.filled_literal(more)


def certify_best(position: Position, best: int, folder: Path, *, spec: str = "",
                 solver: str = DEFAULT_SOLVER, checker: str = "blackhole") -> Certificate:
    """An optimality certificate: refute "at least best+1 cards are scored from this
    position" with a proof, check it, and write deal.board (the position), formula.cnf,
    proof.drup and a manifest naming the deal (`spec`, when given, is dealt again and
    replayed through `position.history` by `verify`), the moves and the bound.

    A line that scores more than `best` is an InputError naming it: the bound is not
    the best."""
    from pysat.solvers import Solver

    solver = check_choices(solver, checker)
    began = time.perf_counter()
    board = board_text(_standard(position.deal, spec or "position"))
    encoding, _ = bound_encoding(position, best)
    encoded = time.perf_counter()
    _fresh_folder(folder)
    _write(folder / DEAL_FILE, board)
    with Solver(name=solver, bootstrap_with=encoding.clauses, with_proof=True) as sat:
        if sat.solve():
            played = len(encoding.decode(sat.get_model()))
            raise InputError(f"not the best score: a line from the position scores "
                             f"{position.moved + played}", "best", token=str(best))
        proof_lines = list(sat.get_proof())
        stats = dict(sat.accum_stats() or {})
    solved = time.perf_counter()
    if checker == "blackhole":
        check = drat.check_proof(encoding.num_vars, encoding.clauses,
                                 drat.parse_proof_lines(proof_lines))
    checked = time.perf_counter()
    cnf_bytes, proof_bytes = _write_statement(folder, encoding, proof_lines)
    written = time.perf_counter()
    if checker != "blackhole":
        check = _drat_trim(folder / CNF_FILE, folder / PROOF_FILE, None)
    cert = Certificate(
        spec=spec, verdict=Verdict.UNSOLVABLE, folder=folder, board=board, solver=solver,
        seconds=Seconds(encoded - began, solved - encoded, check.stats.get("seconds", 0.0),
                        write=written - checked),
        features=encoding.features, variables=encoding.num_vars,
        clauses=len(encoding.clauses), checker=checker, solver_stats=stats,
        cnf=FileFacts(CNF_FILE, sha256(cnf_bytes), len(cnf_bytes)),
        proof=FileFacts(PROOF_FILE, sha256(proof_bytes), len(proof_bytes), len(proof_lines)),
        check=check, best=best, moved=position.moved,
        history=tuple(str(card) for card in position.history))
    _write(folder / MANIFEST_FILE, json.dumps(manifest(cert), indent=2) + "\n")
    return cert


# ---------------------------------------------------------------- many deals


def certificate_folders(specs: Sequence[str], out: Path) -> list[Path]:
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


@dataclass(frozen=True)
class Job:
    """One deal to certify, with everything a worker process needs."""

    spec: str
    deal: Deal
    folder: Path
    solver: str
    timeout: float | None
    checker: str


def plan(specs: Sequence[str], out: Path, solver: str | None = None,
         timeout: float | None = None, checker: str = "blackhole") -> list[Job]:
    """Every deal loaded and the choices checked before any work: a bad spec anywhere in
    the list stops the run before its first deal."""
    if timeout is not None and not timeout > 0:
        raise InputError("timeout must be positive", "timeout", token=str(timeout))
    canonical = check_choices(solver, checker)
    if not specs:
        raise InputError("no deals to certify", "specs")
    deals = [_standard(load_deal(spec), spec) for spec in specs]
    return [Job(spec, deal, folder, canonical, timeout, checker)
            for spec, deal, folder in zip(specs, deals, certificate_folders(specs, out),
                                          strict=True)]


def run_job(job: Job) -> Certificate:
    return certify(job.deal, job.spec, job.folder, job.solver, job.timeout, job.checker)


def certify_all(jobs: Sequence[Job], workers: int = 1, resume: bool = False,
                on_done: Callable[[Job, Certificate], None] | None = None) -> Iterator[
                    tuple[Job, Certificate]]:
    """Certify the jobs, `workers` deals at a time in separate processes, yielding each as
    it finishes (in the order they finish when parallel). With `resume`, a folder that
    already holds a complete certificate of its deal is kept and yielded as `resumed`."""
    todo = []
    for job in jobs:
        found = completed(job) if resume else None
        if found is not None:
            yield job, found
        else:
            todo.append(job)
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            yield job, run_job(job)
        return
    import multiprocessing

    with multiprocessing.Pool(min(workers, len(todo)), initializer=_worker_start) as pool:
        # leaving the block terminates the workers: an interrupt stops them at once
        numbered = pool.imap_unordered(_run_numbered, enumerate(todo))
        for number, cert in numbered:
            yield todo[number], cert


def _run_numbered(item: tuple[int, Job]) -> tuple[int, Certificate]:
    number, job = item
    return number, run_job(job)


def _worker_start() -> None:
    """Workers leave Ctrl-C to the parent, which stops them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def completed(job: Job) -> Certificate | None:
    """The job's certificate when its folder already holds a complete, matching one: the
    same deal, every file as its manifest says and a passed check (the proof is not
    checked again; `verify` does that), or a solution that replays."""
    folder = job.folder
    try:
        board = _read_small(folder / DEAL_FILE).decode("utf-8")
        if parse_board(board, str(folder / DEAL_FILE)) != job.deal:
            return None
        if (folder / MANIFEST_FILE).is_file():
            facts = json.loads(_read_small(folder / MANIFEST_FILE))
            read = _read_manifest(facts, board)
            if isinstance(read, str) or facts["claim"] != CLAIM or not facts["checker"]["ok"] \
                    or facts["deal"]["spec"] != job.spec:
                return None
            for entry in (facts["cnf"], facts["proof"]):
                data = drat.read_capped(folder / entry["file"], drat.MAX_PROOF_BYTES)
                if sha256(data) != entry["sha256"]:
                    return None
            seconds = facts["seconds"]
            return Certificate(
                spec=job.spec, verdict=Verdict.UNSOLVABLE, folder=folder, board=board,
                solver=facts["solver"]["name"], features=read,
                seconds=Seconds(seconds["encode"], seconds["solve"], seconds["check"],
                                seconds.get("write", 0.0)),
                variables=facts["cnf"]["variables"], clauses=facts["cnf"]["clauses"],
                cnf=FileFacts(CNF_FILE, facts["cnf"]["sha256"], facts["cnf"]["bytes"]),
                proof=FileFacts(PROOF_FILE, facts["proof"]["sha256"], facts["proof"]["bytes"],
                                facts["proof"]["lines"]),
                check=drat.CheckResult(ok=True, stats={"seconds": seconds["check"]}),
                checker=facts["checker"]["name"], resumed=True)
        if (folder / SOLUTION_FILE).is_file():
            text = _read_small(folder / SOLUTION_FILE).decode("utf-8")
            if json.loads(text).get("deal") != job.spec:
                return None
            if not replay(job.deal, parse_solution(text, SOLUTION_FILE)).won:
                return None
            return Certificate(spec=job.spec, verdict=Verdict.SOLVED, folder=folder,
                               board=board, solver=job.solver, resumed=True)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError,
            drat.DratError):
        return None
    return None


# ---------------------------------------------------------------- verify


def holds_certificate(folder: Path) -> bool:
    return (folder / MANIFEST_FILE).is_file() or (folder / SOLUTION_FILE).is_file()


def folders_to_verify(folder: Path) -> list[Path]:
    """The certificates to verify under `folder`: the folder itself when it holds one (or
    is no folder, for `verify` to refuse), else the folders directly inside it that hold
    one, as `certify --out` writes a run, in name order."""
    if not folder.is_dir() or holds_certificate(folder):
        return [folder]
    inner = sorted(p for p in folder.iterdir() if p.is_dir() and holds_certificate(p))
    return inner or [folder]


def verify(folder: Path, checker: str = "blackhole") -> Verification:
    """Check what the folder claims from the files on disk: an unsolvable deal's proof
    (manifest.json) or a solvable deal's winning moves (solution.json)."""
    if not folder.is_dir():
        raise InputError("no such certificate folder", str(folder))
    if checker not in CHECKERS:
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "checker",
                         token=checker)
    if not holds_certificate(folder):
        # Nothing claimed, so nothing failed a check: the folder is the wrong input.
        raise InputError(f"not a certificate folder: no {MANIFEST_FILE} or {SOLUTION_FILE} "
                         "in it (an unknown verdict leaves neither)", str(folder))
    began = time.perf_counter()
    if (folder / MANIFEST_FILE).is_file():
        found = _verify_proof(folder, checker)
    else:
        found = _verify_solved(folder)
    return replace(found, seconds=time.perf_counter() - began)


def _verify_proof(folder: Path, checker: str) -> Verification:
    """An unsolvable deal's certificate, or a best score's."""
    spec, dealt, claim, best = "", False, "unsolvable", None

    def refused(reason: str, check: drat.CheckResult | None = None) -> Verification:
        return Verification(False, claim, spec, reason, dealt, check, best=best)

    try:
        raw = _read_small(folder / MANIFEST_FILE)
        try:
            facts = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            return refused(f"{MANIFEST_FILE} is not valid JSON ({error.__class__.__name__})")
        if not isinstance(facts, dict):
            return refused(f"{MANIFEST_FILE} is not a JSON object")
        if facts.get("claim") == BEST_CLAIM:
            claim = "best"
        board_bytes = _read_small(folder / DEAL_FILE)
        board = board_bytes.decode("utf-8")
        deal_facts = facts.get("deal")
        if isinstance(deal_facts, dict) and isinstance(deal_facts.get("spec"), str):
            spec = deal_facts["spec"]
        read = _read_manifest(facts, board)
        if isinstance(read, str):
            return refused(read)
        features = read
        deal = parse_board(board, str(folder / DEAL_FILE))
        if claim == "best":
            found = _best_statement(facts, deal, spec, features)
            if isinstance(found[0], str):
                return refused(found[0])
            encoding, best, dealt = found
        else:
            known, dealt = _deal_named(spec, deal)
            if known:
                return refused(known)
            encoding = cnf.build_cnf(build_problem(deal), features)
        derived = (dimacs(encoding) if facts["format"] == CERTIFICATE_FORMAT
                   else encoding.dimacs()).encode()
        if sha256(derived) != facts["cnf"]["sha256"]:
            return refused(f"the manifest's CNF hash is not the hash of the CNF re-derived "
                           f"from the {'deal, the position and the bound' if best else 'deal'}")
        if drat.read_capped(folder / CNF_FILE, drat.MAX_CNF_BYTES) != derived:
            return refused(f"{CNF_FILE} differs from the CNF re-derived from the deal")
        proof_bytes = drat.read_capped(folder / PROOF_FILE, drat.MAX_PROOF_BYTES)
        if sha256(proof_bytes) != facts["proof"]["sha256"]:
            return refused(f"{PROOF_FILE} does not match the manifest's hash")
    except drat.DratError as error:
        return refused(f"certificate file refused: {error}")
    except (OSError, KeyError, TypeError, AttributeError, ValueError, UnicodeDecodeError,
            InputError) as error:
        return refused(f"certificate incomplete or damaged ({error.__class__.__name__}: "
                       f"{error})")
    if checker == "drat-trim":
        check = _drat_trim(folder / CNF_FILE, folder / PROOF_FILE, None)
    else:
        try:
            proof = drat.parse_proof(proof_bytes.decode("ascii"))
        except (drat.DratError, UnicodeDecodeError) as error:
            return refused(f"{PROOF_FILE} is malformed: {error}")
        del proof_bytes
        check = drat.check_proof(encoding.num_vars, encoding.clauses, proof)
    if not check.ok:
        return refused(check.reason, check)
    return Verification(True, claim, spec, "", dealt, check, best=best)


def _best_statement(facts: dict, deal: Deal, spec: str, features: frozenset[str]) -> tuple:
    """(the CNF a best-score manifest claims is unsatisfiable, the bound, whether the spec
    was dealt again and replayed to deal.board), or (why not,)."""
    position = position_of(deal)
    stated, bound = facts["position"], facts["bound"]
    best = bound["best"]
    if not isinstance(best, int) or isinstance(best, bool):
        return ("the manifest's bound is no whole number",)
    if stated["moved"] != position.moved:
        return (f"{DEAL_FILE} shows {position.moved} cards moved, not "
                f"{str(stated['moved'])[:20]}",)
    moves = stated["moves"]
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return ("the manifest's moves are no list of cards",)
    dealt = False
    if spec and generated_spec(spec) is not None:
        if len(moves) != position.moved:
            return (f"the manifest names {len(moves)} moves, {DEAL_FILE} shows "
                    f"{position.moved} cards moved",)
        try:
            again = load_position(spec, " ".join(moves) if moves else None)
        except InputError as error:
            return (f"the manifest's deal and moves do not replay ({error})",)
        if again.deal != deal:
            return (f"{DEAL_FILE} is not the position of {spec[:40]} after its moves",)
        dealt = True
    encoding, _ = bound_encoding(position, best, features)
    return encoding, best, dealt


def _read_manifest(facts: dict, board: str) -> frozenset[str] | str:
    """The encoding features a manifest names, or why the manifest is refused."""
    if facts.get("format") not in FORMATS:
        return f"unknown certificate format {str(facts.get('format'))[:40]!r} (this tool " \
               f"writes {CERTIFICATE_FORMAT!r}; certify the deal again)"
    if facts.get("claim") not in (CLAIM, BEST_CLAIM):
        return f"the manifest claims neither {CLAIM!r} nor {BEST_CLAIM!r}"
    deal_facts = facts["deal"]
    if not isinstance(deal_facts.get("spec"), str):
        return "the manifest names no deal spec"
    if deal_facts.get("board") != board:
        return f"{DEAL_FILE} is not the board the manifest names"
    if deal_facts.get("sha256") != sha256(board.encode()):
        return f"{DEAL_FILE} does not match the manifest's hash"
    encoding_info = facts["encoding"]
    if encoding_info.get("version") != cnf.ENCODING_VERSION:
        return (f"certificate uses encoding {str(encoding_info.get('version'))[:40]!r}; this "
                f"tool re-derives {cnf.ENCODING_VERSION!r}")
    names = encoding_info.get("features")
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return "the manifest's encoding features are no list of names"
    features = frozenset(names)
    if not features <= cnf.CERTIFY_FEATURES:
        return ("encoding features not allowed in a certificate: "
                + ", ".join(sorted(features - cnf.CERTIFY_FEATURES))[:80])
    return features


def _deal_named(spec: str, deal: Deal) -> tuple[str, bool]:
    """(why the spec is not this deal, or ""; whether the spec was dealt again). A
    generated spec is dealt again and must give deal.board; a file spec is only a name."""
    try:
        generated = generated_spec(spec)
        if generated is None:
            return "", False
        again = load_deal(spec)
    except InputError as error:
        return f"the manifest's deal spec does not deal ({error})", False
    if again != deal:
        return f"{DEAL_FILE} is not the deal {spec[:40]}", False
    return "", True


def _verify_solved(folder: Path) -> Verification:
    spec = ""
    try:
        text = _read_small(folder / SOLUTION_FILE).decode("utf-8")
        facts = json.loads(text)
        if not isinstance(facts, dict):
            return Verification(False, "solved", "", f"{SOLUTION_FILE} is not a JSON object")
        spec = facts.get("deal") if isinstance(facts.get("deal"), str) else ""
        deal = parse_board(_read_small(folder / DEAL_FILE).decode("utf-8"),
                           str(folder / DEAL_FILE))
        known, dealt = _deal_named(spec, deal)
        if known:
            return Verification(False, "solved", spec, known)
        judged = replay(deal, parse_solution(text, SOLUTION_FILE))
    except drat.DratError as error:
        return Verification(False, "solved", spec, f"certificate file refused: {error}")
    except (OSError, ValueError, RecursionError, InputError) as error:
        return Verification(False, "solved", spec, f"solution incomplete or damaged "
                            f"({error.__class__.__name__}: {error})")
    if not judged.won:
        return Verification(False, "solved", spec, f"{SOLUTION_FILE} does not win: "
                            f"{judged.describe()}", dealt, played=judged.played)
    return Verification(True, "solved", spec, "", dealt, played=judged.played)


# ---------------------------------------------------------------- files and tools


def _read_small(path: Path) -> bytes:
    return drat.read_capped(path, SMALL_FILE_CAP)


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
    _write_bytes(path, text.encode("utf-8"))


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(path)) from None


def _drat_trim(cnf_path: Path, proof_path: Path, timeout: float | None) -> drat.CheckResult:
    """A second opinion from drat-trim, when it is on PATH."""
    binary = shutil.which("drat-trim")
    if binary is None:
        raise InputError("drat-trim is not on PATH", "checker", token="drat-trim")
    began = time.perf_counter()
    try:
        run = subprocess.run([binary, str(cnf_path), str(proof_path)], capture_output=True,
                             text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return drat.CheckResult(ok=False, reason="time limit reached during the proof check",
                                stats={"seconds": time.perf_counter() - began}, timed_out=True)
    seconds = time.perf_counter() - began
    ok = "s VERIFIED" in run.stdout
    reason = "" if ok else (run.stdout.strip().splitlines() or ["drat-trim gave no verdict"])[-1]
    return drat.CheckResult(ok=ok, reason=reason, stats={"seconds": seconds})

