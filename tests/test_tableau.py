"""The layout model (`blackhole.model.tableau`): a tableau is cards and what covers them.

Fans are chains of it, and every current game reads its fans back unchanged. A layout
that is not made of chains (a pyramid, where a card waits for the two cards on it) is
played by the rules engine, held by the Problem as precedence pairs with two
predecessors, solved by the engines that declared the feature `covers` (all but
`maxsat`) in agreement with an exhaustive search over the rules engine, and refused by
name by every other engine.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from blackhole.backends import REGISTRY, Options, Verdict, make_backend
from blackhole.base.errors import InputError
from blackhole.model.cards import SUITS, Card, deck
from blackhole.model.deal import Deal, Kind, Move
from blackhole.model.games import COVERS, Rules, Shape, Start, Variant
from blackhole.model.problem import build_problem
from blackhole.model.rules import initial_state, layout, legal_moves, play, replay
from blackhole.model.sources import load_deal
from blackhole.model.tableau import Tableau
from blackhole.questions.pipeline import solve_deal

from .helpers import runnable_backends

# A throwaway game: Black Hole's rules on a pyramid of rows 1..5 (15 cards) over a
# 4-rank deck (16 cards: one starts the hole), the top row's card covered by the two
# cards below it, as in Escalator.
PYRAMID = Variant("test-pyramid", "Test Pyramid", None, 3, Start.CARD, Rules(), "",
                  any_ranks=True, shape=Shape.PYRAMID)
ROWS = 5
RANKS = 4


def pyramid(cards: list[Card]) -> Tableau:
    return Tableau.pyramid(cards, ROWS)


def pyramid_deal(seed: int) -> Deal:
    cards = deck(RANKS)
    random.Random(seed).shuffle(cards)
    return Deal(pyramid(cards[1:]), cards[0], RANKS, name=f"pyramid:{seed}", game=PYRAMID)


def referee(deal: Deal) -> bool:
    """Does some line win? An exhaustive search over the rules engine's legal moves."""

    @cache
    def wins(gone: int, hole: Card) -> bool:
        state = initial_state(deal).__class__(gone, hole)
        moves = legal_moves(deal, state)
        if not moves:
            return gone == (1 << len(deal.tableau)) - 1
        return any(wins(after.gone, after.foundation)
                   for after in (play(deal, state, move) for move in moves))

    return wins(0, deal.foundation)


def test_fans_are_chains_of_the_model_and_read_back_unchanged() -> None:
    for spec in ("pysol:1", "pysol:5:all-in-a-row", "pysol:2:golf", "random:3:ranks=7"):
        deal = load_deal(spec)
        tableau = deal.tableau
        assert tableau.chains and tableau.fans == deal.fans
        assert Tableau.of_fans(deal.fans) == tableau
        assert len(tableau.covers) == sum(max(0, len(fan) - 1) for fan in deal.fans)
        free = {tableau.cards[slot] for slot in tableau.free()}
        assert free == {fan[-1] for fan in deal.fans if fan}


def test_a_pyramid_is_not_chains_and_a_card_waits_for_both_cards_on_it() -> None:
    deal = pyramid_deal(1)
    tableau = deal.tableau
    assert not tableau.chains and PYRAMID.features == {COVERS}
    bottom = [slot for slot, (_, row) in enumerate(tableau.places) if row == ROWS - 1]
    assert sorted(tableau.free()) == bottom
    covered = next(lower for upper, lower in tableau.covers if upper == bottom[0])
    waits = [upper for upper, lower in tableau.covers if lower == covered]
    assert len(waits) == 2 and bottom[0] in waits
    assert not tableau.is_free(covered, 1 << waits[0])
    assert tableau.is_free(covered, 1 << waits[0] | 1 << waits[1])
    with pytest.raises(InputError, match="not made of fans"):
        deal.fans  # noqa: B018 - a pyramid has no fans to give


def test_a_chain_game_refuses_a_layout_that_is_not_chains() -> None:
    cards = deck(RANKS)
    with pytest.raises(InputError, match="played on fans"):
        Deal(pyramid(cards[1:]), cards[0], RANKS, name="p", game=load_deal("pysol:1").game)


def test_the_rules_engine_refuses_a_covered_card_and_plays_it_once_free() -> None:
    deal = pyramid_deal(2)
    tableau = deal.tableau
    covered = next(lower for _, lower in tableau.covers)
    card = tableau.cards[covered]
    judged = replay(deal, [card])
    assert judged.outcome.value == "illegal" and "is not free (" in judged.reason
    for seed in range(20):  # every line the rules play keeps covered cards waiting
        rng = random.Random(seed)
        state, line = initial_state(deal), []
        while moves := legal_moves(deal, state):
            move = rng.choice(moves)
            assert move.kind is Kind.PLAY and tableau.is_free(
                tableau.slot_of[move.card], state.gone)
            state = play(deal, state, move)
            line.append(move)
        again = replay(deal, [move.card for move in line])
        assert again.moves == tuple(line) and again.state == state
        left = layout(deal, state)
        assert len(left.tableau) == len(tableau) - len(line)


def test_the_problem_holds_two_predecessors_for_a_card_under_two() -> None:
    deal = pyramid_deal(3)
    problem = build_problem(deal, "test", {COVERS})
    first = 1  # node 0 is the hole's card; slots follow in slot order
    assert set(problem.precedence) == {(first + a, first + b) for a, b in deal.tableau.covers}
    before = {}
    for a, b in problem.precedence:
        before.setdefault(b, set()).add(a)
    assert max(len(cards) for cards in before.values()) == 2
    assert not problem.chains and problem.fans == ()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_engine_agrees_with_the_referee_where_it_declared_covers_else_refuses(
        name: str) -> None:
    """The CNF engines (sat, kissat, external) and cpsat (its inverse model) declare
    `covers`; the others refuse the game by name before any work."""
    if name not in runnable_backends():
        pytest.skip(f"{name} cannot run here")
    if COVERS not in make_backend(name).plays:
        with pytest.raises(InputError, match="Test Pyramid is not played by"):
            solve_deal(pyramid_deal(1), name, Options(timeout=10))
        return
    verdicts = set()
    for seed in range(12):
        deal = pyramid_deal(seed)
        solution = solve_deal(deal, name, Options(timeout=60))
        expected = referee(deal)
        assert solution.result.verdict is (Verdict.SOLVED if expected
                                           else Verdict.UNSOLVABLE), (name, seed)
        if expected:  # replayed by the rules engine in `decode`: it wins
            assert solution.replay.won and len(solution.moves) == len(deal.tableau)
        verdicts.add(expected)
    assert verdicts == {True, False}  # the seeds hold both answers


def test_every_engine_but_maxsat_declares_covers() -> None:
    """maxsat's best-score encoding reads fans (it refuses by name: the test above)."""
    refusing = {name for name in REGISTRY if COVERS not in make_backend(name).plays}
    assert refusing == {"maxsat"}


def test_a_move_names_its_kind_and_a_turn_has_no_fan() -> None:
    golf = load_deal("pysol:2:golf")
    moves = legal_moves(golf, initial_state(golf))
    assert moves[-1] == Move.turn(golf.talon[0]) and moves[-1].fan is None
    assert all(move.kind is Kind.PLAY and move.fan is not None for move in moves[:-1])
    assert len(SUITS) * RANKS == 1 + len(pyramid(deck(RANKS)[1:]))


# PySolFC's own tables (pysollib/games/threepeaks.py, golf.py's Escalator): for each slot,
# dealt row by row from the top and each row left to right, the slots that must be gone
# before its card is free.
PEAKS_WAIT = {0: {3, 4}, 1: {5, 6}, 2: {7, 8}, 3: {9, 10}, 4: {10, 11}, 5: {12, 13},
              6: {13, 14}, 7: {15, 16}, 8: {16, 17},
              **{9 + k: {18 + k, 19 + k} for k in range(9)},
              **{18 + k: set() for k in range(10)}}
ESCALATOR_WAIT = {r * (r + 1) // 2 + p: ({(r + 1) * (r + 2) // 2 + p,
                                          (r + 1) * (r + 2) // 2 + p + 1} if r < 6 else set())
                  for r in range(7) for p in range(r + 1)}


@pytest.mark.parametrize(("shape", "waits"), [(Tableau.peaks, PEAKS_WAIT),
                                              (lambda cards: Tableau.pyramid(cards, 7),
                                               ESCALATOR_WAIT)])
def test_peaks_and_the_pyramid_are_pysolfcs_layouts(shape, waits) -> None:
    tableau = shape(deck()[:28])
    assert not tableau.chains and len(tableau) == 28
    assert {slot: {upper for upper, lower in tableau.covers if lower == slot}
            for slot in range(28)} == waits
    free = set(tableau.free())
    assert free == {slot for slot, wait in waits.items() if not wait}
    rows = [row for _, row in tableau.places]
    assert rows == sorted(rows)  # dealt row by row from the top
    for upper, lower in tableau.covers:  # a card is drawn below the two that wait on it
        assert tableau.places[upper][1] == tableau.places[lower][1] + 1
        assert abs(tableau.places[upper][0] - tableau.places[lower][0]) == 1
    with pytest.raises(InputError, match="holds 28 cards"):
        shape(deck()[:27])
