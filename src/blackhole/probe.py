"""A fast first look: a greedy depth-first search over a Problem under a node budget.

Only legal moves are tried (a fan's top card, rank-adjacent to the hole's card), best
first by a heuristic: the card whose rank has the most cards still in play (a rank with
few left is kept as a bridge for later), then the one from the fan with the most cards
left (it frees the deepest buried cards). Measured on pysol:1-1000 at 300 nodes, this
order finds 286 lines; fans first 131, scarce ranks first 2. Positions already explored to
the end are not explored again (the state is the fans' heights and the hole's rank).

The probe is incomplete: it answers a full line or nothing, never "no line exists".
"""

from __future__ import annotations

from blackhole.cards import rank_adjacent
from blackhole.problem import Problem

# Nodes (moves tried); a line is 51 moves. On pysol:1-1000 (877 winnable) the probe finds
# 206 lines at 100 nodes, 262 at 200, 286 at 300 and 346 at 1000; a failed probe costs
# about 10 microseconds a node, so past ~200 the extra hits no longer pay for the misses.
DEFAULT_BUDGET = 200


def probe(problem: Problem, budget: int = DEFAULT_BUDGET) -> tuple[tuple[int, ...] | None, int]:
    """A full line (nodes in play order, start excluded) found within `budget` nodes, or
    None; and the nodes spent."""
    fans = problem.fans
    rank = problem.rank
    modulus = problem.modulus
    heights = [len(fan) for fan in fans]
    left = [0] * (modulus + 1)
    for fan in fans:
        for node in fan:
            left[rank[node]] += 1
    adjacent = [[False] * (modulus + 1) for _ in range(modulus + 1)]
    for a in range(1, modulus + 1):
        for b in range(1, modulus + 1):
            adjacent[a][b] = rank_adjacent(a, b, modulus)
    total = sum(heights)
    line: list[int] = []
    dead: set[tuple[int, tuple[int, ...]]] = set()
    spent = 0

    def search(current: int) -> bool | None:
        """True: the line is complete; False: no line from here; None: out of budget."""
        nonlocal spent
        if len(line) == total:
            return True
        key = (current, tuple(heights))
        if key in dead:
            return False
        moves = [f for f, h in enumerate(heights)
                 if h and (current == 0 or adjacent[current][rank[fans[f][h - 1]]])]
        moves.sort(key=lambda f: (-left[rank[fans[f][heights[f] - 1]]], -heights[f]))
        for f in moves:
            if spent >= budget:
                return None
            spent += 1
            node = fans[f][heights[f] - 1]
            heights[f] -= 1
            left[rank[node]] -= 1
            line.append(node)
            found = search(rank[node])
            if found is not False:
                return found
            line.pop()
            left[rank[node]] += 1
            heights[f] += 1
        dead.add(key)
        return False

    start = 0 if problem.start is None else rank[problem.start]
    found = search(start)
    return (tuple(line) if found else None), spent
