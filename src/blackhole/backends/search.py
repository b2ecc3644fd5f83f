"""Exhaustive depth-first search: the independent referee.

It explores states depth first and remembers every state it has left without a win, so
each is expanded once; a state holds the rank on the foundation, never its suit. The
referee reads the Problem (its nodes, ranks, precedence pairs and talon) and what fits
on each rank as the game says (`blackhole.model.games.rank_fits`), and nothing of the
rules engine or the look. Two searches share that plan:

- on a layout of chains (Black Hole's fans, All in a Row's, Golf's columns) a state is
  the height of each fan, the rank on the hole and the talon cards turned. A branch is
  cut when some rank that still has cards cannot be reached from the hole's rank by
  walking the rank cycle through ranks that still have cards: every later hole rank is
  the rank of a card still in the fans, and each move changes the hole's rank by one.
  The cut argues from ranks that wrap and from every card coming off the fans, so it
  runs for Black Hole's rules only; a game with a talon is searched with the memo alone.
- on a cover graph (TriPeaks' peaks, Escalator's pyramid: the feature COVERS) a state
  is the tableau cards gone as a bitmask, the rank on the foundation and the talon cards
  turned; a card is free once every card covering it is gone (`_CoverSearcher`).

Both the memo and the cut keep it complete, so "unsolvable" here is a proof by
exhaustion; the talon's next card may be turned onto any rank, and a game with a talon
is won when the tableau is empty.

`best_score` is the referee for the best score: the line that plays the most tableau
cards, by the same search over the same states with a memo of the most cards left to
play from each state (Black Hole's rules over fan heights; any other game over the
cover graph, which holds chains too and counts talon turns apart).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from blackhole.backends import Backend, Longest, Options, Result, Verdict
from blackhole.model.games import COVERS, rank_fits, refusal
from blackhole.model.problem import Problem

# The rule features the referee plays, for a solve and a best score alike: what fits on
# each hole rank is the game's, it turns the talon, it wins when the tableau is empty,
# and it plays a cover graph (`_CoverSearcher`).
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", COVERS})
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
    best_plays = PLAYS

    def solve(self, problem: Problem, options: Options) -> Result:
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        searcher = (_Searcher(problem, deadline) if problem.chains
                    else _CoverSearcher(problem, deadline))
        try:
            found = searcher.run()
            verdict = Verdict.SOLVED if found else Verdict.UNSOLVABLE
        except _OutOfTime:
            verdict = Verdict.UNKNOWN
        order = tuple(searcher.path) if verdict is Verdict.SOLVED else None
        return Result(verdict, order, self.name, "dfs", time.perf_counter() - began,
                      {"states": searcher.states})

    def best(self, problem: Problem, options: Options) -> Longest:
        """The referee's longest line. Under Black Hole's rules: a win when the solving
        search finds one (its rank-reach cut makes it far faster than the longest-line
        search on a winnable position), else `best_score`; any other game: `best_score`
        over the cover graph. At the limit the longest line seen, with no bound below
        the cards to play."""
        self.check_best(options)
        self.check_game(problem, "best")
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        if not problem.game.plain:
            found = best_score(problem, deadline)
            return replace(found, backend=self.name, solver="dfs",
                           seconds=time.perf_counter() - began)
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
    """The longest legal line of `problem`: the most tableau cards played (every one is
    a win), with the states expanded (`stats["states"]`) and the talon cards it turns
    (`turned`). `deadline` is a `time.perf_counter()` value; past it the longest line
    seen so far comes back with no bound below the cards to play."""
    if not problem.game.plain:
        return _cover_best(problem, deadline)
    searcher = _Searcher(problem, deadline)
    try:
        order = searcher.longest()
    except _OutOfTime:
        return Longest(tuple(searcher.best_path), len(problem.moves),
                       stats={"states": searcher.states})
    return Longest(order, len(order), stats={"states": searcher.states})


def _cover_best(problem: Problem, deadline: float | None) -> Longest:
    """`best_score` over the cover graph (`_CoverSearcher.longest`)."""
    searcher = _CoverSearcher(problem, deadline)
    try:
        order, proven = searcher.longest(), True
    except _OutOfTime:
        order, proven = tuple(searcher.best_path), False
    turned = sum(node in searcher.talon for node in order)
    bound = len(order) - turned if proven else len(problem.required)
    return Longest(order, bound, stats={"states": searcher.states}, turned=turned)


@contextmanager
def _recursion_room(depth: int) -> Iterator[None]:
    """A recursion limit that leaves room for `depth` nested calls, restored after."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, depth + 100))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


class _Searcher:
    """The search over a layout of chains: a state is the height of each fan, the rank
    on the hole and the talon cards turned."""

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


class _CoverSearcher:
    """The search over a cover graph, for a game whose layout is not made of chains or
    that has rules of its own. A state is the tableau cards gone (bit i for the i-th
    node of `Problem.required`), the rank on the foundation (0: empty) and the talon
    cards turned. A tableau card plays when every card covering it (the Problem's
    precedence pairs among the tableau's nodes) is gone and its rank fits the
    foundation's as the game says; the talon's next card may be turned onto anything.
    The game is won when every tableau card is gone; talon cards may remain."""

    def __init__(self, problem: Problem, deadline: float | None) -> None:
        game = problem.game
        refused = refusal(game, PLAYS, "the search engine", game.name)
        if refused is not None:
            raise refused
        m = problem.modulus
        self.nodes = problem.required
        bit = {node: i for i, node in enumerate(self.nodes)}
        # over[i]: the cards covering card i, as a bitmask
        self.over = [0] * len(self.nodes)
        for before, after in problem.precedence:
            if before in bit and after in bit:
                self.over[bit[after]] |= 1 << bit[before]
        self.rank = [problem.rank[node] for node in self.nodes]
        # fitting[h]: the cards whose rank may go onto foundation rank h (0: any card)
        self.fitting = [sum(1 << i for i, r in enumerate(self.rank)
                            if h == 0 or rank_fits(game, r, h, m)) for h in range(m + 1)]
        self.talon = problem.talon
        self.talon_rank = [problem.rank[node] for node in self.talon]
        self.full = (1 << len(self.nodes)) - 1
        self.hole = 0 if problem.start is None else problem.rank[problem.start]
        self.ranks = m + 1
        self.deadline = deadline
        self.seen: set[int] = set()
        self.memo: dict[int, tuple[int, int]] = {}  # state → (most cards left, its move)
        self.path: list[int] = []
        self.best_path: list[int] = []
        self.best_played = 0
        self.states = 0

    def _key(self, gone: int, hole: int, turned: int) -> int:
        return ((turned * self.ranks + hole) << len(self.nodes)) | gone

    def _expand(self) -> None:
        self.states += 1
        if self.states % _CHECK_EVERY == 0 and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            raise _OutOfTime

    def playable(self, gone: int, hole: int) -> list[int]:
        """The cards (bit indexes) free when `gone` are gone that fit on rank `hole`."""
        ready = []
        waiting = self.fitting[hole] & ~gone
        while waiting:
            low = waiting & -waiting
            i = low.bit_length() - 1
            if not self.over[i] & ~gone:
                ready.append(i)
            waiting ^= low
        return ready

    def run(self) -> bool:
        with _recursion_room(len(self.nodes) + len(self.talon)):
            return self._win(0, self.hole, 0)

    def _win(self, gone: int, hole: int, turned: int) -> bool:
        if gone == self.full:
            return True
        key = self._key(gone, hole, turned)
        if key in self.seen:
            return False
        self.seen.add(key)
        self._expand()
        for i in self.playable(gone, hole):
            self.path.append(self.nodes[i])
            if self._win(gone | 1 << i, self.rank[i], turned):
                return True
            self.path.pop()
        if turned < len(self.talon):
            self.path.append(self.talon[turned])
            if self._win(gone, self.talon_rank[turned], turned + 1):
                return True
            self.path.pop()
        return False

    def longest(self) -> tuple[int, ...]:
        """The line that plays the most tableau cards, read back from the memo of
        `_most`: it ends with its last tableau card (a talon card turned after it scores
        nothing)."""
        with _recursion_room(len(self.nodes) + len(self.talon)):
            self._most(0, self.hole, 0, 0)
        order: list[int] = []
        gone, hole, turned = 0, self.hole, 0
        while gone != self.full:
            most, move = self.memo[self._key(gone, hole, turned)]
            if not most:
                break
            if move < 0:
                order.append(self.talon[turned])
                hole, turned = self.talon_rank[turned], turned + 1
            else:
                order.append(self.nodes[move])
                gone, hole = gone | 1 << move, self.rank[move]
        return tuple(order)

    def _most(self, gone: int, hole: int, turned: int, played: int) -> int:
        """The most tableau cards any line plays from this state (`played` were played
        to reach it, to keep the longest line seen)."""
        if played > self.best_played:
            self.best_played, self.best_path = played, list(self.path)
        if gone == self.full:
            return 0
        key = self._key(gone, hole, turned)
        if key in self.memo:
            return self.memo[key][0]
        self._expand()
        left = len(self.nodes) - gone.bit_count()
        most, choice = 0, -1
        for i in self.playable(gone, hole):
            self.path.append(self.nodes[i])
            found = 1 + self._most(gone | 1 << i, self.rank[i], turned, played + 1)
            self.path.pop()
            if found > most:
                most, choice = found, i
                if most == left:  # every tableau card left is played: nothing is more
                    break
        if most < left and turned < len(self.talon):
            self.path.append(self.talon[turned])
            found = self._most(gone, self.talon_rank[turned], turned + 1, played)
            self.path.pop()
            if found > most:
                most, choice = found, -1
        self.memo[key] = (most, choice)
        return most
