"""Exhaustive depth-first search: the independent referee.

It explores states (fan heights, rank on the hole) depth first and remembers every state
it has left without a win, so each is expanded once; the suit of the hole's card never
matters, so the rank is the whole key. A branch is cut when some rank that still has
cards cannot be reached from the hole's rank by walking the rank cycle through ranks
that still have cards: every later hole rank is the rank of a card still in the fans,
and each move changes the hole's rank by one. Both the memo and the cut keep it
complete, so "unsolvable" here is a proof by exhaustion.

It reads the game's rules from the Problem (it plays the rule features in PLAYS), so it
plays Golf too: what
fits on each hole rank is the game's (`blackhole.model.games.rank_fits`), the talon's next
card may be turned onto any hole (the talon cards turned are part of the state), and it
wins when the fans are empty. The rank-reach cut argues from ranks that wrap and from
every card coming off the fans, so it runs for Black Hole's rules only; a game with a
talon is searched with the memo alone.

`best_score` is the referee for the best score: the longest legal line, by the same
search over the same states with a memo of the longest line left from each state.
"""

from __future__ import annotations

import sys
import time

from blackhole.backends import Backend, Longest, Options, Result, Verdict
from blackhole.base.errors import InputError
from blackhole.model.games import rank_fits, refusal
from blackhole.model.problem import Problem

# The rule features the referee plays: what fits on each hole rank is the game's, it
# turns the talon, and it wins when the fans are empty. Its best score plays Black Hole's
# rules only (`SearchBackend.best_plays`).
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won"})
_CHECK_EVERY = 256  # nodes between clock reads (a node takes ~0.1 ms on a 100-rank deck)


class _OutOfTime(Exception):
    pass


def reachable_ranks_hold_all(count: list[int], hole: int, left: int, modulus: int) -> bool:
    """The referee's own rank-reach test (it shares no code with the look): do the ranks
    the hole can still reach hold all `left` cards? count[r] is the cards of rank r on
    the fans. From rank `hole` the hole moves one rank at a time onto ranks that still
    have cards, so it can only ever reach the unbroken run of such ranks on each side of
    it; cards of any rank outside that run can never be played."""
    reached = count[hole]
    rank, steps = hole, 0
    while steps < modulus - 1:  # upwards, wrapping from the top rank to rank 1
        rank = rank + 1 if rank < modulus else 1
        if not count[rank]:
            break
        reached += count[rank]
        steps += 1
    rank = hole
    while steps < modulus - 1:  # downwards, never past where the upward run ended
        rank = rank - 1 if rank > 1 else modulus
        if not count[rank]:
            break
        reached += count[rank]
        steps += 1
    return reached >= left


class SearchBackend(Backend):
    name = "search"
    max_cells = None  # no model: the search holds the fans and the states it left
    plays = PLAYS

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        searcher = _Searcher(problem, deadline)
        try:
            found = searcher.run()
            verdict = Verdict.SOLVED if found else Verdict.UNSOLVABLE
        except _OutOfTime:
            verdict = Verdict.UNKNOWN
        order = tuple(searcher.path) if verdict is Verdict.SOLVED else None
        return Result(verdict, order, self.name, "dfs", time.perf_counter() - began,
                      {"states": searcher.states})

    def best(self, problem: Problem, options: Options) -> Longest:
        """The referee's longest line: a win when the solving search finds one (its
        rank-reach cut makes it far faster than the longest-line search on a winnable
        position), else `best_score`. At the limit the longest line seen, with no bound
        below the cards to play."""
        self.check_best(options)
        if not problem.game.features <= self.best_plays:
            raise InputError(f"the best score of {problem.game.title} is not found by the "
                             "search engine yet", problem.game.name)
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        searcher = _Searcher(problem, deadline)
        try:
            won = searcher.run()
        except _OutOfTime:
            return Longest((), len(problem.moves), self.name, "dfs",
                           time.perf_counter() - began, {"states": searcher.states})
        if won:
            return Longest(tuple(searcher.path), len(problem.moves), self.name, "dfs",
                           time.perf_counter() - began, {"states": searcher.states})
        found = best_score(problem, deadline)
        # The solving search has refuted a win, so n - 1 bounds every line; a line that long
        # found before the limit is then proven longest all the same.
        bound = min(found.upper_bound, len(problem.moves) - 1)
        return Longest(found.order, bound, self.name, "dfs", time.perf_counter() - began,
                       {"states": searcher.states + found.stats["states"]})


def best_score(problem: Problem, deadline: float | None = None) -> Longest:
    """The longest legal line of `problem` (every card played is a win), with the states
    expanded (`stats["states"]`). `deadline` is a `time.perf_counter()` value; past it the
    longest line seen so far comes back with no bound below the cards to play."""
    searcher = _Searcher(problem, deadline)
    try:
        order = searcher.longest()
    except _OutOfTime:
        return Longest(tuple(searcher.best_path), len(problem.moves),
                       stats={"states": searcher.states})
    return Longest(order, len(order), stats={"states": searcher.states})


class _Searcher:
    def __init__(self, problem: Problem, deadline: float | None) -> None:
        m = problem.modulus
        self.modulus = m
        self.fans = [list(fan) for fan in problem.fans]
        self.rank = problem.rank
        self.heights = [len(fan) for fan in problem.fans]
        game = problem.game
        refused = refusal(game, PLAYS, "the search engine", game.name)
        if refused is not None:
            raise refused
        # fits[h][r]: rank r may go onto hole rank h as the game says; row 0 is the empty
        # foundation (no start node: the first card is free).
        self.fits = [[True] * (m + 1)] + [
            [r != 0 and rank_fits(game, r, h, m) for r in range(m + 1)]
            for h in range(1, m + 1)]
        self.cut = game.plain  # the rank-reach cut holds for Black Hole's rules only
        self.talon = list(problem.talon)
        self.turned = 0
        self.count = [0] * (m + 1)
        for fan in problem.fans:
            for node in fan:
                self.count[problem.rank[node]] += 1
        base = max([*self.heights, len(self.talon)], default=0) + 1
        self.weight = [base ** f for f in range(len(self.fans))]
        self.talon_weight = base ** len(self.fans)  # the state counts the talon turned
        self.hole = 0 if problem.start is None else problem.rank[problem.start]
        self.deadline = deadline
        self.seen: set[int] = set()
        self.path: list[int] = []
        self.best_path: list[int] = []
        self.states = 0

    def run(self) -> bool:
        code = sum(h * w for h, w in zip(self.heights, self.weight, strict=True))
        left = sum(self.heights)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, left + len(self.talon) + 100))
        try:
            return self._dfs(self.hole, code, left)
        finally:
            sys.setrecursionlimit(limit)

    def longest(self) -> tuple[int, ...]:
        """The longest line from the start, read back from the memo of `_longest`."""
        code = sum(h * w for h, w in zip(self.heights, self.weight, strict=True))
        left = sum(self.heights)
        self.memo: dict[int, tuple[int, int]] = {}  # state → (longest line left, its fan)
        self.best_path = []
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, left + 100))
        try:
            self._longest(self.hole, code, left)
        finally:
            sys.setrecursionlimit(limit)
        order, hole, heights = [], self.hole, list(self.heights)
        while True:
            code = sum(h * w for h, w in zip(heights, self.weight, strict=True))
            length, fan = self.memo.get(code * (self.modulus + 1) + hole, (0, -1))
            if not length:
                return tuple(order)
            heights[fan] -= 1
            node = self.fans[fan][heights[fan]]
            order.append(node)
            hole = self.rank[node]

    def _longest(self, hole: int, code: int, left: int) -> int:
        """The most moves from this state (fan heights in `code`, the hole's rank)."""
        if left == 0:
            return 0
        key = code * (self.modulus + 1) + hole
        if key in self.memo:
            return self.memo[key][0]
        self.states += 1
        if self.states % _CHECK_EVERY == 0 and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            raise _OutOfTime
        fits = self.fits[hole]
        heights, fans, rank = self.heights, self.fans, self.rank
        best, choice = 0, -1
        for f, h in enumerate(heights):
            if h and fits[rank[node := fans[f][h - 1]]]:
                heights[f] = h - 1
                self.path.append(node)
                if len(self.path) > len(self.best_path):
                    self.best_path = list(self.path)
                length = 1 + self._longest(rank[node], code - self.weight[f], left - 1)
                self.path.pop()
                heights[f] = h
                if length > best:
                    best, choice = length, f
                    if best == left:  # every card left is played: nothing is longer
                        break
        self.memo[key] = (best, choice)
        return best

    def _dfs(self, hole: int, code: int, left: int) -> bool:
        if left == 0:
            return True
        key = code * (self.modulus + 1) + hole  # hole is 0..modulus
        if key in self.seen:
            return False
        self.seen.add(key)
        self.states += 1
        if self.states % _CHECK_EVERY == 0 and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            raise _OutOfTime
        if hole and self.cut and not reachable_ranks_hold_all(self.count, hole, left,
                                                              self.modulus):
            return False
        fits = self.fits[hole]
        heights, fans, rank, count = self.heights, self.fans, self.rank, self.count
        for f, h in enumerate(heights):
            if h and fits[rank[node := fans[f][h - 1]]]:
                r = rank[node]
                heights[f] = h - 1
                count[r] -= 1
                self.path.append(node)
                if self._dfs(r, code - self.weight[f], left - 1):
                    return True
                self.path.pop()
                count[r] += 1
                heights[f] = h
        turned = self.turned
        if turned < len(self.talon):  # turn the talon's next card, onto any hole
            node = self.talon[turned]
            self.turned = turned + 1
            self.path.append(node)
            if self._dfs(rank[node], code + self.talon_weight, left):
                return True
            self.path.pop()
            self.turned = turned
        return False
