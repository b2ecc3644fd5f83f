"""Exhaustive depth-first search: the independent referee.

It explores states depth first and remembers every state it has left without a win, so
each is expanded once; a state holds the rank on the foundation, never its suit. The
referee reads the Problem (its nodes, ranks, precedence pairs and talon) and what fits
on each rank as the game says (`blackhole.model.games.rank_fits`), and nothing of the
rules engine or the look. Three searches share that plan:

- on a layout of chains (Black Hole's fans, All in a Row's, Golf's columns) a state is
  the height of each fan, the rank on the hole and the talon cards turned. A branch is
  cut when some rank that still has cards cannot be reached from the hole's rank by
  walking the rank cycle through ranks that still have cards: every later hole rank is
  the rank of a card still in the fans, and each move changes the hole's rank by one.
  The cut argues from ranks that wrap and from every card coming off the fans, so it
  runs for Black Hole's rules only (CUT_HOLDS: a free cell too, below); a game with a
  talon is searched with the memo alone.
- on a layout of chains with a free cell (Worm Hole: the features `cells`, `cell_uses`)
  the state adds the cell's card, as its node (-1: empty; a node, not a rank, so no
  argument about suits is needed), and, when the cell's uses are limited, the parks
  still allowed (`_CellSearcher`). Besides the plays, a move parks a fan's top card in
  the empty cell (the card leaves its fan, the hole keeps its rank) or plays the cell's
  card onto the hole when its rank fits (an unpark); nothing goes back to a fan. The
  rank-reach cut stays sound when the cell's card is counted with the fans' cards (in
  `count` and in the cards left): the hole still moves one rank at a time, each move
  onto a card that is on a fan or in the cell (a park moves no card onto the hole and
  changes no count), so every later hole rank is the rank of a card still counted, the
  hole reaches only the unbroken run of counted ranks around it, and a win, which
  moves every counted card onto the hole (it ends with the cell empty), is impossible
  when that run holds fewer than all of them.
- on a cover graph (TriPeaks' peaks, Escalator's pyramid: the feature COVERS) a state
  is the tableau cards gone as a bitmask, the rank on the foundation and the talon cards
  turned; a card is free once every card covering it is gone (`_CoverSearcher`).

Both the memo and the cut keep it complete, so "unsolvable" here is a proof by
exhaustion; the talon's next card may be turned onto any rank, and a game with a talon
is won when the tableau is empty; a game with a cell, when the fans and the cell are.

`best_score` is the referee for the best score: the line that plays the most tableau
cards, by the same search over the same states with a memo of the most cards left to
play from each state (Black Hole's rules over fan heights, a free cell too, with no
rank-reach cut; any other game over the cover graph, which holds chains too and counts
talon turns apart). A line of a game with a cell comes with its parks, each as (node,
hole moves made before it), as `Result.parks` and `Longest.parks` hold them; its order
holds the moves onto the hole alone (a parked card at its unpark), and a best line may
end with a card in the cell. A cell on a cover graph is not played: no game has one.
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
# it plays a cover graph (`_CoverSearcher`) and a free cell on fans (`_CellSearcher`).
CELL_FEATURES: frozenset[str] = frozenset({"cells", "cell_uses"})
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", COVERS}) | CELL_FEATURES
# The rule features under which the rank-reach cut holds (the module's docstring): Black
# Hole's rules, with or without a free cell.
CUT_HOLDS: frozenset[str] = CELL_FEATURES
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
        searcher = _searcher(problem, deadline)
        try:
            found = searcher.run()
            verdict = Verdict.SOLVED if found else Verdict.UNSOLVABLE
        except _OutOfTime:
            verdict = Verdict.UNKNOWN
        won = verdict is Verdict.SOLVED
        return Result(verdict, tuple(searcher.path) if won else None, self.name, "dfs",
                      time.perf_counter() - began, {"states": searcher.states},
                      parks=tuple(searcher.parks) if won else ())

    def best(self, problem: Problem, options: Options) -> Longest:
        """The referee's longest line. Under Black Hole's rules (a free cell too: the
        rank-reach cut holds, CUT_HOLDS): a win when the solving search finds one (its
        cut makes it far faster than the longest-line search on a winnable position),
        else `best_score`; any other game: `best_score` over the cover graph. At the
        limit the longest line seen, with no bound below the cards to play."""
        self.check_best(options)
        self.check_game(problem, "best")
        began = time.perf_counter()
        deadline = None if options.timeout is None else began + options.timeout
        if not (problem.chains and problem.game.features <= CUT_HOLDS):
            found = best_score(problem, deadline)
            return replace(found, backend=self.name, solver="dfs",
                           seconds=time.perf_counter() - began)
        searcher = _searcher(problem, deadline)
        try:
            won = searcher.run()
        except _OutOfTime:
            return Longest((), len(problem.moves), self.name, "dfs",
                           time.perf_counter() - began, {"states": searcher.states})
        if won:
            return Longest(tuple(searcher.path), len(problem.moves), self.name, "dfs",
                           time.perf_counter() - began, {"states": searcher.states},
                           parks=tuple(searcher.parks))
        found = best_score(problem, deadline)
        # The solving search has refuted a win, so n - 1 bounds every line; a line that long
        # found before the limit is then proven longest all the same.
        bound = min(found.upper_bound, len(problem.moves) - 1)
        return Longest(found.order, bound, self.name, "dfs", time.perf_counter() - began,
                       {"states": searcher.states + found.stats["states"]},
                       parks=found.parks)


def best_score(problem: Problem, deadline: float | None = None) -> Longest:
    """The longest legal line of `problem`: the most tableau cards played (every one is
    a win), with the states expanded (`stats["states"]`) and the talon cards it turns
    (`turned`). `deadline` is a `time.perf_counter()` value; past it the longest line
    seen so far comes back with no bound below the cards to play. A line of a game with
    a cell comes with its parks (`Longest.parks`)."""
    if not (problem.game.plain or problem.game.rules.cells):
        return _cover_best(problem, deadline)
    searcher = (_CellSearcher if problem.game.rules.cells else _Searcher)(problem, deadline)
    try:
        order, parks = searcher.longest()
    except _OutOfTime:
        return Longest(tuple(searcher.best_path), len(problem.moves),
                       stats={"states": searcher.states}, parks=tuple(searcher.best_parks))
    return Longest(order, len(order), stats={"states": searcher.states}, parks=parks)


def _searcher(problem: Problem, deadline: float | None) -> _Searcher | _CoverSearcher:
    """The search that plays the Problem's layout and rules: a free cell on fans
    (`_CellSearcher`, which refuses a cell on a cover graph), fans, or a cover graph."""
    if problem.game.rules.cells:
        return _CellSearcher(problem, deadline)
    return _Searcher(problem, deadline) if problem.chains else _CoverSearcher(problem, deadline)


def _cover_best(problem: Problem, deadline: float | None) -> Longest:
    """`best_score` over the cover graph (`_CoverSearcher.longest`)."""
    searcher = _CoverSearcher(problem, deadline)
    try:
        order, proven = searcher.longest()[0], True
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

    plays = PLAYS - {COVERS} - CELL_FEATURES  # the rule features this search plays

    def __init__(self, problem: Problem, deadline: float | None) -> None:
        game = problem.game
        refused = refusal(game, self.plays, "the search engine", game.name)
        if refused is not None:
            raise refused
        m = problem.modulus
        self.modulus = m
        self.fans = [list(fan) for fan in problem.fans]
        self.rank = problem.rank
        self.heights = [len(fan) for fan in problem.fans]
        # fits[h][r]: rank r may go onto hole rank h as the game says; row 0 is the empty
        # foundation (no start node: the first card is free).
        self.fits = [[True] * (m + 1)] + [
            [r != 0 and rank_fits(game, r, h, m) for r in range(m + 1)]
            for h in range(1, m + 1)]
        self.cut = game.features <= CUT_HOLDS  # the rank-reach cut: Black Hole's rules
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
        self.parks: list[tuple[int, int]] = []  # no cell: a line never parks
        self.best_parks: list[tuple[int, int]] = []
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

    def longest(self) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """The longest line from the start, read back from the memo of `_longest`, and
        its parks (none)."""
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
                return tuple(order), ()
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

    def _plays(self, hole: int) -> Iterator[tuple[int, int]]:
        """Each fan whose top card fits onto `hole`, with that card's rank, while the card
        is played (off its fan, out of the rank count, on the path); it is put back when
        the caller asks for the next (a caller that stops early keeps the play)."""
        fits = self.fits[hole]
        heights, fans, rank, count = self.heights, self.fans, self.rank, self.count
        for f, h in enumerate(heights):
            if h and fits[r := rank[node := fans[f][h - 1]]]:
                heights[f] = h - 1
                count[r] -= 1
                self.path.append(node)
                yield f, r
                self.path.pop()
                count[r] += 1
                heights[f] = h

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
        for f, r in self._plays(hole):
            if self._dfs(r, code - self.weight[f], left - 1):
                return True
        turned = self.turned
        if turned < len(self.talon):  # turn the talon's next card, onto any hole
            node = self.talon[turned]
            self.turned = turned + 1
            self.path.append(node)
            if self._dfs(self.rank[node], code + self.talon_weight, left):
                return True
            self.path.pop()
            self.turned = turned
        return False


class _CellSearcher(_Searcher):
    """The search over a layout of chains with a free cell (Worm Hole): a state is the
    height of each fan, the rank on the hole, the cell's card as its node (-1: empty)
    and, when the cell's uses are limited, the parks still allowed. The moves are the
    plays of the fans' top cards, the unpark of the cell's card, and a park of each
    fan's top card while the cell is empty and may take one. `count` and the cards left
    count the cell's card (the rank-reach cut reads them: the module's docstring). The
    line is `path` (the moves onto the hole) and `parks` ((node, len(path) then))."""

    # what fits on each hole rank is the game's; it turns no talon, and it wins with the
    # fans and the cell empty (Won.ALL), on fans
    plays = frozenset({"wrap", "on_king"}) | CELL_FEATURES

    def __init__(self, problem: Problem, deadline: float | None) -> None:
        super().__init__(problem, deadline)
        self.cell = -1 if problem.cell is None else problem.cell
        if self.cell >= 0:
            self.count[problem.rank[self.cell]] += 1
        # The key's last two digits: the cell (node + 1, 0 for empty) and the parks still
        # allowed (`spare`), a park spending `spends` of them. `run` first searches with
        # 0, 1, ... parks allowed (`levels` of them), then with the parks the game allows:
        # with no limit, the digit `levels`, which a park does not spend.
        self.slots = problem.size + 1
        self.limit = problem.parks_left
        self.levels = _DEEPEN if self.limit is None else min(max(self.limit, 0), _DEEPEN)
        self.spare = max(self.limit, 0) if self.limit is not None else self.levels
        self.spends = 0 if self.limit is None else 1
        self.uses = self.spare + 1

    def _start(self) -> tuple[int, int]:
        """The start's fan-height code and cards left (the cell's card counted)."""
        code = sum(h * w for h, w in zip(self.heights, self.weight, strict=True))
        return code, sum(self.heights) + (self.cell >= 0)

    def _key(self, hole: int, code: int, cell: int, spare: int) -> int:
        return ((code * (self.modulus + 1) + hole) * self.slots + cell + 1) * self.uses + spare

    def _tick(self) -> None:
        self.states += 1
        if self.states % _CHECK_EVERY == 0 and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            raise _OutOfTime

    def run(self) -> bool:
        """A win with 0, 1, ... parks first (most lines need few, and a search that may
        park at every dead end goes deep into parks before it backs up to the early
        choices), then with every park the game allows, which alone decides a loss. A
        state refuted with `s` parks allowed stays refuted for every level after it (its
        key holds `s`), so the levels share one memo."""
        code, left = self._start()
        spends = self.spends
        with _recursion_room(2 * left):  # each card parked at most once, played once
            try:
                self.spends = 1
                for allowed in range(self.levels):
                    if self._win(self.hole, code, left, self.cell, allowed):
                        return True
            finally:
                self.spends = spends
            return self._win(self.hole, code, left, self.cell, self.spare)

    def _win(self, hole: int, code: int, left: int, cell: int, spare: int) -> bool:
        """Does a win follow from this state? `left` counts the fans' cards and the
        cell's."""
        if left == 0:  # the fans and the cell are empty
            return True
        key = self._key(hole, code, cell, spare)
        if key in self.seen:
            return False
        self.seen.add(key)
        self._tick()
        if hole and self.cut and not reachable_ranks_hold_all(self.count, hole, left,
                                                              self.modulus):
            return False
        fits = self.fits[hole]
        heights, fans, rank, count = self.heights, self.fans, self.rank, self.count
        if cell >= 0 and fits[r := rank[cell]]:  # the cell's card onto the hole
            count[r] -= 1
            self.path.append(cell)
            if self._win(r, code, left - 1, -1, spare):
                return True
            self.path.pop()
            count[r] += 1
        for f, r in self._plays(hole):
            if self._win(r, code - self.weight[f], left - 1, cell, spare):
                return True
        if cell < 0 and spare:  # park a fan's top card: it stays counted, in the cell
            for f, h in enumerate(heights):
                if h:
                    node = fans[f][h - 1]
                    heights[f] = h - 1
                    self.parks.append((node, len(self.path)))
                    if self._win(hole, code - self.weight[f], left, node,
                                 spare - self.spends):
                        return True
                    self.parks.pop()
                    heights[f] = h
        return False

    def longest(self) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """The line that moves the most cards onto the hole, read back from the memo of
        `_most`, and its parks; it ends with its last move onto the hole (a card may be
        left in the cell)."""
        code, left = self._start()
        self.memo = {}  # state → (most cards moved from it, its first move)
        self.best_path, self.best_parks = [], []
        with _recursion_room(2 * left):
            self._most(self.hole, code, left, self.cell, self.spare)
        order: list[int] = []
        parks: list[tuple[int, int]] = []
        hole, cell, spare, heights = self.hole, self.cell, self.spare, list(self.heights)
        while True:
            code = sum(h * w for h, w in zip(heights, self.weight, strict=True))
            most, move = self.memo.get(self._key(hole, code, cell, spare), (0, 0))
            if not most:
                return tuple(order), tuple(parks)
            if move == _UNPARK:
                order.append(cell)
                hole, cell = self.rank[cell], -1
                continue
            fan = move if move >= 0 else _parked_fan(move)
            heights[fan] -= 1
            node = self.fans[fan][heights[fan]]
            if move >= 0:
                order.append(node)
                hole = self.rank[node]
            else:
                parks.append((node, len(order)))
                cell, spare = node, spare - self.spends

    def _most(self, hole: int, code: int, left: int, cell: int, spare: int) -> int:
        """The most cards moved onto the hole from this state; the memo keeps the move
        that starts such a line: a fan (a play), _UNPARK, or `_park_move(fan)`."""
        if left == 0:
            return 0
        key = self._key(hole, code, cell, spare)
        if key in self.memo:
            return self.memo[key][0]
        self._tick()
        fits = self.fits[hole]
        heights, fans, rank, path = self.heights, self.fans, self.rank, self.path
        best, choice = 0, 0
        if cell >= 0 and fits[rank[cell]]:
            path.append(cell)
            self._keep_longest()
            best, choice = 1 + self._most(rank[cell], code, left - 1, -1, spare), _UNPARK
            path.pop()
        for f, h in enumerate(heights):
            if best == left:  # every card left moves onto the hole: nothing is longer
                break
            if h and fits[rank[node := fans[f][h - 1]]]:
                heights[f] = h - 1
                path.append(node)
                self._keep_longest()
                length = 1 + self._most(rank[node], code - self.weight[f], left - 1, cell,
                                        spare)
                path.pop()
                heights[f] = h
                if length > best:
                    best, choice = length, f
        if cell < 0 and spare:
            for f, h in enumerate(heights):
                if best == left:
                    break
                if h:
                    node = fans[f][h - 1]
                    heights[f] = h - 1
                    self.parks.append((node, len(path)))
                    length = self._most(hole, code - self.weight[f], left, node,
                                        spare - self.spends)
                    self.parks.pop()
                    heights[f] = h
                    if length > best:
                        best, choice = length, _park_move(f)
        self.memo[key] = (best, choice)
        return best

    def _keep_longest(self) -> None:
        """Keep the line now searched if it is the longest seen (the answer at the limit)."""
        if len(self.path) > len(self.best_path):
            self.best_path, self.best_parks = list(self.path), list(self.parks)


# The park limits `_CellSearcher.run` tries first (0, then 1): on pysol:1-30 of Worm Hole
# the unbounded search alone took 141 s (pysol:8 past 60 s), these levels first 26 s,
# as long as Black Hole's search of the same deals; 3 levels gained nothing more.
_DEEPEN = 2
_UNPARK = -1  # `_CellSearcher`'s memo: the move that plays the cell's card


def _park_move(fan: int) -> int:
    """`_CellSearcher`'s memo: the move that parks `fan`'s top card (below _UNPARK)."""
    return -2 - fan


def _parked_fan(move: int) -> int:
    """The fan a park move (`_park_move`) takes its card from."""
    return -2 - move


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
        refused = refusal(game, PLAYS - CELL_FEATURES, "the search engine", game.name)
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
        self.parks: list[tuple[int, int]] = []  # no cell: a line never parks
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

    def longest(self) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """The line that plays the most tableau cards, read back from the memo of
        `_most`, and its parks (none): it ends with its last tableau card (a talon card
        turned after it scores nothing)."""
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
        return tuple(order), ()

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
