"""The fewest talon turns to win: the shortest win by draws, proven minimal.

A TriPeaks or Golf player draws from the stock (the talon) when no tableau card plays, and
a scoring game rewards a win that leaves stock cards unturned. A win that turns at most k
cards is a win of the same position with its talon cut to its first k cards: the cards
behind them are never reached, and turning is never forced. So the fewest turns is the
least k for which the cut position is won, and that question is monotone in k (a longer
talon only adds moves). Each step asks an engine to solve one cut position:

- a win found with t turns bounds the answer from above by t (its line is replayed by
  the rules engine);
- a cut to k cards proven lost bounds it from below by k + 1.

A bisection between the bounds ends when they meet, which proves the fewest turns by
the answers of the engine named (each step says which engine answered). A limit reached
leaves the bounds as they stand: the answer is then not proven, and says both bounds.
Turns are counted from the start of the deal: a position's turns made are included.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from blackhole.backends import Options, Verdict
from blackhole.base.errors import InputError, InternalError
from blackhole.model.deal import Kind, Position
from blackhole.model.rules import Move, Replay, replay
from blackhole.questions.pipeline import SPENT_LIMIT, Solution, solve_deal


@dataclass(frozen=True)
class Step:
    """One solve of the bisection: the talon cards allowed from the position, the
    verdict, the engine that answered and its time."""

    talon: int
    verdict: Verdict
    backend: str
    solver: str
    seconds: float


@dataclass(frozen=True)
class Turns:
    """The fewest turns to win a position, counted from the start of the deal.
    `won` is None when no engine settled whether the position is won at all, False
    when it is lost (no bounds then). `at_most` is the turns of `moves`, the line found
    (replayed to a win by the rules engine), `at_least` the lower bound proven; the
    answer is proven when they meet."""

    won: bool | None
    at_most: int | None
    at_least: int
    moves: tuple[Move, ...]
    replay: Replay | None
    steps: tuple[Step, ...]
    seconds: float
    turned: int  # the turns made before the position

    @property
    def proven(self) -> bool:
        """True when the fewest turns is known (or the position is proven lost)."""
        return self.won is False or (self.won is True and self.at_most == self.at_least)

    @property
    def fewest(self) -> int | None:
        """The fewest turns, when proven."""
        return self.at_most if self.won and self.proven else None


def turns_in(moves: tuple[Move, ...]) -> int:
    """The talon turns of a line."""
    return sum(1 for move in moves if move.kind is Kind.TURN)


def fewest_turns(position: Position, backend: str, options: Options) -> Turns:
    """The fewest talon turns that win `position`, by the engine registered as `backend`
    (see the module's text). A game without a talon is an InputError."""
    deal = position.deal
    if not deal.game.rules.talon:
        raise InputError(f"{deal.game.title} has no talon, so no turns to count",
                         deal.name or "deal", token="turns")
    began = time.perf_counter()
    turned = deal.turned
    steps: list[Step] = []

    def solve_cut(cards: int) -> Solution:
        left = None if options.timeout is None else \
            max(options.timeout - (time.perf_counter() - began), SPENT_LIMIT)
        cut = replace(deal, talon=deal.talon[:cards])
        found = solve_deal(cut, backend, replace(options, timeout=left))
        result = found.result
        steps.append(Step(cards, result.verdict, result.backend, result.solver,
                          result.seconds))
        return found

    def answer(won: bool | None, best: Solution | None, at_least: int) -> Turns:
        moves = best.moves if best is not None else ()
        judged = None
        if best is not None:  # the cut position's win, judged on the whole talon
            judged = replay(deal, list(moves))
            if not judged.won:
                raise InternalError(f"a line of {best.result.backend} wins with the talon "
                                    f"cut but not whole: {judged.describe()}")
        return Turns(won, None if best is None else turned + turns_in(moves),
                     turned + at_least, moves, judged, tuple(steps),
                     time.perf_counter() - began, turned)

    best = solve_cut(len(deal.talon))
    if best.verdict is not Verdict.SOLVED:
        return answer(None if best.verdict is Verdict.UNKNOWN else False, None, 0)
    low, high = 0, turns_in(best.moves)  # a win within `high`; none within `low` - 1
    while low < high:
        cards = (low + high - 1) // 2
        found = solve_cut(cards)
        if found.verdict is Verdict.SOLVED:
            best, high = found, turns_in(found.moves)
        elif found.verdict is Verdict.UNSOLVABLE:
            low = cards + 1
        else:
            break
    return answer(True, best, low)
