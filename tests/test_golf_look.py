"""The look on the Golf family (encodings/look.md, "The talon"): its verdicts against
black-hole-solve's (tests/data/golf-1-1000.csv) and the `search` referee, every win
replayed by the rules engine, the compiled core and the Python search move for move
alike, the parity cut held to real winning lines, and `auto` answering Golf with the
engine it names."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from blackhole.backends import Options, Verdict
from blackhole.look import c_engine_built, look
from blackhole.look.cuts import (
    hall_applies,
    hall_ok,
    hall_room,
    hall_shortfall,
    onto_table,
    parity_applies,
    parity_room,
)
from blackhole.model.deal import Deal
from blackhole.model.games import VARIANTS, OnKing, rank_fits
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    GOLF_GAMES,
    golf_reference,
    most_fan_cards,
    refereed_golf_deals,
    small_golf,
)

# Moves: far more than any of pysol:1-1000 needs in any variant (at most about 2 million).
BUDGET = 50_000_000
ENGINES = ["python", "auto"] if c_engine_built() else ["python"]  # the look's engines here
needs_core = pytest.mark.skipif(not c_engine_built(), reason="the look's compiled core "
                                "was not built (no C compiler at install)")


def verdict(deal, engine: str = "auto", budget: int = BUDGET) -> Verdict:
    problem = build_problem(deal, "look", plays=RULES_HELD)
    found = look(problem, budget, engine=engine)
    if found.line is not None:
        played = replay(deal, [problem.cards[v] for v in found.line])
        assert played.won, deal.name
        return Verdict.SOLVED
    assert found.refuted, (deal.name, found.nodes)  # the budget is never the limit here
    return Verdict.UNSOLVABLE


def agrees_with_black_hole_solve(game: str, numbers: range) -> None:
    reference = golf_reference()
    for number in numbers:
        expected = reference[(number, game)]["verdict"]
        got = verdict(load_deal(f"pysol:{number}:{game}"))
        assert (got is Verdict.SOLVED) == (expected == "solved"), (game, number, expected)


@needs_core
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_look_agrees_with_black_hole_solve_on_pysol_deals(game: str) -> None:
    agrees_with_black_hole_solve(game, range(1, 101))


@pytest.mark.slow
@needs_core
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_look_agrees_with_black_hole_solve_on_a_thousand_deals(game: str) -> None:
    agrees_with_black_hole_solve(game, range(101, 1001))


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_both_engines_agree_with_the_search_referee_on_small_deals(game: str) -> None:
    for seed, deal, expected in refereed_golf_deals(game):
        for engine in ENGINES:
            assert verdict(deal, engine) is expected, (seed, engine)


@needs_core
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_engines_are_move_for_move_alike(game: str) -> None:
    """The same Look (line, refutation and moves tried) from both engines, whole
    searches of small deals and PySolFC deals cut at several budgets."""
    cases = [(small_golf(seed, game), None) for seed in range(12)]
    cases += [(load_deal(f"pysol:{n}:{game}"), budget) for n in (1, 2, 3, 7)
              for budget in (1, 777, 20_000)]
    for deal, budget in cases:
        problem = build_problem(deal, "look", plays=RULES_HELD)
        budget = BUDGET if budget is None else budget
        assert look(problem, budget, engine="python") == look(problem, budget, engine="auto"), \
            (deal.name, budget)


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_cuts_hold_on_every_state_of_winning_lines(game: str) -> None:
    """Along each winning line the `sat` backend finds (not the look's own), every
    state passes the predecessor cut, and the parity cut wherever it applies: where
    every move changes the rank by an odd number (no wrap, or a wrap across an even
    number of ranks). On the 13-rank deck that is Golf and Dead King Golf, not Relaxed
    Golf."""
    standard = build_problem(load_deal(f"pysol:1:{game}"), "look", plays=RULES_HELD)
    assert parity_applies(onto_table(standard)) == (game != "relaxed-golf")
    assert hall_applies(standard)
    checked = 0
    for seed in range(40):
        deal = small_golf(seed, game)
        problem = build_problem(deal, "sat", plays=RULES_HELD)
        onto = onto_table(problem)
        applies = parity_applies(onto)
        assert applies == (not deal.game.rules.wrap or deal.ranks % 2 == 0), seed
        solution = solve_deal(deal, "sat", Options(timeout=60))
        if solution.verdict is not Verdict.SOLVED:
            continue
        talon_ranks = [problem.rank[v] for v in problem.talon]
        odd, even = parity_room(talon_ranks)
        links, talon_left = hall_room(onto, talon_ranks)
        hole = problem.rank[problem.start]
        left = [0] * (deal.ranks + 1)
        for v in problem.required:
            left[problem.rank[v]] += 1
        excess = sum(1 if problem.rank[v] % 2 else -1 for v in problem.required)
        turned = 0
        for card, _, _ in solution.moves:
            assert hall_ok(left, hole, talon_left[turned], links), (seed, str(card))
            if applies:
                assert -odd[turned] - (hole % 2) <= excess <= even[turned] + (hole % 2 == 0)
            if turned < len(talon_ranks) and card == problem.cards[problem.talon[turned]]:
                turned += 1
            else:
                excess -= 1 if card.rank % 2 else -1
                left[card.rank] -= 1
            hole = card.rank
        assert excess == 0 and not any(left)
        checked += 1
    assert checked >= 10


def test_the_predecessor_cut_refuses_what_it_must() -> None:
    """Golf's ranks in a row: two Aces left need two 2s to follow (an Ace goes only on a
    2), and one 2 with no talon left is too few; a talon 2 still to turn is enough."""
    onto = [[], *([r for r in (h - 1, h + 1) if 1 <= r <= 13] for h in range(1, 14))]
    links, talon_left = hall_room(onto, [2])
    left = [0] * 14
    left[1], left[2] = 2, 1
    assert not hall_ok(left, 9, talon_left[1], links)  # the talon turned: one 2 for two Aces
    assert hall_ok(left, 9, talon_left[0], links)  # the talon's 2 is a second
    assert hall_ok(left, 0, talon_left[1], links)  # an empty foundation: no cut


def runs_fit(left: list[int], hole: int, talon_left: list[int],
             onto: list[list[int]]) -> bool:
    """The predecessor cut as encodings/look.md states it, set by set: for every run of
    ranks a, a + 2, ..., b with cards left, its cards number at most the cards (fan,
    talon to turn, and the foundation's) of the ranks they may go on."""
    m = len(left) - 1
    room = [left[h] + talon_left[h] + (h == hole) for h in range(m + 1)]
    for a in range(1, m + 1):
        run: list[int] = []
        for r in range(a, m + 1, 2):
            if not left[r]:
                break
            run.append(r)
            under = {h for h in range(1, m + 1) for q in run if q in onto[h]}
            if sum(left[q] for q in run) > sum(room[h] for h in under):
                return False
    return True


def cut_state(m: int, wrap: bool, on_king: OnKing, counts: list[int], talon: list[int],
              hole: int):
    """A state for the predecessor cut on a deck of m ranks, from drawn numbers: Golf
    with the given wrap and King rule, (onto, links, talon_left, left, hole)."""
    golf = VARIANTS["golf"]
    game = dataclasses.replace(golf, rules=dataclasses.replace(golf.rules, wrap=wrap,
                                                                on_king=on_king))
    onto = [list(range(1, m + 1))] + [[r for r in range(1, m + 1) if rank_fits(game, r, h, m)]
                                      for h in range(1, m + 1)]
    links, talon_left = hall_room(onto, [(r - 1) % m + 1 for r in talon])
    return onto, links, talon_left, [0, *counts[:m]], (hole - 1) % m + 1


@given(st.integers(2, 14), st.booleans(), st.sampled_from(list(OnKing)),
       st.lists(st.integers(0, 4), min_size=14, max_size=14),
       st.lists(st.integers(1, 14), max_size=6), st.integers(1, 14), st.integers(0, 6))
@example(4, True, OnKing.ADJACENT, [1, 0, 1] + [0] * 11, [], 4, 0)  # 1 and 3 share 2 and 4
def test_the_predecessor_cut_tests_every_run(m, wrap, on_king, counts, talon, hole,
                                             turned) -> None:
    """hall_ok's one walk a parity answers as the run-by-run definition does, on every
    deck size and King rule (with an even deck's runs that go all the way round)."""
    onto, links, talon_left, left, hole = cut_state(m, wrap, on_king, counts, talon, hole)
    turned = min(turned, len(talon_left) - 1)
    assert hall_ok(left, hole, talon_left[turned], links) == \
        runs_fit(left, hole, talon_left[turned], onto)


def most_matched(left: list[int], room: list[int], onto: list[list[int]]) -> int:
    """The most fan cards that can each be given a card of their own to follow (left[r]
    cards of rank r; room[h] cards of rank h to follow; rank r may follow rank h when
    r is in onto[h]): a maximum flow, by augmenting paths over the ranks."""
    m = len(left) - 1
    flow: dict[tuple[int, int], int] = {}
    used = [0] * (m + 1)  # cards of each rank matched
    taken = [0] * (m + 1)  # room of each rank taken
    total = 0
    while True:
        # breadth-first from the ranks with a card unmatched, through (card rank r ->
        # room rank h) arcs, and back along matched ones (room h -> card r with flow)
        seen, queue, back = {("r", r) for r in range(1, m + 1) if used[r] < left[r]}, [], {}
        queue = sorted(seen)
        end = None
        while queue and end is None:
            side, x = queue.pop(0)
            if side == "r":
                nexts = [("h", h) for h in range(1, m + 1) if x in onto[h]]
            else:
                nexts = [("r", r) for r in range(1, m + 1) if flow.get((r, x), 0)]
            for node in nexts:
                if node not in seen:
                    seen.add(node)
                    back[node] = (side, x)
                    if node[0] == "h" and taken[node[1]] < room[node[1]]:
                        end = node
                        break
                    queue.append(node)
        if end is None:
            return total
        node = end
        taken[end[1]] += 1
        while node in back:
            prev = back[node]
            if prev[0] == "r":
                flow[prev[1], node[1]] = flow.get((prev[1], node[1]), 0) + 1
            else:
                flow[node[1], prev[1]] -= 1
            node = prev
        used[node[1]] += 1
        total += 1


@given(st.integers(2, 14), st.booleans(), st.sampled_from(list(OnKing)),
       st.lists(st.integers(0, 4), min_size=14, max_size=14),
       st.lists(st.integers(1, 14), max_size=6), st.integers(1, 14))
def test_the_shortfall_bounds_the_cards_a_line_can_play(m, wrap, on_king, counts, talon,
                                                        hole) -> None:
    """hall_shortfall never claims more unplayable cards than König's count, the fan
    cards less the most that can each have a card of their own to follow; where the ranks
    run in a line (no wrap, no Ace on a King; decks of 3 ranks or more) the two are
    equal."""
    onto, links, talon_left, left, hole = cut_state(m, wrap, on_king, counts, talon, hole)
    room = [left[h] + talon_left[0][h] + (h == hole) for h in range(m + 1)]
    deficiency = sum(left) - most_matched(left, room, onto)
    short = hall_shortfall(left, hole, talon_left[0], links)
    assert 0 <= short <= deficiency
    if not wrap and on_king is not OnKing.QUEEN_OR_ACE and m >= 3:
        assert short == deficiency
        assert (short > 0) == (not hall_ok(left, hole, talon_left[0], links))


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_a_state_won_with_more_talon_turned_is_won_with_fewer(game: str) -> None:
    """The memo's talon rule (encodings/look.md, "The talon"): the same fans and
    foundation with the talon turned further are won only if they are won with it turned
    less. Held to the `search` referee on small deals, each cut at every talon card."""
    checked = 0
    for seed in range(30):
        deal = small_golf(seed, game)
        won = [solve_deal(Deal(deal.fans, deal.foundation, deal.ranks, talon=deal.talon[t:],
                               game=deal.game), "search", Options()).verdict
               is Verdict.SOLVED for t in range(len(deal.talon) + 1)]
        assert all(won[t] or not won[t + 1] for t in range(len(won) - 1)), (seed, won)
        checked += won[0] != won[-1]
    assert checked  # some deal is won with its whole talon and lost with none


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_auto_answers_golf_and_names_the_engine(game: str) -> None:
    reference = golf_reference()
    for number in (1, 2, 3, 4, 5):
        solution = solve_deal(load_deal(f"pysol:{number}:{game}"), "auto", Options(timeout=60))
        expected = reference[(number, game)]["verdict"]
        assert (solution.verdict is Verdict.SOLVED) == (expected == "solved"), (game, number)
        assert solution.result.backend == "auto"
        assert solution.result.solver in {"look", "glucose4", "cadical195", "kissat"}
        if solution.verdict is Verdict.SOLVED:
            assert solution.replay is not None and solution.replay.won


def test_the_look_names_itself_on_a_golf_refutation() -> None:
    reference = golf_reference()
    number = next(n for n in range(1, 100) if reference[(n, "golf")]["verdict"] != "solved")
    solution = solve_deal(load_deal(f"pysol:{number}:golf"), "look", Options())
    assert solution.verdict is Verdict.UNSOLVABLE
    assert solution.result.solver == "look" and solution.result.proof is None


# ---------------------------------------------------------------- the best score


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_best_score_agrees_with_a_plain_search_on_small_deals(game: str) -> None:
    from blackhole.look import longest

    scores = set()
    for seed in range(40):
        deal = small_golf(seed, game)
        problem = build_problem(deal, "look", plays=RULES_HELD)
        expected = most_fan_cards(deal)
        scores.add(expected == len(problem.required))
        for engine in ENGINES:
            found = longest(problem, engine=engine)
            assert found.proven and found.played == expected, (seed, engine)
            played = replay(deal, [problem.cards[v] for v in found.order])
            assert played.played == expected and played.played + played.turned == len(found.order)
    assert scores == {True, False}  # won and lost deals both met


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_best_scores_of_golf_deals_are_replayed_and_agree_with_the_verdicts(game: str) -> None:
    from blackhole.questions.best import best_score

    reference = golf_reference()
    for number in range(1, 11):
        found = best_score(f"pysol:{number}:{game}", "auto", timeout=60)
        assert found.proven and found.of == 35 and found.solver == "look"
        assert found.replay is not None and found.replay.played == found.best
        assert found.won == (reference[(number, game)]["verdict"] == "solved"), number


@needs_core
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_best_score_engines_are_move_for_move_alike(game: str) -> None:
    from blackhole.look import longest

    for number in (1, 2, 3):
        problem = build_problem(load_deal(f"pysol:{number}:{game}"), "look", plays=RULES_HELD)
        for budget in (500, 30_000):
            python = longest(problem, budget, engine="python")
            core = longest(problem, budget, engine="auto")
            assert (python.order, python.upper_bound, python.stats) == \
                (core.order, core.upper_bound, core.stats), (number, budget)


# ---------------------------------------------------------------- hints and analyses


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_hints_agree_with_a_plain_search_after_every_move(game: str) -> None:
    from blackhole.model.deal import position_of
    from blackhole.model.rules import advance, legal_moves
    from blackhole.questions.advice import hints

    for seed in range(15):
        deal = small_golf(seed, game)
        position = position_of(deal)
        found = hints(position)
        state = replay(deal, []).state
        assert sorted(str(h.card) for h in found) == \
            sorted(str(m.card) for m in legal_moves(deal, state)), seed
        for hint in found:
            after = advance(position, [hint.card])
            expected = after.moved + most_fan_cards(after.deal)
            assert hint.proven and hint.best == expected, (seed, str(hint.card))
            assert hint.winnable == (expected == position.of)
            assert (hint.fan is None) == (hint.card in deal.talon)


def test_analyze_marks_the_first_loss_of_a_golf_line() -> None:
    """Along a line that turns the talon while a fan card fits and costs the game, the
    analysis finds the loss where the plain search does."""
    from blackhole.questions.advice import analyze

    deal = load_deal("pysol:2:relaxed-golf")  # won; the look finds a line
    best = analyze(deal)
    assert best.proven and best.best == 35 and best.first_loss is None and best.score == 35
    assert any(step.fan is None for step in best.steps)  # the line turns talon cards
    # the talon turned at once, again and again: at some point the game is lost
    line = [deal.talon[i] for i in range(len(deal.talon))]
    walked = analyze(deal, line)
    assert walked.first_loss is not None and walked.first_loss_known
    assert walked.first_loss.fan is None
    assert walked.score == 0


@needs_core
def test_auto_settles_golf_in_line_without_racing_a_second_look(monkeypatch) -> None:
    """With two cores free auto races, but on a game with a talon its first look runs
    long enough (QUICK_LOOK_TALON) to settle the deal in line: one look stage, no
    second look started on a thread to repeat its work."""
    from blackhole.base.environment import CORES_VARIABLE

    monkeypatch.setenv(CORES_VARIABLE, "2")
    reference = golf_reference()
    for number in range(1, 21):
        solution = solve_deal(load_deal(f"pysol:{number}:golf"), "auto", Options(timeout=60))
        assert solution.result.stats["mode"] == "parallel"
        assert [stage["engine"] for stage in solution.result.stats["stages"]] == ["look"]
        assert (solution.verdict is Verdict.SOLVED) == \
            (reference[(number, "golf")]["verdict"] == "solved"), number
