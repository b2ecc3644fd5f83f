"""The `search` referee plays Worm Hole and Unstable Worm Hole (issue #51): Black Hole's
deal with one free cell, reusable or used once. Its verdicts and best scores agree with
the helpers' own exhaustive count (`most_fan_cards`, which shares nothing with it but
the rules' `rank_fits`), from deals and from positions with a card in the cell; every
line it gives, parks included, is replayed by the rules engine (`decode`, `judged`).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest

from blackhole.backends import Options, Verdict
from blackhole.backends.search import SearchBackend
from blackhole.base.errors import InputError
from blackhole.model.deal import Deal, Kind
from blackhole.model.games import BLACK_HOLE, TRI_PEAKS, WORM_HOLE
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.rules import initial_state, legal_moves
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve, solve_deal

from .helpers import cli, most_fan_cards, random_line

GAMES = ("worm-hole", "unstable-worm-hole")
SMALL_RANKS = (3, 4, 5)
SEEDS = range(30)
# pysol deals whose verdict the helpers' count settles within a second or so (it has no
# rank-reach cut and parks at every turn, so it takes minutes on most full deals); 105
# is lost in both games (found among the deals Black Hole loses)
COUNTED = {"worm-hole": (1, 2, 9, 12, 15, 16, 26, 105),
           "unstable-worm-hole": (2, 4, 6, 8, 14, 15, 19, 23, 26, 105)}


def cards_to_move(deal: Deal) -> int:
    """The cards a win moves onto the hole: the fans' and the cell's."""
    return len(deal.tableau) + (deal.cell is not None)


def referee_agrees(spec: str, after: str = "") -> tuple[Verdict, bool]:
    """The search's verdict and best score of the position are the helpers' count (won
    iff it moves every card); its win replays. Returns the verdict and whether the win
    parks."""
    position = load_position(spec, after)
    deal = position.deal
    most = most_fan_cards(deal)
    found = solve_deal(deal, "search", Options(timeout=60))
    won = most == cards_to_move(deal)
    assert found.verdict is (Verdict.SOLVED if won else Verdict.UNSOLVABLE), (spec, after)
    if won:  # decode has replayed it: a win, with the parks the Result named
        assert found.replay is not None and found.replay.won
        assert sum(move.kind is Kind.PARK for move in found.moves) == len(found.result.parks)
    best = best_score(position, "search")
    assert best.proven and best.best == position.moved + most, (spec, after)
    assert best.replay is not None and best.replay.played == most
    return found.verdict, bool(found.result.parks)


@pytest.mark.parametrize("game", GAMES)
def test_small_deals_and_positions_agree_with_the_helpers_count(game: str) -> None:
    """random:SEED:ranks=R of the game (every one won: a cell rescues every small deal
    Black Hole loses), and the position after a random line from it (some lost)."""
    verdicts: Counter[Verdict] = Counter()
    parked = held = 0
    for ranks in SMALL_RANKS:
        for seed in SEEDS:
            spec = f"random:{seed}:ranks={ranks}:{game}"
            deal = load_deal(spec)
            assert cards_to_move(deal) == 4 * ranks - 1
            rng = random.Random(seed)
            line = random_line(deal, rng, rng.randrange(ranks, 3 * ranks))
            after = " ".join(map(str, line))
            held += load_position(spec, after).deal.cell is not None
            for moves in ("", after):
                verdict, parks = referee_agrees(spec, moves)
                verdicts[verdict] += 1
                parked += parks
    assert verdicts[Verdict.SOLVED] and verdicts[Verdict.UNSOLVABLE], verdicts
    assert parked and held  # some wins park; some positions start with a card parked


def test_a_single_use_spent_is_black_holes_game() -> None:
    """Unstable Worm Hole after its one park came back out of the cell plays as Black
    Hole: the referee's verdicts on both agree (and Worm Hole, whose cell is free again,
    wins wherever Black Hole does)."""
    seen: Counter[Verdict] = Counter()
    for seed in range(40):
        spec = f"random:{seed}:ranks=5:unstable-worm-hole"
        top = load_deal(spec).fans[-1][-1]
        parked = load_position(spec, f"park:{top}").deal
        if not any(move.kind is Kind.UNPARK
                   for move in legal_moves(parked, initial_state(parked))):
            continue  # the parked card does not fit the hole yet
        spent = load_position(spec, f"park:{top} {top}").deal
        assert spent.cell is None and spent.parks == 1
        black_hole = dataclasses.replace(spent, game=BLACK_HOLE, parks=0)
        worm_hole = dataclasses.replace(spent, game=WORM_HOLE, parks=0)
        verdict = solve_deal(spent, "search", Options(timeout=60)).verdict
        assert verdict is solve_deal(black_hole, "search", Options(timeout=60)).verdict
        if verdict is Verdict.SOLVED:
            assert solve_deal(worm_hole, "search", Options(timeout=60)).verdict \
                is Verdict.SOLVED
        seen[verdict] += 1
    assert seen[Verdict.SOLVED] and seen[Verdict.UNSOLVABLE], seen


# ---------------------------------------------------------------- PySolFC deals


def pysol_agrees(game: str, number: int) -> Verdict:
    """The search's verdict on pysol:N of the game (its win replayed by decode), the
    helpers' count's where it is listed in COUNTED."""
    deal = load_deal(f"pysol:{number}:{game}")
    found = solve_deal(deal, "search", Options(timeout=60))
    assert found.verdict is not Verdict.UNKNOWN, (game, number)
    if found.verdict is Verdict.SOLVED:
        assert found.replay is not None and found.replay.won
    if number in COUNTED[game]:
        won = most_fan_cards(deal) == cards_to_move(deal)
        assert found.verdict is (Verdict.SOLVED if won else Verdict.UNSOLVABLE), (game,
                                                                               number)
    return found.verdict


@pytest.mark.parametrize("game", GAMES)
def test_pysol_deals_the_count_settles_agree(game: str) -> None:
    verdicts = Counter(pysol_agrees(game, number) for number in COUNTED[game])
    assert verdicts[Verdict.SOLVED] and verdicts[Verdict.UNSOLVABLE], verdicts
    lost = load_deal(f"pysol:105:{game}")
    best = best_score(lost, "search")
    assert best.proven and best.best == most_fan_cards(lost) == 4


@pytest.mark.slow  # 10-35 s a game on a shared 2-core machine: the search on 15 full deals
@pytest.mark.parametrize("game", GAMES)
def test_pysol_1_to_15_are_settled_and_replay(game: str) -> None:
    verdicts = Counter(pysol_agrees(game, number) for number in range(1, 16))
    assert verdicts[Verdict.SOLVED] >= 12, verdicts  # Worm Hole wins 99.89% of deals


def test_black_holes_lost_deal_is_won_with_a_park() -> None:
    """pysol:1 is lost in Black Hole (black-hole-solve's reference) and won in both cell
    games, each win parking (once, at most, in Unstable Worm Hole)."""
    assert solve_deal(load_deal("pysol:1"), "search", Options(timeout=60)).verdict \
        is Verdict.UNSOLVABLE
    for game in GAMES:
        found = solve_deal(load_deal(f"pysol:1:{game}"), "search", Options(timeout=60))
        assert found.verdict is Verdict.SOLVED and found.replay.won
        assert 1 <= len(found.result.parks) <= (1 if game.startswith("unstable") else 52)
        best = best_score(f"pysol:1:{game}", "search")
        assert best.won and best.proven and best.best == 51


# ---------------------------------------------------------------- from a parked card


def test_a_position_with_a_parked_card_is_solved_and_replays() -> None:
    """With 8D parked after 2C 3D 4H (a position of the search's own line) the deal is
    won, the parked card reaching the hole; with QS parked first it is lost (only 2C and
    one more card move on), as the helpers' count says too."""
    for game in GAMES:
        position = load_position(f"pysol:1:{game}", "2C 3D 4H park:8D")
        assert str(position.deal.cell) == "8D"
        found = solve(position, "search", timeout=60)
        assert found.verdict is Verdict.SOLVED
        assert found.replay is not None and found.replay.won
        assert position.deal.cell in [move.card for move in found.moves
                                      if move.kind is Kind.UNPARK]
        best = best_score(position, "search")
        assert best.won and best.proven
    referee_agrees("pysol:1:unstable-worm-hole", "2C 3D 4H park:8D")
    for game in GAMES:
        position = load_position(f"pysol:1:{game}", "park:QS 2C")
        assert str(position.deal.cell) == "QS"
        assert solve(position, "search", timeout=60).verdict is Verdict.UNSOLVABLE
        assert referee_agrees(f"pysol:1:{game}", "park:QS 2C") == (Verdict.UNSOLVABLE,
                                                                   False)
        assert best_score(position, "search").best == position.moved + 2


def test_the_line_names_each_park_before_the_hole_moves_after_it() -> None:
    """Result.parks: each (node, hole moves made before it), a fan card parked once,
    reaching the hole later in `order`."""
    deal = load_deal("pysol:1:worm-hole")
    problem = build_problem(deal, "search", SearchBackend.plays)
    result = SearchBackend().solve(problem, Options(timeout=60))
    assert result.verdict is Verdict.SOLVED and result.parks
    for node, made in result.parks:
        assert problem.fan_of[node] >= 0 and 0 <= made <= len(result.order)
        assert node in result.order[made:]
    assert sorted(result.order) == sorted(problem.required)


# ---------------------------------------------------------------- declared and refused


def test_the_referee_declares_the_cell() -> None:
    backend = SearchBackend()
    assert {"cells", "cell_uses"} <= backend.plays and {"cells", "cell_uses"} <= \
        backend.best_plays


def test_a_cell_on_a_cover_graph_is_refused() -> None:
    """No game has a cell on a cover graph: the referee does not play one."""
    celled = dataclasses.replace(TRI_PEAKS, name="tri-peaks-cell-test",
                                 rules=dataclasses.replace(TRI_PEAKS.rules, cells=1))
    problem = build_problem(load_deal("pysol:1:tri-peaks"), "test", RULES_HELD)
    problem = dataclasses.replace(problem, game=celled, cells=1)
    backend = SearchBackend()
    with pytest.raises(InputError, match="covers"):
        backend.solve(problem, Options(timeout=10))
    with pytest.raises(InputError, match="covers"):
        backend.best(problem, Options(timeout=10))


# ---------------------------------------------------------------- the command


@pytest.mark.parametrize("number", [2, 1])
def test_solve_json_names_its_parks_and_check_accepts_it(number: int, tmp_path) -> None:
    spec = f"pysol:{number}:worm-hole"
    result = cli("solve", spec, "--backend", "search", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["verdict"] == "solved"
    parks = [move for move in answer["moves"] if move.get("kind") == "park"]
    unparks = [move for move in answer["moves"] if move.get("kind") == "unpark"]
    assert [move["card"] for move in parks] == [move["card"] for move in unparks]
    if number == 1:  # lost in Black Hole: the win parks
        assert parks
    saved = tmp_path / "answer.json"
    saved.write_text(result.output)
    checked = cli("check", spec, str(saved))
    assert checked.exit_code == 0, checked.output
