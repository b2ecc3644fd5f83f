"""Positions reached by moves: a deal spec's position with `--after` played on it, the
moves an option or a solution file names, and an answer replayed from its spec.

This layer stands above the rules engine (`blackhole.model.rules`, which plays the
moves) and the solution files (`blackhole.model.solutions`, which read them); both stand
on the sources, formats and model below (`blackhole.model.sources`,
`blackhole.model.formats`, `blackhole.model.deal`), and nothing below imports this
module.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, Position, position_of
from blackhole.model.games import Variant
from blackhole.model.rules import Move, Replay, advance, as_moves, replay
from blackhole.model.solutions import parse_answer, parse_cards
from blackhole.model.sources import read_input, read_position, source_name, stdin_once


def load_position(spec: str | os.PathLike[str],
                  after: str | Sequence[Card | Move | str] | None = None,
                  game: Variant | None = None) -> Position:
    """The position `spec` holds, then `after` played through the rules engine. `game`
    (`--game`) names the game a file is played by (see `sources.read_position`).

    `after` is cards separated by spaces or commas (`#` starts a comment), `@FILE`
    holding moves in any format `check` reads (`@-`: stdin), or a sequence of Cards,
    Moves and card names. An illegal move is an InputError naming the move and why; its
    source is `after` (the option's field) or the file."""
    stdin_once(("the deal", spec == "-"), ("--after", after == "@-"))
    position = read_position(spec, game)
    if after is None:
        return position
    if isinstance(after, str):
        moves, source = read_moves(after, "after")
    else:
        moves, source = as_moves(after, "after"), "after"
    return play_after(position, moves, source)


def as_position(given: Position | Deal | str | os.PathLike[str]) -> Position:
    """A Position from a Position, a Deal (the position it shows) or a deal spec: what
    every question of the API (`solve`, `best_score`, `hints`, `analyze`) takes."""
    if isinstance(given, Position):
        return given
    if isinstance(given, Deal):
        return position_of(given)
    if isinstance(given, str | os.PathLike):
        return load_position(given)
    raise InputError("not a position, deal or deal spec", "position",
                     token=type(given).__name__)


def play_after(position: Position, moves: list[Move], source: str) -> Position:
    """The position after `moves` (replayed by the rules engine; an illegal move is an
    InputError naming `source`), which records them in its `after`."""
    later = advance(position, moves, source)
    return replace(later, after=position.after + replay(position.deal, moves).moves)


def read_moves(text: str, option: str) -> tuple[list[Move], str]:
    """The moves an option such as `--after` names, and the source their errors name.

    `text` is cards separated by spaces or commas (`#` starts a comment), whose source is
    `option`, or `@FILE` holding moves in any format `check` reads (`@-`: stdin), whose
    source is the file; an answer saved from a position names the moves before its own
    (`"after"`), and they come first, as `check` replays them. A bad card is an
    InputError naming the source and the token (and the line, in a file: one option
    value has no lines worth naming)."""
    if text.startswith("@"):
        source = source_name(text[1:])
        answer = parse_answer(read_input(text[1:], "moves"), source)
        return [*(answer.after or ()), *answer.moves], source
    try:
        return parse_cards(text, option), option
    except InputError as error:
        raise InputError(error.detail, option, None, error.token) from None


def check_answer(spec: str, after: str | None, solution: str,
                 game: Variant | None = None) -> tuple[Position, Replay]:
    """What `check` replays: the position `spec` holds, after the moves the solution file
    names in its `"after"` (an answer from a position) or `after` (`--after`; when both
    are given they must name the same moves), then the file's moves through the rules
    engine. Bad input, and an `"after"` that does not play from `spec`, are InputErrors."""
    stdin_once(("the deal", spec == "-"), ("--after", after == "@-"),
               ("the solution", solution == "-"))
    start = read_position(spec, game)
    position = start if after is None else play_after(start, *read_moves(after, "after"))
    source = source_name(solution)
    answer = parse_answer(read_input(solution, "solution"), source)
    if answer.after is not None:
        saved = play_after(start, list(answer.after), source)
        if after is not None and saved.after != position.after:
            raise InputError("the answer starts after other moves than --after names (leave "
                             "--after out: the file names its own)", source, None, "after")
        position = saved
    return position, replay(position.deal, answer.moves)
