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
cards were turned. The rank-count cut holds for Black Hole's rules only; where no move
wraps, the parity cut (`parity_room`) takes its place. Which cut runs on which game's
rules, and the rule features the look plays, are declared in `blackhole.look.cuts`.

A game with a free cell (Worm Hole) is searched over fans with two more moves, parking a
fan's top card and playing the cell's card, tried after the hole moves of their rank;
the state (and the memo's key) adds the cell's rank and the parks left. Its best score
runs without the cuts on the rank cycle, which a cell breaks (`look_cuts.REACH_PLAYS`).
The compiled core plays the cell the same way, move for move.

A layout that is not made of chains (TriPeaks' peaks, Escalator's pyramid: a card waits
for the two cards on it) is searched over its cover graph by `blackhole.look.covers`: the
state is the slots still there, the memo's key exactly that, and the same-rank cut takes
a graph's form; the cuts that read counts alone run as they do over fans. What the two
searches share (passes, budget, the counting cuts, the move loop) is
`blackhole.look.walk`.

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
about 7 us here, so its default budget is far larger (COMPILED_BUDGET).

What the default budget settles, and at what cost, is in docs/performance.md.
The core lets the GIL go while it searches, so other threads run beside a long look,
and another thread can end it early (`stop`: the `auto` portfolio does when SAT answers
first).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from blackhole.base.environment import ENGINES, look_switch
from blackhole.base.errors import ArgumentError, InputError
from blackhole.look.covers import core_layout, cover_graph, cover_root_bound, cover_search
from blackhole.look.cuts import (
    SLACK_TESTED,
    chains_leaving,
    check_plays,
    cut_flags,
    hall_applies,
    hall_room,
    hall_shortfall,
    onto_table,
    ranks_can_chain,
    reach_applies,
    reach_bound,
)
from blackhole.look.walk import (
    LDS_PASSES,
    PARK_BASE,
    TURN,  # noqa: F401 - the place of a turn of the talon, as the look names it
    UNLIMITED,
    UNPARK,
    Search,
    Setup,
    answer,
    counter,
    entry,
    ordered,
    split_events,
    tried,
    worth_test,
)
from blackhole.look.walk import passes as run_passes
from blackhole.model.longest import Longest
from blackhole.model.problem import Problem

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
try:  # the compiled core, built at install time where a C compiler is at hand
    from blackhole import _look_core
except ImportError:  # pragma: no cover - an install without a compiler
    _look_core = None

_NOT_TAKEN = -2  # the compiled core's answer to a problem it leaves to the Python search


@dataclass(frozen=True)
class Look:
    line: tuple[int, ...] | None  # a full line (nodes in play order, start excluded)
    refuted: bool  # the budget covered the whole tree and no full line exists
    nodes: int  # moves tried
    parks: tuple[tuple[int, int], ...] = ()  # a cell's parks: (node, hole moves before)


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
    built) or "python"; None reads $BLACKHOLE_LOOK_ENGINE (`environment.look_switch`), else
    "auto". Both give the same Look, unless the clock or `stop` ends one of them. `stop`
    is a flag another thread may set (its first byte made non-zero) to end the search as
    out of budget, within a few milliseconds. A Problem of a game with a rule feature the
    look does not play (`look_cuts.PLAYS`) is an InputError."""
    check_plays(problem)
    if stop is not None and len(stop) < 1:
        raise ArgumentError("stop must hold at least one byte")
    use = _engine(engine)
    if budget is None:
        budget = default_budget(engine)
    status, line, nodes = _run(problem, use, budget, seconds, stop, None)
    order, parks = split_events(line) if status == 1 and line is not None else (None, ())
    return Look(order, status == 0, nodes, parks)


def _run(problem: Problem, use: str, budget: int, seconds: float | None,
         stop: bytearray | None, target: tuple[int, int] | None
         ) -> tuple[int, tuple[int, ...] | None, int]:
    """One search (`target` None: for a full line; else (floor, bound): one round of the
    longest line) by the compiled core where `use` is "c" and it takes the problem, else
    in Python: over the fans of a chain layout, else over its cover graph
    (`blackhole.look.covers`)."""
    graph = None if problem.chains else cover_graph(problem)
    layout = (None if use != "c" or not isinstance(budget, int)
              else (problem.fans, [[problem.rank[v] for v in fan] for fan in problem.fans],
                    None) if graph is None else core_layout(graph))
    if layout is not None:
        assert _look_core is not None
        fans, fan_ranks, covers = layout
        rank, onto = problem.rank, onto_table(problem)
        start = 0 if problem.start is None else rank[problem.start]
        given = (fans, fan_ranks, problem.modulus, start, max(-1, min(budget, 2**62)),
                 LDS_PASSES, 0.0 if seconds is None else max(seconds, 1e-9), stop, onto,
                 problem.talon, [rank[node] for node in problem.talon],
                 cut_flags(problem, onto, parity=target is None))
        status, line, nodes = (_look_core.look(*given, covers, _core_cell(problem))
                               if target is None
                               else _look_core.longest(*given, *target, covers,
                                                       _core_cell(problem)))
        if status != _NOT_TAKEN:
            return status, line, nodes
    if graph is not None:
        return cover_search(problem, graph, budget, seconds, stop, LDS_PASSES, target)
    return _python_search(problem, budget, seconds, stop, LDS_PASSES, target)


def _core_cell(problem: Problem) -> tuple[int, int, int, int] | None:
    """The cell as the compiled core reads it: None without one, else (cells, the parks
    left or -1 for any number, the cell's card's node and rank, or -1 and 0 when empty)."""
    if not problem.cells:
        return None
    parks = -1 if problem.parks_left is None else problem.parks_left
    if problem.cell is None:
        return problem.cells, parks, -1, 0
    return problem.cells, parks, problem.cell, problem.rank[problem.cell]


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
    """The look's search over fans. `target` None: a full line (the win-only cuts), else
    (floor, bound): the longest line, cut where a state cannot beat both the longest line
    found and floor - 1, and ended once a line of `bound` cards is found. Returns (1, the
    line: full, or of at least `bound` cards; 0, None or the longest line: the tree was
    exhausted; -1, None or the longest line: out of budget or time), and the moves tried,
    as the compiled core does (its set_up, search and read_back: _FanSetup, _searcher)."""
    state = _FanSetup(problem, target)
    return answer(state, run_passes(_searcher(state, budget, seconds, stop), state, passes))


class _FanSetup(Setup):
    """The search's state over fans: besides `Setup`'s, the fans' heights, their ranks,
    showing[r] (the fans whose top card has rank r, so a node looks at its moves only) and
    the memo code's drops (`_memo_code`)."""

    def __init__(self, problem: Problem, target: tuple[int, int] | None) -> None:
        self.fans = problem.fans
        self.fan_ranks = [[problem.rank[node] for node in fan] for fan in self.fans]
        code, self.drop = _memo_code(problem)
        ranks = [r for fan in self.fan_ranks for r in fan]
        if problem.cell is not None:  # the cell's card is a card left
            ranks.append(problem.rank[problem.cell])
        super().__init__(problem, target, ranks, code)
        self.heights = [len(fan) for fan in self.fans]
        # the cell: [its card's rank (0: empty), its node (-1)], the parks left
        cell = problem.cell
        self.cell = [0, -1] if cell is None else [problem.rank[cell], cell]
        self.cap = problem.parks_left or 0  # a limit's parks at most; 0: no limit
        self.uses = [problem.parks_left if problem.parks_left is not None else 1]
        self.showing: list[set[int]] = [set() for _ in range(self.m + 1)]
        for f, ranks in enumerate(self.fan_ranks):
            if ranks:
                self.showing[ranks[-1]].add(f)


def _searcher(state: _FanSetup, budget: int, seconds: float | None, stop: bytearray | None
              ) -> Search:
    """The search over `state`'s lists, which it changes as it plays and takes back, for
    at most `budget` moves and `seconds` from now."""
    tick = counter(state.spent, budget, seconds, stop)
    fans, fan_ranks, heights, left = state.fans, state.fan_ranks, state.heights, state.left
    showing, onto, drop, m = state.showing, state.onto, state.drop, state.m
    line, dead, talon, take, give = state.line, state.dead, state.talon, state.take, state.give
    stride, enter = m + 1, entry(state, _worth_test(state))
    celled, cell, uses, cap = bool(state.cells), state.cell, state.uses, state.cap

    def search(hole: int, code: int, cards: int, allowed: int, turned: int) -> bool | None:
        """True: a full line (target: a line of `bound` cards) is in `line`; False: no
        line from here (remembered); None: a line may leave the heuristic more than
        `allowed` times more. `turned`: the talon's cards turned so far."""
        key = code * stride + hole
        if celled:  # the cell by its card's rank, as the hole is keyed: suits never matter
            key = (key * stride + cell[0]) * (cap + 1) + (uses[0] if cap else 0)
        ended = enter(hole, key, cards, turned)
        if ended is not None:
            return ended
        moves = []
        for r in onto[hole]:
            fans_of = showing[r]
            if len(fans_of) > 1:  # the same-rank cut: see _canonical
                fans_of = _canonical(fans_of, heights)
            moves += [(-left[r], -heights[f], f) for f in fans_of]
        if celled:
            moves += cell_moves(hole)
        cut, moves = ordered(moves, turned < len(talon), allowed)
        found = tried(state, tick, search, play if not celled else partial(play_cell, hole),
                      moves, cut, code, cards, allowed, turned)
        if found is False:
            dead[key] = turned
        return found

    def cell_moves(hole: int) -> list[tuple[int, int, int]]:
        """The cell's moves: its card onto the hole when it fits (keyed as a fan's top
        card with nothing under it), and while it is empty and may take one, parking each
        fan's top card that has a card under it (never a fan's last card: encodings/look.md,
        "With a cell"), after every hole move, those that free a card fitting the hole
        first, then from the higher fan."""
        if cell[0]:
            r = cell[0]
            return [(-left[r], 0, UNPARK)] if r in onto[hole] else []
        if not uses[0]:
            return []
        fits = onto[hole]
        return [(1 if fan_ranks[f][h - 2] in fits else 2, -h, PARK_BASE - f)
                for f, h in enumerate(heights) if h > 1]

    def play_cell(hole: int, place: int, code: int, cards: int, allowed: int,
                  turned: int) -> bool | None:
        """A move of a game with a cell: a fan's top card (`play`), the cell's card onto
        the hole, or a fan's top card into the cell (each taken back unless a line is
        found)."""
        if place >= 0:
            return play(place, code, cards, allowed, turned)
        r, node = cell
        if place == UNPARK:
            cell[0], cell[1] = 0, -1
            take(r)
            line.append(node)
            found = search(r, code, cards - 1, allowed, turned)
            if not found:
                give(r)
                cell[0], cell[1] = r, node
            return found
        f = PARK_BASE - place
        h = heights[f] - 1
        heights[f] = h
        ranks = fan_ranks[f]
        showing[ranks[h]].discard(f)
        showing[ranks[h - 1]].add(f)
        cell[0], cell[1] = ranks[h], fans[f][h]
        uses[0] -= cap > 0
        line.append(~fans[f][h])
        found = search(hole, code - drop[f][h], cards, allowed, turned)
        if not found:
            uses[0] += cap > 0
            cell[0], cell[1] = 0, -1
            showing[ranks[h - 1]].discard(f)
            showing[ranks[h]].add(f)
            heights[f] = h + 1
        return found

    def play(f: int, code: int, cards: int, allowed: int, turned: int) -> bool | None:
        """Fan f's top card onto the hole (taken back unless a line is found)."""
        h = heights[f] - 1
        heights[f] = h
        ranks = fan_ranks[f]
        r = ranks[h]
        showing[r].discard(f)
        if h:
            showing[ranks[h - 1]].add(f)
        take(r)
        line.append(fans[f][h])
        found = search(r, code - drop[f][h], cards - 1, allowed, turned)
        if not found:
            give(r)
            if h:
                showing[ranks[h - 1]].discard(f)
            showing[r].add(f)
            heights[f] = h + 1
        return found

    return search


def _worth_test(state: _FanSetup) -> Callable[[int, int, int, int], bool]:
    """The target mode's cut over fans (`walk.worth_test`), with the bounds on Black
    Hole's rank cycle that read the fans: the cards in reach (`reach_bound`), then the
    rank counts with slack (`chains_leaving`)."""
    m, fan_ranks, heights, left, gaps, chains = (
        state.m, state.fan_ranks, state.heights, state.left, state.gaps, state.chains)
    reach = state.reach

    def cycle(hole: int, cards: int, need: int) -> bool:
        if not reach:  # a game with a cell: the bounds on the rank cycle do not hold
            return True
        if (gaps[0] > 1 or m < 3) and \
                reach_bound(fan_ranks, heights, left, hole, cards, m) < need:
            return False
        slack = cards - need
        if slack > SLACK_TESTED:
            return True
        bottoms = {fan_ranks[f][0] for f in range(len(fan_ranks)) if heights[f]}
        return chains_leaving(left, hole, cards, m, slack, bottoms, chains)

    return worth_test(state, cycle)


def _state(problem: Problem) -> tuple[list[list[int]], list[int], list[int], int, int]:
    """The fans' ranks, their heights, the cards of each rank and the hole's rank."""
    fan_ranks = [[problem.rank[node] for node in fan] for fan in problem.fans]
    left = [0] * (problem.modulus + 1)
    for ranks in fan_ranks:
        for r in ranks:
            left[r] += 1
    start = 0 if problem.start is None else problem.rank[problem.start]
    return fan_ranks, [len(fan) for fan in fan_ranks], left, start, sum(left)


# ---------------------------------------------------------------- the best score


def root_bound(problem: Problem) -> int:
    """The most cards a line of `problem` may play, by the cuts of the best-score search
    at its start: `reach_bound`, then the rank counts with no card and with one card
    left (`chains_leaving`). In a game of other rules (a talon; Golf): every fan card,
    less the predecessors' shortfall. On a cover graph: `covers.cover_root_bound`."""
    if not problem.chains:
        return cover_root_bound(problem)
    fan_ranks, heights, left, hole, cards = _state(problem)
    if hall_applies(problem):  # a game of other rules: the cards no line can play
        links, talon_left = hall_room(onto_table(problem),
                                      [problem.rank[v] for v in problem.talon])
        return cards + (problem.cell is not None) - hall_shortfall(left, hole, talon_left[0],
                                                                   links)
    if not reach_applies(problem):  # the cuts walk Black Hole's rank cycle, with no cell
        return cards + (problem.cell is not None)
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
    it can beat the longest found (`reach_bound`, `chains_leaving`). Over fans it runs in
    rounds from the bound at the start (`root_bound`) down: round k seeks only lines of at
    least bound - (2^k - 1) cards, which keeps the cuts strong; a round that exhausts its
    tree without one lowers the bound below that floor. On a cover graph, whose bounds
    count no cards out of reach before the stranded ones, one round seeks any line longer
    than the longest found (encodings/look.md). It ends at once when the line found meets
    the bound (a win, or the bound proven). `budget` (moves over all rounds; None:
    none), `seconds` and `stop` as for `look`: at the limit, the longest line found and
    the bound shown so far, unproven; `stats["nodes"]` counts the moves tried. Both
    engines give the same Longest. A game the look does not play is refused as by
    `look`."""
    check_plays(problem)
    if stop is not None and len(stop) < 1:
        raise ArgumentError("stop must hold at least one byte")
    use = _engine(engine)
    began = time.perf_counter()
    bound = root_bound(problem)
    best: tuple[int, ...] = ()
    talon = set(problem.talon)

    def played(line: tuple[int, ...]) -> int:  # the fan cards of a line: its score
        return sum(1 for node in line if node not in talon and node >= 0)  # parks: ~node

    spent, slack = 0, 0 if problem.chains else bound  # a cover graph: one round
    while played(best) < bound:
        floor = max(bound - slack, played(best) + 1)
        moves = UNLIMITED if budget is None else budget - spent
        left = None if seconds is None else seconds - (time.perf_counter() - began)
        if moves <= 0 or (left is not None and left <= 0):
            break
        status, found, nodes = _run(problem, use, moves, left, stop, (floor, bound))
        line = found or ()
        spent += nodes
        if played(line) > played(best):
            best = line
        if status != 0:  # the bound met, or the limit
            break
        bound = max(played(best), floor - 1)  # no line beats both
        slack = 2 * slack + 1
    order, parks = split_events(best)
    return Longest(order, bound, stats={"nodes": spent}, turned=len(order) - played(best),
                   parks=parks)
