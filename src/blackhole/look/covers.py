"""The look on a layout that is not made of chains (a cover graph: TriPeaks' peaks,
Escalator's pyramid), where a card may wait for two cards.

The tableau's cards are slots 0 .. n - 1 (the Problem's tableau nodes in node order); a
state is the slots still there (`present`, a bitmask), the foundation's rank and the
talon cards turned, and the memo's key is exactly that (the fewest talon cards turned
with which a state was found dead, as over fans). A card is free when every slot lying
on it is gone; a move plays a free card that fits the foundation, or turns the talon.

Moves are tried best first: the rank with the most cards left, then the card with the
most cards lying under it, directly or not (it opens the way to the most), then the
lowest slot; turning the talon comes last. The passes, the budget and the cuts that read
counts alone (rank counts, parity, predecessors) are those of the search over fans
(`blackhole.look.walk`). The same-rank cut takes the form a graph needs
(`look_cuts.same_rank_beaten`): a free card is not played while a free card of its rank
lies on everything it lies on, and more. Interchangeable fans are merged in the memo of
chains only; here two slots are never one.

Why each cut holds on a graph is in encodings/look.md ("On a cover graph"). The
compiled core runs the same search, move for move, when handed the graph
(`core_layout`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from blackhole.look import walk
from blackhole.look.cuts import hall_shortfall, same_rank_beaten
from blackhole.look.walk import Search, Setup, entry, ordered, tried, worth_test
from blackhole.model.problem import Problem

# The most slots the compiled core takes (its state is one 64-bit word); a larger graph
# is searched in Python.
CORE_SLOTS = 64


@dataclass(frozen=True)
class CoverGraph:
    """A Problem's tableau as slots: each slot's node and rank, `over[s]` the bitmask of
    the slots lying on slot s (it is free once they are gone), `under[s]` the slots s
    lies on, `beaten[s]` the slots of s's rank that the same-rank cut prefers to it, and
    `weight[s]` the slots under s, directly or not (the move order)."""

    nodes: tuple[int, ...]
    ranks: tuple[int, ...]
    over: tuple[int, ...]
    under: tuple[tuple[int, ...], ...]
    beaten: tuple[int, ...]
    below: tuple[int, ...]

    @property
    def weight(self) -> tuple[int, ...]:
        """The slots under each slot, directly or not: the move order's second key."""
        return tuple(mask.bit_count() for mask in self.below)

    def above(self, s: int) -> int:
        """The bitmask of the slots lying on slot s, directly or not."""
        return sum(1 << t for t, low in enumerate(self.below) if low >> s & 1)

    def free(self, present: int) -> int:
        """The bitmask of the slots in `present` with no slot of `present` on them."""
        return sum(1 << s for s, over in enumerate(self.over)
                   if present >> s & 1 and not over & present)


def cover_graph(problem: Problem) -> CoverGraph:
    """The slots of `problem`'s tableau (its nodes on neither the foundation nor the
    talon, in node order) and what covers what, from its precedence pairs."""
    talon = set(problem.talon)
    nodes = tuple(v for v in range(problem.size) if v != problem.start and v not in talon)
    over, lies_on, below = _covers(nodes, problem.precedence)
    ranks = tuple(problem.rank[v] for v in nodes)
    return CoverGraph(nodes, ranks, over, lies_on, same_rank_beaten(ranks, lies_on), below)


@lru_cache(maxsize=64)
def _covers(nodes: tuple[int, ...], precedence: tuple[tuple[int, int], ...]
            ) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The slots' over, under (sorted) and below masks (`CoverGraph`), which depend on the
    layout's shape alone: worked out once a shape, not once a deal."""
    slot = {v: s for s, v in enumerate(nodes)}
    over = [0] * len(nodes)
    under: list[list[int]] = [[] for _ in nodes]
    for upper, lower in precedence:
        if upper in slot and lower in slot:
            over[slot[lower]] |= 1 << slot[upper]
            under[slot[upper]].append(slot[lower])
    below = [0] * len(nodes)  # slot → bitmask of the slots under it, at any depth
    grown = True
    while grown:  # until nothing grows: at most as many rounds as the graph is deep
        grown = False
        for s, lows in enumerate(under):
            mask = 0
            for low in lows:
                mask |= 1 << low | below[low]
            grown = grown or mask != below[s]
            below[s] = mask
    return tuple(over), tuple(tuple(sorted(slots)) for slots in under), tuple(below)


def core_layout(graph: CoverGraph) -> tuple[list[list[int]], list[list[int]],
                                            tuple[list[int], list[int], list[int]]] | None:
    """The compiled core's arguments for the graph: each slot a fan of one card (its node,
    its rank) and the tables (over, beaten, below); None for a graph it does not take."""
    if len(graph.nodes) > CORE_SLOTS:
        return None
    return ([[v] for v in graph.nodes], [[r] for r in graph.ranks],
            (list(graph.over), list(graph.beaten), list(graph.below)))


class CoverSetup(Setup):
    """The search's state on a cover graph: besides `Setup`'s, the graph, the slots of
    each rank (bitmasks), the slots still there and the free ones (present[0], free[0],
    bitmasks changed in place), and the tables of the stranded cut (`stranded`)."""

    def __init__(self, problem: Problem, target: tuple[int, int] | None,
                 graph: CoverGraph) -> None:
        every = (1 << len(graph.nodes)) - 1
        super().__init__(problem, target, list(graph.ranks), every)
        self.graph = graph
        m, onto, ranks = self.m, self.onto, graph.ranks
        self.of_rank = [0] * (m + 1)
        for s, r in enumerate(ranks):
            self.of_rank[r] |= 1 << s
        self.present = [every]
        self.free = [graph.free(every)]
        # the stranded cut: the slots that fit each foundation rank, the slots each slot
        # may follow (of a rank it fits, on the tableau (never the empty foundation's 0),
        # neither itself, nor under it, nor over it but through a card on it), and the
        # slots that may follow a talon card from card t on
        self.fits_on = [sum(self.of_rank[r] for r in onto[h]) for h in range(m + 1)]
        self.leads = [sum(self.of_rank[h] for h in range(1, m + 1) if r in onto[h])
                      & ~(1 << s | graph.below[s] | graph.above(s) & ~graph.over[s])
                      for s, r in enumerate(ranks)]
        self.talon_leads = [0] * (len(self.talon_ranks) + 1)
        for t in range(len(self.talon_ranks) - 1, -1, -1):
            self.talon_leads[t] = self.talon_leads[t + 1] | self.fits_on[self.talon_ranks[t]]

    def stranded(self, hole: int, turned: int) -> int:
        """The slots still there that no line from this state plays (a bitmask): a card
        that neither fits the foundation while free, nor may follow a talon card still to
        turn, nor a card still there that is not under it and not stranded; and every
        card under a stranded one (encodings/look.md, "The stranded cut")."""
        present, leads, below = self.present[0], self.leads, self.graph.below
        open_ = present & ~(self.free[0] & self.fits_on[hole]) & ~self.talon_leads[turned]
        stranded, grown = 0, True
        while grown:  # until nothing grows: the cut's least fixed point
            grown = False
            bits = open_ & ~stranded
            while bits:
                low = bits & -bits
                bits ^= low
                s = low.bit_length() - 1
                if not leads[s] & present & ~stranded:
                    stranded |= low | below[s] & present
                    bits &= ~stranded
                    grown = True
        return stranded

    def won_cuts(self) -> Callable[[int, int, int], bool]:
        """`Setup.won_cuts`, and no card stranded (a full line plays them all)."""
        may_win, stranded = super().won_cuts(), self.stranded

        def won(hole: int, cards: int, turned: int) -> bool:
            return may_win(hole, cards, turned) and not stranded(hole, turned)

        return won


def cover_search(problem: Problem, graph: CoverGraph, budget: int, seconds: float | None,
                 stop: bytearray | None, passes: int,
                 target: tuple[int, int] | None) -> tuple[int, tuple[int, ...] | None, int]:
    """The look's search on a cover graph, with the answers of the search over fans
    (`blackhole.look._python_search`): (1 found, 0 exhausted, -1 out of budget or time;
    the line: full, or the longest in target mode; the moves tried)."""
    state = CoverSetup(problem, target, graph)
    return walk.answer(state, walk.passes(_searcher(state, budget, seconds, stop), state,
                                           passes))


def _searcher(state: CoverSetup, budget: int, seconds: float | None,
              stop: bytearray | None) -> Search:
    """The search over `state`, which it changes as it plays and takes back."""
    tick = walk.counter(state.spent, budget, seconds, stop)
    graph = state.graph
    nodes, ranks, over, under, beaten, weight = (graph.nodes, graph.ranks, graph.over,
                                                 graph.under, graph.beaten, graph.weight)
    onto, left, line, dead = state.onto, state.left, state.line, state.dead
    present_now, free = state.present, state.free
    talon, of_rank, take, give = state.talon, state.of_rank, state.take, state.give
    stride, enter = state.m + 1, entry(state, _worth_test(state))

    def search(hole: int, present: int, cards: int, allowed: int, turned: int
               ) -> bool | None:
        """As the search over fans: True a line in `line`, False none (remembered), None
        cut by the passes; `present` the slots still there."""
        key = present * stride + hole
        ended = enter(hole, key, cards, turned)
        if ended is not None:
            return ended
        showing = free[0]
        moves = []
        for r in onto[hole]:
            here = showing & of_rank[r]
            while here:
                s = (here & -here).bit_length() - 1
                here &= here - 1
                if not beaten[s] & showing:  # the same-rank cut
                    moves.append((-left[r], -weight[s], s))
        cut, moves = ordered(moves, turned < len(talon), allowed)
        found = tried(state, tick, search, play, moves, cut, present, cards, allowed,
                      turned)
        if found is False:
            dead[key] = turned
        return found

    def play(s: int, present: int, cards: int, allowed: int, turned: int) -> bool | None:
        """Slot s's card onto the hole (taken back unless a line is found)."""
        r, rest, showing = ranks[s], present & ~(1 << s), free[0]
        opened = showing & ~(1 << s)
        for low in under[s]:
            if not over[low] & rest:
                opened |= 1 << low
        free[0], present_now[0] = opened, rest
        take(r)
        line.append(nodes[s])
        found = search(r, rest, cards - 1, allowed, turned)
        if not found:
            give(r)
            free[0], present_now[0] = showing, present
        return found

    return search


def _worth_test(state: CoverSetup) -> Callable[[int, int, int, int], bool]:
    """The longest line's cut on a cover graph (`walk.worth_test`): on the rank cycle,
    the rank counts when every card left must be played; the bounds of the search over
    fans that read a fan's order (`reach_bound`, `chains_leaving` with slack) do not
    run. Then the stranded cards (`CoverSetup.stranded`) are not played: a line must
    find the cards it needs among the others."""
    left, chains, stranded = state.left, state.chains, state.stranded

    def cycle(hole: int, cards: int, need: int) -> bool:
        return need < cards or chains(left, hole, cards)

    def out_of_play(hole: int, turned: int) -> int:
        return stranded(hole, turned).bit_count()

    return worth_test(state, cycle, out_of_play)


def cover_root_bound(problem: Problem) -> int:
    """The most cards a line may play on a cover graph, at its start: every card, less
    the predecessors' shortfall where that cut runs."""
    talon = set(problem.talon)
    state = Setup(problem, (0, 0), [problem.rank[v] for v in range(problem.size)
                                    if v != problem.start and v not in talon], 0)
    if not state.hall_cut:
        return state.total
    return state.total - hall_shortfall(state.left, state.start, state.talon_left[0],
                                        state.links)
