"""The answer layer: for each question (solve, best, the fewest turns, hint, analyze, a
deal's layout, a position, certify, atlas), the document that the command's `--json`
prints and the web API serves, and its exit code (`blackhole.base.exits`), built once
here.

Each question is a function from a position (or a spec) and its options to an `Answer`:
the document, the exit code, and what the library found (`found`), from which the
command line writes its text. The front ends only map: the CLI reads its options and
prints the answer, the API reads its request and serves the answer with an HTTP status.
The library's modules are imported when a question is asked, so that `blackhole solve`
loads none of the others' (tests/test_cli.py, start-up).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blackhole.base.errors import InternalError
from blackhole.base.exits import (
    EXIT_INTERNAL,
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    proven_exit,
    verdict_exit,
)
from blackhole.model.formats import moves_json

if TYPE_CHECKING:
    from blackhole.backends import Options
    from blackhole.certificates import Certificate
    from blackhole.model.cards import Card
    from blackhole.model.deal import Position
    from blackhole.model.games import Variant
    from blackhole.model.rules import Move
    from blackhole.questions.advice import Analysis, Hint, HintSummary, Step
    from blackhole.questions.best import Best
    from blackhole.questions.turns import Turns


@dataclass(frozen=True)
class Answer:
    """A question's answer: its JSON document and exit code, and what the library found
    (a Solution, Best, Hints, Analysis, atlas Lookup, Certificate or Position), from
    which a front end writes its text. A certificate asked for as a file (the API's
    certify) comes as its bytes (`content`) and name."""

    document: dict[str, Any]
    exit_code: int
    found: Any = None
    content: bytes | None = None
    filename: str = ""


# ---------------------------------------------------------------- solve and best


def solve(spec: str, position: Position, backend: str, options: Options) -> Answer:
    """Solve `position` (named `spec` in the document) with a registry name and
    Options: exit 0 solved, 1 unsolvable, 3 unknown."""
    from blackhole.questions.pipeline import solve_deal

    solution = solve_deal(position.deal, backend, options)
    return Answer(solution.to_json(spec, position), verdict_exit(solution.verdict),
                  solution)


def best(spec: str, position: Position, backend: str, options: Options) -> Answer:
    """The best score of `position`: exit 0 proven optimal, 3 when the limit came
    first."""
    from blackhole.questions.best import best_position

    found = best_position(position, backend, options)
    return Answer(best_document(found, spec, position.after), proven_exit(found.proven),
                  found)


def turns(spec: str, position: Position, backend: str, options: Options) -> Answer:
    """The fewest talon turns that win `position` (`blackhole.questions.turns`): exit 0
    proven, 1 when the position is lost, 3 when a limit left it open."""
    from blackhole.questions.turns import fewest_turns

    found = fewest_turns(position, backend, options)
    code = EXIT_NO if found.won is False else proven_exit(found.proven)
    return Answer(turns_document(found, spec, position.after), code, found)


def turns_document(found: Turns, spec: str,
                   after: Sequence[tuple[Card, int | None]] = ()) -> dict[str, Any]:
    """`best --objective turns --json` (docs/json.md): `turns` is the fewest turns when
    proven (null otherwise), between `at_least` and `at_most` (the turns of `moves`,
    null with no win found); each step of `steps` is one solve: the talon cards
    allowed from the position, its verdict and the engine that answered."""
    return {"deal": spec, "after": moves_json(after), "objective": "turns",
            "won": found.won, "turns": found.fewest, "proven": found.proven,
            "at_least": found.at_least, "at_most": found.at_most,
            "turned": found.turned, "moves": moves_json(found.moves),
            "steps": [{"talon": step.talon, "verdict": step.verdict.value,
                       "backend": step.backend, "solver": step.solver,
                       "seconds": round(step.seconds, 6)} for step in found.steps],
            "seconds": round(found.seconds, 6)}


def best_document(found: Best, spec: str,
                  after: Sequence[tuple[Card, int | None]] = ()) -> dict[str, Any]:
    """`best --json` (docs/json.md): `after` is the moves played on the position `spec`
    holds (`Position.after`), `moved` the cards moved from the start of the deal before
    this line."""
    return {"deal": spec, "after": moves_json(after), "moved": found.moved,
            "best": found.best, "of": found.of, "proven": found.proven,
            "upper_bound": found.upper_bound, "moves": moves_json(found.moves),
            "backend": found.backend, "solver": found.solver,
            "seconds": round(found.seconds, 6), "stats": found.stats}


def with_certificate(answer: Answer, cert: Certificate | None) -> Answer:
    """A best score's answer with the certificate asked for (`best --certify`): its
    folder, or None and why when none was written (None: the score is not proven); the
    exit is 3 unless the certificate was written."""
    from blackhole.backends import Verdict

    written = cert is not None and cert.verdict is not Verdict.UNKNOWN
    document = {**answer.document, "certificate": str(cert.folder) if written else None}
    if cert is not None and not written:
        document["certificate_reason"] = cert.reason
    return Answer(document, answer.exit_code if written else EXIT_UNKNOWN, answer.found)


# ---------------------------------------------------------------- hints and analyses


@dataclass(frozen=True)
class Hints:
    """A position's hints (best first), what they say of the position, and how long they
    took."""

    moves: list[Hint]
    summary: HintSummary
    seconds: float


def hint(spec: str, position: Position, timeout: float | None) -> Answer:
    """Every legal move from `position`, best first, in at most `timeout` seconds: exit
    0 when every move's answer is proven, 3 when the limit left some open."""
    from blackhole.questions.advice import hints, summarise

    began = time.perf_counter()
    found = hints(position, timeout=timeout)
    seconds = time.perf_counter() - began
    summary = summarise(position, found)
    return Answer(hints_document(spec, position, found, summary, seconds),
                  proven_exit(summary.proven), Hints(found, summary, seconds))


def hints_document(spec: str, position: Position, found: Sequence[Hint],
                   summary: HintSummary, seconds: float) -> dict[str, Any]:
    """`hint --json` (docs/json.md)."""
    return {"deal": spec, "after": moves_json(position.after), "moved": position.moved,
            "of": position.of, "best": summary.best, "winnable": summary.winnable,
            "proven": summary.proven, "unknown": summary.unknown,
            "moves": [_hint_document(one) for one in found], "seconds": round(seconds, 6)}


def _hint_document(hint: Hint) -> dict[str, Any]:
    """A hint's move as JSON moves write it (`"kind"` for a park or the cell's card),
    and its answers."""
    return {**moves_json([hint.move])[0], "winnable": hint.winnable,
            "best": hint.best, "found": hint.found, "upper_bound": hint.upper_bound,
            "proven": hint.proven}


def read_line(position: Position, line: str, option: str) -> list[Move]:
    """The moves of a line to analyse (cards, or @FILE), checked legal from `position`;
    `option` is the name errors give it (the CLI's `--line`, the API's `line`)."""
    from blackhole.model.positions import read_moves
    from blackhole.model.rules import advance

    moves, source = read_moves(line, option)
    advance(position, moves, source)
    return moves


def analyze(spec: str, position: Position, moves: Sequence[Move] | None,
            timeout: float | None) -> Answer:
    """The analysis of `moves` from `position` (`read_line`), or of a best line when
    None: exit 0 when every answer is proven, 3 when the limit left some open."""
    from blackhole.questions.advice import analyze as analyze_line

    found = analyze_line(position, moves, timeout=timeout)
    return Answer(analysis_document(found, spec, position.after),
                  proven_exit(found.proven), found)


def analysis_document(found: Analysis, spec: str,
                      after: Sequence[tuple[Card, int | None]] = ()) -> dict[str, Any]:
    """`analyze --json` (docs/json.md; `after` as in `best_document`)."""
    loss = found.first_loss
    return {"deal": spec, "after": moves_json(after), "moved": found.moved,
            "best": found.best, "found": found.found,
            "upper_bound": found.upper_bound, "of": found.of, "proven": found.proven,
            "winnable": found.winnable, "line": "given" if found.given else "best",
            "score": found.score, "steps": [_step_document(step) for step in found.steps],
            "critical": found.critical, "critical_unknown": found.critical_unknown,
            "first_loss": None if loss is None else _step_document(loss),
            "first_loss_known": found.first_loss_known,
            "seconds": round(found.seconds, 6)}


def _step_document(step: Step) -> dict[str, Any]:
    return {"move": step.number, **moves_json([step.move])[0], "legal": step.legal,
            "good": step.good, "critical": step.critical,
            "loses": step.loses, "best_before": step.best_before,
            "best_after": step.best_after, "proven": step.proven}


# ---------------------------------------------------------------- positions and the atlas


def layout(position: Position) -> Answer:
    """A position's layout, as `deal --format json` writes it."""
    from blackhole.model.formats import position_json

    return Answer(position_json(position), EXIT_OK, position)


def position_answer(spec: str, position: Position) -> Answer:
    """A position as the page draws and plays it: its layout (as `deal --format json`
    writes it), the cards moved of the deal's and the moves made (talon turns included,
    from which the page numbers a line), the outcome, the legal moves now from the
    rules engine (a talon turn has `"fan": null`), and where each tableau card lies
    (`slots_document`), from which the page draws a layout not made of fans."""
    from blackhole.model.formats import position_json
    from blackhole.model.rules import initial_state, legal_moves, outcome

    state = initial_state(position.deal)
    return Answer({"deal": spec, "after": moves_json(position.after),
                   "moved": position.moved, "made": position.made, "of": position.of,
                   "outcome": outcome(position.deal, state).value,
                   "game": position.deal.game.name, "title": position.deal.game.title,
                   "layout": position_json(position),
                   "legal": moves_json(legal_moves(position.deal, state)),
                   "columns": position.deal.tableau.columns,
                   "slots": slots_document(position)}, EXIT_OK, position)


def slots_document(position: Position) -> list[dict[str, Any]]:
    """Each tableau card still there, in slot order: `card`, its place (`column`, `row`
    as `blackhole.model.tableau.Tableau.places` says: a fan and the height from its
    bottom; a half-card column and the row from the top in peaks and pyramids), and
    whether it is `free` (no card covers it any more: it plays when it fits)."""
    tableau = position.deal.tableau
    return [{"card": str(card), "column": column, "row": row, "free": tableau.is_free(slot)}
            for slot, (card, (column, row)) in enumerate(zip(tableau.cards, tableau.places,
                                                             strict=True))]


def atlas(spec: str, file: Path | None = None) -> Answer:
    """A PySolFC deal's verdict from the atlas (the shipped one, or `file`): exit 0
    won, 1 lost, 3 when no run settled it."""
    from blackhole.atlas import lookup

    found = lookup(spec, file)
    return Answer(found.to_json(),
                  EXIT_UNKNOWN if found.won is None else EXIT_OK if found.won else EXIT_NO,
                  found)


# ---------------------------------------------------------------- certificates


def certificate_exit(cert: Certificate) -> int:
    """A certificate's exit code: its verdict's, but 4 for a proof the checker
    rejected."""
    from blackhole.backends import Verdict

    if cert.verdict is Verdict.UNSOLVABLE and not cert.certified:
        return EXIT_INTERNAL
    return verdict_exit(cert.verdict)


def certificate_document(spec: str, cert: Certificate) -> dict[str, Any]:
    """One row of `certify --json`; every row has the same fields (docs/json.md)."""
    proof, seconds = cert.proof, cert.seconds
    return {
        "deal": spec, "verdict": cert.verdict.value, "certified": cert.certified,
        "folder": str(cert.folder), "resumed": cert.resumed,
        "position": ({"moved": cert.moved, "moves": list(cert.history)} if cert.history
                     else None),
        "reason": cert.reason or (cert.check.reason if cert.check is not None else ""),
        "proof_lines": proof.lines if proof is not None else None,
        "proof_bytes": proof.bytes if proof is not None else None,
        "seconds": {"encode": round(seconds.encode, 6), "solve": round(seconds.solve, 6),
                    "check": round(seconds.check, 6), "write": round(seconds.write, 6)},
        "moves": (moves_json(cert.solution.moves)
                  if cert.solution is not None else []),
    }


def certificate_archive(spec: str, given: Position | str, name: str,
                        timeout: float | None) -> Answer:
    """The certificate `blackhole certify` writes for `given` (a spec, labelled by
    itself, or a position), as a zip of its folder `name` (unzipped, `blackhole verify`
    checks it): a checked proof that it cannot be won, or its winning moves replayed.
    At the limit no certificate is made: the answer is the verdict unknown (exit 3); a
    proof the checker rejected is an InternalError."""
    import io
    import tempfile
    import zipfile

    from blackhole.certificates.make import certify

    with tempfile.TemporaryDirectory(prefix="blackhole-certify-") as staging:
        folder = Path(staging) / name
        found = certify(given, folder, timeout=timeout)
        code = certificate_exit(found)
        if code == EXIT_INTERNAL:
            raise InternalError(f"the proof was rejected by the checker: "
                                f"{found.check.reason if found.check else found.reason}")
        if not found.certified:
            return Answer({"deal": spec, "verdict": found.verdict.value, "certified": False,
                           "reason": found.reason or "time limit reached"}, code, found)
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(staging).as_posix())
    return Answer({"deal": spec, "verdict": found.verdict.value, "certified": True}, code,
                  found, packed.getvalue(), name + ".zip")


# ---------------------------------------------------------------- entering a deal


@dataclass(frozen=True)
class EntrySlot:
    """One place a player fills when entering a deal card by card: its `pile`
    ("foundation", "tableau" or "talon"), its place in the tableau (`column`, `row` as
    `Tableau.places` says; None off the tableau) and how a message names it (`label`)."""

    pile: str
    column: int | None
    row: int | None
    label: str


def entry_places(game: Variant) -> list[EntrySlot]:
    """The slots of a fresh 52-card deal of `game`, in the order a player fills them: the
    foundation's card (the waste's, in peaks and pyramids) where the game starts with
    one, each tableau slot in the order dealt (fans bottom → top, fan by fan; rows of
    peaks and pyramids top to bottom, each left to right), then the talon's (stock's)
    cards, the next to turn first."""
    from blackhole.model.cards import STANDARD_RANKS
    from blackhole.model.games import Start
    from blackhole.model.rows import full_shape, shape_rows

    shape = full_shape(game, STANDARD_RANKS)
    foundation, talon = ("foundation", "talon") if game.chains else ("waste", "stock")
    slots = [] if game.start is Start.EMPTY else [EntrySlot("foundation", None, None,
                                                            foundation)]
    if game.chains:
        labels = [f"fan {column + 1}, card {row + 1}" for column, row in shape.places]
    else:
        labels = [""] * len(shape)
        for number, row in enumerate(shape_rows(shape), start=1):
            for card, slot in enumerate(row, start=1):
                labels[slot] = f"row {number}, card {card}"
    slots += [EntrySlot("tableau", column, row, label)
              for (column, row), label in zip(shape.places, labels, strict=True)]
    slots += [EntrySlot("talon", None, None, f"{talon} card {number}")
              for number in range(1, game.rules.talon + 1)]
    return slots


def entry_slots(game: Variant) -> Answer:
    """The slots a player fills to enter a deal of `game` (`entry_places`), as the page
    draws them: each slot's number (from 1), pile, place and label, with the tableau's
    shape and columns and the deck's cards (docs/json.md, "Entering a deal")."""
    from blackhole.model.cards import STANDARD_RANKS, deck
    from blackhole.model.rows import full_shape

    return Answer({"game": game.name, "title": game.title, "shape": game.shape.value,
                   "columns": full_shape(game, STANDARD_RANKS).columns,
                   "deck": [str(card) for card in deck(STANDARD_RANKS)],
                   "slots": [{"slot": number, "pile": slot.pile, "column": slot.column,
                              "row": slot.row, "label": slot.label}
                             for number, slot in enumerate(entry_places(game), start=1)]},
                  EXIT_OK, game)


def compose_deal(game: Variant, picked: Sequence[str], partial: bool = False) -> Answer:
    """The deal of `game` whose slots (`entry_places`, in order) hold the cards `picked`
    (card tokens): checked as a board's cards are, each error an InputError naming its
    slot ("slot 12 (row 3, card 4): duplicate card (already in slot 5): 'QS'"): a token
    that is no card, a card not in the deck, a card picked twice, more cards than slots,
    and, unless `partial`, fewer. The document holds the cards as the tool writes them,
    how many slots are filled and which is next; once every slot is filled, the deal's
    board (`saved_board`) and JSON (`deal_json`), which read back as this deal."""
    from blackhole.base.errors import InputError
    from blackhole.model.cards import STANDARD_RANKS, parse_card
    from blackhole.model.deal import Deal, lay_out
    from blackhole.model.formats import deal_json, saved_board
    from blackhole.model.games import Start

    slots = entry_places(game)
    where: dict[Card, int] = {}
    for number, (token, slot) in enumerate(zip(picked, slots, strict=False), start=1):
        name = f"slot {number} ({slot.label})"
        try:
            card = parse_card(token)
        except ValueError as error:
            raise InputError(str(error), name, token=token) from None
        if not 1 <= card.rank <= STANDARD_RANKS:
            raise InputError(f"card not in a {STANDARD_RANKS}-rank deck", name, token=token)
        if card in where:
            raise InputError(f"duplicate card (already in slot {where[card]})", name,
                             token=token)
        where[card] = number
    if len(picked) > len(slots):
        raise InputError(f"{game.title} has {len(slots)} slots", f"slot {len(slots) + 1}",
                         token=picked[len(slots)])
    complete = len(picked) == len(slots)
    if not complete and not partial:
        slot = slots[len(picked)]
        raise InputError(f"no card yet ({len(slots) - len(picked)} of {len(slots)} slots "
                         "left to fill)", f"slot {len(picked) + 1} ({slot.label})")
    document = {"game": game.name, "cards": [str(card) for card in where],
                "picked": len(picked), "of": len(slots),
                "complete": complete, "next": None if complete else len(picked) + 1,
                "board": None, "deal": None}
    if not complete:
        return Answer(document, EXIT_OK)
    cards = list(where)  # in slot order
    first = 0 if game.start is Start.EMPTY else 1
    tableau = sum(1 for slot in slots if slot.pile == "tableau")
    deal = Deal(lay_out(game, cards[first:first + tableau]),
                cards[0] if first else None, STANDARD_RANKS, name="the entered deal",
                talon=tuple(cards[first + tableau:]), game=game)
    return Answer({**document, "board": saved_board(deal), "deal": deal_json(deal)},
                  EXIT_OK, deal)
