"""Solution files: read the three forms `blackhole check` accepts, write black-hole-solve's.

- our JSON: the output of `blackhole solve --json` (`{"moves": [{"card": "KH", "fan": 12}]}`)
  or a plain JSON list of cards;
- plain text: cards separated by spaces, commas or new lines;
- black-hole-solve's output: `Move a card from stack N to the foundations` blocks, each
  with `Info: Card moved is KH`.

black-hole-solve's `Unsolved!` (or `Intractable!`) holds no moves: it is a claim about the
deal, not a line of play, so it is refused as input (exit 2) with a pointer to `solve` and
`certify`, which test such a claim. Replaying it as an empty line would print "check
failed" for an answer that may well be right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from blackhole.cards import Card
from blackhole.deal import json_shown, json_token_lines, load_json, read_card
from blackhole.errors import InputError
from blackhole.rules import Move

_STACK = re.compile(r"Move a card from stack ([0-9]{1,6}) to the foundations")
_INFO = re.compile(r"Info: Card moved is (\S+)")
_SEPARATORS = re.compile(r"[\s,;]+")
_MAX_FAN = 10**6  # far beyond any layout; keeps a huge index out of messages
_VERDICTS = ("Unsolved!", "Intractable!")  # black-hole-solve's answers without moves


def parse_solution(text: str, source: str) -> list[Move]:
    text = text.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        raise InputError("empty solution file", source, 1)
    if stripped[0] in "[{":
        return _parse_json(text, source)
    if _STACK.search(text):
        return _parse_black_hole_solve(text, source)
    first = stripped.split(None, 1)[0]
    if first in _VERDICTS:
        raise InputError(f"black-hole-solve's {first} holds no moves to replay (solve or "
                         "certify tests that claim)", source, 1 + text.count("\n", 0,
                                                                            text.find(first)))
    return parse_cards(text, source)


def parse_cards(text: str, source: str) -> list[Move]:
    """Cards separated by spaces, commas, semicolons or new lines; `#` starts a comment."""
    moves = []
    for number, line in enumerate(text.splitlines(), start=1):
        for token in filter(None, _SEPARATORS.split(line.split("#", 1)[0])):
            moves.append(Move(card=read_card(token, source, number)))
    return moves


def _parse_json(text: str, source: str) -> list[Move]:
    data = load_json(text, source)
    items = data.get("moves") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("expected a list of moves or {\"moves\": [...]}", source, 1)
    lines = json_token_lines(text)
    moves = []
    for item in items:
        if isinstance(item, str):
            moves.append(Move(card=read_card(item, source, lines.get(item))))
        elif isinstance(item, dict) and isinstance(item.get("card"), str):
            card, fan = item["card"], item.get("fan")
            if fan is not None and (not isinstance(fan, int) or isinstance(fan, bool)
                                    or not 0 <= fan < _MAX_FAN):
                raise InputError("\"fan\" must be a whole number from 0 (the first fan)",
                                 source, lines.get(card), json_shown(fan))
            moves.append(Move(card=read_card(card, source, lines.get(card)), fan=fan))
        else:
            raise InputError("a move is a card or {\"card\": ..., \"fan\": ...}", source,
                             None, json_shown(item))
    return moves


def _parse_black_hole_solve(text: str, source: str) -> list[Move]:
    moves: list[Move] = []
    fan: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if stack := _STACK.search(line):
            if fan is not None:
                moves.append(Move(fan=fan))  # a move block without its Info line
            fan = int(stack.group(1))
        elif info := _INFO.search(line):
            if fan is None:
                raise InputError("Info line without its Move line", source, number, line.strip())
            moves.append(Move(card=read_card(info.group(1), source, number), fan=fan))
            fan = None
    if fan is not None:
        moves.append(Move(fan=fan))
    return moves


def black_hole_solve_text(moves: Sequence[tuple[Card, int]], solved: bool) -> str:
    """The solution as black-hole-solve prints it, so its users can switch tools."""
    if not solved:
        return "Unsolved!\n"
    blocks = [f"Move a card from stack {fan} to the foundations\n\n"
              f"Info: Card moved is {card}\n\n\n====================\n\n"
              for card, fan in moves]
    return "Solved!\n" + "".join(blocks)
