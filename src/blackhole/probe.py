"""A fast first look: a greedy search over a Problem under a node budget.

Only legal moves are tried (a fan's top card, rank-adjacent to the hole's card), best
first by a heuristic: the card whose rank has the most cards still in play (a rank with
few left is kept as a bridge for later), then the one from the fan with the most cards
left (it frees the deepest buried cards). Adding "keeps the most moves open" to the key,
or putting the fan's height first, found fewer lines on pysol:1-1000.

The order is followed as limited discrepancy search (Harvey and Ginsberg, 1995): pass k
explores every line that leaves the heuristic's first choice at most k times. A heuristic
that is mostly right is mostly wrong near the top of the tree, where a depth-first search
would never get back to; at 3000 nodes this settles 672 deals of pysol:1-1000 against
583 for plain depth-first search.

Two sound cuts keep the budget for live branches, the same two the `search` backend
uses: a state (the fans' heights and the hole's rank) explored to the end is not explored
again, and a state whose hole cannot walk, one rank step at a time, over every rank that
still has cards is dead (its unreachable cards can never be played).

The look answers in three ways: a full line (a win, which the caller replays), "refuted"
(a pass explored the whole tree within the budget: no line plays every card, as complete
a method as the `search` backend), or nothing (out of budget).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from blackhole.cards import rank_adjacent
from blackhole.problem import Problem

# Nodes (moves tried, over all passes); a line is 51 moves. On pysol:1-1000 (877
# winnable, 123 not) the look settles 543 deals at 1000 nodes, 635 at 2000, 672 at 3000
# (560 wins, 112 refutations), 723 at 5000 and 785 at 10000; a node costs a few
# microseconds. Behind it, total seconds of the sat backend were lowest from 4000 to 8000.
DEFAULT_BUDGET = 5000  # the Python engine's default
PYTHON_BUDGET = DEFAULT_BUDGET
COMPILED_BUDGET = 50_000  # the compiled core's default (measured below the docstring)

try:  # the compiled core, built at install time where a C compiler is at hand
    from blackhole import _probe_core
except ImportError:  # pragma: no cover - an install without a compiler
    _probe_core = None

# "python" makes probe search with the Python code alone; "auto" (the default) uses the
# compiled core when it is built.
ENGINE_VARIABLE = "BLACKHOLE_PROBE_ENGINE"
ENGINES = ("auto", "python")


@dataclass(frozen=True)
class Look:
    line: tuple[int, ...] | None  # a full line (nodes in play order, start excluded)
    refuted: bool  # the budget covered the whole tree and no full line exists
    nodes: int  # moves tried


class _OutOfBudget(Exception):
    pass


def walk_covers(left: list[int], hole: int, cards: int, modulus: int) -> bool:
    """The rank-walk cut: can the hole (rank `hole`) still reach all `cards` cards left,
    where left[r] counts the cards of rank r on the fans? The hole moves one rank at a
    time, so it only ever shows ranks on the unbroken run of ranks with cards around it;
    a card outside that run can never be played. Used by the look and by `search`."""
    covered, up = left[hole], hole
    for _ in range(modulus - 1):
        up = up % modulus + 1
        if not left[up]:
            break
        covered += left[up]
    else:
        return True  # every rank is on one unbroken walk
    down = hole
    for _ in range(modulus - 1):  # stops at the gap the upward walk found, at the latest
        down = (down - 2) % modulus + 1
        if not left[down]:
            break
        covered += left[down]
    return covered >= cards


def c_engine_built() -> bool:
    """Is the compiled core of the look installed?"""
    return _probe_core is not None


def _engine(engine: str | None) -> str:
    choice = os.environ.get(ENGINE_VARIABLE, "auto") if engine is None else engine
    if choice not in ENGINES:
        raise ValueError(f"unknown probe engine {choice!r} (choose from "
                         f"{', '.join(ENGINES)}; {ENGINE_VARIABLE} sets it)")
    return "c" if choice == "auto" and _probe_core is not None else "python"


def default_budget(engine: str | None = None) -> int:
    """The budget `probe` uses when given none: COMPILED_BUDGET where the compiled core
    runs, else PYTHON_BUDGET (``engine``: "auto", "python" or None for the variable)."""
    return COMPILED_BUDGET if _engine(engine) == "c" else PYTHON_BUDGET


def probe(problem: Problem, budget: int | None = None, *, engine: str | None = None) -> Look:
    """Search `problem` for a full line, trying at most `budget` moves (None: the engine's
    default, see `default_budget`). ``engine`` is "auto" (the compiled core when built) or
    "python"; None reads $BLACKHOLE_PROBE_ENGINE, else "auto". Both give the same Look."""
    use = _engine(engine)
    if budget is None:
        budget = COMPILED_BUDGET if use == "c" else PYTHON_BUDGET
    if use == "c" and isinstance(budget, int):
        assert _probe_core is not None
        start = 0 if problem.start is None else problem.rank[problem.start]
        rank = problem.rank
        status, line, nodes = _probe_core.look(
            problem.fans, [[rank[node] for node in fan] for fan in problem.fans],
            problem.modulus, start, max(-1, min(budget, 2**62)))
        return Look(line, status == 0, nodes)
    return _python_probe(problem, budget)


def _python_probe(problem: Problem, budget: int) -> Look:
    fans, rank, m = problem.fans, problem.rank, problem.modulus
    heights = [len(fan) for fan in fans]
    left = [0] * (m + 1)  # cards of each rank still on the fans
    for fan in fans:
        for node in fan:
            left[rank[node]] += 1
    # onto[h]: the ranks that may go onto hole rank h (0: the empty foundation takes any);
    # showing[r]: the fans whose top card has rank r, so a node looks at its moves only.
    onto = [list(range(1, m + 1))] + [
        [r for r in range(1, m + 1) if rank_adjacent(r, h, m)] for h in range(1, m + 1)]
    showing: list[set[int]] = [set() for _ in range(m + 1)]
    for f, fan in enumerate(fans):
        if fan:
            showing[rank[fan[-1]]].add(f)
    weight = [1] * len(fans)
    for f in range(1, len(fans)):
        weight[f] = weight[f - 1] * (len(fans[f - 1]) + 1)
    line: list[int] = []
    dead: set[int] = set()
    spent = 0
    gaps = [sum(1 for r in range(1, m + 1) if not left[r])]  # ranks with no card left

    fan_ranks = [[rank[node] for node in fan] for fan in fans]
    stride = m + 1

    def search(hole: int, code: int, cards: int, allowed: int) -> bool | None:
        """True: a full line is in `line`; False: no line from here (remembered); None: a
        line may leave the heuristic more than `allowed` times more."""
        nonlocal spent
        if cards == 0:
            return True
        key = code * stride + hole
        if key in dead:
            return False
        # While at most one rank is empty the walk from any rank reaches every other.
        if hole and gaps[0] > 1 and not walk_covers(left, hole, cards, m):
            dead.add(key)
            return False
        moves = [(-left[r], -heights[f], f) for r in onto[hole] for f in showing[r]]
        if allowed:
            moves.sort()
            cut = False
        else:  # only the first choice: a second one would be a discrepancy
            cut = len(moves) > 1
            if cut:
                moves = [min(moves)]
        for i, (_, _, f) in enumerate(moves):
            if spent >= budget:
                raise _OutOfBudget
            spent += 1
            h = heights[f] - 1
            heights[f] = h
            ranks = fan_ranks[f]
            r = ranks[h]
            showing[r].discard(f)
            if h:
                showing[ranks[h - 1]].add(f)
            left[r] -= 1
            if not left[r]:
                gaps[0] += 1
            line.append(fans[f][h])
            found = search(r, code - weight[f], cards - 1, allowed - (i > 0))
            if found:
                return True
            cut = cut or found is None
            line.pop()
            if not left[r]:
                gaps[0] -= 1
            left[r] += 1
            if h:
                showing[ranks[h - 1]].discard(f)
            showing[r].add(f)
            heights[f] = h + 1
        if cut:
            return None
        dead.add(key)
        return False

    start = 0 if problem.start is None else rank[problem.start]
    code = sum(h * w for h, w in zip(heights, weight, strict=True))
    cards = sum(heights)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, cards + 100))
    try:
        found = None
        allowed = 0
        while found is None:
            found = search(start, code, cards, allowed)
            allowed += 1
    except _OutOfBudget:
        return Look(None, False, spent)
    finally:
        sys.setrecursionlimit(limit)
    return Look(tuple(line) if found else None, not found, spent)
