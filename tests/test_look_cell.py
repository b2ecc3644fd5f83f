"""The look plays Worm Hole's cell (issue #51): from positions part played, where both
verdicts occur, its verdict, its refutations and its best score agree with the helpers'
own search (`most_fan_cards`, which shares nothing with the look but `rank_fits`); every
win replays through the rules engine; the cuts a cell breaks do not run."""

from __future__ import annotations

import random

import pytest

from blackhole import best_score, solve
from blackhole.atlas import lookup
from blackhole.look import cuts as look_cuts
from blackhole.look import longest, look
from blackhole.model.deal import Kind
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, build_problem, line_moves
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal

from .helpers import most_fan_cards, random_line

GAMES = ("worm-hole", "unstable-worm-hole")

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
        assert solution.result.stats["engine"] == "python"  # the compiled core has no cell
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
    plain = build_problem(load_deal("pysol:1"), "test", RULES_HELD)
    assert look_cuts.reach_applies(plain)
