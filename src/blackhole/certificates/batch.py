"""Certifying many deals: plan them all before any work, run them in worker processes
that end with their parent, resume a run, and leave nothing half made behind an
interrupt."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from blackhole import drat
from blackhole.backends import Verdict
from blackhole.base.errors import InputError
from blackhole.certificates.files import (
    CLAIM,
    CNF_FILE,
    DEAL_FILE,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    Certificate,
    FileFacts,
    Seconds,
    as_folder,
    moves_of,
    read_manifest,
    read_small,
    sha256,
)
from blackhole.certificates.labels import recorded
from blackhole.certificates.make import (
    check_choices,
    check_timeout,
    make_certificate,
    read_game,
    standard,
)
from blackhole.certificates.place import check_place, tidy
from blackhole.model.cards import Card
from blackhole.model.deal import Deal
from blackhole.model.formats import parse_board
from blackhole.model.games import Variant
from blackhole.model.positions import load_position, play_after, read_moves
from blackhole.model.rules import replay
from blackhole.model.solutions import parse_solution
from blackhole.model.sources import load_deal


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

    spec: str  # the certificate's label: the spec, a file's by its absolute path
    deal: Deal  # the position's layout, when `moves` were played
    folder: Path
    solver: str
    timeout: float | None
    checker: str
    moves: tuple[str, ...] = ()  # the cards played to reach `deal` (certify --after)
    after: tuple[tuple[Card, int], ...] = ()  # --after's moves on `spec`, with their fans


def plan(specs: Sequence[str], out: str | os.PathLike[str], solver: str | None = None,
         timeout: float | None = None, checker: str = "blackhole",
         after: str | None = None, game: Variant | str | None = None) -> list[Job]:
    """Every deal loaded, every folder and the choices checked before any work: a bad spec
    anywhere in the list, or a folder another process is writing, stops the run before
    its first deal. `after` (moves, as `load_position` reads them) makes the one deal a
    position. A file's label is its absolute path (`labels.recorded`). `game` is the game
    a file is played by (`--game`: a Golf board names none without its `Game:` line)."""
    timeout = check_timeout(timeout)
    canonical = check_choices(solver, checker)
    game = read_game(game)
    if not specs:
        raise InputError("no deals to certify", "specs")
    if after is not None and len(specs) > 1:
        raise InputError(f"--after names moves of one deal, not of {len(specs)}", "after",
                         token=after[:40])
    folders = certificate_folders(specs, as_folder(out, "out"))
    for folder in folders:
        check_place(folder)
    jobs = []
    for spec, folder in zip(specs, folders, strict=True):
        if after is None:
            jobs.append(Job(recorded(spec), standard(load_deal(spec, game), spec), folder,
                            canonical, timeout, checker))
            continue
        start = load_position(spec, game=game)
        position = play_after(start, *read_moves(after, "after"))
        # from the deal's start when known, else the moves after the spec's own layout
        played = position.history or tuple(move.card for move in position.after)
        jobs.append(Job(recorded(spec), standard(position.deal, spec), folder, canonical,
                        timeout, checker, tuple(str(card) for card in played),
                        position.after))
    return jobs


def run_job(job: Job) -> Certificate:
    return make_certificate(job.deal, job.spec, job.folder, job.solver, job.timeout,
                            job.checker, job.moves, job.after)


def certify_all(jobs: Sequence[Job], workers: int = 1,
                resume: bool = False) -> Iterator[tuple[Job, Certificate]]:
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
            tidy(job.folder)


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
        board = read_small(folder / DEAL_FILE).decode("utf-8")
        if parse_board(board, str(folder / DEAL_FILE)) != job.deal:
            return None
        if (folder / MANIFEST_FILE).is_file():
            facts = json.loads(read_small(folder / MANIFEST_FILE))
            read = read_manifest(facts, board)
            if isinstance(read, str) or facts["claim"] != CLAIM or not facts["checker"]["ok"] \
                    or facts["deal"]["spec"] != job.spec or moves_of(facts) != job.moves:
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
                checker=facts["checker"]["name"], resumed=True, history=job.moves,
                game=facts["deal"].get("game", ""))
        if (folder / SOLUTION_FILE).is_file():
            text = read_small(folder / SOLUTION_FILE).decode("utf-8")
            facts = json.loads(text)
            if facts.get("deal") != job.spec or moves_of(facts) != job.moves:
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
