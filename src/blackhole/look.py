"""The look: a fast complete search over a Problem, under a node budget (the `look`
backend, and the first engine of `auto`).

Only legal moves are tried (a fan's top card, rank-adjacent to the hole's card), best
first by a heuristic: the card whose rank has the most cards still in play (a rank with
few left is kept as a bridge for later), then the one from the fan with the most cards
left (it frees the deepest buried cards). Adding "keeps the most moves open" to the key,
or putting the fan's height first, found fewer lines on pysol:1-1000.

The order is followed as limited discrepancy search (Harvey and Ginsberg, 1995): pass k
explores every line that leaves the heuristic's first choice at most k times. A heuristic
that is mostly right is mostly wrong near the top of the tree, where a depth-first search
would never get back to; at 3000 nodes this settles 672 deals of pysol:1-1000 against
583 for plain depth-first search. After LDS_PASSES such passes the last pass is a plain
depth-first search, which exhausts the tree of an unwinnable deal at the least cost.

Three sound cuts keep the budget for live branches:
- the memo: a state explored to the end is not explored again. A state is what is left
  on the fans as rank sequences, taken as a multiset, and the hole's rank: suits never
  matter, so two fans left with the same ranks in the same order are interchangeable, and
  states that differ only by such a swap share one entry (`_memo_code`);
- the rank-count cut (`ranks_can_chain`): every full line is a walk on the rank cycle
  that shows each rank as often as it has cards left, so a state whose counts no such
  walk fits is dead; it holds exactly when a walk fits, so it contains the rank-walk cut
  of the `search` backend (a hole that cannot walk over every rank with cards left);
- the same-rank cut (`_canonical`, the conditional symmetry of Gent et al., 2007): of
  the top cards of one rank, a fan's last card is not played while another has cards
  under it, and of several last cards only the lowest fan's is.
Over pysol:1-1000 the last two shrink the tree of the worst unwinnable deal (915) from
6.7 million moves to 0.8 million, and 265's from 5.2 million to 0.1 million; a memo
that merges interchangeable fans takes 915 on to 0.48 million (and 265 to 0.09). The
`search` backend shares no code with the look (it has its own walk cut and neither of
the others), so it stays an independent referee: the tests hold the look's refutations
to its verdicts.

The games with a talon (the Golf family) are searched too: the moves come from the
game's table (`onto_table`, from `games.rank_fits`), turning the talon's next card is a
move tried after every fan's, and the state (and the memo's key) holds how many talon
cards were turned. The rank-count cut holds for Black Hole's path only; where no move
wraps, the parity cut (`parity_room`) takes its place.

The reasons each cut is sound are in encodings/look.md.

The best score (`longest`): the same search, asked for the longest line. Every line to a
state has the same length, so the memo stays exact; the win-only cuts give way to cuts
that keep a longest line (`reach_bound`, `chains_leaving`, and the same-rank cut, which
keeps one too), and it runs in rounds from the bound at the start down. Its optimum, like
its refutations, rests on exhausting the search, not on a certificate.

The look answers in three ways: a full line (a win, which the caller replays), "refuted"
(a pass explored the whole tree within the budget: no line plays every card, as complete
a method as the `search` backend, but with no proof to check), or nothing (out of budget
or time, or stopped by another thread through `stop`).

Compiled core: ``_look_core.c``, a CPython extension built at install time where a C
compiler is at hand (optional: without it the Python search below runs). It runs the
same search step for step (the same order and tie-break, passes, node count, memo and
cuts) on an explicit stack, with the memo a hash set of the exact state (the counts of
`_memo_code` and the hole packed into bit fields), so both engines give the same Look
for every problem and budget; the tests hold them to that. ``engine="python"`` or
``BLACKHOLE_LOOK_ENGINE=python`` skips it. A node costs about 0.1 us there against
about 6 us here, so its default budget is far larger (COMPILED_BUDGET).

What the default budget settles, and at what cost, is in docs/performance.md.
The core lets the GIL go while it searches, so other threads run beside a long look,
and another thread can end it early (`stop`: the `auto` portfolio does when SAT answers
first).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from blackhole.engines import ENGINES, look_switch
from blackhole.errors import ArgumentError, InputError
from blackhole.games import fitting
from blackhole.longest import Longest
from blackhole.problem import Problem

# Nodes (moves tried, over all passes); a line is 51 moves. On pysol:1-1000 (877
# winnable, 123 not) the look settles 615 deals at 1000 nodes, 748 at 3000 (633 wins,
# 115 refutations), 808 at 5000, 889 at 10,000, 971 at 50,000, 992 at 200,000 and all
# 1000 from 1,000,000 on (before the rank-count and same-rank cuts: 672 at 3000, 723 at
# 5000, 936 at 200,000). The larger default leaves 1 deal of pysol:1-20000 unsettled
# (13295, lost, refuted at 3.06 million).
# `look` without a budget uses the one of the engine that runs (default_budget).
PYTHON_BUDGET = 5000  # the Python engine's default
COMPILED_BUDGET = 3_000_000  # the compiled core's default
# A shorter look for callers that only want a quick win on the way (best score, hints):
# at most about 40 ms in the compiled core.
COMPILED_QUICK_BUDGET = 200_000
# The budget of `auto`'s best score (`longest`) before SAT takes over. Over the 2,647 lost
# deals of pysol:1-20000 the compiled search proves every best score within 3.1 million
# moves (13295; the median deal: 90), where the SAT climb takes up to 111 s.
PYTHON_BEST_BUDGET = 20_000
COMPILED_BEST_BUDGET = 20_000_000
# Passes 0 .. LDS_PASSES - 1 limit the discrepancies; the pass after them is a plain
# depth-first search, the cheapest way to exhaust the tree when no line exists.
LDS_PASSES = 3
_UNLIMITED = 1 << 62  # the discrepancies the last pass allows: more than any line has
_CLOCK_EVERY = 1024  # nodes between clock reads when the look has a time limit

try:  # the compiled core, built at install time where a C compiler is at hand
    from blackhole import _look_core
except ImportError:  # pragma: no cover - an install without a compiler
    _look_core = None

_NOT_TAKEN = -2  # the compiled core's answer to a problem it leaves to the Python search
TALON_MOVE = -1  # the fan a move names when it turns the talon's next card
CHAIN_CUT, PARITY_CUT, HALL_CUT = 1, 2, 4  # the compiled core's cuts besides the memo
# and the same-rank cut


@dataclass(frozen=True)
class Look:
    line: tuple[int, ...] | None  # a full line (nodes in play order, start excluded)
    refuted: bool  # the budget covered the whole tree and no full line exists
    nodes: int  # moves tried


class _OutOfBudget(Exception):
    pass


def _canonical(fans_of: set[int], heights: list[int]) -> list[int]:
    """Of the fans whose top cards share one rank, the ones worth playing from. A top card
    with nothing under it (its fan's last) is never played while a top card of its rank
    with cards under it is there, and of several such last cards only the one on the
    lowest fan is. Sound for "is there a full line": in a line that plays the last card x
    first and the other top card y later, swapping the two is a line too (the same ranks
    in the same places; y was free all along, and nothing waits under x), so whenever a
    full line exists, one exists that follows this rule at every step."""
    deep = [f for f in fans_of if heights[f] > 1]
    return deep if deep else [min(fans_of)]


def ranks_can_chain(left: list[int], hole: int, cards: int, modulus: int) -> bool:
    """The rank-count cut: can a walk on the rank cycle start at the hole's rank and show
    each rank r exactly left[r] more times? Every full line is such a walk. Let e_i count
    its steps between ranks i and i + 1 (e_m: the top rank and rank 1). Each showing of a
    rank is entered by one step and left by one, except the hole's (only left) and the last
    card's (only entered), so e_(i-1) + e_i = 2 left[i] + [i = hole] - [i = last] for every
    rank i. For a choice of the last card's rank these equations fix every e_i from e_m = t:
    e_i = a_i + (-1)^i t; an odd cycle fixes t too, an even one leaves a range. The walk
    exists only if some choice gives every e_i >= 0, with the steps taken (e_i > 0) joining
    every rank that has cards to the hole's. Off for fewer than 3 ranks (no cycle) and an
    empty foundation (no start)."""
    m = modulus
    if m < 3 or not hole:
        return True
    for last in range(1, m + 1):
        if not left[last]:
            continue
        base = [0] * (m + 1)  # a_i
        # bounds on t from every e_i >= 0; a_1 = e_m + e_1 <= 2 cards + 1 lowers `high` first
        a, low, high = 0, 0, 2 * cards + 2
        for i in range(1, m + 1):
            a = 2 * left[i] + (i == hole) - (i == last) - a
            base[i] = a
            if i % 2:
                high = min(high, a)
            else:
                low = max(low, -a)
        if m % 2:  # e_m = a_m - t must equal t
            choices = (a // 2,) if a % 2 == 0 and low <= a // 2 <= high else ()
        elif a == 0 and low <= high:
            if high - low >= 2:
                return True  # t = low + 1 takes every step
            choices = (low, high)
        else:
            choices = ()
        for t in choices:
            taken = [base[i] + (-t if i % 2 else t) > 0 for i in range(m + 1)]
            if _arc_covers(taken, left, hole, cards, m):
                return True
    return False


def _arc_covers(taken: list[bool], left: list[int], hole: int, cards: int, m: int) -> bool:
    """Do the ranks joined to the hole's by taken steps (taken[i]: between i and i + 1,
    taken[m]: between m and 1) hold all `cards` cards left?"""
    covered, up, down, seen = left[hole], hole, hole, 1
    while seen < m and taken[up]:
        up = up % m + 1
        covered += left[up]
        seen += 1
    while seen < m and taken[(down - 2) % m + 1]:
        down = (down - 2) % m + 1
        covered += left[down]
        seen += 1
    return covered >= cards


def onto_table(problem: Problem) -> tuple[tuple[int, ...], ...]:
    """onto[h]: the ranks that may go onto hole rank h as the problem's game says
    (`games.fitting`), ascending; onto[0], the empty foundation: any rank. Both engines
    read the moves from this one table."""
    return fitting(problem.game, problem.modulus)


def parity_applies(onto: list[list[int]]) -> bool:
    """Does every move change the hole's rank by an odd number (no wrap from the top rank
    to the ace, or an even number of ranks)? Then the parity cut holds (`parity_room`)."""
    return all((r - h) % 2 for h in range(1, len(onto)) for r in onto[h])


def parity_room(talon_ranks: list[int]) -> tuple[list[int], list[int]]:
    """The parity cut's bounds: (odd, even), where odd[t] and even[t] count the talon's
    odd and even ranks from its card t on. Where every move changes the rank by one
    without wrapping, the fan cards a line plays between two talon cards alternate odd
    and even ranks, starting with the parity the card before them lacks; such a run
    plays at most one odd card more than even cards when it starts on an even rank, and
    at most one even card more when it starts on an odd one. So with the hole on rank h
    and the talon turned to card t, a full line exists only if the fans' odd cards less
    their even cards lie between -(odd[t] + [h odd]) and even[t] + [h even] (an empty
    foundation counts on both sides)."""
    odd, even = [0] * (len(talon_ranks) + 1), [0] * (len(talon_ranks) + 1)
    for t in range(len(talon_ranks) - 1, -1, -1):
        odd[t] = odd[t + 1] + talon_ranks[t] % 2
        even[t] = even[t + 1] + 1 - talon_ranks[t] % 2
    return odd, even


def hall_applies(problem: Problem) -> bool:
    """Does the predecessor cut (`hall_room`) run? For a game with other rules than Black
    Hole's path (where the rank-count cut is stronger) whose cards go only on the ranks
    next to their own (`games.rank_fits` allows no other)."""
    if problem.game.plain:
        return False
    m = problem.modulus
    return all(r in ((h - 2) % m + 1, h % m + 1)
               for h, ranks in enumerate(onto_table(problem)) if h for r in ranks)


def hall_room(onto: list[list[int]],
              talon_ranks: list[int]) -> tuple[tuple[list[int], list[int], list[int]],
                                                list[list[int]]]:
    """The predecessor cut's tables: ((below, above, between), talon_left). For rank r,
    below[r] is the rank under it (r - 1, or the top rank under the ace) when r may go on
    it, above[r] the rank over it (r + 1, or the ace over the top rank) when r may go on
    it, and between[r] is r + 1 when r or r + 2 may go on it; 0 stands for none.
    talon_left[t][h] counts the talon's cards of rank h from its card t on.

    Every fan card a full line plays comes right after a card it may go on: the
    foundation's top card now, a talon card turned, or a fan card played before it; and
    each card comes right before at most one. So the cards left must map one to one onto
    such predecessors, and by Hall's theorem, for every set S of ranks, the fan cards of
    ranks in S number at most the fan cards, talon cards left and the foundation's card
    of the ranks they may go on. The cut tests the sets of ranks a, a + 2, ..., b (each
    with cards left): where a card goes only on the ranks next to its own
    (`hall_applies`), these are the sets whose predecessors overlap, and their
    predecessors are below[a], between[a], between[a + 2], ..., between[b - 2] and
    above[b]."""
    m = len(onto) - 1
    fits = [set() for _ in range(m + 2)]  # fits[r]: the ranks r may go on
    for h in range(1, m + 1):
        for r in onto[h]:
            fits[r].add(h)
    below = [0] + [(r - 2) % m + 1 if (r - 2) % m + 1 in fits[r] else 0
                   for r in range(1, m + 1)]
    above = [0] + [r % m + 1 if r % m + 1 in fits[r] else 0 for r in range(1, m + 1)]
    between = [0] + [r + 1 if r + 2 <= m and r + 1 in fits[r] | fits[r + 2] else 0
                     for r in range(1, m + 1)]
    talon_left = [[0] * (m + 1) for _ in range(len(talon_ranks) + 1)]
    for t in range(len(talon_ranks) - 1, -1, -1):
        talon_left[t] = talon_left[t + 1][:]
        talon_left[t][talon_ranks[t]] += 1
    return (below, above, between), talon_left


def hall_ok(left: list[int], hole: int, talon_left: list[int],
            links: tuple[list[int], list[int], list[int]]) -> bool:
    """The predecessor cut (`hall_room`) on a state: `left[r]` fan cards of rank r,
    the foundation's rank `hole`, `talon_left[h]` talon cards of rank h still to turn.

    One walk over each parity's ranks tests every run: `most` is the largest, over the
    runs a .. r that end at r, of their cards less the room of their predecessors but
    above[r]. The rooms add up, as a run's predecessors are distinct ranks, except where
    a run holds every rank of its parity on a deck of an even number of ranks: then
    below[a] and above[b] may be one rank, and that run is tested on its own."""
    if not hole:  # an empty foundation takes any first card
        return True
    below, above, between = links
    m = len(left) - 1
    room = [left[h] + talon_left[h] for h in range(m + 1)]
    room[hole] += 1
    room[0] = 0  # what a missing link counts
    for first in (1, 2):
        most = need = space = 0
        whole = True
        for r in range(first, m + 1, 2):
            if not left[r]:
                whole = False
                continue
            if r == first or not left[r - 2]:  # a run starts
                most, need, space = left[r] - room[below[r]], 0, room[below[r]]
            else:
                gap = room[between[r - 2]]
                most = left[r] + max(most - gap, -room[below[r]])
                space += gap
            need += left[r]
            if most > room[above[r]]:
                return False
        if whole and m % 2 == 0 and below[first] and below[first] == above[m + first - 2] \
                and need > space:
            return False
    return True


def hall_shortfall(left: list[int], hole: int, talon_left: list[int],
                   links: tuple[list[int], list[int], list[int]]) -> int:
    """How many of the fan cards left no line can play, by the predecessor cut's count
    (`hall_room`): each card played needs its own card to follow, so at most the fan
    cards less the largest shortfall of a family of runs with no predecessor in common
    are played (Hall's theorem, in König's form). Runs of one parity share no
    predecessor when a rank with no run lies between them; runs of the two parities
    share none unless a link keeps its rank's parity (a wrapping deck of an odd number
    of ranks), where the larger of the two parities' shortfalls is taken instead of their
    sum. 0 for an empty foundation."""
    if not hole:
        return 0
    below, above, between = links
    m = len(left) - 1

    def room(h: int) -> int:
        return left[h] + talon_left[h] + (h == hole) if h else 0

    short = []
    for first in (1, 2):
        closed, open_ = 0, None  # best with the last rank out of every run; ending there
        for r in range(first, m + 1, 2):
            ended = closed if open_ is None else max(closed, open_ - room(above[r - 2]))
            if not left[r]:
                closed, open_ = ended, None
                continue
            start = closed - room(below[r])
            if open_ is not None:
                start = max(start, open_ - room(between[r - 2]))
            closed, open_ = ended, left[r] + start
        short.append(closed if open_ is None
                     else max(closed, open_ - room(above[m - (m - first) % 2])))
    apart = all(link % 2 != r % 2 for table in (below, above)
                for r, link in enumerate(table) if link)
    return short[0] + short[1] if apart else max(short)


def c_engine_built() -> bool:
    """Is the compiled core of the look installed?"""
    return _look_core is not None


def _engine(engine: str | None) -> str:
    # "python": the Python search alone; "auto" (the default): the compiled core if built
    variable, value = look_switch()
    choice = ("auto" if value is None else value) if engine is None else engine
    if choice not in ENGINES:
        raise InputError(f"unknown look engine (choose from {', '.join(ENGINES)})",
                         "engine" if engine is not None else variable, token=choice)
    return "c" if choice == "auto" and _look_core is not None else "python"


def engine_in_use(engine: str | None = None) -> str:
    """The engine `look` runs for ``engine`` ("auto", "python" or None for the
    variable): "c" (the compiled core) or "python"."""
    return _engine(engine)


def default_budget(engine: str | None = None) -> int:
    """The budget `look` uses when given none: COMPILED_BUDGET where the compiled core
    runs, else PYTHON_BUDGET (``engine``: "auto", "python" or None for the variable)."""
    return COMPILED_BUDGET if _engine(engine) == "c" else PYTHON_BUDGET


def quick_budget(engine: str | None = None) -> int:
    """The budget of a quick look: COMPILED_QUICK_BUDGET where the compiled core runs, else
    PYTHON_BUDGET."""
    return COMPILED_QUICK_BUDGET if _engine(engine) == "c" else PYTHON_BUDGET


def best_budget(engine: str | None = None) -> int:
    """The budget of `auto`'s best score: COMPILED_BEST_BUDGET where the compiled core
    runs, else PYTHON_BEST_BUDGET."""
    return COMPILED_BEST_BUDGET if _engine(engine) == "c" else PYTHON_BEST_BUDGET


def look(problem: Problem, budget: int | None = None, *, engine: str | None = None,
         seconds: float | None = None, stop: bytearray | None = None) -> Look:
    """Search `problem` for a full line, trying at most `budget` moves (None: the engine's
    default, see `default_budget`) for at most `seconds` (None: no limit; at the limit the
    answer is the same as out of budget). ``engine`` is "auto" (the compiled core when
    built) or "python"; None reads $BLACKHOLE_LOOK_ENGINE (`engines.look_switch`), else
    "auto". Both give the same Look, unless the clock or `stop` ends one of them. `stop`
    is a flag another thread may set (its first byte made non-zero) to end the search as
    out of budget, within a few milliseconds."""
    if stop is not None and len(stop) < 1:
        raise ArgumentError("stop must hold at least one byte")
    use = _engine(engine)
    if budget is None:
        budget = default_budget(engine)
    if use == "c" and isinstance(budget, int):
        assert _look_core is not None
        start = 0 if problem.start is None else problem.rank[problem.start]
        rank, onto = problem.rank, onto_table(problem)
        status, line, nodes = _look_core.look(
            problem.fans, [[rank[node] for node in fan] for fan in problem.fans],
            problem.modulus, start, max(-1, min(budget, 2**62)), LDS_PASSES,
            0.0 if seconds is None else max(seconds, 1e-9), stop, onto,
            problem.talon, [rank[node] for node in problem.talon],
            CHAIN_CUT * problem.game.plain | PARITY_CUT * parity_applies(onto)
            | HALL_CUT * hall_applies(problem))
        if status != _NOT_TAKEN:
            return Look(line, status == 0, nodes)
    status, line, nodes = _python_search(problem, budget, seconds, stop, LDS_PASSES, None)
    return Look(line if status == 1 else None, status == 0, nodes)




# ---------------------------------------------------------------- the best score


# The rank-count test with slack (`chains_leaving`) runs while a line may leave at most
# this many cards unplayed; with more the count of choices grows and the test buys little.
SLACK_TESTED = 1


def _arc(have: list[int], hole: int, m: int) -> list[bool]:
    """The ranks the hole can show: its own, and the unbroken run of ranks with cards
    (have[r] > 0) on each side of it around the cycle."""
    inside = [False] * (m + 1)
    inside[hole] = True
    seen, up, down = 1, hole, hole
    while seen < m and have[up % m + 1]:
        up = up % m + 1
        inside[up] = True
        seen += 1
    while seen < m and have[(down - 2) % m + 1]:
        down = (down - 2) % m + 1
        inside[down] = True
        seen += 1
    return inside


def reach_bound(fan_ranks: list[list[int]], heights: list[int], left: list[int],
                hole: int, cards: int, m: int) -> int:
    """The most cards any line from this state can still play: the cards that lie, in
    each fan, above its first card of a rank the hole cannot show, where the ranks it can
    show are its own and the unbroken run of ranks around it that still hold such cards
    (worked out again until nothing changes). A hole whose run is its rank alone plays
    nothing. `left[r]`: the cards of rank r on the fans; `hole` 0 (the first card is
    free): every card."""
    if not hole:
        return cards
    have, reached, size = left, cards, -1
    while True:
        inside = _arc(have, hole, m)
        now = sum(inside)
        if now == 1:
            return 0
        if now == size:
            return reached
        size = now
        have, reached = [0] * (m + 1), 0
        for f, ranks in enumerate(fan_ranks):
            for h in range(heights[f] - 1, -1, -1):
                if not inside[ranks[h]]:
                    break
                have[ranks[h]] += 1
                reached += 1


def chains_leaving(left: list[int], hole: int, cards: int, m: int, slack: int,
                   bottoms: set[int], chains: Callable[[list[int], int, int], bool]) -> bool:
    """The rank-count cut for a line that may leave up to `slack` (0 or 1) cards
    unplayed: the cards it plays must chain (`ranks_can_chain`). The cards a line leaves
    lie at the bottom of their fans, so one card left is the bottom card of a fan, of a
    rank in `bottoms`. `chains(left, hole, cards)` is ranks_can_chain (perhaps cached)."""
    if chains(left, hole, cards):
        return True
    if not slack:
        return False
    for r in sorted(bottoms):
        left[r] -= 1
        ok = chains(left, hole, cards - 1)
        left[r] += 1
        if ok:
            return True
    return False


def _memo_code(problem: Problem) -> tuple[int, list[list[int]]]:
    """The memo's key, as a number: the state is what is left on the fans, as a multiset
    of rank sequences (suits never matter, so two fans left with the same ranks in the
    same order are interchangeable), and the hole's rank. Each rank sequence a fan can be
    left with (the ranks of its bottom h cards, h >= 1) is a class; the code counts the
    fans left in each class, in mixed radix (a class's digit runs up to the number of
    (fan, height) pairs in it). Returns the code of the deal's state and drop, where
    drop[f][h] is what the code loses when fan f goes from h + 1 cards to h. The compiled
    core packs the same counts into bit fields."""
    classes: dict[tuple[int, int], int] = {}
    prefix = []  # prefix[f][h - 1]: the class of fan f's bottom h cards
    for fan in problem.fans:
        c, row = 0, []
        for node in fan:
            c = classes.setdefault((c, problem.rank[node]), len(classes) + 1)
            row.append(c)
        prefix.append(row)
    many = [0] * (len(classes) + 1)
    for row in prefix:
        for c in row:
            many[c] += 1
    weight = [0] * (len(classes) + 1)  # class 0: an empty fan, which counts for nothing
    unit = 1
    for c in range(1, len(classes) + 1):
        weight[c] = unit
        unit *= many[c] + 1
    code = sum(weight[row[-1]] for row in prefix if row)
    drop = [[weight[c] - (weight[row[h - 1]] if h else 0) for h, c in enumerate(row)]
            for row in prefix]
    return code, drop


def _python_search(problem: Problem, budget: int, seconds: float | None,
                   stop: bytearray | None, passes: int,
                   target: tuple[int, int] | None) -> tuple[int, tuple[int, ...] | None, int]:
    """The look's search. `target` None: a full line (the win-only cuts), else
    (floor, bound): the longest line, cut where a state cannot beat both the longest line
    found and floor - 1, and ended once a line of `bound` cards is found. Returns (1, the
    line: full, or of at least `bound` cards; 0, None or the longest line: the tree was
    exhausted; -1, None or the longest line: out of budget or time), and the moves tried,
    as the compiled core does."""
    fans, rank, m = problem.fans, problem.rank, problem.modulus
    heights = [len(fan) for fan in fans]
    left = [0] * (m + 1)  # cards of each rank still on the fans
    for fan in fans:
        for node in fan:
            left[rank[node]] += 1
    onto = onto_table(problem)
    # showing[r]: the fans whose top card has rank r, so a node looks at its moves only.
    showing: list[set[int]] = [set() for _ in range(m + 1)]
    for f, fan in enumerate(fans):
        if fan:
            showing[rank[fan[-1]]].add(f)
    code, drop = _memo_code(problem)
    line: list[int] = []
    longest: list[int] = []  # the longest line found (target mode)
    best = [0]  # the fan cards it plays
    # the states with no line on, by fans and hole: the fewest talon cards turned with
    # which the state was found dead (more turned is dead too: a line from there is a line
    # from fewer turned that turns the cards between first)
    dead: dict[int, int] = {}
    chain_answers: dict[tuple[int, ...], bool] = {}
    spent = 0
    gaps = [sum(1 for r in range(1, m + 1) if not left[r])]  # ranks with no card left

    fan_ranks = [[rank[node] for node in fan] for fan in fans]
    talon = problem.talon
    talon_ranks = [rank[node] for node in talon]
    chain_cut = problem.game.plain  # the rank-count cut holds for Black Hole's path only
    parity_cut = parity_applies(onto)
    odd_from, even_from = parity_room(talon_ranks)
    # the fans' odd cards less their even cards, for the parity cut
    excess = [sum(1 if r % 2 else -1 for ranks in fan_ranks for r in ranks)]
    hall_cut = hall_applies(problem)
    links, talon_left = hall_room(onto, talon_ranks)
    stride = m + 1
    turns = len(talon) + 1  # how far the talon was turned: 0 .. len(talon)
    deadline = None if seconds is None else time.perf_counter() + seconds
    total = sum(heights)
    floor, bound = (0, total) if target is None else target

    def chains(counts: list[int], hole: int, cards: int) -> bool:
        key = (*counts, hole)  # few count vectors recur under many states
        ok = chain_answers.get(key)
        if ok is None:
            ok = chain_answers[key] = ranks_can_chain(counts, hole, cards, m)
        return ok

    def worth(hole: int, cards: int, played: int, turned: int) -> bool:
        """Can a line through this state beat the longest found and floor - 1?"""
        need = max(best[0], floor - 1) + 1 - played  # cards it must still play
        if need > cards:
            return False
        if hall_cut:
            return need <= cards - hall_shortfall(left, hole, talon_left[turned], links)
        if not chain_cut:  # the bounds below walk Black Hole's rank cycle
            return True
        if (gaps[0] > 1 or m < 3) and \
                reach_bound(fan_ranks, heights, left, hole, cards, m) < need:
            return False
        slack = cards - need
        if slack > SLACK_TESTED:
            return True
        bottoms = {fan_ranks[f][0] for f in range(len(fans)) if heights[f]}
        return chains_leaving(left, hole, cards, m, slack, bottoms, chains)

    def search(hole: int, code: int, cards: int, allowed: int, turned: int) -> bool | None:
        """True: a full line (target: a line of `bound` cards) is in `line`; False: no
        line from here (remembered); None: a line may leave the heuristic more than
        `allowed` times more. `turned`: the talon's cards turned so far."""
        nonlocal spent
        if target is not None and total - cards > best[0]:
            longest[:] = line
            best[0] = total - cards
            if best[0] >= bound:
                return True
        if cards == 0:
            return True
        key = code * stride + hole
        if dead.get(key, turns) <= turned:
            return False
        if target is not None:
            if not worth(hole, cards, total - cards, turned):
                return False  # not remembered: the cuts cost less than a memo entry
        elif chain_cut and not chains(left, hole, cards):
            return False
        elif parity_cut and not (-odd_from[turned] - (hole % 2 or not hole) <= excess[0]
                                 <= even_from[turned] + (hole % 2 == 0)):
            return False
        elif hall_cut and not hall_ok(left, hole, talon_left[turned], links):
            return False
        moves = []
        for r in onto[hole]:
            fans_of = showing[r]
            if len(fans_of) > 1:  # the same-rank cut: see _canonical
                fans_of = _canonical(fans_of, heights)
            moves += [(-left[r], -heights[f], f) for f in fans_of]
        if turned < len(talon):  # turning the talon comes after every fan's move
            moves.append((0, 0, TALON_MOVE))
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
            if not spent % _CLOCK_EVERY and (
                    (deadline is not None and time.perf_counter() > deadline)
                    or (stop is not None and stop[0])):
                raise _OutOfBudget
            if f == TALON_MOVE:
                line.append(talon[turned])
                found = search(talon_ranks[turned], code, cards, allowed - (i > 0),
                               turned + 1)
                if found:
                    return True
                cut = cut or found is None
                line.pop()
                continue
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
            excess[0] -= 1 if r % 2 else -1
            line.append(fans[f][h])
            found = search(r, code - drop[f][h], cards - 1, allowed - (i > 0), turned)
            if found:
                return True
            cut = cut or found is None
            line.pop()
            excess[0] += 1 if r % 2 else -1
            if not left[r]:
                gaps[0] -= 1
            left[r] += 1
            if h:
                showing[ranks[h - 1]].discard(f)
            showing[r].add(f)
            heights[f] = h + 1
        if cut:
            return None
        dead[key] = turned
        return False

    start = 0 if problem.start is None else rank[problem.start]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, total + len(talon) + 100))
    try:
        found = None
        allowed = 0
        while found is None:
            found = search(start, code, total, allowed, 0)
            allowed = allowed + 1 if allowed + 1 < passes else _UNLIMITED
        status = 1 if found else 0
    except _OutOfBudget:
        status = -1
    finally:
        sys.setrecursionlimit(limit)
    if target is not None:
        return status, tuple(longest), spent
    return status, tuple(line) if status == 1 else None, spent


def _state(problem: Problem) -> tuple[list[list[int]], list[int], list[int], int, int]:
    """The fans' ranks, their heights, the cards of each rank and the hole's rank."""
    fan_ranks = [[problem.rank[node] for node in fan] for fan in problem.fans]
    left = [0] * (problem.modulus + 1)
    for ranks in fan_ranks:
        for r in ranks:
            left[r] += 1
    start = 0 if problem.start is None else problem.rank[problem.start]
    return fan_ranks, [len(fan) for fan in fan_ranks], left, start, sum(left)


def root_bound(problem: Problem) -> int:
    """The most cards a line of `problem` may play, by the cuts of the best-score search
    at its start: `reach_bound`, then the rank counts with no card and with one card
    left (`chains_leaving`). In a game of other rules (a talon; Golf): every fan card."""
    fan_ranks, heights, left, hole, cards = _state(problem)
    if hall_applies(problem):  # a game of other rules: the cards no line can play
        links, talon_left = hall_room(onto_table(problem),
                                      [problem.rank[v] for v in problem.talon])
        return cards - hall_shortfall(left, hole, talon_left[0], links)
    if not problem.game.plain:  # the cuts walk Black Hole's rank cycle
        return cards
    m = problem.modulus
    bound = reach_bound(fan_ranks, heights, left, hole, cards, m)
    bottoms = {ranks[0] for ranks in fan_ranks if ranks}

    def chains(counts: list[int], rank: int, n: int) -> bool:
        return ranks_can_chain(counts, rank, n, m)

    while bound and cards - bound <= SLACK_TESTED and not chains_leaving(
            left, hole, cards, m, cards - bound, bottoms, chains):
        bound -= 1
    return bound


def longest(problem: Problem, budget: int | None = None, *, engine: str | None = None,
            seconds: float | None = None, stop: bytearray | None = None) -> Longest:
    """The longest legal line of `problem`, by exhaustion: the look's depth-first search
    with its memo and the same-rank cut, where a state is cut only when no line through
    it can beat the longest found (`reach_bound`, `chains_leaving`). It runs in rounds
    from the bound at the start (`root_bound`) down: round k seeks only lines of at least
    bound - (2^k - 1) cards, which keeps the cuts strong; a round that exhausts its tree
    without one lowers the bound below that floor. It ends at once when the line found
    meets the bound (a win, or the bound proven). `budget` (moves over all rounds; None:
    none), `seconds` and `stop` as for `look`: at the limit, the longest line found and
    the bound shown so far, unproven; `stats["nodes"]` counts the moves tried. Both
    engines give the same Longest."""
    if stop is not None and len(stop) < 1:
        raise ArgumentError("stop must hold at least one byte")
    use = _engine(engine)
    began = time.perf_counter()
    bound = root_bound(problem)
    best: tuple[int, ...] = ()
    talon = set(problem.talon)

    def played(line: tuple[int, ...]) -> int:  # the fan cards of a line: its score
        return sum(1 for node in line if node not in talon)

    spent, slack = 0, 0
    while played(best) < bound:
        floor = max(bound - slack, played(best) + 1)
        moves = _UNLIMITED if budget is None else budget - spent
        left = None if seconds is None else seconds - (time.perf_counter() - began)
        if moves <= 0 or (left is not None and left <= 0):
            break
        status, line, nodes = _search_longest(problem, use, moves, left, stop, floor, bound)
        spent += nodes
        if played(line) > played(best):
            best = line
        if status != 0:  # the bound met, or the limit
            break
        bound = max(played(best), floor - 1)  # no line beats both
        slack = 2 * slack + 1
    return Longest(best, bound, stats={"nodes": spent}, turned=len(best) - played(best))


def _search_longest(problem: Problem, use: str, budget: int, seconds: float | None,
                    stop: bytearray | None, floor: int,
                    bound: int) -> tuple[int, tuple[int, ...], int]:
    if use == "c":
        assert _look_core is not None
        rank = problem.rank
        start = 0 if problem.start is None else rank[problem.start]
        status, line, nodes = _look_core.longest(
            problem.fans, [[rank[node] for node in fan] for fan in problem.fans],
            problem.modulus, start, min(budget, 2**62), LDS_PASSES,
            0.0 if seconds is None else max(seconds, 1e-9), stop, onto_table(problem),
            problem.talon, [rank[node] for node in problem.talon],
            CHAIN_CUT * problem.game.plain | HALL_CUT * hall_applies(problem), floor, bound)
        if status != _NOT_TAKEN:
            return status, line, nodes
    status, found, nodes = _python_search(problem, budget, seconds, stop, LDS_PASSES,
                                          (floor, bound))
    return status, found or (), nodes
