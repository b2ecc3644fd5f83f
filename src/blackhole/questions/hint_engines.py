"""The hint engines: what `blackhole.questions.advice` asks for the best score of the lines
through each legal move after a prefix of moves from a start position.

`SatEngine` asks one incremental SAT solver (`backends.pysat_tools.LineSolver`) over the
optional-position CNF of the start position: a move is the assumption "this card is at
that position", so every candidate move, at every step of a line, reuses one encoding
and everything the solver has learned. A game whose best score that CNF does not count
(a talon: Golf, scored by fan cards; a free cell: Worm Hole, whose moves include parks)
is answered by `LookEngine`, the look's exhaustive longest-line search (`look.longest`),
once for each position a move leads to. `hint_engine` picks one.

A choice is a move as the rules engine names it (`legal_moves`: card, fan and kind), and
a line is such moves, replayed by the rules engine from the start position.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from blackhole.base.errors import InternalError
from blackhole.look import longest, look, quick_budget
from blackhole.look.cuts import PLAYS
from blackhole.model.deal import Deal, Kind, Move, Position
from blackhole.model.games import refusal
from blackhole.model.problem import Problem, build_problem, line_moves
from blackhole.model.rules import Outcome, layout, legal_moves, replay

# The SAT solver and the features of its optional-position CNF. No symmetry breaking:
# it keeps some longest line, not every one, and a hint asks for the longest line that
# starts with one given card.
HINT_SOLVER = "glucose3"
HINT_FEATURES = frozenset({"domain", "reach", "rank", "compact", "forward", "rankcount"})

# The kinds of move that put a card onto the hole, so count in a score (a park and a
# talon turn do not).
SCORING = frozenset({Kind.PLAY, Kind.UNPARK})


def scored(moves: Sequence[Move]) -> int:
    """The cards `moves` put onto the hole: their score."""
    return sum(1 for move in moves if move.kind in SCORING)


@dataclass(frozen=True)
class Choice:
    """A legal move after some prefix (None: the position itself) and the climb of its
    lines: the longest line found through it (every move from the start position, as
    the rules engine names it), the cards that line moves onto the hole, and the most
    any line through it may move, as far as proven."""

    move: Move | None
    line: tuple[Move, ...]
    found: int
    upper_bound: int


def line_of(deal: Deal, problem: Problem, order: Sequence[int],
            parks: Sequence[tuple[int, int]] = ()) -> tuple[Move, ...]:
    """An engine's line over `problem` (the Problem of `deal`) as the rules engine
    replays it from `deal`: its moves, each with its card, fan and kind. A line that
    does not replay is an InternalError."""
    judged = replay(deal, line_moves(problem, order, parks))
    if judged.outcome is Outcome.ILLEGAL:
        raise InternalError(f"hint: an engine's line is illegal at move {judged.index + 1}: "
                            f"{judged.reason}")
    return judged.moves


class SatEngine:
    """One LineSolver over a start position, answering for positions along lines from it
    (each a prefix of cards played from the start)."""

    def __init__(self, position: Position, deadline: float | None) -> None:
        from blackhole.backends.pysat_tools import LineSolver

        self.position = position
        self.problem = build_problem(position.deal, f"sat:{HINT_SOLVER}")
        self.node = {card: v for v, card in enumerate(self.problem.cards)}
        self.lines = LineSolver(self.problem, HINT_SOLVER, HINT_FEATURES, deadline)
        self.deadline = deadline

    def __enter__(self) -> SatEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lines.__exit__(*exc)

    def _choice(self, move: Move | None, order: Sequence[int], bound: int) -> Choice:
        return Choice(move, line_of(self.position.deal, self.problem, order), len(order),
                      bound)

    def _nodes(self, moves: Sequence[Move]) -> tuple[int, ...]:
        return tuple(self.node[move.card] for move in moves)

    def root(self) -> Choice:
        """The longest line from the start position. Is it winnable, first (most positions
        a player asks about are): a quick look, then the solver; if not, a climb from
        a short search's line."""
        from blackhole.backends.seeding import quick_line

        n = self.lines.n
        if n == 0:
            return Choice(None, (), 0, 0)
        line = look(self.problem, quick_budget()).line  # a greedy win in milliseconds, or not
        if line is not None:
            return self._choice(None, line, n)
        won = self.lines.ask([self.lines.filled_literal(n)])
        if won is None:
            return Choice(None, (), 0, n)
        if won is not False:
            return self._choice(None, won, n)
        climb = self.lines.longest(lower=quick_line(self.problem, self.deadline), upper=n - 1)
        return self._choice(None, climb.order, climb.upper_bound)

    def choices(self, prefix: Sequence[Move], parent: Choice) -> list[Choice]:
        """Every legal move after `prefix` (moves from the start position), each with its
        longest line; `parent` is the answer for the prefix itself (its line need not
        start with the prefix when the prefix is not on it, but its bound holds for
        every move after the prefix)."""
        deal = self.position.deal
        state = replay(deal, prefix).state
        on_line, before = self._nodes(parent.line), self._nodes(prefix)
        found = []
        for move in legal_moves(deal, state):
            start = (*before, self.node[move.card])
            lower = on_line if on_line[:len(start)] == start else start
            may_win = parent.upper_bound == self.lines.n  # then ask "does it still win?" first
            climb = self.lines.longest(start, lower, parent.upper_bound, top_first=may_win)
            found.append(self._choice(move, climb.order, climb.upper_bound))
        return found


class LookEngine:
    """The hint engine of a game the best-score CNF does not score (a talon, a free
    cell): the look's longest-line search (`look.longest`) from each position a move
    leads to, with the same interface as `SatEngine`. A move is any the rules engine
    names (a play, a turn of the talon, a park into the cell or the cell's card onto the
    hole), and the look starts from the position after it, its cell and parks included.
    Its answers rest on exhausting the search, as the look's best scores do."""

    def __init__(self, position: Position, deadline: float | None) -> None:
        self.position = position
        refused = refusal(position.deal.game, PLAYS, "hint and analyze", position.deal.name
                          or "deal", "solve and best play it")
        if refused is not None:
            raise refused
        self.n = len(build_problem(position.deal, "look", PLAYS).required)
        self.deadline = deadline

    def __enter__(self) -> LookEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def _longest(self, prefix: tuple[Move, ...], move: Move | None = None) -> Choice:
        """The longest line through `prefix` and the most any line through it scores
        (every card when the limit comes first)."""
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if left is not None and left <= 0:
            return Choice(move, prefix, scored(prefix), self.n)
        deal = self.position.deal
        after = layout(deal, replay(deal, prefix).state)
        problem = build_problem(after, "look", PLAYS)
        found = longest(problem, seconds=left)
        line = prefix + line_of(after, problem, found.order, found.parks)
        return Choice(move, line, scored(line), scored(prefix) + found.upper_bound)

    def root(self) -> Choice:
        return self._longest(())

    def choices(self, prefix: Sequence[Move], parent: Choice) -> list[Choice]:
        prefix = tuple(prefix)
        state = replay(self.position.deal, prefix).state
        return [self._longest((*prefix, move), move)
                for move in legal_moves(self.position.deal, state)]


def hint_engine(position: Position, deadline: float | None) -> SatEngine | LookEngine:
    """The SAT hint engine where its CNF scores the game (Black Hole's path), else the
    look's."""
    if position.deal.game.plain:
        return SatEngine(position, deadline)
    return LookEngine(position, deadline)
