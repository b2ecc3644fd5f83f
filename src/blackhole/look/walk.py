"""What the look's two Python searches share: the one over fans (`blackhole.look`) and
the one over a cover graph (`blackhole.look.covers`).

A search runs in passes (`passes`: limited discrepancy search, then a plain depth-first
pass), counts its moves against a budget and a clock (`counter`), and keeps its state
in a `Setup`: the cards of each rank left, the talon, the flags and tables of the cuts
that read counts alone (the rank counts, the parity of the runs, the predecessors;
`blackhole.look.cuts`), the dead states and the answers. What a layout adds (the fans'
heights, or the slots gone and the cards free) is the search's own.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from blackhole.look.cuts import (
    CHAIN_CUT,
    HALL_CUT,
    PARITY_CUT,
    REACH_CUT,
    cut_flags,
    hall_ok,
    hall_room,
    hall_shortfall,
    onto_table,
    parity_room,
    ranks_can_chain,
)
from blackhole.model.problem import Problem

# Passes 0 .. LDS_PASSES - 1 limit the discrepancies; the pass after them is a plain
# depth-first search, the cheapest way to exhaust the tree when no line exists.
LDS_PASSES = 3
UNLIMITED = 1 << 62  # the discrepancies the last pass allows: more than any line has
CLOCK_EVERY = 1024  # moves between clock reads when the look has a time limit
TURN = -1  # the place of a move of kind `Kind.TURN` (the talon's next card) in a search
UNPARK = -2  # the place of the cell's card played onto the hole
PARK_BASE = -3  # the place of parking fan f's top card: PARK_BASE - f

# A search: (hole's rank, the layout's code, cards left, discrepancies allowed, talon
# cards turned) → True (a line), False (none: remembered), None (cut by the passes).
Search = Callable[[int, int, int, int, int], bool | None]


class OutOfBudget(Exception):
    pass


class Setup:
    """A Python search's state at the deal that does not read the layout (the compiled
    core's set_up), and the answers it fills in: the line, the longest line and its
    cards, the dead states and the moves tried. `ranks` are the ranks of the tableau's
    cards, `code` the layout's code at the deal (the search's own key). Lists of one
    number are counts the search changes in place (`take`, `give`)."""

    def __init__(self, problem: Problem, target: tuple[int, int] | None, ranks: list[int],
                 code: int) -> None:
        rank, m = problem.rank, problem.modulus
        self.m, self.target, self.code = m, target, code
        self.onto = onto_table(problem)
        self.left = [0] * (m + 1)  # cards of each rank still on the tableau
        for r in ranks:
            self.left[r] += 1
        self.line: list[int] = []
        self.longest: list[int] = []  # the longest line found (target mode)
        self.best = [0]  # the tableau cards it plays
        # the states with no line on, by layout and hole: the fewest talon cards turned
        # with which the state was found dead (more turned is dead too: a line from there
        # is a line from fewer turned that turns the cards between first)
        self.dead: dict[int, int] = {}
        self.spent = [0]  # moves tried
        self.gaps = [sum(1 for r in range(1, m + 1) if not self.left[r])]  # ranks with none
        self.talon, self.talon_ranks = problem.talon, [rank[node] for node in problem.talon]
        flags = cut_flags(problem, self.onto, parity=target is None)
        self.chain_cut, self.parity_cut, self.hall_cut, self.reach = (
            flags & CHAIN_CUT, flags & PARITY_CUT, flags & HALL_CUT, flags & REACH_CUT)
        self.odd_from, self.even_from = parity_room(self.talon_ranks)
        # the tableau's odd cards less its even cards, for the parity cut
        self.excess = [sum(1 if r % 2 else -1 for r in ranks)]
        self.links, self.talon_left = hall_room(self.onto, self.talon_ranks)
        self.total = len(ranks)
        self.floor, self.bound = (0, self.total) if target is None else target
        self.start = 0 if problem.start is None else rank[problem.start]
        self.chains = chain_test(m)
        self.cells = problem.cells

    def take(self, r: int) -> None:
        """A card of rank r leaves the tableau."""
        self.left[r] -= 1
        if not self.left[r]:
            self.gaps[0] += 1
        self.excess[0] -= 1 if r % 2 else -1

    def give(self, r: int) -> None:
        """A card of rank r comes back (`take` undone)."""
        self.excess[0] += 1 if r % 2 else -1
        if not self.left[r]:
            self.gaps[0] -= 1
        self.left[r] += 1

    def won_cuts(self) -> Callable[[int, int, int], bool]:
        """The cuts of the search for a full line that read counts alone: (hole, cards
        left, talon cards turned) → may a full line remain? The rank counts, the parity of
        the runs and the predecessors, each where its flag is set."""
        chain_cut, parity_cut, hall_cut = self.chain_cut, self.parity_cut, self.hall_cut
        left, excess, chains, links = self.left, self.excess, self.chains, self.links
        odd_from, even_from, talon_left = self.odd_from, self.even_from, self.talon_left

        def may_win(hole: int, cards: int, turned: int) -> bool:
            if chain_cut and not chains(left, hole, cards):
                return False
            if parity_cut and not (-odd_from[turned] - (hole % 2 or not hole) <= excess[0]
                                   <= even_from[turned] + (hole % 2 == 0)):
                return False
            return not hall_cut or hall_ok(left, hole, talon_left[turned], links)

        return may_win


def chain_test(m: int) -> Callable[[list[int], int, int], bool]:
    """`ranks_can_chain` for a search, its answers kept by counts and hole."""
    chain_answers: dict[tuple[int, ...], bool] = {}

    def chains(counts: list[int], hole: int, cards: int) -> bool:
        key = (*counts, hole)  # few count vectors recur under many states
        ok = chain_answers.get(key)
        if ok is None:
            ok = chain_answers[key] = ranks_can_chain(counts, hole, cards, m)
        return ok

    return chains


def counter(spent: list[int], budget: int, seconds: float | None,
            stop: bytearray | None) -> Callable[[], None]:
    """One move tried: counted in spent[0]; OutOfBudget at `budget` moves, past `seconds`
    from now, or once `stop` is set (the clock and the flag read every CLOCK_EVERY)."""
    deadline = None if seconds is None else time.perf_counter() + seconds

    def tick() -> None:
        if spent[0] >= budget:
            raise OutOfBudget
        spent[0] += 1
        if not spent[0] % CLOCK_EVERY and (
                (deadline is not None and time.perf_counter() > deadline)
                or (stop is not None and stop[0])):
            raise OutOfBudget

    return tick


def passes(search: Search, state: Setup, count: int) -> int:
    """Run the search from the deal, one pass more heuristic discrepancies allowed each
    time a pass was cut short, the recursion limit raised above the longest line meanwhile:
    1 found, 0 exhausted, -1 out of budget or time."""
    limit = sys.getrecursionlimit()
    # a move nests three calls (search, tried and the layout's play)
    sys.setrecursionlimit(max(limit, 3 * (state.total + len(state.talon)) + 100))
    try:
        found = None
        allowed = 0
        while found is None:
            found = search(state.start, state.code, state.total, allowed, 0)
            allowed = allowed + 1 if allowed + 1 < count else UNLIMITED
        status = 1 if found else 0
    except OutOfBudget:
        status = -1
    finally:
        sys.setrecursionlimit(limit)
    return status


def split_events(events: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """A line as a search records it (each node onto the hole, each park of node v as
    ~v) → (the nodes onto the hole in order, the parks as (node, hole moves before it)):
    the one reading of a look's line, for both engines."""
    order: list[int] = []
    parks: list[tuple[int, int]] = []
    for event in events:
        if event < 0:
            parks.append((~event, len(order)))
        else:
            order.append(event)
    return tuple(order), tuple(parks)


def answer(state: Setup, status: int) -> tuple[int, tuple[int, ...] | None, int]:
    """(status, the line: full when found, the longest in target mode; the moves tried)."""
    found = (state.longest if state.target is not None
             else state.line if status == 1 else None)
    return status, None if found is None else tuple(found), state.spent[0]


Move = tuple[int, int, int]  # (sort key, sort key, place): a fan, a slot, or TURN


def ordered(moves: list[Move], turn: bool, allowed: int) -> tuple[bool, list[Move]]:
    """A node's moves in the order they are tried, turning the talon (when `turn`) after
    every other; with no discrepancy `allowed`, the first alone. Returns whether a move
    was left out, and the moves."""
    if turn:
        moves.append((0, 0, TURN))
    if allowed:
        moves.sort()
        return False, moves
    if len(moves) > 1:  # only the first choice: a second one would be a discrepancy
        return True, [min(moves)]
    return False, moves


# A layout's move: (place, the layout's code, cards left, discrepancies allowed below,
# talon cards turned) → the answer of the state it leads to; it puts its card on the
# line and, unless a line was found, takes the move back but for that card.
Play = Callable[[int, int, int, int, int], bool | None]


def tried(state: Setup, tick: Callable[[], None], search: Search, play: Play,
          moves: list[Move], cut: bool, code: int, cards: int, allowed: int,
          turned: int) -> bool | None:
    """A node's moves in turn (`ordered`): a turn of the talon here, a card by `play`.
    True at the first line found (left in the line); else None when a move was left out
    or cut below (the passes), or False: no line from here."""
    line = state.line
    for i, (_, _, place) in enumerate(moves):
        tick()
        if place == TURN:
            line.append(state.talon[turned])
            found = search(state.talon_ranks[turned], code, cards, allowed - (i > 0),
                           turned + 1)
        else:
            found = play(place, code, cards, allowed - (i > 0), turned)
        if found:
            return True
        cut = cut or found is None
        line.pop()
    return None if cut else False


def entry(state: Setup, worth: Callable[[int, int, int, int], bool]
          ) -> Callable[[int, int, int, int], bool | None]:
    """What a state's first checks say, before its moves: (hole, memo key, cards left,
    talon cards turned) → True (a line: a full one; in target mode one of `bound` cards,
    the longest line recorded on the way), False (dead in the memo, or cut: by the won
    cuts, or in target mode by `worth`, not remembered as the cuts cost less than a memo
    entry), None (search on)."""
    target, total, bound, line, longest, best, dead = (
        state.target, state.total, state.bound, state.line, state.longest, state.best,
        state.dead)
    turns = len(state.talon) + 1  # how far the talon was turned: 0 .. len(talon)
    may_win = state.won_cuts()

    def enter(hole: int, key: int, cards: int, turned: int) -> bool | None:
        if target is not None and total - cards > best[0]:
            longest[:] = line
            best[0] = total - cards
            if best[0] >= bound:
                return True
        if cards == 0:
            return True
        if dead.get(key, turns) <= turned:
            return False
        if not (may_win(hole, cards, turned) if target is None
                else worth(hole, cards, total - cards, turned)):
            return False
        return None

    return enter


def worth_test(state: Setup, cycle: Callable[[int, int, int], bool],
               out_of_play: Callable[[int, int], int] | None = None
               ) -> Callable[[int, int, int, int], bool]:
    """The target mode's cut, over the search's own lists (read as they change): (hole,
    cards left, cards played, talon cards turned) → can a line through this state beat
    the longest found and floor - 1? Not when fewer cards are left than it needs, nor,
    where the predecessor cut runs, when their shortfall leaves too few; where the
    rank-count cut runs, `cycle(hole, cards, need)` says (the layout's bounds on the
    rank cycle). Then, given `out_of_play(hole, turned)` (cards no line from the state
    plays: a cover graph's stranded cards), not when the others are too few."""
    best, floor, left, links, talon_left = (state.best, state.floor, state.left, state.links,
                                            state.talon_left)
    hall_cut, chain_cut = state.hall_cut, state.chain_cut

    def counted(hole: int, cards: int, need: int, turned: int) -> bool:
        if need > cards:
            return False
        if hall_cut:
            return need <= cards - hall_shortfall(left, hole, talon_left[turned], links)
        return not chain_cut or cycle(hole, cards, need)

    def worth(hole: int, cards: int, played: int, turned: int) -> bool:
        need = max(best[0], floor - 1) + 1 - played  # cards it must still play
        if not counted(hole, cards, need, turned):
            return False
        return out_of_play is None or need <= cards - out_of_play(hole, turned)

    return worth
