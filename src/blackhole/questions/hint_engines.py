"""The hint engines: what `blackhole.questions.advice` asks for the best score of the lines
through each legal move after a prefix of moves from a start position.

`SatEngine` asks one incremental SAT solver (`backends.pysat_tools.LineSolver`) over the
optional-position CNF of the start position: a move is the assumption "this card is at
that position", so every candidate move, at every step of a line, reuses one encoding
and everything the solver has learned. A game whose best score that CNF does not count
(a talon: Golf, scored by fan cards) is answered by `LookEngine`, the look's exhaustive
longest-line search (`look.longest`), once for each position a move leads to.
`hint_engine` picks one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from blackhole.look import longest, look, quick_budget
from blackhole.look.cuts import PLAYS as LOOK_PLAYS
from blackhole.model.deal import Position
from blackhole.model.games import refusal
from blackhole.model.problem import build_problem
from blackhole.model.rules import layout, legal_moves, replay

# The SAT solver and the features of its optional-position CNF. No symmetry breaking:
# it keeps some longest line, not every one, and a hint asks for the longest line that
# starts with one given card.
HINT_SOLVER = "glucose3"
HINT_FEATURES = frozenset({"domain", "reach", "rank", "compact", "forward", "rankcount"})


@dataclass(frozen=True)
class Choice:
    """A legal move after some prefix: its node, fan, and the climb of its lines."""

    node: int
    fan: int | None
    line: tuple[int, ...]  # the longest line found through the move, from the start
    upper_bound: int  # no line through it plays more, from the start position


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

    def played(self, line: Sequence[int]) -> int:
        """The cards a line plays: its score."""
        return len(line)

    def __enter__(self) -> SatEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lines.__exit__(*exc)

    def root(self) -> Choice:
        """The longest line from the start position. Is it winnable, first (most positions
        a player asks about are): a quick look, then the solver; if not, a climb from
        a short search's line."""
        from blackhole.backends.seeding import quick_line

        n = self.lines.n
        if n == 0:
            return Choice(-1, -1, (), 0)
        line = look(self.problem, quick_budget()).line  # a greedy win in milliseconds, or not
        if line is not None:
            return Choice(-1, -1, line, n)
        won = self.lines.ask([self.lines.filled_literal(n)])
        if won is None:
            return Choice(-1, -1, (), n)
        if won is not False:
            return Choice(-1, -1, won, n)
        climb = self.lines.longest(lower=quick_line(self.problem, self.deadline), upper=n - 1)
        return Choice(-1, -1, climb.order, climb.upper_bound)

    def choices(self, prefix: tuple[int, ...], parent: Choice) -> list[Choice]:
        """Every legal move after `prefix`, each with its longest line; `parent` is the
        answer for the prefix itself (its line need not start with the prefix when the
        prefix is not on it, but its bound holds for every move after the prefix)."""
        deal = self.position.deal
        state = replay(deal, [self.problem.cards[v] for v in prefix]).state
        found = []
        for card, fan, _ in legal_moves(deal, state):
            node = self.node[card]
            start = (*prefix, node)
            lower = parent.line if parent.line[:len(start)] == start else start
            may_win = parent.upper_bound == self.lines.n  # then ask "does it still win?" first
            climb = self.lines.longest(start, lower, parent.upper_bound, top_first=may_win)
            found.append(Choice(node, fan, climb.order, climb.upper_bound))
        return found


# The rule features hint and analyze play with the look: its own, but a free cell (a move
# there is a park or a play of one card, which a choice of a node cannot tell apart).
PLAYS = LOOK_PLAYS - {"cells", "cell_uses"}


class LookEngine:
    """The hint engine of a game the best-score CNF does not score (a talon): the look's
    longest-line search (`look.longest`) from each position a move leads to, with the
    same interface as `SatEngine`. Its answers rest on exhausting the search, as the
    look's best scores do."""

    def __init__(self, position: Position, deadline: float | None) -> None:
        self.position = position
        refused = refusal(position.deal.game, PLAYS, "hint and analyze", position.deal.name
                          or "deal", "solve and best play it")
        if refused is not None:
            raise refused
        self.problem = build_problem(position.deal, "look", PLAYS)
        self.node = {card: v for v, card in enumerate(self.problem.cards)}
        self.talon = frozenset(self.problem.talon)
        self.n = len(self.problem.required)
        self.deadline = deadline

    def __enter__(self) -> LookEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def played(self, line: Sequence[int]) -> int:
        """The fan cards a line plays (its score): talon cards turned do not count."""
        return sum(1 for node in line if node not in self.talon)

    def _longest(self, prefix: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
        """The longest line through `prefix` and the most any line through it scores
        (every fan card when the limit comes first)."""
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if left is not None and left <= 0:
            return prefix, self.n
        deal = self.position.deal
        after = layout(deal, replay(deal, [self.problem.cards[v] for v in prefix]).state)
        problem = build_problem(after, "look", PLAYS)
        found = longest(problem, seconds=left)
        line = prefix + tuple(self.node[problem.cards[v]] for v in found.order)
        return line, self.played(prefix) + found.upper_bound

    def root(self) -> Choice:
        line, bound = self._longest(())
        return Choice(-1, -1, line, bound)

    def choices(self, prefix: tuple[int, ...], parent: Choice) -> list[Choice]:
        deal = self.position.deal
        state = replay(deal, [self.problem.cards[v] for v in prefix]).state
        found = []
        for card, fan, _ in legal_moves(deal, state):
            line, bound = self._longest((*prefix, self.node[card]))
            found.append(Choice(self.node[card], fan, line, bound))
        return found


def hint_engine(position: Position, deadline: float | None) -> SatEngine | LookEngine:
    """The SAT hint engine where its CNF scores the game (Black Hole's path), else the
    look's."""
    if position.deal.game.plain:
        return SatEngine(position, deadline)
    return LookEngine(position, deadline)
