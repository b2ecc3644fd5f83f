"""Solution files: read the three forms `blackhole check` accepts, write black-hole-solve's.

- our JSON: the output of `blackhole solve --json` (`{"moves": [{"card": "KH", "fan": 12}]}`)
  or a plain JSON list of cards;
- plain text: cards separated by spaces, commas or new lines;
- black-hole-solve's output: `Move a card from stack N to the foundations` blocks, each
  with `Info: Card moved is KH`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from blackhole.cards import Card
from blackhole.deal import read_card
from blackhole.errors import InputError
from blackhole.rules import Move

_STACK = re.compile(r"Move a card from stack (\d+) to the foundations")
_INFO = re.compile(r"Info: Card moved is (\S+)")
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_solution(text: str, source: str) -> list[Move]:
    text = text.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        raise InputError("empty solution file", source, 1)
    if stripped[0] in "[{":
        return _parse_json(stripped, source)
    if _STACK.search(text):
        return _parse_black_hole_solve(text, source)
    moves = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith("#"):
            continue
        for token in filter(None, _SEPARATORS.split(line)):
            moves.append(Move(card=read_card(token, source, number)))
    return moves


def _parse_json(text: str, source: str) -> list[Move]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON ({error.msg})", source, error.lineno,
                         error.doc[error.pos:error.pos + 12] or "end of file") from None
    items = data.get("moves") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("expected a list of moves or {\"moves\": [...]}", source, 1)
    moves = []
    for item in items:
        if isinstance(item, str):
            moves.append(Move(card=read_card(item, source, None)))
        elif isinstance(item, dict) and isinstance(item.get("card"), str):
            fan = item.get("fan")
            if fan is not None and (not isinstance(fan, int) or isinstance(fan, bool)):
                raise InputError("\"fan\" must be a whole number", source, None, str(fan))
            moves.append(Move(card=read_card(item["card"], source, None), fan=fan))
        else:
            raise InputError("a move is a card or {\"card\": ..., \"fan\": ...}", source,
                             None, json.dumps(item)[:40])
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
