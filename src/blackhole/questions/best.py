"""The best score of a position: the most cards any legal line from it moves, counted
from the start of the deal (51 is a win for a standard deal), with one line that
reaches it.

`best_score(position, backend)` asks a backend (`Backend.best`): `sat` climbs with one
incremental solver, `cpsat` maximises, `maxsat` runs RC2, `search` is the exhaustive
referee, `look` exhausts its search. The line is replayed by the rules engine before it
is returned (`judged`). Hints and the analysis of a line are `blackhole.questions.advice`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from blackhole.backends import Options, choose, make_backend
from blackhole.base.errors import InternalError
from blackhole.model.deal import Deal, Position
from blackhole.model.longest import Longest
from blackhole.model.positions import as_position
from blackhole.model.problem import Problem, build_problem, line_moves
from blackhole.model.rules import Kind, Move, Outcome, Replay, legal_moves, replay


@dataclass(frozen=True)
class Best:
    """The best score of a position: `best` cards moved from the start of the deal (out
    of `of`) by the line `moves` from the position; `upper_bound` is the most any line
    may reach as far as proven, and `proven` says the two meet. `moved` counts the cards
    moved before the position."""

    best: int
    of: int
    proven: bool
    upper_bound: int
    moves: tuple[Move, ...]  # (card, 0-based fan) from the position
    backend: str
    solver: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    moved: int = 0
    replay: Replay | None = None

    @property
    def won(self) -> bool:
        return self.best == self.of



def best_score(position: Position | Deal | str, backend: str = "auto", *,
               timeout: float | None = None, **options: Any) -> Best:
    """The best score of `position` (a Position, a Deal or a deal spec), counted from the
    start of the deal, with one line that reaches it, replayed by the rules engine.

    `backend` is "auto" (default), "sat", "cpsat", "maxsat" or "search", with an optional variant
    ("sat:glucose4"); keyword options are `Options` fields. At the limit the best line
    found comes back with `proven` False and the bound proven so far. Bad input, or a
    backend that finds no best score, raises InputError."""
    name, chosen = choose_best(backend, timeout, **options)
    return best_position(as_position(position), name, chosen)


def choose_best(backend: str, timeout: float | None = None,
                **options: Any) -> tuple[str, Options]:
    """`backends.choose` for the best score: also refused, before any work, a backend
    that finds no best score or cannot take these options for it."""
    name, chosen = choose(backend, timeout, **options)
    make_backend(name).check_best(chosen)
    return name, chosen


def best_position(position: Position, backend: str, options: Options) -> Best:
    """`best_score` with a registry name and Options (as bench runs it)."""
    began = time.perf_counter()
    engine = make_backend(backend)
    engine.check_best(options)
    deal = position.deal
    engine.check_size(deal.cards_in_fans, deal.name or "deal")
    problem = build_problem(deal, f"{engine.name} best-score", engine.best_plays)
    if options.timeout is not None:  # the limit covers building the problem too
        left = options.timeout - (time.perf_counter() - began)
        if left <= 0:
            found = Longest((), len(problem.required), engine.name, "", options.timeout)
            return judged(position, problem, found)
        options = replace(options, timeout=left)
    return judged(position, problem, engine.best(problem, options))


def judged(position: Position, problem: Problem, found: Longest) -> Best:
    """A backend's longest line as moves, replayed by the rules engine; any claim the
    rules refute is an InternalError. The score counts fan cards (in a game with a talon
    the line turns talon cards too)."""
    who = f"{found.backend}/{found.solver}"
    n = len(problem.required)
    if not found.played <= found.upper_bound <= n:
        raise InternalError(f"{who}: a line of {found.played} cards with the bound "
                            f"{found.upper_bound} of {n}")
    played = replay(position.deal, line_moves(problem, found.order, found.parks))
    moves = played.moves
    if played.outcome is Outcome.ILLEGAL or played.played != found.played \
            or played.played + played.turned != len(found.order):
        raise InternalError(f"{who}: best line fails replay: {played.describe()}")
    if found.proven and played.outcome is Outcome.UNFINISHED and played.state is not None \
            and any(move.kind in (Kind.PLAY, Kind.UNPARK)
                    for move in legal_moves(position.deal, played.state)):
        raise InternalError(f"{who}: a line proven longest that a legal move extends")
    return Best(position.moved + found.played, position.of, found.proven,
                position.moved + found.upper_bound, moves, found.backend, found.solver,
                found.seconds, found.stats, position.moved, played)
