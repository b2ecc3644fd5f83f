"""Hints and the analysis of a line: the questions a player asks about the moves of a
position.

- `hints(position)`: every legal move, whether the game stays winnable after it and the
  best score still reachable, best first.
- `analyze(position, line)`: along a line (given, or the solver's best), how many legal
  moves keep the best score at each move, the critical moves (the only good choice among
  several) and the first move that loses.

Both ask a hint engine (`blackhole.questions.hint_engines`) for the bounds of every legal move's
lines; every answer here is derived from those bounds, so it is proven, or unknown
(None) where the time limit left it open.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from blackhole.backends import Options
from blackhole.base.errors import InputError, InternalError
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, Kind, Position
from blackhole.model.positions import as_position
from blackhole.model.rules import Move, Outcome, as_moves, move_text, replay
from blackhole.questions.hint_engines import SCORING, hint_engine


def keeps(move: int, bounds: Sequence[tuple[int, int]]) -> bool | None:
    """Whether legal move `move` keeps the best score of a position whose legal moves'
    lines score within `bounds` (each (found, upper bound)): True when its line found
    reaches every other move's bound, False when its bound falls short of a line found
    through another move, None when the limit left it open."""
    low, high = bounds[move]
    others = [bound for i, bound in enumerate(bounds) if i != move]
    if low >= max((h for _, h in others), default=low):
        return True
    if high < max(lo for lo, _ in others):
        return False
    return None


def unknown_text(value: object) -> str:
    """A value as text, "?" when the limit left it unknown (None)."""
    return "?" if value is None else str(value)


class Bounded:
    """A best score known to lie between `found` (the longest line found) and
    `upper_bound` (the most any line may score, as far as proven), out of `of`; what the
    two leave open is unknown (None)."""

    found: int
    upper_bound: int
    of: int

    @property
    def best_proven(self) -> bool:
        return self.found == self.upper_bound

    @property
    def best(self) -> int | None:
        """The best score; None when not proven."""
        return self.found if self.best_proven else None

    @property
    def winnable(self) -> bool | None:
        """True when a win was found (a win is its own proof), False when no line can
        win, None when the limit came first."""
        if self.found == self.of:
            return True
        return False if self.upper_bound < self.of else None


def move_of(card: Card, fan: int | None, kind: Kind | None) -> Move:
    """The move a hint or a step names: its kind as given, else a turn of the talon
    (no fan) or a play."""
    return Move(card, fan, kind or (Kind.TURN if fan is None else Kind.PLAY))


@dataclass(frozen=True)
class Hint(Bounded):
    """A legal move from a position and the best score of the lines through it, counted
    from the start of the deal: `found` is the longest line found (a proven lower bound),
    `upper_bound` the most any line through it may score as far as proven, `of` a win.
    Without a time limit the two meet; at the limit whatever they leave open is unknown
    (None): `best`, `winnable`. `kind` says what the move does (`move`: a play, a turn,
    a park into the cell or the cell's card onto the hole; None: a play, or a turn when
    it has no fan)."""

    card: Card
    fan: int | None  # None: the talon's next card, or the cell's
    found: int
    upper_bound: int
    of: int
    kind: Kind | None = None

    @property
    def proven(self) -> bool:
        return self.best_proven

    @property
    def move(self) -> Move:
        return move_of(self.card, self.fan, self.kind)


def hints(position: Position | Deal | str, *, timeout: float | None = None) -> list[Hint]:
    """Every legal move from `position`, best first (then in fan order): whether the game
    stays winnable after it, and the best score still reachable, counted from the start
    of the deal; in a game with a cell the moves include each park and the cell's card
    onto the hole. One hint engine answers for every move. At the limit a hint
    keeps the bounds proven so far, and what they leave open is unknown."""
    position = as_position(position)
    Options(timeout=timeout)  # checks the limit
    deadline = None if timeout is None else time.perf_counter() + timeout
    with hint_engine(position, deadline) as engine:
        found = engine.choices((), engine.root())
    moved, of = position.moved, position.of
    ranked = [Hint(c.move.card, c.move.fan, moved + c.found, moved + c.upper_bound, of,
                   c.move.kind) for c in found]
    return sorted(ranked, key=lambda hint: (-hint.found, -hint.upper_bound))


@dataclass(frozen=True)
class HintSummary:
    """What the hints of a position say about the position itself: its best score and
    whether it is winnable (None where the limit left them open), and how many hints
    the limit left unproven."""

    best: int | None
    winnable: bool | None
    unknown: int

    @property
    def proven(self) -> bool:
        return self.unknown == 0


def summarise(position: Position, found: Sequence[Hint]) -> HintSummary:
    """The position's best and winnability, as far as its hints prove them: a move that
    wins proves a win; only when every move is proven lost is the position."""
    if not found:
        return HintSummary(position.moved, position.moved == position.of, 0)
    bounds = [(hint.found, hint.upper_bound) for hint in found]
    low, high = max(lo for lo, _ in bounds), max(hi for _, hi in bounds)
    answers = {hint.winnable for hint in found}
    winnable = True if True in answers else (False if answers == {False} else None)
    return HintSummary(low if low == high else None, winnable,
                       sum(not hint.proven for hint in found))


# ---------------------------------------------------------------- analysis


@dataclass(frozen=True)
class Step:
    """One move along an analysed line. `bounds` holds, for every legal move then (in fan
    order), the longest line found through it and the most any line through it may score
    (both counted from the start of the deal); `chosen` is the index of the move played.
    Without a time limit each pair meets. Every answer below is derived from the bounds,
    so it is proven, or None (unknown) when the limit left it open."""

    number: int  # 1-based, counted from the start of the deal (`Position.made`)
    card: Card
    fan: int | None  # None: the talon's next card, or the cell's
    bounds: tuple[tuple[int, int], ...]
    chosen: int
    kind: Kind | None = None  # as `Hint.kind`

    @property
    def move(self) -> Move:
        return move_of(self.card, self.fan, self.kind)

    @property
    def legal(self) -> int:
        return len(self.bounds)

    @property
    def best_before(self) -> int | None:
        """The best score reachable before the move."""
        low, high = (max(side) for side in zip(*self.bounds, strict=True))
        return low if low == high else None

    @property
    def best_after(self) -> int | None:
        """The best score reachable after the move played."""
        low, high = self.bounds[self.chosen]
        return low if low == high else None

    def _keeps(self) -> list[bool | None]:
        return [keeps(i, self.bounds) for i in range(self.legal)]

    @property
    def good(self) -> int | None:
        """How many legal moves keep the best score before the move."""
        kept = self._keeps()
        return None if None in kept else sum(kept)

    @property
    def critical(self) -> bool | None:
        """The only good choice among several."""
        kept = self._keeps()
        if self.legal == 1 or kept.count(True) > 1:
            return False
        if kept.count(True) == 1 and None not in kept:
            return True
        return None

    @property
    def loses(self) -> bool | None:
        """The best score after the move is lower than before it."""
        kept = self._keeps()[self.chosen]
        return None if kept is None else not kept

    @property
    def proven(self) -> bool:
        """Every answer of the step is known."""
        return None not in (self.best_before, self.best_after, self.good, self.critical)



@dataclass(frozen=True)
class Analysis(Bounded):
    """A line from a position, move by move, against the best play. The best score of the
    position (from the start of the deal) lies between `found`, the longest line found,
    and `upper_bound`; `given` says the line was given rather than the solver's best
    line. What the limit left open is None (unknown), and the counts hold proven facts
    only, with the number left unknown beside them."""

    found: int
    upper_bound: int
    of: int
    moved: int
    given: bool
    steps: tuple[Step, ...]
    seconds: float

    @property
    def proven(self) -> bool:
        return self.best_proven and all(step.proven for step in self.steps)

    @property
    def critical(self) -> int:
        """The moves proven critical."""
        return sum(step.critical is True for step in self.steps)

    @property
    def critical_unknown(self) -> int:
        """The moves the limit left undecided: critical or not."""
        return sum(step.critical is None for step in self.steps)

    @property
    def first_loss(self) -> Step | None:
        """The first move after which the best score reachable is lower than before it
        (for a winnable position, the move that lost the game): the first move proven to
        lose, when every move before it is proven not to. None when there is none, or
        when the limit left it unknown (`first_loss_known`)."""
        for step in self.steps:
            if step.loses is not False:
                return step if step.loses else None
        return None

    @property
    def first_loss_known(self) -> bool:
        """Whether `first_loss` is proven: a move proven to lose with no undecided move
        before it, or every move proven not to lose."""
        return all(step.loses is not None for step in self.steps[:self._loss_end()])

    def _loss_end(self) -> int:
        """The steps up to and including the first proven loss (all of them without)."""
        return next((i + 1 for i, step in enumerate(self.steps) if step.loses), len(self.steps))

    @property
    def score(self) -> int:
        """Cards moved from the start of the deal at the end of the line (talon cards
        turned and cards parked do not count)."""
        return self.moved + sum(1 for step in self.steps if step.move.kind in SCORING)



def analyze(position: Position | Deal | str,
            line: Sequence[Card | Move | str] | str | None = None, *,
            timeout: float | None = None) -> Analysis:
    """Walk `line` (moves from `position`: a str of cards as `--after` reads them, or a
    sequence of Cards, Moves and card names, replayed by the rules engine; an illegal
    move, or a line that names no move, is an InputError), or the solver's best line
    when None, and weigh every legal move (parks and the cell's card included) at every
    step with one hint engine. At the limit each step keeps the bounds proven so far
    (see `Step`)."""
    began = time.perf_counter()
    position = as_position(position)
    Options(timeout=timeout)  # checks the limit
    deadline = None if timeout is None else began + timeout
    given = line is not None
    if given:
        line = as_moves(line, "line")
        if not line:
            raise InputError("names no move (leave it out to walk a best line)", "line",
                             token="")
        played = replay(position.deal, line)
        if played.outcome is Outcome.ILLEGAL:
            raise InputError(f"move {played.index + 1} is illegal: {played.reason}", "line",
                             None, move_text(line[played.index]))
    moved = position.moved
    with hint_engine(position, deadline) as engine:
        parent = root = engine.root()
        walk = played.moves if given else root.line
        steps = []
        for i, move in enumerate(walk):
            found = engine.choices(walk[:i], parent)
            chosen = next((k for k, c in enumerate(found) if c.move == move), None)
            if chosen is None:
                raise InternalError(f"analyze: move {i + 1} ({move_text(move)}) is not "
                                    "among the legal moves")
            bounds = tuple((moved + c.found, moved + c.upper_bound) for c in found)
            steps.append(Step(position.made + i + 1, move.card, move.fan, bounds, chosen,
                              move.kind))
            parent = found[chosen]
    return Analysis(moved + root.found, moved + root.upper_bound, position.of, moved,
                    given, tuple(steps), time.perf_counter() - began)
