"""A fast first look: a greedy depth-first search over a Problem under a node budget.

Only legal moves are tried (a fan's top card, rank-adjacent to the hole's card), best
first by a heuristic: the card whose rank has the most cards still in play (a rank with
few left is kept as a bridge for later), then the one from the fan with the most cards
left (it frees the deepest buried cards). Measured on pysol:1-1000 at 1000 nodes, this
order finds 388 lines; fans first 228, and adding "keeps the most moves open" to either
key finds fewer (260-355).

Two sound cuts keep the budget for live branches, the same two the `search` backend
uses: a state (the fans' heights and the hole's rank) explored to the end is not explored
again, and a state whose hole cannot walk, one rank step at a time, over every rank that
still has cards is dead (its unreachable cards can never be played).

The look answers in three ways: a full line (a win, which the caller replays), "refuted"
(the whole tree was explored within the budget: no line plays every card, as complete a
method as the `search` backend), or nothing (out of budget).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from blackhole.cards import rank_adjacent
from blackhole.problem import Problem

# Nodes (moves tried); a line is 51 moves. On pysol:1-1000 (877 winnable, 123 not) the
# look settles 391 deals at 200 nodes (287 wins), 457 at 500, 501 at 1000, 553 at 2000 and
# 583 at 3000 (469 wins, 114 refutations); a failed look costs about 3 microseconds a
# node. With the SAT solver after it, 3000 gave the lowest total (6000 no lower).
DEFAULT_BUDGET = 3000


@dataclass(frozen=True)
class Look:
    line: tuple[int, ...] | None  # a full line (nodes in play order, start excluded)
    refuted: bool  # the budget covered the whole tree and no full line exists
    nodes: int  # moves tried


class _OutOfBudget(Exception):
    pass


def probe(problem: Problem, budget: int = DEFAULT_BUDGET) -> Look:
    """Search `problem` for a full line, trying at most `budget` moves."""
    fans, rank, m = problem.fans, problem.rank, problem.modulus
    heights = [len(fan) for fan in fans]
    left = [0] * (m + 1)  # cards of each rank still on the fans
    for fan in fans:
        for node in fan:
            left[rank[node]] += 1
    # fits[h][r]: rank r may go onto hole rank h; row 0 is the empty foundation.
    fits = [[True] * (m + 1)] + [
        [r != 0 and rank_adjacent(r, h, m) for r in range(m + 1)] for h in range(1, m + 1)]
    weight = [1] * len(fans)
    for f in range(1, len(fans)):
        weight[f] = weight[f - 1] * (len(fans[f - 1]) + 1)
    line: list[int] = []
    dead: set[int] = set()
    spent = 0

    def reaches_all(hole: int, cards: int) -> bool:
        """Does the hole's rank walk (up and down, no rank without cards on the way) cover
        every card left?"""
        covered, up = left[hole], hole
        for _ in range(m - 1):
            up = up % m + 1
            if not left[up]:
                break
            covered += left[up]
        else:
            return True
        down = hole
        for _ in range(m - 1):
            down = (down - 2) % m + 1
            if not left[down]:
                break
            covered += left[down]
        return covered >= cards

    def search(hole: int, code: int, cards: int) -> bool:
        nonlocal spent
        if cards == 0:
            return True
        key = code * (m + 1) + hole
        if key in dead:
            return False
        if hole and not reaches_all(hole, cards):
            dead.add(key)
            return False
        fit = fits[hole]
        moves = []
        for f, h in enumerate(heights):
            if h and fit[r := rank[fans[f][h - 1]]]:
                moves.append((-left[r], -h, f))
        moves.sort()
        for _, _, f in moves:
            if spent >= budget:
                raise _OutOfBudget
            spent += 1
            heights[f] -= 1
            node = fans[f][heights[f]]
            left[rank[node]] -= 1
            line.append(node)
            if search(rank[node], code - weight[f], cards - 1):
                return True
            line.pop()
            left[rank[node]] += 1
            heights[f] += 1
        dead.add(key)
        return False

    start = 0 if problem.start is None else rank[problem.start]
    code = sum(h * w for h, w in zip(heights, weight, strict=True))
    cards = sum(heights)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, cards + 100))
    try:
        won = search(start, code, cards)
    except _OutOfBudget:
        return Look(None, False, spent)
    finally:
        sys.setrecursionlimit(limit)
    return Look(tuple(line) if won else None, not won, spent)
