"""Verifying a certificate from the files on disk, trusting nothing in the folder but the
deal, and the deal only as far as it can be checked.

A generated label (`pysol:N`, `random:SEED`) is dealt again and must equal deal.board; a
file named by the label is read and must equal it (`certify` records a file by its
absolute path, so the same file is read from any working directory; a relative label is
read from the working directory, and the verdict says so); a board's digest must be
deal.board's; a label that cannot be checked is said so, and the deal is named by
deal.board's digest (`labels`). The game is deal.board's (a Golf game's `Game:` line,
which the manifest's `"game"` must repeat), and the label must deal that game. The CNF
is re-derived from deal.board with the project's encoder and compared with formula.cnf
and every hash, and the proof is checked again
within bounded memory (`drat`'s caps). A solved deal's `solution.json` is replayed
through the rules engine.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from blackhole import drat
from blackhole.base.errors import InputError
from blackhole.certificates import drat_trim
from blackhole.certificates.files import (
    BEST_CLAIM,
    CERTIFICATE_FILES,
    CERTIFICATE_FORMAT,
    CNF_FILE,
    DEAL_FILE,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    as_folder,
    bound_encoding,
    check_checker,
    dimacs,
    holds_certificate,
    holds_only_the_deal,
    moves_of,
    read_certificate_board,
    read_manifest,
    read_small,
    sha256,
)
from blackhole.certificates.labels import Label, check_label
from blackhole.encode import cnf
from blackhole.model.deal import position_of
from blackhole.model.problem import build_problem
from blackhole.model.rules import replay
from blackhole.model.solutions import parse_solution


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
    label_note: str = ""  # why the spec was not checked, or that a file label was relative
    label_file: str = ""  # the absolute path of the file read, when label is "file"
    board_sha256: str = ""  # deal.board's digest: the deal's name when its label is not
    replayed: int = 0  # moves played on the label's deal to reach deal.board (positions)



def certificate_folder(path: str | os.PathLike[str]) -> Path:
    """The folder `path` names: itself, or the folder that holds it when it is one of a
    certificate's files (`DIR/manifest.json` means DIR). Any other file is an
    InputError."""
    path = as_folder(path)
    if path.is_file():
        if path.name in CERTIFICATE_FILES and holds_certificate(path.parent):
            return path.parent
        raise InputError(f"a file, not a certificate folder (give the folder that holds "
                         f"{MANIFEST_FILE} or {SOLUTION_FILE})", str(path))
    return path


def folders_to_verify(folder: str | os.PathLike[str]) -> list[Path]:
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


def verify(folder: str | os.PathLike[str], checker: str = "blackhole", *,
           in_run: bool = False) -> Verification:
    """Check what the folder claims from the files on disk: an unsolvable deal's proof
    (manifest.json) or a solvable deal's winning moves (solution.json). A folder that
    claims neither is bad input, unless it is one of a run's (`in_run`) or holds the deal
    alone, as an unknown verdict leaves it (`holds_only_the_deal`): then it is not
    verified, and the reason names what it holds. `folder` is a `str` or `os.PathLike`,
    the folder or one of its certificate's files (`DIR/manifest.json` means DIR)."""
    folder = certificate_folder(folder)
    if not folder.is_dir():
        raise InputError("no such certificate folder", str(folder))
    check_checker(checker)
    if not holds_certificate(folder):
        if in_run or holds_only_the_deal(folder):  # a deal tried: its certificate failed
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



def _verify_proof(folder: Path, checker: str) -> Verification:
    """An unsolvable deal's certificate, or a best score's."""
    spec, label, claim, best, digest = "", Label(""), "unsolvable", None, ""

    def refused(reason: str, check: drat.CheckResult | None = None) -> Verification:
        return Verification(False, claim, spec, reason, label.how == "dealt", check,
                            best=best, board_sha256=digest)

    try:
        raw = read_small(folder / MANIFEST_FILE)
        try:
            facts = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            return refused(f"{MANIFEST_FILE} is not valid JSON ({error.__class__.__name__})")
        if not isinstance(facts, dict):
            return refused(f"{MANIFEST_FILE} is not a JSON object")
        if facts.get("claim") == BEST_CLAIM:
            claim = "best"
        board_bytes = read_small(folder / DEAL_FILE)
        digest = sha256(board_bytes)
        board = board_bytes.decode("utf-8")
        deal_facts = facts.get("deal")
        if isinstance(deal_facts, dict) and isinstance(deal_facts.get("spec"), str):
            spec = deal_facts["spec"]
        read = read_manifest(facts, board)
        if isinstance(read, str):
            return refused(read)
        features = read
        deal, board_game = read_certificate_board(board, str(folder / DEAL_FILE))
        if deal_facts.get("game", "") != board_game:
            return refused(f"the manifest's game {str(deal_facts.get('game', ''))[:40]!r} "
                           f"is not the game {DEAL_FILE} names {board_game!r}")
        if claim == "best" or "position" in facts:
            moved = facts["position"]["moved"]
            if moved != position_of(deal).moved:
                return refused(f"{DEAL_FILE} shows {position_of(deal).moved} cards moved, "
                               f"not {str(moved)[:20]}")
        named = check_label(spec, moves_of(facts), deal, board)
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
            encoding = cnf.build_cnf(build_problem(deal, "verify", cnf.PLAYS),
                                     features)
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
        check = drat_trim.run(folder / CNF_FILE, folder / PROOF_FILE, None)
    else:
        try:
            proof = drat.parse_proof(proof_bytes)  # the bytes as read: no second copy
        except drat.DratError as error:
            return refused(f"{PROOF_FILE} is malformed: {error}")
        del proof_bytes
        check = drat.check_proof(encoding.clauses, proof)
    if not check.ok:
        return refused(check.reason, check)
    return Verification(True, claim, spec, "", label.how == "dealt", check, best=best,
                        label=label.how, label_note=label.note, label_file=label.file,
                        board_sha256=digest, replayed=label.replayed)


def _verify_solved(folder: Path) -> Verification:
    spec, digest = "", ""
    try:
        text = read_small(folder / SOLUTION_FILE).decode("utf-8")
        facts = json.loads(text)
        if not isinstance(facts, dict):
            return Verification(False, "solved", "", f"{SOLUTION_FILE} is not a JSON object")
        spec = facts.get("deal") if isinstance(facts.get("deal"), str) else ""
        board_bytes = read_small(folder / DEAL_FILE)
        digest = sha256(board_bytes)
        board = board_bytes.decode("utf-8")
        deal, _ = read_certificate_board(board, str(folder / DEAL_FILE))
        label = check_label(spec, moves_of(facts), deal, board)
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
                        label=label.how, label_note=label.note, label_file=label.file,
                        board_sha256=digest, replayed=label.replayed)
