"""The look's cuts besides the memo and the same-rank cut, and the rule features each
holds for.

Each cut declares the rule features (`blackhole.model.games.Rules.features`) it is sound for,
and runs on a Problem only when its game's features are among them (`cut_flags`, worked
out once a problem, never a move):
- the rank-count cut (`ranks_can_chain`) argues from Black Hole's rules alone: a walk on
  the wrapping rank cycle that shows every card left (CHAIN_PLAYS: a free cell, whose
  card is a card left, changes none of it); so do the best score's cuts on that cycle
  (`reach_bound`, `chains_leaving`), which run with it, but for a game with a cell
  (REACH_PLAYS: a parked blocker opens the cards under it, and a line may end with a
  card in the cell);
- the parity cut (`parity_room`) and the predecessor cut (`hall_room`) read what may go
  on each rank from the game's table (`onto_table`) and count the talon's cards, so they
  hold for the rules a Problem holds (PARITY_PLAYS, HALL_PLAYS), where their own test of
  the table passes (`parity_applies`, `hall_applies`).
The look itself plays the rule features in PLAYS (its moves come from the table and the
talon), and refuses a Problem of any other (`check_plays`).

The reasons each cut is sound are in encodings/look.md.
"""

from __future__ import annotations

from collections.abc import Callable

from blackhole.model.games import COVERS, fitting, refusal
from blackhole.model.problem import RULES_HELD, Problem

# The rule features the look plays: its moves follow the game's table (`onto_table`),
# it turns the talon's cards, it wins when the required nodes are played, and it plays a
# layout that is not made of chains (COVERS) by its cover-graph search
# (`blackhole.look.covers`).
# A free cell (`cells`, `cell_uses`) it plays over fans: a park is a move, the cell's card
# a card left (encodings/look.md, "With a cell").
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", COVERS, "cells",
                                   "cell_uses"})
# The rank-count cut: Black Hole's rules, on any layout (it reads the counts alone).
CHAIN_PLAYS: frozenset[str] = frozenset({COVERS, "cells", "cell_uses"})
# The best score's cuts on the rank cycle (`reach_bound`, `chains_leaving`)
REACH_PLAYS: frozenset[str] = frozenset({COVERS})
PARITY_PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", COVERS, "cells",
                                          "cell_uses"})
HALL_PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", COVERS, "cells",
                                        "cell_uses"})
# the compiled core's cuts besides the memo and the same-rank cut; REACH_CUT: the best
# score's cuts on the rank cycle, which run with CHAIN_CUT
CHAIN_CUT, PARITY_CUT, HALL_CUT, REACH_CUT = 1, 2, 4, 8


def check_plays(problem: Problem, who: str = "the look engine") -> None:
    """An InputError when the Problem's game holds a rule feature the look does not
    play (PLAYS)."""
    refused = refusal(problem.game, PLAYS, who, problem.game.name,
                      "--backend auto plays it" if problem.game.features <= RULES_HELD
                      else "")
    if refused is not None:
        raise refused


def chain_applies(problem: Problem) -> bool:
    """Does the rank-count cut (and the best score's cuts on the rank cycle) hold: are
    the game's rule features among CHAIN_PLAYS (Black Hole's rules, on any layout)? On a
    cover graph the best score's cuts that read a fan's order do not run
    (`blackhole.look.covers`)."""
    return problem.game.features <= CHAIN_PLAYS


def reach_applies(problem: Problem) -> bool:
    """Do the best score's cuts on the rank cycle hold (`reach_bound`, `chains_leaving`):
    the rank-count cut's rules, and the game's features among REACH_PLAYS?"""
    return chain_applies(problem) and problem.game.features <= REACH_PLAYS


def cut_flags(problem: Problem, onto: tuple[tuple[int, ...], ...],
              parity: bool = True) -> int:
    """The compiled core's cut flags for `problem` (CHAIN_CUT, PARITY_CUT, HALL_CUT,
    REACH_CUT): each cut whose declared rule features hold the game's, and whose own test
    passes; the parity cut only when `parity` (the longest-line search has none)."""
    flags = CHAIN_CUT if chain_applies(problem) else 0
    if reach_applies(problem):
        flags |= REACH_CUT
    if parity and problem.game.features <= PARITY_PLAYS and parity_applies(onto):
        flags |= PARITY_CUT
    if hall_applies(problem):
        flags |= HALL_CUT
    return flags


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
    """Does the predecessor cut (`hall_room`) run? For a game whose rule features it
    declared (HALL_PLAYS) but where the rank-count cut does not run (it is stronger),
    whose cards go only on the ranks next to their own (`games.rank_fits` allows no
    other)."""
    if chain_applies(problem) or not problem.game.features <= HALL_PLAYS:
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


# ---------------------------------------------------------------- the best score's cuts


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


# ---------------------------------------------------------------- a cover graph's cut


def same_rank_beaten(ranks: tuple[int, ...], under: tuple[tuple[int, ...], ...]
                     ) -> tuple[int, ...]:
    """The same-rank cut on a cover graph: beaten[x], the bitmask of the slots y of x's
    rank that are played before x when both are free. y beats x when every slot x lies on
    y lies on too, and more, or the same ones with y the lower slot. A line that plays x
    and then y can play y and then x: whatever is played between waits for y too if it
    waits for x. On fans a card lies on the one card under it, so this is the cut over
    fans (`blackhole.look._canonical`): a fan's last card lies on nothing."""
    of_rank: dict[int, list[int]] = {}  # rank → its slots, in order
    for y, rank in enumerate(ranks):
        of_rank.setdefault(rank, []).append(y)
    lies_on = [set(slots) for slots in under]
    beaten = []
    for x, rank in enumerate(ranks):
        mine = lies_on[x]
        beaten.append(sum(1 << y for y in of_rank[rank]
                          if y != x and mine <= lies_on[y]
                          and (len(under[y]) > len(mine) or y < x)))
    return tuple(beaten)
