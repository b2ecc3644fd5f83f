"""The compiled core of the first look (blackhole._look_core) against the Python search:
the same Look, field for field (line, refuted, nodes), on real deals, generalised decks,
the All in a Row variant (no start card) and part-played positions, at several budgets."""

from __future__ import annotations

import csv
import os
import random
from pathlib import Path

import pytest

from blackhole import look as look_module
from blackhole.backends import Options, Verdict
from blackhole.base.environment import LOOK_VARIABLE, LOOK_VARIABLE_DEPRECATED
from blackhole.base.errors import InputError
from blackhole.look import (
    COMPILED_BUDGET,
    PYTHON_BUDGET,
    Look,
    c_engine_built,
    default_budget,
    engine_in_use,
    look,
)
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, Problem, build_problem
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import check_order, random_line, random_position, ranked_deal, small_deal

NO_C_CORE = "BLACKHOLE_NO_C_CORE"
needs_core = pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")


def both(problem: Problem, budget: int | None) -> Look:
    """The Look of both engines, which must agree; a line must be legal."""
    python = look(problem, budget, engine="python")
    compiled = look(problem, budget, engine="auto")
    assert compiled == python
    if python.line is not None:
        check_order(problem, python.line)
    return python


def test_the_compiled_core_is_built() -> None:
    if os.environ.get(NO_C_CORE):
        pytest.skip(f"{NO_C_CORE} is set: a pure-Python install is intended")
    assert c_engine_built(), "blackhole._look_core did not build (pip install -e .)"


@needs_core
@pytest.mark.parametrize("budget", [1000, 5000])
def test_the_engines_agree_on_pysol(budget: int) -> None:
    looks = [both(build_problem(load_deal(f"pysol:{n}")), budget) for n in range(1, 1001, 7)]
    assert any(one.line for one in looks) and any(one.refuted for one in looks)
    assert any(one.line is None and not one.refuted for one in looks)


@needs_core
@pytest.mark.parametrize("budget", [1000, 5000])
@pytest.mark.parametrize("game", ["tri-peaks", "tri-peaks-strict", "escalator"])
def test_the_engines_agree_on_a_cover_graph(game: str, budget: int) -> None:
    """TriPeaks' peaks and Escalator's pyramid (look/covers.py): the compiled core handed
    the graph and the Python search over it, on deals and on part-played positions."""
    looks = []
    for n in range(1, 301, 11):
        deal = load_deal(f"pysol:{n}:{game}")
        line = random_line(deal, random.Random(n), 12)
        after = load_position(f"pysol:{n}:{game}", " ".join(map(str, line))).deal
        for layout in (deal, after):
            problem = build_problem(layout, "look", RULES_HELD)
            python = look(problem, budget, engine="python")
            assert look(problem, budget, engine="auto") == python
            if python.line is not None:  # talon cards go on any card: the rules judge
                assert replay(layout, [problem.cards[v] for v in python.line]).won
            looks.append(python)
    assert any(one.line for one in looks) and any(one.refuted for one in looks)
    assert any(one.line is None and not one.refuted for one in looks)


@pytest.mark.slow
@needs_core
@pytest.mark.parametrize("budget", [1000, 5000])
def test_the_engines_agree_on_all_of_pysol_1_1000(budget: int) -> None:
    for n in range(1, 1001):
        both(build_problem(load_deal(f"pysol:{n}")), budget)


@needs_core
def test_the_engines_agree_at_a_large_budget() -> None:
    """Deals the look leaves at 5,000 nodes, at 50,000: deep passes, a big memo."""
    looks = [both(build_problem(load_deal(f"pysol:{n}")), 50_000)
             for n in (4, 5, 18, 858, 13, 265, 922)]
    assert [one.line is not None for one in looks] == [True] * 3 + [False, True, False, False]
    assert [one.refuted for one in looks] == [False] * 3 + [True] + [False] * 3


@needs_core
@pytest.mark.parametrize("ranks", [2, 3, 4, 5, 8, 16, 30, 100])
def test_the_engines_agree_on_generalised_decks(ranks: int) -> None:
    for seed in range(6):
        for variant in ("", "any:"):
            deal = load_deal(f"random:{seed}:{variant}ranks={ranks}")
            both(build_problem(deal), 3000)


@needs_core
@pytest.mark.parametrize("seed", range(200))
def test_the_engines_agree_on_small_deals(seed: int) -> None:
    """Decks of 4 to 7 ranks, a quarter of them without a start card."""
    problem = build_problem(small_deal(seed))
    for budget in (0, 1, 7, 100, 20_000):
        both(problem, budget)


@needs_core
@pytest.mark.parametrize("seed", range(30))
def test_the_engines_agree_on_odd_shapes(seed: int) -> None:
    """Long fans (beyond 255 cards), one-card fans, many ranks: keys of several words."""
    rng = random.Random(seed)
    ranks = rng.choice([2, 3, 13, 40, 100])
    size = rng.choice([1, 2, 5, 50, 300, 4 * ranks])
    deal = small_deal(seed, ranks=(ranks,), fan_sizes=(size,), start=0.6)
    both(build_problem(deal), rng.choice([500, 5000]))
    both(build_problem(ranked_deal(ranks, size, seed)), 2000)


@needs_core
@pytest.mark.parametrize("seed", range(40))
def test_the_engines_agree_on_positions(seed: int) -> None:
    """Part-played deals (Black Hole, and All in a Row with its free first card)."""
    rng = random.Random(seed)
    problem = build_problem(random_position(rng, rng.choice(["", ":all-in-a-row"]), 0))
    for budget in (300, 20_000):
        both(problem, budget)


@needs_core
def test_budgets_at_the_edges() -> None:
    problem = build_problem(load_deal("pysol:2"))
    assert both(problem, 0) == Look(None, False, 0)
    assert both(problem, -5) == Look(None, False, 0)
    assert both(problem, 50) == Look(None, False, 50)
    assert both(problem, 10**30).line is not None  # a budget beyond 64 bits
    line = both(problem, None).line
    assert line is not None
    won = load_position("pysol:2", " ".join(str(problem.cards[v]) for v in line))
    assert both(build_problem(won.deal), 0) == Look((), False, 0)  # no card left to play


@needs_core
def test_a_million_nodes_stay_within_budget() -> None:
    """The memo grows with the budget, not past it; the search needs no recursion."""
    problem = build_problem(load_deal("random:3:ranks=100"))
    outcome = look(problem, 1_000_000, engine="auto")
    assert outcome.nodes <= 1_000_000
    if outcome.line is not None:
        check_order(problem, outcome.line)


def test_the_engine_is_chosen_by_argument_or_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_budget("python") == PYTHON_BUDGET
    assert default_budget("auto") == (COMPILED_BUDGET if c_engine_built() else PYTHON_BUDGET)
    with pytest.raises(InputError, match="engine"):
        look(build_problem(load_deal("pysol:2")), 100, engine="fortran")

    class Refuse:
        @staticmethod
        def look(*_args: object) -> object:
            raise AssertionError("the compiled core ran")

    monkeypatch.setattr(look_module, "_look_core", Refuse)
    monkeypatch.setenv(LOOK_VARIABLE, "python")
    assert default_budget() == PYTHON_BUDGET
    outcome = look(build_problem(load_deal("pysol:2")))
    assert outcome.line is not None and outcome.nodes <= PYTHON_BUDGET
    monkeypatch.setenv(LOOK_VARIABLE, "auto")
    with pytest.raises(AssertionError, match="compiled core ran"):
        look(build_problem(load_deal("pysol:2")))


@needs_core
@pytest.mark.parametrize("new,former,expected", [
    (None, "python", "python"),  # the former name alone still decides
    (None, "auto", "c"),
    ("auto", "python", "c"),  # with both set, the new name wins
    ("python", "auto", "python"),
])
def test_the_former_variable_decides_only_while_the_new_one_is_unset(
        new: str | None, former: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """BLACKHOLE_PROBE_ENGINE, the deprecated name of the look's switch: the engine the
    `look` backend reports having run."""
    if new is None:
        monkeypatch.delenv(LOOK_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(LOOK_VARIABLE, new)
    monkeypatch.setenv(LOOK_VARIABLE_DEPRECATED, former)
    assert engine_in_use() == expected
    solved = solve_deal(load_deal("pysol:2"), "look", Options())
    assert solved.verdict is Verdict.SOLVED and solved.result.stats["engine"] == expected


@needs_core
def test_the_core_leaves_what_it_does_not_take_to_python() -> None:
    from blackhole import _look_core

    onto = [[1, 2, 3], [2, 3], [1, 3], [1, 2]]  # three ranks on a cycle

    def core(fans, ranks, start, table=onto, talon=(), talon_ranks=(), cuts=1):
        return _look_core.look(fans, ranks, 3, start, 10, 3, 0.0, None, table, talon,
                               talon_ranks, cuts)

    assert core(((1,),), ((5,),), 0) == (-2, None, 0)  # rank 5 of 3
    assert core(((1,),), ((1,),), 4) == (-2, None, 0)  # start rank 4
    assert core(((1,), (2,)), ((2,),), 0) == (-2, None, 0)
    assert core(((1,),), ((2,),), 0, table=[[1, 4]] + onto[1:]) == (-2, None, 0)
    assert core(((1,),), ((2,),), 0, table=onto[:3]) == (-2, None, 0)  # a row short
    assert core(((1,),), ((2,),), 1, talon=(2,), talon_ranks=(9,)) == (-2, None, 0)
    assert core(((1,),), ((2,),), 0) == (1, (1,), 1)
    # a talon card turned first: rank 1 cannot go on rank 1, rank 2 can (no rank-count
    # cut: it is Black Hole's alone)
    assert core(((1,),), ((1,),), 1, talon=(2,), talon_ranks=(2,), cuts=0) == (1, (2, 1), 2)


@needs_core
def test_the_core_plays_a_cell_and_leaves_what_it_does_not_take() -> None:
    """A cell's moves as the Python search writes them (a park of node v as ~v, the
    cell's card as its node) on three ranks, and the cells it does not take."""
    from blackhole import _look_core

    onto = [[1, 2, 3], [2, 3], [1, 3], [1, 2]]

    def core(fans, ranks, start, cell, cuts=0):
        return _look_core.look(fans, ranks, 3, start, 10, 3, 0.0, None, onto, (), (), cuts,
                               None, cell)

    # rank 1 on the hole's rank 1: parked, the card under it played, then the cell's
    assert core(((5, 6),), ((2, 1),), 1, (1, -1, -1, 0)) == (1, (~6, 5, 6), 3)
    assert core(((5, 6),), ((2, 1),), 1, (1, 1, -1, 0)) == (1, (~6, 5, 6), 3)
    assert core(((5, 6),), ((2, 1),), 1, (1, 0, -1, 0)) == (0, None, 0)  # no park left
    assert core(((5, 6),), ((2, 1),), 1, None) == (0, None, 0)  # no cell
    # a fan's last card is never parked
    assert core(((5,), (6,)), ((1,), (1,)), 1, (1, -1, -1, 0)) == (0, None, 0)
    # a card in the cell at the start: a card left, played after the fans' of its rank
    assert core(((5,),), ((2,),), 3, (1, 0, 6, 1)) == (1, (5, 6), 2)
    assert core(((5,),), ((1,),), 2, (1, 0, 6, 3)) == (1, (5, 6), 2)  # (6, 5) wins too
    # two cards of rank 1 on rank 2: the fan's tried first (the first pass's only move),
    # then the cell's; neither leaves the other a move
    assert core(((5,),), ((1,),), 2, (1, 0, 6, 1)) == (0, None, 3)
    for cell in ((2, -1, -1, 0), (1, -1, 6, 4), (0, -1, 6, 1), (1, -2, -1, 0)):
        assert core(((5,),), ((2,),), 1, cell) == (-2, None, 0), cell
    assert _look_core.look(((5,),), ((2,),), 3, 1, 10, 3, 0.0, None, onto, (), (), 0,
                           ([0], [0], [0]), (1, -1, -1, 0)) == (-2, None, 0)  # a graph


@needs_core
def test_the_default_look_settles_all_of_pysol_1_1000_as_the_reference_does() -> None:
    """With the same-rank and rank-count cuts the compiled look at its default budget wins
    or refutes every deal of pysol:1-1000 (877 wins, 123 refutations), each as the
    independent C solver's verdicts say; every win replays."""
    reference = {int(row["deal"]): row["verdict"] for row in csv.DictReader(
        (Path(__file__).parent / "data" / "pysol-1-1000.csv").open())}
    for n in range(1, 1001):
        problem = build_problem(load_deal(f"pysol:{n}"))
        outcome = look(problem, engine="auto")
        assert outcome.line is not None or outcome.refuted, n
        assert ("solved" if outcome.line is not None else "unsolvable") == reference[n], n
        if outcome.line is not None:
            check_order(problem, outcome.line)


@needs_core
@pytest.mark.parametrize("modulus", [1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 17])
def test_the_compiled_rank_count_cut_is_the_python_one(modulus: int) -> None:
    """The core works the cut out per parity of the last card's rank, the Python one per
    rank: both must say the same on every hole and random counts, sparse and full."""
    from blackhole import _look_core

    rng = random.Random(modulus)
    said = set()
    for case in range(4000):
        hole = rng.randrange(0, modulus + 1)
        if case % 2:  # the counts a random walk from the hole shows, one card moved or not
            left, rank = [0] * (modulus + 1), hole or 1
            for _ in range(rng.randrange(1, 40)):
                rank = (rank + rng.choice((0, modulus - 2))) % modulus + 1
                left[rank] += 1
            if rng.random() < 0.5:
                left[rank] -= 1
                left[rng.randrange(1, modulus + 1)] += 1
        else:  # random counts, a rank or two emptied, as late in a game
            left = [0] + [rng.choice((0, 0, 1, 2, 3, 4)) for _ in range(modulus)]
            left[rng.randrange(1, modulus + 1)] = 0
        cards = sum(left)
        if not cards:
            continue
        expected = look_module.ranks_can_chain(left, hole, cards, modulus)
        assert _look_core.ranks_can_chain(left, hole, cards, modulus) is expected, (left, hole)
        said.add(expected)
    assert said == ({True, False} if modulus >= 3 else {True})  # off below 3 ranks


@needs_core
def test_the_core_lets_other_threads_run_while_it_searches() -> None:
    """A look may take half a second (pysol:10683 is refuted after 2.9 million moves): the
    core lets the GIL go meanwhile, so a Python thread beside it keeps running. Holding
    the GIL would stall that thread for the whole look."""
    import threading
    import time

    problem = build_problem(load_deal("pysol:10683"))
    span: list[float] = []

    def search() -> None:
        span.append(time.perf_counter())
        look(problem, engine="auto")
        span.append(time.perf_counter())

    worker = threading.Thread(target=search)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    began, ended = span
    during = [t for t in ticks if began <= t <= ended]
    longest = max(b - a for a, b in zip([began, *during], [*during, ended], strict=True))
    assert ended - began > 0.05  # a long look, or the test shows nothing
    assert longest < (ended - began) / 2, (longest, ended - began)


@pytest.mark.parametrize("seed", range(30))
def test_the_memo_key_is_what_is_left_as_rank_sequences(seed: int) -> None:
    """Two states share a memo key exactly when their fans hold the same multiset of rank
    sequences (suits and the order of the fans aside); both engines use this key, and the
    tests above hold their node counts together."""
    problem = build_problem(small_deal(seed, ranks=(3, 4), fan_sizes=(1, 2, 3)))
    fans, rank = problem.fans, problem.rank
    start, drop = look_module._memo_code(problem)
    rng = random.Random(seed)

    def code(heights: list[int]) -> int:
        return start - sum(sum(drop[f][h:]) for f, h in enumerate(heights))

    def left(heights: list[int]) -> list[tuple[int, ...]]:
        return sorted(tuple(rank[node] for node in fan[:h])
                      for fan, h in zip(fans, heights, strict=True) if h)

    states = [[rng.randint(0, len(fan)) for fan in fans] for _ in range(60)]
    states.append([len(fan) for fan in fans])
    shared = 0
    for a in states:
        for b in states:
            assert (code(a) == code(b)) == (left(a) == left(b))
            shared += a != b and left(a) == left(b)
    assert code([len(fan) for fan in fans]) == start
    if seed == 0:
        assert shared  # fans of equal rank sequences are met, and merged
