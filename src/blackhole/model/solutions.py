"""Solution files: read the three forms `blackhole check` accepts, write black-hole-solve's.

- our JSON: the output of `blackhole solve --json` (`{"moves": [{"card": "KH", "fan": 12}]}`)
  or a plain JSON list of cards; an answer from a position adds `"after"`, the moves
  played on its deal spec's position first (`parse_answer`);
- plain text: cards separated by spaces, commas or new lines;
- black-hole-solve's output: `Move a card from stack N to the foundations` blocks (and,
  in Golf, `Deal talon` blocks), each with `Info: Card moved is KH`.

black-hole-solve's `Unsolved!` (or `Intractable!`) holds no moves: it is a claim about the
deal, not a line of play, so it is refused as input (exit 2) with a pointer to `solve` and
`certify`, which test such a claim. Replaying it as an empty line would print "check
failed" for an answer that may well be right.

Solution files stand on the rules engine (a move is its `Move`) and the formats below it.
Replaying a file from its deal spec (`check_answer`) reads the spec and plays `"after"`,
so it sits one layer up, in `blackhole.model.positions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move, move_token
from blackhole.model.formats import json_shown, json_token_lines, load_json, read_card

_STACK = re.compile(r"Move a card from stack ([0-9]{1,6}) to the foundations|Deal talon")
_INFO = re.compile(r"Info: Card moved is (\S+)")
_SEPARATORS = re.compile(r"[\s,;]+")
_MAX_FAN = 10**6  # far beyond any layout; keeps a huge index out of messages
_KINDS = tuple(kind.value for kind in Kind)  # a JSON move's "kind"
_VERDICTS = ("Unsolved!", "Intractable!")  # black-hole-solve's answers without moves


@dataclass(frozen=True)
class Answer:
    """A solution file: its moves, and the moves it says were played first on its deal
    spec's position (`"after"` in our JSON; None when it names none)."""

    moves: tuple[Move, ...]
    after: tuple[Move, ...] | None = None


def parse_solution(text: str, source: str) -> list[Move]:
    """The moves of a solution file in any of the three forms."""
    return list(parse_answer(text, source).moves)


def parse_answer(text: str, source: str) -> Answer:
    """A solution file in any of the three forms, with its `"after"` when our JSON has
    one."""
    text = text.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        raise InputError("empty solution file", source, 1)
    if stripped[0] in "[{":
        return _parse_json(text, source)
    if _STACK.search(text):
        return Answer(tuple(_parse_black_hole_solve(text, source)))
    first = stripped.split(None, 1)[0]
    if first in _VERDICTS:
        raise InputError(f"black-hole-solve's {first} holds no moves to replay (solve or "
                         "certify tests that claim)", source, 1 + text.count("\n", 0,
                                                                            text.find(first)))
    return Answer(tuple(parse_cards(text, source)))


def parse_cards(text: str, source: str) -> list[Move]:
    """Cards separated by spaces, commas, semicolons or new lines (`park:KH` parks a
    card); `#` starts a comment."""
    moves = []
    for number, line in enumerate(text.splitlines(), start=1):
        for token in filter(None, _SEPARATORS.split(line.split("#", 1)[0])):
            moves.append(_token_move(token, source, number))
    return moves


def _token_move(token: str, source: str, line: int | None) -> Move:
    named = move_token(token, source, line)
    return named if isinstance(named, Move) else Move(card=named)


def _parse_json(text: str, source: str) -> Answer:
    data = load_json(text, source)
    items = data.get("moves") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("expected a list of moves or {\"moves\": [...]}", source, 1)
    lines = json_token_lines(text)
    after = data.get("after") if isinstance(data, dict) else None
    if after == 0 or after == []:  # `best --json` of a deal, as older versions wrote it
        after = None
    if after is not None and not isinstance(after, list):
        raise InputError("\"after\" lists the moves played before the answer's own (run "
                         "the command again for a file that names them)", source,
                         lines.get("after"), json_shown(after))
    return Answer(_json_moves(items, source, lines),
                  None if after is None else _json_moves(after, source, lines))


def _json_moves(items: list[object], source: str, lines: dict[str, int]) -> tuple[Move, ...]:
    moves = []
    for item in items:
        if isinstance(item, str):
            moves.append(_token_move(item, source, lines.get(item)))
        elif isinstance(item, dict) and isinstance(item.get("card"), str):
            card, fan, kind = item["card"], item.get("fan"), item.get("kind")
            if fan is not None and (not isinstance(fan, int) or isinstance(fan, bool)
                                    or not 0 <= fan < _MAX_FAN):
                raise InputError("\"fan\" must be a whole number from 0 (the first fan)",
                                 source, lines.get(card), json_shown(fan))
            if kind is not None and kind not in _KINDS:
                raise InputError(f"\"kind\" is one of {', '.join(_KINDS)}", source,
                                 lines.get(card), json_shown(kind))
            moves.append(Move(read_card(card, source, lines.get(card)), fan,
                              None if kind is None else Kind(kind)))
        else:
            raise InputError("a move is a card or {\"card\": ..., \"fan\": ...}", source,
                             None, json_shown(item))
    return tuple(moves)


def _parse_black_hole_solve(text: str, source: str) -> list[Move]:
    """black-hole-solve's blocks: a Move line (a stack, or "Deal talon": a turn), then
    an Info line naming the card; a block without its Info line names no card."""
    moves: list[Move] = []
    pending: Move | None = None  # the block whose Info line is awaited
    for number, line in enumerate(text.splitlines(), start=1):
        if stack := _STACK.search(line):
            if pending is not None:
                moves.append(pending)  # a move block without its Info line
            pending = Move.turn() if stack.group(1) is None \
                else Move(fan=int(stack.group(1)), kind=Kind.PLAY)
        elif info := _INFO.search(line):
            if pending is None:
                raise InputError("Info line without its Move line", source, number, line.strip())
            moves.append(pending._replace(card=read_card(info.group(1), source, number)))
            pending = None
    if pending is not None:
        moves.append(pending)
    return moves


def black_hole_solve_text(moves: Sequence[tuple[Card, int | None]], solved: bool) -> str:
    """The solution as black-hole-solve prints it, so its users can switch tools; a talon
    card (no fan) is its `Deal talon`. Its text has no cell: a line with a park is an
    InputError."""
    if not solved:
        return "Unsolved!\n"
    if any(len(move) > 2 and move[2] in (Kind.PARK, Kind.UNPARK) for move in moves):
        raise InputError("black-hole-solve's text has no free cell (use --json)", "answer",
                         token="park")
    blocks = [("Deal talon" if fan is None else
               f"Move a card from stack {fan} to the foundations") +
              f"\n\nInfo: Card moved is {card}\n\n\n====================\n\n"
              for card, fan, *_ in moves]
    return "Solved!\n" + "".join(blocks)
