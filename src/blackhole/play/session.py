"""A game's life outside the screen: starting it from a spec, saving its moves."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move, Position
from blackhole.model.games import DEFAULT_GAME, Variant, refusal
from blackhole.model.positions import load_position, read_moves
from blackhole.model.rules import PLAYS, advance
from blackhole.play.board import check_fits
from blackhole.play.game import Game

SEEDS = 1_000_000  # fresh random deals are random:0 .. random:999999
CARDS_PER_LINE = 17


def fresh_spec(seed: int | None = None, game: Variant = DEFAULT_GAME) -> str:
    """`random:SEED` (`random:SEED:GAME` for a game other than the default), with a new
    seed unless one is given."""
    spec = f"random:{secrets.randbelow(SEEDS) if seed is None else seed}"
    return spec if game == DEFAULT_GAME else f"{spec}:{game.name}"


def start_game(spec: str, after: str | None = None) -> Game:
    """The game of `spec`, from the position it holds, with the `after` moves already
    played (so they can be undone and are saved with the rest). InputError for a bad
    spec, an illegal move, or a deal too large to draw."""
    for given, source in ((spec, spec), ((after or "")[1:], "after")):
        if given == "-":
            raise InputError("play reads its keys from the terminal, so it cannot read "
                             "from stdin: give a file", source, token="-")
    origin = load_position(spec)
    refused = refusal(origin.deal.game, PLAYS, "play", spec, "solve and best play it")
    if refused is not None:
        raise refused
    check_fits(origin.deal, spec)
    game = Game(origin)
    if after is None:
        return game
    moves, source = read_moves(after, "after")
    advance(origin, moves, source)  # an illegal move is an InputError naming `source`
    for move in moves:  # legal, as advance found: the game records them for undo and save
        game = game.play(move)
    return game


def need_terminal(stdin: Any, stdout: Any) -> None:
    """The game draws on a terminal and reads its keys from it: an InputError when
    standard input or output is not a terminal (a pipe, a file, no terminal at all)."""
    for name, stream in (("<stdin>", stdin), ("<stdout>", stdout)):
        try:
            terminal = bool(stream.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            terminal = False
        if not terminal:
            raise InputError("not a terminal: play draws the game on a terminal and reads "
                             "its keys there (solve, hint and analyze need none)", name)


def save_text(game: Game, spec: str) -> str:
    """The moves from the spec's own position, as cards `check` and `--after @FILE` read
    (a park as `park:KH`), under two comment lines that say how."""
    cards = [str(move) for move in game.moves]
    lines = [f"# blackhole play {spec}: {game.score} of {game.start.of} cards moved",
             f"# replay: blackhole check {spec} FILE; go on: blackhole play {spec} "
             "--after @FILE"]
    lines += [" ".join(cards[i:i + CARDS_PER_LINE])
              for i in range(0, len(cards), CARDS_PER_LINE)]
    return "\n".join(lines) + "\n"


def save_path(spec: str, folder: Path) -> Path:
    """A file name in `folder` after the spec that no file holds yet:
    `pysol-2.moves`, then `pysol-2-2.moves`, ..."""
    stem = Path(spec).stem if Path(spec).suffix else spec
    stem = "".join(c if c.isalnum() else "-" for c in stem).strip("-") or "game"
    path, n = folder / f"{stem}.moves", 1
    while path.exists():
        n += 1
        path = folder / f"{stem}-{n}.moves"
    return path


@dataclass(frozen=True)
class Review:
    """The end of a game against the best play: `best` is the most cards any line from
    the game's start moves (counted from the start of the deal); `lost_at` the index of
    the first move after which that score could no longer be reached (None when the game
    reached it), `best_after` the best still reachable after that move."""

    score: int
    of: int
    best: int
    proven: bool
    line: tuple[Card | Move, ...]  # a line from the game's start that reaches `best`
    # (a park as its Move, as a history holds it)
    started: int = 0  # moves made before the game's start (a position spec), turns too
    lost_at: int | None = None
    lost_card: Card | None = None
    lost_fan: int | None = None
    best_after: int | None = None
    lost_kind: Kind | None = None  # the losing move's kind, when it is not a play


def review(game: Game, known: dict[tuple[Move, ...], Any],
           best_of: Callable[[Position], Any]) -> Review:
    """Compare a finished game with the best play from its start. `known` holds the hint
    engine's answers by position (the fans played since the start) and learns the new
    ones; `best_of` asks the engine.

    The best score reachable never rises along a line (a line from after a move is a
    line from before it), so the first losing move is found by bisection: a handful of
    questions to the engine, not one per move. An answer the time limit left open
    (neither reaching the start's best nor proven below it) names no losing move: only
    proven losses are told."""

    def best_at(count: int) -> Any:
        moves = game.moves[:count]
        if moves not in known:
            known[moves] = best_of(Game(game.start, moves).position)
        return known[moves]

    start = best_at(0)
    line = tuple(Move.park(move.card) if move.kind is Kind.PARK else move.card
                 for move in start.moves)
    found = Review(game.score, game.start.of, start.best, start.proven, line,
                   game.start.made)
    if game.score >= start.best:
        return found
    good, bad = 0, len(game.moves)  # best_at(good) reaches start.best, best_at(bad) not
    while bad - good > 1:
        middle = (good + bad) // 2
        weighed = best_at(middle)
        if weighed.best >= start.best:
            good = middle
        elif weighed.upper_bound < start.best:
            bad = middle
        else:  # the limit left it open
            return found
    if bad < len(game.moves) and not best_at(bad).proven:
        return found
    after = best_at(bad).best if bad < len(game.moves) else game.score
    lost = game.moves[bad - 1]
    return replace(found, lost_at=bad - 1, lost_card=lost.card, lost_fan=lost.fan,
                   best_after=after, lost_kind=lost.kind)
