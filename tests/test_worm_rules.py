"""Worm Hole and Unstable Worm Hole (issue #51), as the model and the rules engine play
them: Black Hole's deal with a free cell; a park takes a free card into the empty cell,
an unpark plays the cell's card onto the hole; each illegal move is refused with one line
naming it; positions with a parked card read and write as boards and JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move
from blackhole.model.formats import parse_position_text, position_json, saved_board
from blackhole.model.games import UNSTABLE_WORM_HOLE, WORM_HOLE, Rules
from blackhole.model.positions import load_position
from blackhole.model.rules import Outcome, initial_state, legal_moves, play, replay
from blackhole.model.sources import load_deal

from .helpers import cli, most_fan_cards, random_line

GAMES = ("worm-hole", "unstable-worm-hole")


# ---------------------------------------------------------------- the games and their deals


def test_the_games_are_black_holes_deal_with_a_cell() -> None:
    assert WORM_HOLE.features == {"cells"}
    assert UNSTABLE_WORM_HOLE.features == {"cells", "cell_uses"}
    for number in (1, 2, 32000):
        black_hole = load_deal(f"pysol:{number}")
        for game in GAMES:
            deal = load_deal(f"pysol:{number}:{game}")
            assert (deal.fans, deal.foundation, deal.game.name) == (
                black_hole.fans, black_hole.foundation, game)
            assert deal.name == f"pysol:{number}:{game}"


def test_random_deals_take_any_deck_and_keep_their_game_in_the_name() -> None:
    deal = load_deal("random:7:any:ranks=16:worm-hole")
    assert (deal.ranks, deal.game, deal.name) == (16, WORM_HOLE,
                                                  "random:7:any:ranks=16:worm-hole")
    plain = load_deal("random:7:any:ranks=16")
    assert (deal.fans, deal.foundation) == (plain.fans, plain.foundation)
    with pytest.raises(InputError, match="standard deck"):
        load_deal("random:7:any:golf")


@pytest.mark.parametrize("rules", [dict(cells=2), dict(cell_uses=1), dict(cells=1,
                                                                          cell_uses=-1)])
def test_a_cell_rule_out_of_bounds_is_refused(rules) -> None:
    with pytest.raises(InputError):
        Rules(**rules)


# ---------------------------------------------------------------- the moves


def test_a_park_frees_the_card_below_and_the_cell_plays_onto_the_hole() -> None:
    deal = load_deal("pysol:1:worm-hole")
    state = initial_state(deal)
    top = deal.fans[0][-1]
    parked = play(deal, state, Move.park(top))
    assert parked.cell == top and parked.parks == 1 and parked.foundation == state.foundation
    assert deal.fans[0][-2] in {move.card for move in legal_moves(deal, parked)
                                if move.kind is not Kind.PARK} | {deal.fans[0][-2]}
    assert not any(move.kind is Kind.PARK for move in legal_moves(deal, parked))
    assert replay(deal, f"park:{top}").outcome is Outcome.UNFINISHED


REFUSALS = [
    ("pysol:1:worm-hole", "park:QS park:2C", "move 2 is illegal: cannot park 2C: the cell "
     "holds QS"),
    ("pysol:1:worm-hole", "park:QS QS", "move 2 is illegal: QS (in the cell) is not "
     "rank-adjacent to AS"),
    ("pysol:1:unstable-worm-hole", "park:2C 2C park:QS", "move 3 is illegal: cannot park "
     "QS: Unstable Worm Hole's cell takes 1 card(s) a deal, all taken"),
    ("pysol:1", "park:QS", "move 1 is illegal: cannot park QS: Black Hole has no cell"),
    ("pysol:1:worm-hole", "park:JD", "move 1 is illegal: JD is not a top card"),
]


@pytest.mark.parametrize(("deal", "after", "line"), REFUSALS)
def test_each_illegal_cell_move_is_refused_with_one_line(deal: str, after: str,
                                                         line: str) -> None:
    with pytest.raises(InputError) as raised:
        load_position(deal, after)
    assert line in str(raised.value) and "\n" not in str(raised.value)
    done = cli("show", deal, "--after", after)
    assert done.exit_code == 2 and line in done.output
    assert "Traceback" not in done.output and len(done.output.strip().splitlines()) == 1


def test_the_cells_card_never_goes_back_to_a_fan() -> None:
    deal = load_deal("pysol:1:worm-hole")
    state = play(deal, initial_state(deal), Move.park(deal.fans[8][-1]))
    for move in (Move(deal.fans[8][-1], 8), Move(deal.fans[8][-1], 3)):
        judged = replay(deal, [Move.park(deal.fans[8][-1]), move])
        assert judged.reason == "QS is in the cell: it goes only onto the hole, never back " \
                                "to a fan"
    assert replay(deal, [Move.park(deal.fans[8][-1]), Move.unpark()]).reason == \
        "QS (in the cell) is not rank-adjacent to AS"
    assert state.cell == deal.fans[8][-1]


def test_the_problems_json_holds_the_cell_and_the_parks_left(tmp_path) -> None:
    """`encode --format problem-json` of a position with QS parked (Unstable Worm Hole,
    its one park spent) names the cell's node, and that node is QS."""
    out = tmp_path / "problem.json"
    done = cli("encode", "pysol:1:unstable-worm-hole", "--after", "park:QS",
               "--format", "problem-json", "--out", str(out))
    assert done.exit_code == 0, done.output
    problem = json.loads(out.read_text())
    assert problem["cells"] == 1 and problem["parks_left"] == 0
    assert problem["nodes"][problem["cell"]]["card"] == "QS"
    done = cli("encode", "pysol:1", "--format", "problem-json", "--out", str(out))
    problem = json.loads(out.read_text())
    assert (problem["cells"], problem["cell"], problem["parks_left"]) == (0, None, None)


def black_hole_win() -> tuple[str, list]:
    """A won Black Hole deal and its line, by the helpers' referee-checked engine run
    (`solve` with the look): a line of Black Hole is a line of Worm Hole."""
    from blackhole import solve

    return "pysol:2", list(solve("pysol:2", "look").moves)


@pytest.mark.parametrize("game", GAMES)
def test_a_win_with_cards_waiting_in_the_cell_replays_to_a_win(game: str, tmp_path) -> None:
    spec, moves = black_hole_win()
    deal = load_deal(f"{spec}:{game}")
    line: list = []
    for at, (card, _, _) in enumerate(moves):
        if at in (5, 20) and (game == "worm-hole" or at == 5):
            line.append(Move.park(card))  # waits in the cell for one move: then plays
        line.append(card)
    judged = replay(deal, line)
    assert judged.won and judged.parks == (2 if game == "worm-hole" else 1)
    assert judged.played == 51 and judged.moves[6].kind is Kind.UNPARK
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps({"moves": [{"card": str(move.card), "fan": move.fan}
                                           | ({"kind": move.kind.value}
                                              if move.kind in (Kind.PARK, Kind.UNPARK)
                                              else {}) for move in judged.moves]}))
    checked = cli("check", f"{spec}:{game}", str(saved))
    assert checked.exit_code == 0, checked.output
    text = " ".join(str(move) if isinstance(move, Move) else str(move) for move in line)
    (tmp_path / "line.txt").write_text(text)
    assert cli("check", f"{spec}:{game}", str(tmp_path / "line.txt")).exit_code == 0
    ended = line[:-1] + [Move.park(line[-1])]  # the last card parked: the cell is not empty
    assert replay(deal, ended).outcome is (Outcome.UNFINISHED if game == "worm-hole"
                                           else Outcome.ILLEGAL)


# ---------------------------------------------------------------- positions


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), game=st.sampled_from(GAMES), number=st.integers(1, 400))
def test_a_position_with_parks_reads_back_from_its_board_and_its_json(seed, game, number):
    rng = random.Random(seed)
    spec = f"pysol:{number}:{game}"
    line = random_line(load_deal(spec), rng, rng.randint(0, 40))
    played = load_position(spec, line)
    assert played.made == len(line) and played.history_known
    board = parse_position_text(saved_board(played.deal), "p.board")
    assert board.deal == played.deal and (board.moved, board.made) == (played.moved,
                                                                       played.made)
    again = parse_position_text(json.dumps(position_json(played)), "p.json")
    assert again == played and again.history == played.history
    # the position plays on as the deal would: the same legal moves
    state = initial_state(played.deal)
    assert legal_moves(played.deal, state) == legal_moves(
        load_deal(spec), replay(load_deal(spec), line).state)


BOARD = saved_board(load_position("pysol:1:worm-hole", "park:QS 2C").deal).replace(
    "Cell: QS\n", "Cell: {cell}\n{parks}")


@pytest.mark.parametrize(("cell", "parks", "game", "message"), [
    ("KH KS", "", "worm-hole", "the Cell line holds one card"),
    ("JD", "", "worm-hole", "duplicate card"),
    ("-", "Parks: x\n", "worm-hole", "expected one whole number"),
    ("-", "Parks: 2\n", "unstable-worm-hole", "the cards parked number 0 to 1 here"),
    ("QS", "Parks: 0\n", "worm-hole", "the cards parked number at least 1 here"),
    ("QS", "", "black-hole", "Black Hole has no cell"),
])
def test_a_bad_cell_line_is_refused_naming_its_line(cell, parks, game, message) -> None:
    text = BOARD.format(cell=cell, parks=parks).replace("worm-hole", game, 1)
    with pytest.raises(InputError) as raised:
        parse_position_text(text, "b.board")
    assert message in str(raised.value) and raised.value.line in (3, 4, 5), str(raised.value)


def test_the_referee_of_the_best_score_plays_the_cell_on_small_decks() -> None:
    """The helpers' plain search (fan heights, hole, cell, parks) against a brute force
    over the rules engine's own legal moves: the most cards onto the hole agree."""
    for seed in range(12):
        for game in GAMES:
            deal = load_deal(f"random:{seed}:ranks=3:{game}")
            memo: dict = {}

            def brute(state, deal=deal, memo=memo) -> int:
                if state not in memo:
                    memo[state] = max((brute(play(deal, state, move))
                                       + (move.kind is not Kind.PARK)
                                       for move in legal_moves(deal, state)), default=0)
                return memo[state]

            assert most_fan_cards(deal) == brute(initial_state(deal)), (seed, game)


@pytest.mark.parametrize("command", ["hint", "analyze"])
def test_hint_and_analyze_play_the_cell(command: str) -> None:
    """They answer (tests/test_worm_advice.py holds their answers to the referee)."""
    done = cli(command, "pysol:148:unstable-worm-hole", "--json")
    assert done.exit_code == 0 and json.loads(done.output)["best"] == 6, done.output


def test_play_starts_a_game_with_the_cell() -> None:
    """`play` takes the games (tests/test_play_worm.py plays them by key), with moves
    already made that park."""
    from blackhole.play.session import start_game

    game = start_game("pysol:148:worm-hole", "park:AH KC")
    assert game.state.cell == Card(1, "H") and game.score == 1
    assert [move.kind for move in game.moves] == [Kind.PARK, Kind.PLAY]
