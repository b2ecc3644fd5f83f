"""The look's best score (blackhole.look.longest, the `look` backend's `best`, and the
first stage of `auto`'s): held to the independent exact scores of pysol:1-1000's lost
deals, to the `search` referee's longest line on small generalised decks, the compiled
core to the Python search field for field, and its answers at a limit to the truth."""

from __future__ import annotations

import csv
import json
import random
import threading
import time
from functools import cache
from pathlib import Path

import pytest

from blackhole.backends.search import best_score as referee_best
from blackhole.look import c_engine_built, chains_leaving, longest, reach_bound, root_bound
from blackhole.look.cuts import ranks_can_chain
from blackhole.model.longest import Longest
from blackhole.model.positions import load_position
from blackhole.model.problem import Problem, build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score

from .helpers import (
    ROOT,
    blackhole,
    check_order,
    nearly_sorted_deal,
    random_position,
    ranked_deal,
    small_deal,
)

BEST_CSV = ROOT / "tests" / "data" / "pysol-1-1000-best.csv"
# Lost deals of every kind: no first move (27), short blocks, 47 (535) and 50 (837, 915:
# the C solver's hardest, and the look's longest refutation of the 123).
SAMPLE = (1, 25, 27, 29, 77, 317, 535, 623, 837, 858, 915, 960)
PYTHON_SAMPLE = (1, 25, 27, 29, 77, 317, 623, 858, 960)  # the Python search is slower

needs_core = pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")
ENGINES = ["auto", "python"]


@cache
def exact() -> dict[int, int]:
    """deal number → its exact best score, from an independent exhaustive search."""
    with BEST_CSV.open(newline="") as handle:
        return {int(row["deal"]): int(row["best"]) for row in csv.DictReader(handle)}


def checked(problem: Problem, found: Longest) -> Longest:
    """A Longest whose line is legal and within its bound (proven exactly when the two
    meet, which `Longest.proven` says by itself)."""
    check_order(problem, found.order, complete=False)
    assert len(found.order) <= found.upper_bound <= len(problem.moves)
    return found


def both(problem: Problem, budget: int | None = None) -> Longest:
    """The Longest of both engines, which must agree field for field."""
    python = checked(problem, longest(problem, budget, engine="python"))
    if c_engine_built():
        assert longest(problem, budget, engine="auto") == python
    return python


@pytest.mark.parametrize("engine", ENGINES)
def test_the_look_s_best_scores_are_the_exact_ones_on_a_sample(engine: str) -> None:
    if engine == "auto" and not c_engine_built():
        pytest.skip("the compiled core is not built")
    for n in SAMPLE if engine == "auto" else PYTHON_SAMPLE:
        problem = build_problem(load_deal(f"pysol:{n}"))
        found = checked(problem, longest(problem, engine=engine))
        assert found.proven and len(found.order) == exact()[n], n


@pytest.mark.slow
@needs_core
def test_the_look_s_best_scores_are_the_exact_ones_on_all_123_lost_deals() -> None:
    for n, best in exact().items():
        problem = build_problem(load_deal(f"pysol:{n}"))
        found = checked(problem, longest(problem, engine="auto"))
        assert found.proven and len(found.order) == best, n


@pytest.mark.parametrize("seed", range(120))
def test_the_look_s_best_score_is_the_referee_s_on_small_decks(seed: int) -> None:
    """Small generalised decks (3 to 7 ranks, fans of 1 to 4, a quarter without a start
    card): both engines, and their bound at the start, against the `search` referee's
    longest line, which shares no code with the look."""
    deal = small_deal(seed, ranks=(3, 4, 5, 6, 7))
    problem = build_problem(deal)
    truth = len(referee_best(problem).order)
    found = both(problem)
    assert found.proven and len(found.order) == truth
    assert root_bound(problem) >= truth


@pytest.mark.parametrize("seed", range(40))
def test_the_look_s_best_score_is_the_referee_s_on_positions(seed: int) -> None:
    """Part-played pysol deals (Black Hole, and All in a Row with its free first card)."""
    rng = random.Random(seed)
    problem = build_problem(random_position(rng, rng.choice(["", ":all-in-a-row"]), 20))
    truth = len(referee_best(problem).order)
    found = both(problem)
    assert found.proven and len(found.order) == truth
    assert root_bound(problem) >= truth


@needs_core
@pytest.mark.parametrize("ranks", [2, 3, 4, 5, 8, 16, 30])
def test_the_engines_agree_on_generalised_decks(ranks: int) -> None:
    for seed in range(4):
        for variant in ("", "any:"):
            both(build_problem(load_deal(f"random:{seed}:{variant}ranks={ranks}")), 3000)
    both(build_problem(ranked_deal(ranks, 1, 0)), 3000)  # one-card fans: bottoms only


@needs_core
@pytest.mark.parametrize("budget", [0, 1, 50, 1000, 5000])
def test_the_engines_agree_at_every_budget_and_never_overstate(budget: int) -> None:
    """Out of budget the answer is unproven, its line legal and no longer than the exact
    best, its bound no lower; both engines give the same answer."""
    for n in (29, 77, 535, 858, 915):
        problem = build_problem(load_deal(f"pysol:{n}"))
        found = both(problem, budget)
        assert found.stats["nodes"] <= budget
        assert len(found.order) <= exact()[n] <= found.upper_bound, n
        if not found.proven:
            assert found.stats["nodes"] == budget


@needs_core
def test_at_the_time_limit_or_stopped_the_answer_never_overstates() -> None:
    problem = build_problem(load_deal("pysol:2563"))  # best 49, a second of search
    for seconds in (0.001, 0.05):
        found = checked(problem, longest(problem, engine="auto", seconds=seconds))
        assert not found.proven and len(found.order) <= 49 <= found.upper_bound
    unsettled = build_problem(nearly_sorted_deal(100, 1))  # unknown to the look at 10 s
    began = time.perf_counter()
    assert not longest(unsettled, engine="auto", seconds=0.05).proven
    assert time.perf_counter() - began < 5  # the limit held, not a search of 10 s or more
    stop = bytearray(1)
    answer: list[Longest] = []
    worker = threading.Thread(target=lambda: answer.append(
        longest(problem, engine="auto", stop=stop)))
    worker.start()
    time.sleep(0.05)
    stop[0] = 1
    worker.join(timeout=5)
    assert not worker.is_alive()
    found = checked(problem, answer[0])
    assert not found.proven and len(found.order) <= 49 <= found.upper_bound


def test_the_bound_counts_only_cards_above_each_fan_s_first_unreachable_rank() -> None:
    """Hole 1 of 13 ranks, ranks 2 and 3 on top of a 7 (fan 0), a 13 on a 5 (fan 1): the
    run around the hole is 13, 1, 2, 3 (4 has no card), so the 7 and the 5 under it are
    out of reach, and so is everything under them."""
    fan_ranks = [[7, 7, 3, 2], [5, 13]]
    left = [0] * 14
    for ranks in fan_ranks:
        for r in ranks:
            left[r] += 1
    assert reach_bound(fan_ranks, [4, 2], left, 1, 6, 13) == 3
    assert reach_bound(fan_ranks, [4, 2], left, 9, 6, 13) == 0  # 8 and 10 have no card
    assert reach_bound(fan_ranks, [4, 2], left, 0, 6, 13) == 6  # the first card is free


def test_one_card_left_behind_must_be_a_bottom_card() -> None:
    """Hole 1 of 5 ranks (its neighbours are 2 and 5). Cards 2, 2, 4: after a 2 the hole
    needs a 1 or a 3, and a 4 never fits a 1, so no line plays two of them. Cards 2, 4, 5:
    only 5 then 4 plays two, so one card left behind helps only when it is the 2, and
    only when the 2 is a fan's bottom card."""
    left = [0, 0, 2, 0, 1, 0]

    def chains(counts: list[int], hole: int, cards: int) -> bool:
        return ranks_can_chain(counts, hole, cards, 5)

    assert not chains_leaving(left, 1, 3, 5, 0, {2, 4}, chains)
    assert not chains_leaving(left, 1, 3, 5, 1, {2, 4}, chains)
    left = [0, 0, 1, 1, 1, 0]  # 2, 3, 4: all three chain from the hole 1
    assert chains_leaving(left, 1, 3, 5, 0, set(), chains)
    left = [0, 0, 1, 0, 1, 1]  # 2, 4, 5: 5 then 4 from 1, leaving the 2 at the bottom
    assert not chains_leaving(left, 1, 3, 5, 1, {4}, chains)
    assert chains_leaving(left, 1, 3, 5, 1, {2}, chains)
    assert left == [0, 0, 1, 0, 1, 1]  # the counts are given back as they were


# ---------------------------------------------------------------- the backends


@pytest.mark.parametrize("backend", ["look", "auto"])
def test_look_and_auto_answer_best_scores_with_the_look(backend: str) -> None:
    for n in (25, 535):
        found = best_score(f"pysol:{n}", backend)
        assert (found.backend, found.solver) == (backend, "look")
        assert found.proven and found.best == exact()[n]
    stages = best_score("pysol:535", "auto").stats["stages"]
    assert [(s["engine"], s["answer"], s["found"]) for s in stages] == [("look", "best", 47)]


def test_auto_gives_sat_what_the_look_leaves_within_its_budget() -> None:
    found = best_score("pysol:535", "auto", budget=100)
    assert found.proven and found.best == 47 and found.solver.startswith("glucose")
    look, sat = found.stats["stages"]
    assert (look["engine"], look["answer"], look["nodes"]) == ("look", "none", 100)
    assert look["found"] <= 47 <= look["upper_bound"]
    assert (sat["engine"], sat["answer"]) == (found.solver, "best")


def test_the_look_backend_at_its_budget_is_not_proven() -> None:
    found = best_score("pysol:837", "look", budget=1000)
    assert not found.proven and found.best <= 50 <= found.upper_bound
    assert found.stats == {**found.stats, "nodes": 1000, "reason": "move budget reached"}


def test_the_command_line_names_the_look_and_says_it_rests_on_exhaustion() -> None:
    done = blackhole("best", "pysol:535", "--backend", "look", "--json")
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert (data["backend"], data["solver"], data["best"], data["proven"]) == \
        ("look", "look", 47, True)
    limited = blackhole("best", "pysol:915", "--backend", "look", "--timeout", "0.01")
    assert limited.returncode == 3 and "not proven" in limited.stdout
    assert "exhausting" in " ".join(blackhole("best", "--help").stdout.split())


def test_best_certify_with_auto_still_gives_a_checked_certificate(tmp_path: Path) -> None:
    """auto's answer comes from the look, which has no proof; the certificate is SAT's."""
    folder = tmp_path / "best-77"
    certified = blackhole("best", "pysol:77", "--certify", str(folder), "--json")
    assert certified.returncode == 0, certified.stderr
    data = json.loads(certified.stdout)
    assert (data["solver"], data["best"], data["certificate"]) == ("look", 16, str(folder))
    verified = blackhole("verify", str(folder))
    assert verified.returncode == 0 and "no line from the position scores more than 16" \
        in " ".join(verified.stdout.split())


def test_a_position_s_best_counts_the_cards_moved_before_it() -> None:
    position = load_position("pysol:535", "KS QS")
    found = best_score(position, "look")
    assert found.moved == 2 and found.proven and found.best <= 47
