"""A certificate's label: the deal it names (a spec, a file, or the board's digest), and
how that name is checked against deal.board, the deal the certificate is about."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from blackhole import drat
from blackhole.base.errors import InputError
from blackhole.certificates.files import (
    DEAL_FILE,
    DIGEST_LABEL,
    certificate_board,
    digest_label,
    named_game,
    read_small,
)
from blackhole.model.deal import Deal, Position, move_token, position_of
from blackhole.model.formats import parse_position_text
from blackhole.model.games import Variant
from blackhole.model.positions import load_position
from blackhole.model.rules import advance
from blackhole.model.sources import generated_spec

_DIGEST = re.compile(re.escape(DIGEST_LABEL) + "[0-9a-f]{64}")


@dataclass(frozen=True)
class Label:
    """How a certificate's label (its deal spec) was checked against deal.board."""

    how: str  # "dealt" (a generated spec dealt again), "file" (the file read), "" (not)
    note: str = ""  # why it was not checked, or how a relative file label was read
    replayed: int = 0  # the moves played on the label's layout to reach deal.board
    file: str = ""  # the absolute path of the file read, when `how` is "file"


RELATIVE = "a relative path, read from the working directory"


def recorded(spec: str) -> str:
    """The label a certificate records for the deal spec `spec`: a file named by a
    relative path gets its absolute path, so that `verify` reads the same file from any
    working directory; any other spec (generated, `-`, a path that names nothing) is
    recorded as it is."""
    try:
        if spec in ("", "-") or os.path.isabs(spec) or generated_spec(spec) is not None \
                or not os.path.exists(spec):
            return spec
    except InputError:  # a malformed pysol:/random: spec: no file either
        return spec
    return os.path.abspath(spec)


def check_label(spec: str, moves: Sequence[str], deal: Deal,
                board: str | None = None) -> Label | str:
    """How the label `spec` and the `moves` that reached the position give deal.board's
    `deal`, or why they do not (the certificate is refused). A generated spec is dealt
    again (its words in any case, as every spec is read); a file that exists and is
    readable is read; a board's digest (`sha256:...`) must
    be deal.board's (`board`, its text as written, else as this version writes it); any
    other label is not checked. `certify` records a file label by
    its absolute path (`recorded`); a relative one is read from the working directory, and
    the Label says so."""
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
    if _DIGEST.fullmatch(spec):
        if spec != digest_label(certificate_board(deal) if board is None else board):
            return f"the manifest's label {spec[:24]}... is not the digest of {DEAL_FILE}"
        return Label("", f"it is {DEAL_FILE}'s own digest")
    path = Path(spec)
    try:
        regular, there = path.is_file(), path.exists()
    except (OSError, ValueError):
        regular = there = False
    if not regular:
        return Label("", "not a regular file" if there else "no such file here")
    try:
        data = read_small(path)
        # read as the game deal.board names, as `certify --game` read it (a Golf board
        # file names none); a file that names another game is refused
        start = parse_position_text(data.decode("utf-8"), str(path), _named(deal))
    except (OSError, drat.DratError) as error:
        why = getattr(error, "strerror", None) or error
        return Label("", f"the file could not be read ({why})")
    except (UnicodeDecodeError, InputError) as error:
        return f"the manifest's label {spec[:40]} is a file that holds no deal ({error})"
    rebuilt = _rebuilt(spec, start, moves, deal, "file")
    if isinstance(rebuilt, str):
        return rebuilt
    return replace(rebuilt, file=os.path.abspath(spec),
                   note="" if path.is_absolute() else RELATIVE)


def _rebuilt(spec: str, start: Position, moves: Sequence[str], deal: Deal,
             how: str) -> Label | str:
    """The label's position `start`, played on by the last of `moves` as far as deal.board
    shows more moves made, must be deal.board's `deal`. A move is a card onto the
    foundation (off a fan, out of the cell, or a talon card turned: Golf) or a park into
    the cell (`park:KH`, Worm Hole)."""
    now = position_of(deal).made
    count = now - start.made
    lead = len(moves) - count
    known = [str(card) for card in start.history] if start.history_known else None
    if count < 0 or lead < 0 or (lead and list(moves[:lead]) != known):
        return (f"the manifest names {len(moves)} moves, but {DEAL_FILE} shows {now} cards "
                f"moved and {spec[:40]} {start.made}")
    try:  # a card, or a park (`park:KH`) in a game with a cell
        cards = [move_token(move, "the manifest's moves") for move in moves[lead:]]
    except InputError as error:  # a card that is no card
        return f"the manifest's moves do not replay ({error.detail})"
    try:
        again = advance(start, cards, "the manifest's moves")
    except InputError as error:
        return f"the manifest's deal and moves do not replay ({error})"
    if again.deal != deal:
        if moves:
            return f"{DEAL_FILE} is not the position of {spec[:40]} after its moves"
        return f"{DEAL_FILE} is not the deal {spec[:40]}"
    return Label(how, replayed=count)


def _named(deal: Deal) -> Variant | None:
    """The game deal.board names on its Game line (None: its layout names it)."""
    return deal.game if named_game(deal) else None
