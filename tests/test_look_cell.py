"""The look plays Worm Hole's cell (issue #51): from positions part played, where both
verdicts occur, its verdict, its refutations and its best score agree with the helpers'
own search (`most_fan_cards`, which shares nothing with the look but `rank_fits`) and
with the `search` referee; every win replays through the rules engine; the cuts a cell
breaks do not run. The compiled core and the Python search are twins on cell games:
the same status, line (parks in their places), parks and node count, for a full line
and for the best score, on deals, lost deals and positions, at several budgets."""

from __future__ import annotations

import random

import pytest

from blackhole import best_score, solve
from blackhole.atlas import lookup
from blackhole.backends import Options, Verdict
from blackhole.look import Look, c_engine_built, engine_in_use, longest, look
from blackhole.look import cuts as look_cuts
from blackhole.model.deal import Kind
from blackhole.model.longest import Longest
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, build_problem, line_moves
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import most_fan_cards, random_line

GAMES = ("worm-hole", "unstable-worm-hole")
LOST = {105: 4, 148: 6}  # the deals 1-1000 both games lose, and their best scores
needs_core = pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")


def positions(game: str, count: int, seed: int = 51):
    """`count` positions of pysol deals of `game`, each reached by the first 27 to 40
    moves of the look's winning line (parks among them) and then up to four legal moves
    drawn at random, so that both verdicts occur and few enough cards are left for the
    referee's plain search; with the moves played."""
    rng = random.Random(seed)
    for _ in range(count):
        spec = f"pysol:{rng.randint(1, 5000)}:{game}"
        won = solve(spec, "look").moves
        cut = rng.randint(27, min(40, len(won) - 1))
        start = load_position(spec, won[:cut])
        extra = random_line(start.deal, rng, rng.randint(0, 4))
        line = [*won[:cut], *extra]
        yield spec, line, load_position(spec, line)

@pytest.mark.parametrize("game", GAMES)
def test_the_look_agrees_with_the_referee_from_positions(game: str) -> None:
    verdicts = set()
    for spec, line, position in positions(game, 60):
        problem = build_problem(position.deal, "test", RULES_HELD)
        most = most_fan_cards(position.deal)
        won = most == len(problem.required)
        found = look(problem, 10**9)
        assert (found.line is not None, found.refuted) == (won, not won), (spec, line)
        best = longest(problem)
        assert best.proven and best.upper_bound == best.played == most, (spec, line)
        verdicts.add(won)
        for order, parks in ((found.line, found.parks), (best.order, best.parks)):
            if order is None:
                continue

            judged = replay(position.deal, line_moves(problem, order, parks))
            assert not judged.reason and judged.played == len(order), (spec, line)
    assert verdicts == {True, False}

@pytest.mark.parametrize("game", GAMES)
def test_pysol_deals_are_won_with_parks_that_replay(game: str) -> None:
    black_hole_lost = 0
    for number in range(1, 31):
        solution = solve(f"pysol:{number}:{game}", "look")
        assert solution.verdict.value == "solved" and solution.replay.won
        assert solution.result.stats["engine"] == engine_in_use()  # the core plays the cell
        if lookup(f"pysol:{number}").won is False:  # only the cell wins it
            black_hole_lost += 1
            assert any(move.kind is Kind.PARK for move in solution.moves)
    assert black_hole_lost >= 3

def test_pysol_105_is_lost_in_both_games_and_scores_as_the_referee_says() -> None:
    for game in GAMES:
        answer = best_score(f"pysol:105:{game}", "look")
        assert answer.proven and answer.best < answer.of
        assert solve(f"pysol:105:{game}", "look").verdict.value == "unsolvable"

def test_the_cuts_a_cell_breaks_do_not_run() -> None:
    problem = build_problem(load_deal("pysol:1:worm-hole"), "test", RULES_HELD)
    assert look_cuts.chain_applies(problem) and not look_cuts.reach_applies(problem)
    onto = look_cuts.onto_table(problem)  # the compiled core is told so by its flags
    assert look_cuts.cut_flags(problem, onto) == look_cuts.CHAIN_CUT
    plain = build_problem(load_deal("pysol:1"), "test", RULES_HELD)
    assert look_cuts.reach_applies(plain)
    assert look_cuts.cut_flags(plain, onto) == look_cuts.CHAIN_CUT | look_cuts.REACH_CUT


def twin_look(problem, budget: int) -> Look:
    """The Look of both engines, which must agree field for field: status, line, parks
    and nodes."""
    python = look(problem, budget, engine="python")
    assert look(problem, budget, engine="auto") == python, budget
    return python


def twin_best(problem, budget: int | None) -> Longest:
    """The Longest of both engines, which must agree field for field: line, parks, bound
    and nodes."""
    python = longest(problem, budget, engine="python")
    assert longest(problem, budget, engine="auto") == python, budget
    return python


@needs_core
@pytest.mark.parametrize("game", GAMES)
def test_the_engines_are_twins_on_pysol_deals(game: str) -> None:
    """Every answer at a small and a larger budget: wins that park, searches cut at the
    budget, and a refutation (pysol:148)."""
    looks = []
    for number in range(1, 301, 7):
        problem = build_problem(load_deal(f"pysol:{number}:{game}"), "test", RULES_HELD)
        looks += [twin_look(problem, budget) for budget in (300, 5000)]
    assert any(one.line is not None and one.parks for one in looks)
    assert any(one.line is None and not one.refuted for one in looks)
    assert any(one.refuted for one in looks)


@needs_core
@pytest.mark.parametrize("game", GAMES)
def test_the_engines_are_twins_from_positions(game: str) -> None:
    """Positions after up to 40 random legal moves (parks among them): a card in the
    cell, an unstable cell spent; the full line at three budgets, the best score cut at
    a small budget and at a larger one, where it is mostly proven (one position takes
    6.8 million moves: 45 s in Python)."""
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        spec = f"pysol:{rng.randint(1, 3000)}:{game}"
        line = random_line(load_deal(spec), rng, rng.randint(0, 40))
        problem = build_problem(load_position(spec, line).deal, "test", RULES_HELD)
        found = [twin_look(problem, budget) for budget in (50, 2000, 10**7)]
        best = [twin_best(problem, budget) for budget in (100, 300_000)]
        seen.add(("cell", problem.cell is not None))
        seen.add(("spent", problem.parks_left == 0))
        seen.add(("won", found[-1].line is not None))
        seen.add(("cut", not best[0].proven))
        seen.add(("proven", best[-1].proven))
        assert (found[-1].line is None) == found[-1].refuted
        if best[-1].proven:
            assert found[-1].refuted == (best[-1].played < len(problem.required))
    wanted = {("cell", True), ("cell", False), ("won", True), ("won", False), ("cut", True),
              ("proven", True)}
    if game == "unstable-worm-hole":
        wanted.add(("spent", True))
    assert wanted <= seen


@needs_core
@pytest.mark.parametrize("game", GAMES)
def test_the_engines_are_twins_on_the_lost_deals(game: str) -> None:
    """pysol:105 and pysol:148: refuted by both engines at the same node count; the best
    score, 4 and 6 of 51, proven by both along the same line, which replays."""
    for number, most in LOST.items():
        deal = load_deal(f"pysol:{number}:{game}")
        problem = build_problem(deal, "test", RULES_HELD)
        found = twin_look(problem, 10**7)
        assert found.refuted and found.line is None and found.nodes > 0
        best = twin_best(problem, None)
        assert best.proven and best.played == most, (number, game)
        judged = replay(deal, line_moves(problem, best.order, best.parks))
        assert not judged.reason and judged.played == most


@needs_core
@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_core_agrees_with_the_search_referee(game: str) -> None:
    """From positions near the end of a win (both verdicts occur), the compiled core's
    verdict and best score are the `search` backend's, whose search shares no code with
    the look."""
    verdicts = set()
    for spec, line, position in positions(game, 8, seed=7):
        problem = build_problem(position.deal, "test", RULES_HELD)
        found = look(problem, 10**9, engine="auto")
        referee = solve_deal(position.deal, "search", Options(timeout=60))
        assert referee.verdict is (Verdict.SOLVED if found.line is not None
                                   else Verdict.UNSOLVABLE), (spec, line)
        best = longest(problem, engine="auto")
        judged = best_score(position, "search")
        assert best.proven and judged.proven
        assert position.moved + best.played == judged.best, (spec, line)
        verdicts.add(found.line is not None)
    assert verdicts == {True, False}
