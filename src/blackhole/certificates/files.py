"""What a certificate is: its files, its manifest, and the CNF it states.

A certificate is a folder:

    deal.board     the deal (or position), in board format; a Golf game's starts with a
                   `Game: NAME` line, since its layout does not say which game it is
    formula.cnf    the CNF (DIMACS, `dimacs()`), one clause a line after comments naming
                   the encoding
    proof.drup     the solver's DRUP proof (text)
    manifest.json  the deal (label, board and a Golf game's name), hashes, encoding,
                   solver, sizes, times

or, for a solvable deal, deal.board and `solution.json` (its winning moves). This module
holds the names, the `Certificate` a maker returns, the manifest written from it, and
the readers that making, resuming and verifying share; it makes and checks nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blackhole import drat
from blackhole.backends import Verdict
from blackhole.base.errors import ArgumentError, InputError
from blackhole.base.version import installed_version
from blackhole.encode import cnf
from blackhole.model.deal import Deal, Position
from blackhole.model.formats import board_text, parse_board
from blackhole.model.games import ALL_IN_A_ROW, DEFAULT_GAME
from blackhole.model.problem import Problem, build_problem
from blackhole.questions.pipeline import Solution

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
CHECKERS = ("blackhole", "drat-trim")
DIGEST_LABEL = "sha256:"  # the label of a deal that names no source: its board's digest


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

    spec: str  # the label: the deal's spec, file or name, or its board's digest
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
    game: str = ""  # the game deal.board names on its Game line ("" when its layout does)

    @property
    def certified(self) -> bool:
        """The verdict stands on a checked file in the folder: unsolvable (or an optimality
        bound) with a proof the checker accepted, or solved with winning moves the rules
        engine replayed (a solved certificate is only made after that replay). An unknown
        verdict, or a proof the checker rejected, is not certified."""
        if self.verdict is Verdict.SOLVED:
            return True
        return self.verdict is Verdict.UNSOLVABLE and self.check is not None and self.check.ok

    def left_in_place(self) -> str:
        """What is in the folder now, in words, for a verdict that wrote no certificate
        (`left_in_place`)."""
        return left_in_place(self.folder)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest_label(board: str) -> str:
    """The label of a deal known only by its board: `sha256:` and the board's digest."""
    return DIGEST_LABEL + sha256(board.encode())


def as_folder(folder: object, parameter: str = "folder") -> Path:
    """A folder given as `str` or `os.PathLike`, as a Path; anything else (and an empty
    name) is an InputError naming the parameter."""
    try:
        name = os.fspath(folder)  # type: ignore[arg-type]
    except TypeError:
        name = None
    if not isinstance(name, str):
        raise InputError(f"must be a folder's path (str or os.PathLike), not "
                         f"{type(folder).__name__}", parameter)
    if not name:
        raise InputError("no folder named (an empty path)", parameter)
    return Path(name)


def check_checker(checker: object) -> None:
    if not isinstance(checker, str) or checker not in CHECKERS:
        raise InputError(f"unknown checker (choose from {', '.join(CHECKERS)})", "checker",
                         token=str(checker))


def dimacs(encoding: cnf.Encoding) -> str:
    """The certificate's DIMACS text of an encoding (format 3): `Encoding.dimacs()`
    without the comment line per variable of format 2, which took longer than building
    the CNF."""
    return encoding.dimacs(names=False)


def proof_text(lines: Sequence[str]) -> str:
    """A DRUP proof as pysat gives it (one step a string) in the file's text."""
    return "\n".join(lines) + "\n" if lines else ""


def certificate_board(deal: Deal) -> str:
    """deal.board's text: the board (`formats.board_text`), with a `Game: NAME` line
    first for every game but Black Hole, the game a board that names none is read as:
    without the line `verify` could not tell which game's CNF to re-derive (the three
    Golf games share one layout, and no game is guessed from a layout's shape). Black
    Hole's board is unchanged, so its certificates and digest labels are those of
    earlier versions."""
    text, game = board_text(deal), named_game(deal)
    return f"Game: {game}\n{text}" if game else text


def named_game(deal: Deal) -> str:
    """The game `certificate_board` names on its Game line, or "" (none: Black Hole)."""
    return "" if deal.game == DEFAULT_GAME else deal.game.name


def read_certificate_board(text: str, source: str) -> tuple[Deal, str]:
    """deal.board as `certify` wrote it, and the game its Game line names ("" for
    none). A board that names no game is Black Hole, but for one kind of board: certify
    1.1.0 and earlier wrote no Game line for All in a Row either, whose board then told
    it by its layout (an empty foundation, or 13 fans in a deck of 13 ranks), so such a
    board is read as those versions read it, and the certificates they wrote stay
    verifiable. Every board this version writes names All in a Row."""
    first = text.split("\n", 1)[0].partition(":")
    named = first[2].strip().lower() if first[0].strip().lower() == "game" else ""
    game = None
    if not named:
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        lines = [line for line in lines if line]
        fans = [line for line in lines if not line.lower().startswith(("foundations:",
                                                                        "ranks:"))]
        empty = any(line.lower().replace(" ", "") == "foundations:-" for line in lines)
        ranked = any(line.lower().startswith("ranks:") for line in lines)
        if empty or (not ranked and len(fans) == ALL_IN_A_ROW.fans):
            game = ALL_IN_A_ROW
    return parse_board(text, source, game), named


def certify_features(problem: Problem) -> frozenset[str]:
    """The encoding features of a certificate of `problem`: its game's default
    (`cnf.default_features`) less symmetry breaking, the one feature that removes
    winning lines; every clause left is one that every winning line satisfies
    (encodings/sat.md, "Features"; encodings/golf.md, "Certificates"). For Black Hole
    this is `cnf.CERTIFY_FEATURES`."""
    return cnf.default_features(problem) - {"symmetry"}


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
    encoding = cnf.build_cnf(build_problem(position.deal, "certify", cnf.PLAYS),
                             features, optional=True)
    return encoding.at_least(more), encoding.scored_literal(more)


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
    # kissat (certify --solver kissat) runs as a binary and writes DRAT; pysat's, DRUP
    package, proof_format = ("kissat", "drat") if cert.solver == "kissat" else \
        ("python-sat", "drup")
    return {
        "format": CERTIFICATE_FORMAT,
        **claim,
        "deal": {"spec": cert.spec, "file": DEAL_FILE, "sha256": sha256(cert.board.encode()),
                 "board": cert.board, **({"game": cert.game} if cert.game else {})},
        "encoding": {"name": "blackhole-sat", "version": cnf.ENCODING_VERSION,
                     "features": sorted(cert.features)},
        "cnf": {"file": cert.cnf.name, "sha256": cert.cnf.sha256, "bytes": cert.cnf.bytes,
                "variables": cert.variables, "clauses": cert.clauses},
        "proof": {"file": cert.proof.name, "format": proof_format, "sha256": cert.proof.sha256,
                  "lines": cert.proof.lines, "bytes": cert.proof.bytes},
        "solver": {"name": cert.solver, "package": package, "stats": cert.solver_stats},
        "tool": {"name": "blackhole", "version": installed_version()},
        "seconds": {"encode": round(cert.seconds.encode, 6),
                    "solve": round(cert.seconds.solve, 6),
                    "check": round(cert.seconds.check, 6),
                    "write": round(cert.seconds.write, 6)},
        "checker": {"name": cert.checker, "ok": cert.check.ok, "reason": cert.check.reason,
                    **({"engine": cert.check.engine} if cert.check.engine else {})},
    }


def read_manifest(facts: dict, board: str) -> frozenset[str] | str:
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


def moves_of(facts: dict) -> tuple[str, ...]:
    """The moves a manifest or solution.json says reached its position; () for a deal.
    Anything but a list of card names is an ArgumentError (a ValueError)."""
    stated = facts.get("position")
    if stated is None:
        return ()
    moves = stated["moves"] if isinstance(stated, dict) else None
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ArgumentError("the position's moves are no list of cards")
    return tuple(moves)


def read_small(path: Path) -> bytes:
    return drat.read_capped(path, SMALL_FILE_CAP)


def holds_certificate(folder: Path) -> bool:
    return (folder / MANIFEST_FILE).is_file() or (folder / SOLUTION_FILE).is_file()


def holds_only_the_deal(folder: Path) -> bool:
    """Whether `folder` holds deal.board and nothing else: what an unknown verdict leaves
    where no certificate was (the deal tried, so that a later run knows it)."""
    try:
        return [p.name for p in folder.iterdir()] == [DEAL_FILE]
    except OSError:
        return False


def left_in_place(folder: Path) -> str:
    """What an unknown verdict left at `folder`, in words: a certificate already there is
    kept; else the deal tried alone (`holds_only_the_deal`), which `verify` reports as no
    certificate (not verified)."""
    if holds_certificate(folder):
        return f"the certificate already in {folder} is kept"
    if holds_only_the_deal(folder):
        return f"{folder} holds only the deal tried ({DEAL_FILE}), no certificate"
    return f"nothing was written to {folder}"
