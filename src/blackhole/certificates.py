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
engine. A position (`after`: the deal and the moves played) is certified the same way:
deal.board holds the position and the manifest (or solution.json) names the moves.

Every certificate is written into a hidden folder beside its place
(`.NAME.partial-PID-...`) and renamed into place only when it is complete and checked.
An unknown verdict, an error or an interrupt leaves what was there before as it was;
where nothing was, an unknown leaves a folder holding only `deal.board`.

`certify_best` writes the same kind of folder for a best score: the CNF "at least
best+1 cards are scored from this position" (the optional-position encoding and the
bound as a unit clause), its DRUP proof and a manifest naming the deal, the position's
moves and the bound; `verify` re-derives that CNF from the deal, the position and the
bound.

`verify` trusts nothing in the folder but the deal, and the deal only as far as it can
be checked: a generated spec (`pysol:N`, `random:SEED`) is dealt again and must equal
deal.board; a file named by the label is read and must equal it; a label that cannot be
checked is said so, and the deal is named by deal.board's digest. It re-derives the CNF
from deal.board with the project's encoder, compares it and every hash, and checks the
proof again within bounded memory (`drat`'s caps). On a solved deal's folder it replays
`solution.json` through the rules engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from blackhole import __version__, drat
from blackhole.backends import Result, Verdict
from blackhole.cards import Card, parse_card
from blackhole.deal import (
    Deal,
    Position,
    board_text,
    generated_spec,
    load_deal,
    load_position,
    parse_board,
    parse_position_text,
    position_of,
    read_moves,
)
from blackhole.encode import cnf
from blackhole.errors import InputError, InternalError
from blackhole.pipeline import Solution, decode, solution_json
from blackhole.problem import build_problem
from blackhole.rules import advance, replay
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
CERTIFICATE_FILES = (DEAL_FILE, CNF_FILE, PROOF_FILE, MANIFEST_FILE, SOLUTION_FILE)
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
    dealt: bool = False  # the spec was dealt again (and played on) and equals deal.board
    check: drat.CheckResult | None = None  # the proof check, for an unsolvable claim
    played: int = 0  # cards the solution moves, for a solved claim
    best: int | None = None  # the bound, for a "best" claim: no line scores more
    seconds: float = 0.0
    label: str = ""  # how the spec was checked: "dealt", "file", or "" (it was not)
    label_note: str = ""  # why the spec was not checked
    board_sha256: str = ""  # deal.board's digest: the deal's name when its label is not
    replayed: int = 0  # moves played on the label's deal to reach deal.board (positions)


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
            timeout: float | None = None, checker: str = "blackhole",
            moves: Sequence[str] = ()) -> Certificate:
    """Refute the deal's plain CNF with a proof and check it, then write the certificate.

    The CNF is built once, from the deal: the solver gets a copy of its clauses and the
    check reads the same clauses in memory (not the solver's word for them), so the proof
    is checked against the statement the deal says. `timeout` bounds the whole of it
    (encode, solve and check); at the limit the verdict is unknown. `solver` must be
    canonical (`check_choices`). `moves` are the cards played to reach `deal` when it is
    a position (`load_position`), for verify to rebuild it from `spec`.

    The certificate is made in a hidden folder beside `folder` and renamed into place
    only when complete and checked (`_settle`): an unknown, an error or an interrupt
    leaves `folder` as it was."""
    board = board_text(_standard(deal, spec))
    staged = _staging(folder)
    cert = None
    try:
        cert = _certify_in(staged, deal, spec, folder, board, solver, timeout, checker,
                           tuple(moves))
    finally:
        _settle(staged, folder, cert)
    return cert


def _certify_in(staged: Path, deal: Deal, spec: str, folder: Path, board: str,
                solver: str, timeout: float | None, checker: str,
                moves: tuple[str, ...]) -> Certificate:
    """`certify`'s work, its files written to `staged`."""
    began = time.perf_counter()
    deadline = None if timeout is None else began + timeout
    _write(staged / DEAL_FILE, board)
    problem = build_problem(deal)
    encoding = cnf.build_cnf(problem, cnf.CERTIFY_FEATURES)  # the statement the proof refutes
    encoded = time.perf_counter()
    answer, order, proof_lines, stats = _refute(encoding, solver, deadline)
    solved = time.perf_counter()
    seconds = Seconds(encode=encoded - began, solve=solved - encoded)
    moved = position_of(deal).moved if moves else 0
    base = dict(spec=spec, folder=folder, board=board, solver=solver,
                features=encoding.features, variables=encoding.num_vars,
                clauses=len(encoding.clauses), checker=checker, solver_stats=stats,
                moved=moved, history=moves)
    if answer is None:
        return Certificate(verdict=Verdict.UNKNOWN, seconds=seconds,
                           reason="time limit reached while solving", **base)
    if answer:
        result = Result(Verdict.SOLVED, order, "sat", solver, solved - encoded, stats)
        solution = decode(problem, result, deal)  # replays through the rules engine
        facts = solution_json(spec, solution)
        if moves:
            facts["position"] = {"moved": moved, "moves": list(moves)}
        _write(staged / SOLUTION_FILE, json.dumps(facts) + "\n")
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
    cnf_bytes, proof_bytes = _write_statement(staged, encoding, proof_lines)
    written = time.perf_counter()
    if checker != "blackhole":  # drat-trim reads the files
        left = None if deadline is None else deadline - written
        check = _drat_trim(staged / CNF_FILE, staged / PROOF_FILE, left)
        if check.timed_out:
            return Certificate(verdict=Verdict.UNKNOWN, reason="time limit reached while "
                               "checking the proof", seconds=seconds, **base)
    cert = Certificate(
        verdict=Verdict.UNSOLVABLE, check=check,
        seconds=Seconds(seconds.encode, seconds.solve, check.stats.get("seconds", 0.0),
                        write=written - checked),
        cnf=FileFacts(CNF_FILE, sha256(cnf_bytes), len(cnf_bytes)),
        proof=FileFacts(PROOF_FILE, sha256(proof_bytes), len(proof_bytes), len(proof_lines)),
        **base)
    _write(staged / MANIFEST_FILE, json.dumps(manifest(cert), indent=2) + "\n")
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
                                 with_proof=True) as sat, _interrupts():
        answer = run_solver(sat, solver, deadline)
        if answer:
            model = sat.get_model()
        elif answer is False:
            proof = list(sat.get_proof())
        stats.update(sat.accum_stats() or {})
    _, order = read_answer(answer, model, encoding, f"sat/{solver}")
    return answer, order, proof, stats


@contextmanager
def _interrupts() -> Iterator[None]:
    """Ctrl-C during a pysat solve: pysat catches SIGINT and raises its own error, which
    is turned back into the KeyboardInterrupt it is."""
    try:
        yield
    except KeyboardInterrupt:
        raise
    except Exception as error:
        if "keyboard interrupt" in str(error).lower():
            raise KeyboardInterrupt from None
        raise


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
    if cert.history:
        claim["position"] = {"moved": cert.moved, "moves": list(cert.history)}
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
    replayed through `position.history` by `verify`), the moves and the bound. As with
    `certify`, it is renamed into place only when complete and checked.

    A line that scores more than `best` is an InputError naming it: the bound is not
    the best."""
    solver = check_choices(solver, checker)
    board = board_text(_standard(position.deal, spec or "position"))
    staged = _staging(folder)
    cert = None
    try:
        cert = _certify_best_in(staged, position, best, folder, spec, board, solver,
                                checker)
    finally:
        _settle(staged, folder, cert)
    return cert


def _certify_best_in(staged: Path, position: Position, best: int, folder: Path, spec: str,
                     board: str, solver: str, checker: str) -> Certificate:
    from pysat.solvers import Solver

    began = time.perf_counter()
    encoding, _ = bound_encoding(position, best)
    encoded = time.perf_counter()
    _write(staged / DEAL_FILE, board)
    with Solver(name=solver, bootstrap_with=encoding.clauses, with_proof=True) as sat, \
            _interrupts():
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
    cnf_bytes, proof_bytes = _write_statement(staged, encoding, proof_lines)
    written = time.perf_counter()
    if checker != "blackhole":
        check = _drat_trim(staged / CNF_FILE, staged / PROOF_FILE, None)
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
    _write(staged / MANIFEST_FILE, json.dumps(manifest(cert), indent=2) + "\n")
    return cert


def certify_win(position: Position, line: Sequence[tuple[Card, int]], folder: Path, *,
                spec: str = "", facts: dict[str, Any] | None = None) -> Certificate:
    """A won position's certificate, as `certify` writes a solvable deal's: deal.board
    (the position) and solution.json, the winning `line` from the position (replayed
    here by the rules engine; one that does not win is an InternalError) with `facts`
    (who found it), and the moves that reached the position, for `verify` to rebuild it
    from `spec`. Renamed into place only when complete."""
    board = board_text(_standard(position.deal, spec or "position"))
    judged = replay(position.deal, [card for card, _ in line])
    if not judged.won:
        raise InternalError(f"a winning line that does not win: {judged.describe()}")
    moves = [{"card": str(card), "fan": fan} for card, fan in line]
    data: dict[str, Any] = {"deal": spec, "verdict": Verdict.SOLVED.value, "moves": moves,
                            **(facts or {})}
    history = tuple(str(card) for card in position.history)
    if position.moved:
        data["position"] = {"moved": position.moved, "moves": list(history)}
    staged = _staging(folder)
    cert = None
    try:
        _write(staged / DEAL_FILE, board)
        _write(staged / SOLUTION_FILE, json.dumps(data) + "\n")
        cert = Certificate(spec=spec, verdict=Verdict.SOLVED, folder=folder, board=board,
                           solver=str((facts or {}).get("solver", "")),
                           moved=position.moved, history=history)
    finally:
        _settle(staged, folder, cert)
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
    deal: Deal  # the position's layout, when `moves` were played
    folder: Path
    solver: str
    timeout: float | None
    checker: str
    moves: tuple[str, ...] = ()  # the cards played to reach `deal` (certify --after)


def plan(specs: Sequence[str], out: Path, solver: str | None = None,
         timeout: float | None = None, checker: str = "blackhole",
         after: str | None = None) -> list[Job]:
    """Every deal loaded, every folder and the choices checked before any work: a bad spec
    anywhere in the list stops the run before its first deal. `after` (moves, as
    `load_position` reads them) makes the one deal a position."""
    if timeout is not None and not timeout > 0:
        raise InputError("timeout must be positive", "timeout", token=str(timeout))
    canonical = check_choices(solver, checker)
    if not specs:
        raise InputError("no deals to certify", "specs")
    if after is not None and len(specs) > 1:
        raise InputError(f"--after names moves of one deal, not of {len(specs)}", "after",
                         token=after[:40])
    folders = certificate_folders(specs, out)
    for folder in folders:
        check_place(folder)
    jobs = []
    for spec, folder in zip(specs, folders, strict=True):
        if after is None:
            jobs.append(Job(spec, _standard(load_deal(spec), spec), folder, canonical,
                            timeout, checker))
            continue
        start = load_position(spec)
        moves, source = read_moves(after, "after")
        position = advance(start, moves, source)
        # from the deal's start when known, else the moves after the spec's own layout
        played = position.history or replay(start.deal, moves).order
        jobs.append(Job(spec, _standard(position.deal, spec), folder, canonical, timeout,
                        checker, tuple(str(card) for card in played)))
    return jobs


def run_job(job: Job) -> Certificate:
    return certify(job.deal, job.spec, job.folder, job.solver, job.timeout, job.checker,
                   job.moves)


def certify_all(jobs: Sequence[Job], workers: int = 1, resume: bool = False,
                on_done: Callable[[Job, Certificate], None] | None = None) -> Iterator[
                    tuple[Job, Certificate]]:
    """Certify the jobs, `workers` deals at a time in separate processes, yielding each as
    it finishes (in the order they finish when parallel). With `resume`, a folder that
    already holds a complete certificate of its deal is kept and yielded as `resumed`.

    The workers end with the parent: when it stops (an interrupt, an error) the pool is
    terminated and their unfinished folders are removed, and a worker whose parent is
    killed outright ends too (`_worker_start`)."""
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

    try:
        with multiprocessing.Pool(min(workers, len(todo)), initializer=_worker_start,
                                  initargs=(os.getpid(),)) as pool:
            # leaving the block terminates the workers: an interrupt stops them at once
            numbered = pool.imap_unordered(_run_numbered, enumerate(todo))
            for number, cert in numbered:
                yield todo[number], cert
    finally:
        for job in todo:  # what terminated workers left half made
            _tidy(job.folder)


def _run_numbered(item: tuple[int, Job]) -> tuple[int, Certificate]:
    number, job = item
    return number, run_job(job)


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def _worker_start(parent: int) -> None:
    """Workers leave Ctrl-C to the parent, which stops them, and end with the parent: on
    Linux the kernel sends them SIGKILL when it dies, elsewhere a thread watches it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        watched = False
    if os.getppid() != parent:  # the parent died before the kernel could be asked
        os._exit(1)
    if not watched:
        import threading

        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


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
                    or facts["deal"]["spec"] != job.spec or _moves_of(facts) != job.moves:
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
                checker=facts["checker"]["name"], resumed=True, history=job.moves)
        if (folder / SOLUTION_FILE).is_file():
            text = _read_small(folder / SOLUTION_FILE).decode("utf-8")
            facts = json.loads(text)
            if facts.get("deal") != job.spec or _moves_of(facts) != job.moves:
                return None
            if not replay(job.deal, parse_solution(text, SOLUTION_FILE)).won:
                return None
            return Certificate(spec=job.spec, verdict=Verdict.SOLVED, folder=folder,
                               board=board, solver=job.solver, resumed=True,
                               history=job.moves)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError,
            drat.DratError):
        return None
    return None


def _moves_of(facts: dict) -> tuple[str, ...]:
    """The moves a manifest or solution.json says reached its position; () for a deal.
    Anything but a list of card names is an error (ValueError)."""
    stated = facts.get("position")
    if stated is None:
        return ()
    moves = stated["moves"] if isinstance(stated, dict) else None
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ValueError("the position's moves are no list of cards")
    return tuple(moves)


# ---------------------------------------------------------------- verify


def holds_certificate(folder: Path) -> bool:
    return (folder / MANIFEST_FILE).is_file() or (folder / SOLUTION_FILE).is_file()


def certificate_folder(path: Path) -> Path:
    """The folder `path` names: itself, or the folder that holds it when it is one of a
    certificate's files (`DIR/manifest.json` means DIR). Any other file is an
    InputError."""
    if path.is_file():
        if path.name in CERTIFICATE_FILES and holds_certificate(path.parent):
            return path.parent
        raise InputError(f"a file, not a certificate folder (give the folder that holds "
                         f"{MANIFEST_FILE} or {SOLUTION_FILE})", str(path))
    return path


def folders_to_verify(folder: Path) -> list[Path]:
    """The certificates to verify under `folder` (`certificate_folder`): the folder itself
    when it holds one (or is no folder, or no folder in it holds one, for `verify` to
    refuse), else every folder directly inside it, as `certify --out` writes a run, in
    name order, but the hidden ones (a run's unfinished work). Those that hold no
    certificate are there for `verify` to name (`in_run`)."""
    folder = certificate_folder(folder)
    if not folder.is_dir() or holds_certificate(folder):
        return [folder]
    inner = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not any(holds_certificate(p) for p in inner):
        return [folder]
    return inner


def verify(folder: Path, checker: str = "blackhole", *, in_run: bool = False) -> Verification:
    """Check what the folder claims from the files on disk: an unsolvable deal's proof
    (manifest.json) or a solvable deal's winning moves (solution.json). A folder that
    claims neither is bad input, unless it is one of a run's (`in_run`): then it is not
    verified, and the reason names what it holds."""
    if not folder.is_dir():
        raise InputError("no such certificate folder", str(folder))
    if checker not in CHECKERS:
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "checker",
                         token=checker)
    if not holds_certificate(folder):
        if in_run:
            return Verification(False, "", "", _incomplete(folder))
        # Nothing claimed, so nothing failed a check: the folder is the wrong input.
        raise InputError(f"not a certificate folder: no {MANIFEST_FILE} or {SOLUTION_FILE} "
                         "in it (an unknown verdict leaves neither)", str(folder))
    began = time.perf_counter()
    if (folder / MANIFEST_FILE).is_file():
        found = _verify_proof(folder, checker)
    else:
        found = _verify_solved(folder)
    return replace(found, seconds=time.perf_counter() - began)


def _incomplete(folder: Path) -> str:
    names = sorted(p.name for p in folder.iterdir())
    if not names:
        return "no certificate: the folder is empty"
    held = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    why = " (an unknown verdict, or a run stopped before this deal)" \
        if names == [DEAL_FILE] else ""
    return f"no certificate: the folder holds only {held}{why}"


@dataclass(frozen=True)
class Label:
    """How a certificate's label (its deal spec) was checked against deal.board."""

    how: str  # "dealt" (a generated spec dealt again), "file" (the file read), "" (not)
    note: str = ""  # why it was not checked
    replayed: int = 0  # the moves played on the label's layout to reach deal.board


def _check_label(spec: str, moves: Sequence[str], deal: Deal) -> Label | str:
    """How the label `spec` and the `moves` that reached the position give deal.board's
    `deal`, or why they do not (the certificate is refused). A generated spec is dealt
    again; a file that exists and is readable is read (a label in another case than the
    spec grammar's, and naming no file, is refused); any other label is not checked."""
    if not spec:
        return Label("", "the certificate names no deal")
    try:
        generated = generated_spec(spec)
    except InputError as error:
        return f"the manifest's deal spec does not deal ({error})"
    if generated is not None:
        try:
            start = load_position(spec)
        except InputError as error:
            return f"the manifest's deal spec does not deal ({error})"
        return _rebuilt(spec, start, moves, deal, "dealt")
    if spec == "-":
        return Label("", "it names standard input")
    path = Path(spec)
    try:
        regular, there = path.is_file(), path.exists()
    except (OSError, ValueError):
        regular = there = False
    kind = spec.partition(":")[0]
    if not regular:
        if kind.lower() in ("pysol", "random") and ":" in spec:
            return (f"the manifest's deal spec {spec[:40]!r} is not one: specs are written "
                    f"in lower case ({kind.lower()}:...)")
        return Label("", "not a regular file" if there else "no such file here")
    try:
        data = _read_small(path)
        start = parse_position_text(data.decode("utf-8"), str(path))
    except (OSError, drat.DratError) as error:
        why = getattr(error, "strerror", None) or error
        return Label("", f"the file could not be read ({why})")
    except (UnicodeDecodeError, InputError) as error:
        return f"the manifest's label {spec[:40]} is a file that holds no deal ({error})"
    return _rebuilt(spec, start, moves, deal, "file")


def _rebuilt(spec: str, start: Position, moves: Sequence[str], deal: Deal,
             how: str) -> Label | str:
    """The label's position `start`, played on by the last of `moves` as far as deal.board
    shows more cards moved, must be deal.board's `deal`."""
    now = position_of(deal).moved
    count = now - start.moved
    lead = len(moves) - count
    known = [str(card) for card in start.history] if len(start.history) == start.moved \
        else None
    if count < 0 or lead < 0 or (lead and list(moves[:lead]) != known):
        return (f"the manifest names {len(moves)} moves, but {DEAL_FILE} shows {now} cards "
                f"moved and {spec[:40]} {start.moved}")
    try:
        cards = [parse_card(move) for move in moves[lead:]]
        again = advance(start, cards, "the manifest's moves")
    except ValueError as error:  # a card that is no card
        return f"the manifest's moves do not replay ({error})"
    except InputError as error:
        return f"the manifest's deal and moves do not replay ({error})"
    if again.deal != deal:
        if moves:
            return f"{DEAL_FILE} is not the position of {spec[:40]} after its moves"
        return f"{DEAL_FILE} is not the deal {spec[:40]}"
    return Label(how, replayed=count)


def _verify_proof(folder: Path, checker: str) -> Verification:
    """An unsolvable deal's certificate, or a best score's."""
    spec, label, claim, best, digest = "", Label(""), "unsolvable", None, ""

    def refused(reason: str, check: drat.CheckResult | None = None) -> Verification:
        return Verification(False, claim, spec, reason, label.how == "dealt", check,
                            best=best, board_sha256=digest)

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
        digest = sha256(board_bytes)
        board = board_bytes.decode("utf-8")
        deal_facts = facts.get("deal")
        if isinstance(deal_facts, dict) and isinstance(deal_facts.get("spec"), str):
            spec = deal_facts["spec"]
        read = _read_manifest(facts, board)
        if isinstance(read, str):
            return refused(read)
        features = read
        deal = parse_board(board, str(folder / DEAL_FILE))
        if claim == "best" or "position" in facts:
            moved = facts["position"]["moved"]
            if moved != position_of(deal).moved:
                return refused(f"{DEAL_FILE} shows {position_of(deal).moved} cards moved, "
                               f"not {str(moved)[:20]}")
        named = _check_label(spec, _moves_of(facts), deal)
        if isinstance(named, str):
            return refused(named)
        label = named
        if claim == "best":
            best = facts["bound"]["best"]
            if not isinstance(best, int) or isinstance(best, bool):
                best = None
                return refused("the manifest's bound is no whole number")
            encoding, _ = bound_encoding(position_of(deal), best, features)
        else:
            encoding = cnf.build_cnf(build_problem(deal), features)
        derived = (dimacs(encoding) if facts["format"] == CERTIFICATE_FORMAT
                   else encoding.dimacs()).encode()
        if sha256(derived) != facts["cnf"]["sha256"]:
            whence = "deal, the position and the bound" if claim == "best" else "deal"
            return refused(f"the manifest's CNF hash is not the hash of the CNF re-derived "
                           f"from the {whence}")
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
    return Verification(True, claim, spec, "", label.how == "dealt", check, best=best,
                        label=label.how, label_note=label.note, board_sha256=digest,
                        replayed=label.replayed)


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


def _verify_solved(folder: Path) -> Verification:
    spec, digest = "", ""
    try:
        text = _read_small(folder / SOLUTION_FILE).decode("utf-8")
        facts = json.loads(text)
        if not isinstance(facts, dict):
            return Verification(False, "solved", "", f"{SOLUTION_FILE} is not a JSON object")
        spec = facts.get("deal") if isinstance(facts.get("deal"), str) else ""
        board_bytes = _read_small(folder / DEAL_FILE)
        digest = sha256(board_bytes)
        deal = parse_board(board_bytes.decode("utf-8"), str(folder / DEAL_FILE))
        label = _check_label(spec, _moves_of(facts), deal)
        if isinstance(label, str):
            return Verification(False, "solved", spec, label, board_sha256=digest)
        judged = replay(deal, parse_solution(text, SOLUTION_FILE))
    except drat.DratError as error:
        return Verification(False, "solved", spec, f"certificate file refused: {error}",
                            board_sha256=digest)
    except (OSError, ValueError, RecursionError, InputError, KeyError, TypeError) as error:
        return Verification(False, "solved", spec, f"solution incomplete or damaged "
                            f"({error.__class__.__name__}: {error})", board_sha256=digest)
    dealt = label.how == "dealt"
    if not judged.won:
        return Verification(False, "solved", spec, f"{SOLUTION_FILE} does not win: "
                            f"{judged.describe()}", dealt, played=judged.played,
                            board_sha256=digest)
    return Verification(True, "solved", spec, "", dealt, played=judged.played,
                        label=label.how, label_note=label.note, board_sha256=digest,
                        replayed=label.replayed)


# ---------------------------------------------------------------- files and tools


def _read_small(path: Path) -> bytes:
    return drat.read_capped(path, SMALL_FILE_CAP)


def check_place(folder: Path) -> None:
    """A certificate may go to `folder`: it is new, or a folder that holds nothing but a
    certificate's files (the one it replaces), so that renaming a new one into its place
    loses nothing else. Checked before any work; else an InputError naming it."""
    try:
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise InputError("cannot write the certificate (a file is in its place)",
                                 str(folder))
            other = sorted(p.name for p in folder.iterdir() if p.name not in CERTIFICATE_FILES)
            if other:
                shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
                raise InputError(f"holds more than a certificate ({shown}): certify replaces "
                                 "the whole folder, so give a new one", str(folder))
            return
        for parent in folder.absolute().parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputError("cannot write the certificate (a file is in the way: "
                                     f"{parent})", str(folder))
                return
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


PARTIAL, OLD = ".partial-", ".old-"  # hidden folders beside a certificate's place


def _staging(folder: Path) -> Path:
    """A new hidden folder beside `folder` to make its certificate in, named after it and
    this process (`_tidy` removes those whose process is gone)."""
    check_place(folder)
    folder = folder.absolute()
    if not folder.name:
        raise InputError("cannot write the certificate (no folder named)", str(folder))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        _tidy(folder)
        return Path(tempfile.mkdtemp(prefix=f".{folder.name}{PARTIAL}{os.getpid()}-",
                                     dir=folder.parent))
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None


def _settle(staged: Path, folder: Path, cert: Certificate | None) -> None:
    """Put a complete, checked certificate made in `staged` in `folder`'s place. Anything
    else (no certificate: an error or an interrupt; unknown; a proof the check rejected)
    leaves `folder` as it was, but for a folder that holds no certificate: there an
    unknown verdict leaves the deal alone, to say which deal was tried."""
    try:
        good = cert is not None and (cert.verdict is Verdict.SOLVED or cert.certified)
        tried = cert is not None and not good and not holds_certificate(folder)
        if tried:
            for name in CERTIFICATE_FILES:
                if name != DEAL_FILE:
                    (staged / name).unlink(missing_ok=True)
        if good or tried:
            _place(staged, folder.absolute())
    except OSError as error:
        raise InputError(f"cannot write the certificate ({error.strerror})",
                         str(folder)) from None
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _place(staged: Path, folder: Path) -> None:
    """Rename `staged` to `folder`; what was there is moved aside first and removed
    after, so that at every moment one whole certificate is found (a crash between the
    two renames leaves the old one hidden beside, and `_tidy` puts it back)."""
    old = None
    if folder.exists() or folder.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}{OLD}{os.getpid()}-",
                                    dir=folder.parent))
        os.rename(folder, old)  # onto the empty folder just made
    try:
        os.rename(staged, folder)
    except OSError:
        if old is not None:
            os.rename(old, folder)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _tidy(folder: Path) -> None:
    """Remove the hidden folders beside `folder` that a process now gone left half made,
    and put back a certificate that such a process had moved aside but not replaced."""
    folder = folder.absolute()
    try:
        beside = list(folder.parent.iterdir())
    except OSError:
        return
    for path in beside:
        for mark in (PARTIAL, OLD):
            prefix = f".{folder.name}{mark}"
            if not path.name.startswith(prefix):
                continue
            owner = path.name[len(prefix):].partition("-")[0]
            if not owner.isdigit() or _alive(int(owner)):
                continue
            if mark == OLD and not (folder.exists() or folder.is_symlink()):
                os.rename(path, folder)
            else:
                shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's: alive
        return True
    try:  # a zombie (ended, not yet reaped) is gone too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


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
    verdicts = [line.strip() for line in run.stdout.splitlines() if line.startswith("s ")]
    ok = verdicts == ["s VERIFIED"]
    reason = "" if ok else drat.drat_trim_reason(run.stdout, run.returncode)
    return drat.CheckResult(ok=ok, reason=reason, stats={"seconds": seconds},
                            timed_out=verdicts == ["s TIMEOUT"])

