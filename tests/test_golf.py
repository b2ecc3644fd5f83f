"""The Golf family: the game descriptions, Golf's deals and files, its rules, the search
referee's verdicts against black-hole-solve's, and the engines that refuse Golf (the
`sat` and `cpsat` backends' Golf is tested in test_golf_sat.py)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.backends import REGISTRY, Options, make_backend
from blackhole.base.errors import InputError
from blackhole.model.cards import Card, parse_card
from blackhole.model.deal import Deal, Move, position_of
from blackhole.model.formats import board_text, parse_board, parse_position_text
from blackhole.model.games import (
    ALL_IN_A_ROW,
    BLACK_HOLE,
    DEAD_KING_GOLF,
    GAME_NAMES,
    GOLF,
    RELAXED_GOLF,
    VARIANTS,
    misfit,
    rank_fits,
)
from blackhole.model.positions import load_position
from blackhole.model.rules import (
    Outcome,
    cards_left,
    initial_state,
    layout,
    legal_moves,
    play,
    replay,
)
from blackhole.model.sources import expand_specs, load_deal
from blackhole.play.board import rules_text
from blackhole.play.game import Game
from blackhole.questions.pipeline import solve_deal

from .helpers import GOLF_GAMES, PEAK_GAMES, SRC, cli, golf_reference, random_line

K, Q, A = 13, 12, 1


# ---------------------------------------------------------------- the descriptions


def test_the_table_holds_every_game_and_the_names_derive_from_it() -> None:
    assert GAME_NAMES == ("black-hole", "all-in-a-row", *GOLF_GAMES, *PEAK_GAMES, "worm-hole",
                          "unstable-worm-hole")
    assert all(VARIANTS[name].name == name for name in GAME_NAMES)
    assert [game.plain for game in VARIANTS.values()] == [True, True] + [False] * 8
    assert {(g.fans, g.fan_size, g.rules.talon) for g in (GOLF, DEAD_KING_GOLF, RELAXED_GOLF)} \
        == {(7, 5, 16)}


def test_no_module_tests_a_flag_of_all_in_a_row() -> None:
    """The game is read from its description: the former flag and layout constant are
    gone, and only the table (pysol_cards' name) spells the game's pysol name."""
    for path in (SRC / "blackhole").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "ALL_IN_A_ROW_LAYOUT" not in text and "all_in_a_row:" not in text, path
        if path.name != "games.py":
            assert "all_in_a_row" not in text, path


@pytest.mark.parametrize("game, on_king", [
    (BLACK_HOLE, {Q, A}), (ALL_IN_A_ROW, {Q, A}), (GOLF, {Q}), (DEAD_KING_GOLF, set()),
    (RELAXED_GOLF, {Q, A})])
def test_what_goes_on_a_king_and_round_the_corner(game, on_king) -> None:
    assert {rank for rank in range(1, 14) if rank_fits(game, rank, K, 13)} == on_king
    wraps = game.rules.wrap
    assert rank_fits(game, K, A, 13) is wraps  # a King on an Ace only where ranks wrap
    assert rank_fits(game, K, Q, 13)  # a King on a Queen in every game
    assert rank_fits(game, 2, A, 13) and rank_fits(game, 6, 7, 13) and rank_fits(game, 8, 7, 13)
    assert not rank_fits(game, 7, 7, 13) and not rank_fits(game, 9, 7, 13)


# ---------------------------------------------------------------- deals and files


def test_golf_deals_equal_pysol_cards_own_layout_text() -> None:
    """PySolFC's Golf deal N as pysol_cards prints it (Microsoft's generator below 32000,
    the Mersenne Twister above; 32000 itself is the Black Hole test's)."""
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game as PysolGame
    from pysol_cards.random_base import RandomBase

    for number in (1, 2, 24, 31_999, 32_001, 10**6, *random.Random(3).sample(range(10**6), 10)):
        text = PysolGame("golf", number, RandomBase.DEALS_PYSOLFC, 13).calc_layout_string(
            CardRenderer(print_ts=True))
        for name in GOLF_GAMES:
            deal = load_deal(f"pysol:{number}:{name}")
            assert board_text(deal) == text, number
            assert parse_board(text, "b", VARIANTS[name]) == deal


def test_the_thousand_reference_deals_deal_and_read_back_in_each_game() -> None:
    numbers = sorted({number for number, _ in golf_reference()})
    assert numbers == list(range(1, 1001))
    assert {game for _, game in golf_reference()} == set(GOLF_GAMES)
    for number in numbers:
        deal = load_deal(f"pysol:{number}:golf")
        assert (len(deal.fans), len(deal.talon), deal.cards_in_fans) == (7, 16, 35)
        for name in GOLF_GAMES:
            game = VARIANTS[name]
            assert parse_position_text(board_text(deal), "b", game).deal.talon == deal.talon
            assert parse_board(board_text(deal), "b", game).game is game


def test_specs_and_ranges_name_the_golf_games() -> None:
    assert expand_specs("pysol:9-10:relaxed-golf") == ["pysol:9:relaxed-golf",
                                                       "pysol:10:relaxed-golf"]
    assert expand_specs("random:1-2:golf") == ["random:1:golf", "random:2:golf"]
    one = load_deal("random:5:dead-king-golf")
    assert one == load_deal("random:5:dead-king-golf") and one.game is DEAD_KING_GOLF
    assert sorted(card for fan in one.fans for card in fan) != [] and len(one.talon) == 16
    with pytest.raises(InputError, match="unknown PySolFC game"):
        load_deal("pysol:1:putt-putt")
    with pytest.raises(InputError, match="standard deck"):
        load_deal("random:1:golf:ranks=9")


def test_a_talon_board_needs_its_game_named() -> None:
    text = board_text(load_deal("pysol:4:golf"))
    with pytest.raises(InputError) as raised:
        parse_board(text, "g.board")
    error = raised.value
    assert (error.source, error.line, error.token) == ("g.board", 1, "Talon:")
    assert "golf, dead-king-golf, relaxed-golf" in str(error)
    named = parse_board("Game: relaxed-golf\n" + text, "g.board")
    assert named.game is RELAXED_GOLF and named == load_deal("pysol:4:relaxed-golf")
    with pytest.raises(InputError, match="not golf as asked"):
        parse_board("Game: relaxed-golf\n" + text, "g.board", GOLF)
    with pytest.raises(InputError, match="unknown game"):
        parse_board("Game: mini-golf\n" + text, "g.board")
    with pytest.raises(InputError, match="Black Hole has no talon"):
        parse_board(text, "g.board", BLACK_HOLE)


def test_the_cli_reads_and_writes_golf_boards_and_json(tmp_path) -> None:
    board = cli("deal", "pysol:7:golf")
    assert board.exit_code == 0 and board.output.startswith("Game: golf\nTalon: ")
    assert board.output.splitlines()[2].startswith("Foundations: ")
    assert cli("deal", "-", stdin=board.output).output == board.output
    unnamed = board.output.split("\n", 1)[1]  # black-hole-solve's board
    refused = cli("deal", "-", stdin=unnamed)
    assert refused.exit_code == 2 and "'Game: NAME'" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    again = cli("deal", "-", "--game", "golf", stdin=unnamed)
    assert again.exit_code == 0 and again.output == board.output
    as_json = json.loads(cli("deal", "pysol:7:dead-king-golf", "--format", "json").output)
    assert as_json["game"] == "dead-king-golf" and len(as_json["talon"]) == 16
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(as_json))
    assert load_deal(str(path)) == load_deal("pysol:7:dead-king-golf")
    del as_json["game"]
    path.write_text(json.dumps(as_json))
    with pytest.raises(InputError, match="talon must name its game"):
        load_deal(str(path))
    assert cli("deal", "pysol:7:golf", "--game", "relaxed-golf").exit_code == 2
    assert cli("deal", str(path), "--game", "mini-golf").exit_code == 2


# ---------------------------------------------------------------- the rules


def _naive_fits(game: str, card: int, hole: int) -> bool:
    """Golf's rules as the tables state them, written apart from `blackhole.model.games`."""
    if hole == K:
        return {"golf": card == Q, "dead-king-golf": False,
                "relaxed-golf": card in (Q, A)}[game]
    if game == "relaxed-golf" and {card, hole} == {A, K}:
        return True
    return abs(card - hole) == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(GOLF_GAMES), st.integers(0, 10**6))
def test_random_lines_follow_the_rules_as_stated(number, name, seed) -> None:
    """Legal moves, as the engine lists them, are exactly the naive checker's, along a
    random line; the line replays to the same state and outcome."""
    deal = load_deal(f"pysol:{number}:{name}")
    rng = random.Random(seed)
    state, line = initial_state(deal), []
    while True:
        gone = set(line)  # the cards played: each fan's top card is its last one left
        tops = [left[-1] for fan in deal.fans if (left := [c for c in fan if c not in gone])]
        assert tops == [fan[-1] for fan in layout(deal, state).fans if fan]
        expected = {card for card in tops if _naive_fits(name, card.rank, state.foundation.rank)}
        if state.turned < len(deal.talon):
            expected.add(deal.talon[state.turned])
        legal = legal_moves(deal, state)
        assert {move.card for move in legal} == expected
        if not legal:
            break
        move = rng.choice(legal)
        state = play(deal, state, move)
        line.append(move.card)
    judged = replay(deal, line)
    assert judged.state == state and judged.played + judged.turned == len(line)
    left = cards_left(deal, state)
    assert judged.outcome is (Outcome.WON if not left else Outcome.BLOCKED)
    assert judged.played == 35 - left


def test_the_talon_turns_in_order_and_a_win_leaves_it() -> None:
    deal = load_deal("pysol:1:relaxed-golf")
    first, second = deal.talon[:2]
    assert replay(deal, [second]).reason == f"{second} is not the next talon card ({first} is)"
    assert replay(deal, [first, first]).reason == f"{first} already played"
    assert replay(deal, [Move.turn(), Move.turn()]).order == (first, second)
    solved = solve_deal(deal, "search", Options())
    judged = replay(deal, list(solved.moves))
    assert judged.won and judged.played == 35
    assert judged.describe() == "won: all 35 cards moved"
    # one tableau card left and two in the talon: playing it wins, the talon stays
    last = Deal(((Card(5, "H"),), (), (), (), (), (), ()), Card(4, "S"), name="end",
                talon=(Card(9, "C"), Card(10, "C")), game=GOLF)
    assert position_of(last).moved == 34 and position_of(last).of == 35
    ending = replay(last, "5H")
    assert ending.won and ending.state.turned == 0 and ending.describe(34, 35) == \
        "won: all 35 cards moved"
    assert replay(last, "9C").outcome is Outcome.UNFINISHED  # the talon's next card goes
    assert replay(last, "9C TC").outcome is Outcome.BLOCKED  # spent, and 5H fits not on TC


def test_positions_hold_the_talon_progress() -> None:
    deal = load_deal("pysol:2:dead-king-golf")
    line = [move.card for move in solve_deal(deal, "search", Options()).moves]
    after = " ".join(map(str, line[:10]))
    position = load_position("pysol:2:dead-king-golf", after)
    turned = sum(1 for card in line[:10] if card in deal.talon)
    assert position.deal.talon == deal.talon[turned:] and position.moved == 10 - turned
    assert position.of == 35 and position.history_known
    written = json.loads(cli("deal", "pysol:2:dead-king-golf", "--after", after,
                             "--format", "json").output)
    assert written["history"] == [str(card) for card in line[:10]]
    assert parse_position_text(json.dumps(written), "j") == position
    board = cli("deal", "pysol:2:dead-king-golf", "--after", after).output
    later = cli("deal", "-", "--game", "dead-king-golf", "--after",
                " ".join(map(str, line[10:])), stdin=board)
    assert later.exit_code == 0 and "Foundations: " + str(line[-1]) in later.output


def test_a_game_in_play_turns_the_talon_and_undoes_it() -> None:
    game = Game.of(load_deal("pysol:3:golf"))
    turned = game.turn()
    assert turned.state.foundation == game.deal.talon[0] and turned.score == 0
    assert turned.position.deal.talon == game.deal.talon[1:]
    assert turned.undo().state == game.state
    assert game.play_card(game.deal.talon[0]).state == turned.state


# ---------------------------------------------------------------- the referee's verdicts


def _sample(game: str, solved: int, unsolved: int) -> list[int]:
    """The deals of `game` black-hole-solve settled in fewest states, of each verdict."""
    rows = [row for (_, name), row in golf_reference().items() if name == game]
    rows.sort(key=lambda row: int(row["states_checked"]))
    pick = [row for row in rows if row["verdict"] == "solved"][:solved] + \
        [row for row in rows if row["verdict"] == "unsolvable"][:unsolved]
    return sorted(int(row["deal"]) for row in pick)


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_search_agrees_with_black_hole_solve_on_a_sample(game: str) -> None:
    for number in _sample(game, 12, 3):
        found = solve_deal(load_deal(f"pysol:{number}:{game}"), "search", Options())
        assert found.verdict.value == golf_reference()[number, game]["verdict"], number


@pytest.mark.slow
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_search_agrees_with_black_hole_solve_on_the_first_hundred(game: str) -> None:
    for number in range(1, 101):
        found = solve_deal(load_deal(f"pysol:{number}:{game}"), "search", Options())
        assert found.verdict.value == golf_reference()[number, game]["verdict"], number


def test_a_search_win_replays_in_black_hole_solves_terms(tmp_path) -> None:
    board = tmp_path / "golf.board"  # black-hole-solve's board, which names no game
    board.write_text(board_text(load_deal("pysol:2:golf")))
    text = cli("solve", str(board), "--game", "golf", "--backend", "search",
               "--format", "pysol")
    assert text.exit_code == 0 and "Deal talon" in text.output
    answer = tmp_path / "answer.txt"
    answer.write_text(text.output)
    checked = cli("check", str(board), str(answer), "--game", "golf")
    assert checked.exit_code == 0 and "won: all 35 cards moved" in checked.output
    assert cli("check", str(board), str(answer), "--game", "dead-king-golf").exit_code == 1


# ---------------------------------------------------------------- engines that refuse


@pytest.mark.parametrize("backend", [name for name in REGISTRY
                                     if not GOLF.features <= make_backend(name).plays])
def test_every_other_engine_refuses_golf_by_name(backend: str) -> None:
    with pytest.raises(InputError) as raised:
        solve_deal(load_deal("pysol:5:golf"), backend, Options())
    assert raised.value.token == "golf" and f"the {backend} engine" in str(raised.value)


def test_the_engines_that_read_rules_are_the_ones_that_play_golf() -> None:
    readers = {name for name in REGISTRY if GOLF.features <= make_backend(name).plays}
    assert {"search", "sat", "cpsat", "look", "auto", "external", "kissat"} <= readers
    assert "maxsat" not in readers  # its optional-position CNF scores Black Hole only


@pytest.mark.parametrize("command", [
    ("solve", "pysol:5:relaxed-golf", "--backend", "maxsat"),
    ("best", "pysol:5:golf", "--backend", "sat"),
    ("encode", "pysol:5:golf", "--format", "cpsat", "--model", "boolean")])
def test_commands_refuse_golf_with_one_line(command) -> None:
    result = cli(*command)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Golf" in lines[0]


def test_cards_of_a_golf_deal_are_the_whole_deck() -> None:
    deal = load_deal("pysol:11:golf")
    cards = [*deal.talon, deal.foundation, *(card for fan in deal.fans for card in fan)]
    assert sorted(cards) == sorted(Card(rank, suit) for suit in "CDHS" for rank in range(1, 14))
    assert parse_card(str(deal.foundation)) == deal.foundation


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(GOLF_GAMES), st.integers(0, 10**6))
def test_golf_positions_round_trip_through_board_and_json(seed, name, line_seed) -> None:
    """A position part played (a random legal line, cut anywhere) reads back from its
    board, with its game named by a Game line, and from its JSON, history and all."""
    spec = f"random:{seed}:{name}"
    rng = random.Random(line_seed)
    line = random_line(load_deal(spec), rng, rng.randint(0, 40))
    position = load_position(spec, " ".join(map(str, line)))
    board = board_text(position.deal)
    from_board = parse_position_text(f"Game: {name}\n{board}", "b")
    assert from_board.deal == position.deal and from_board.moved == position.moved
    assert board_text(from_board.deal) == board
    written = json.loads(cli("deal", spec, "--after", " ".join(map(str, line)),
                             "--format", "json").output)
    assert parse_position_text(json.dumps(written), "j") == position


def test_encode_writes_golf_s_problem_and_cnf() -> None:
    problem = json.loads(cli("encode", "pysol:5:golf").output)
    assert problem["game"] == "golf" and len(problem["talon"]) == 16
    assert sum(1 for node in problem["nodes"] if node["fan"] >= 0) == 35
    dimacs = cli("encode", "pysol:5:golf", "--format", "dimacs").output
    assert "c features compact,domain,forward" in dimacs.splitlines()[:3]


@pytest.mark.parametrize(("task", "backend"), [("solve", "maxsat"), ("best", "sat"),
                                               ("best", "cpsat")])
def test_bench_refuses_a_backend_that_does_not_play_golf_before_any_task(
        tmp_path, task: str, backend: str) -> None:
    out = tmp_path / "results.jsonl"
    result = cli("bench", "pysol:1-2,pysol:3:golf", "--task", task, "--backends",
                 f"look,{backend}", "--jobs", "1", "--out", str(out))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pysol:3:golf" in lines[0] and backend in lines[0]
    assert not out.exists() or not out.read_text()  # no task ran


def test_bench_plays_golf_with_the_look_and_agrees_with_the_reference(tmp_path) -> None:
    out = tmp_path / "results.jsonl"
    result = cli("bench", "pysol:1-6:golf,pysol:1-6:relaxed-golf", "--backends", "look",
                 "--jobs", "1", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    reference = golf_reference()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 12
    for row in rows:
        number, game = int(row["deal"].split(":")[1]), row["deal"].split(":")[2]
        assert row["verdict"] == reference[(number, game)]["verdict"], row["deal"]


def test_the_words_for_a_misfit_come_from_the_rule_rank_fits_reads() -> None:
    """`misfit` says why exactly where `rank_fits` refuses, and names each game's King
    rule as the table both read allows it (the play screen's refusals and rules)."""
    for game in VARIANTS.values():
        for ranks in ((13, 5) if game.any_ranks else (13,)):
            for hole in (None, *range(1, ranks + 1)):
                for rank in range(1, ranks + 1):
                    why = misfit(game, rank, hole, ranks)
                    assert (why == "") == rank_fits(game, rank, hole, ranks), \
                        (game.name, ranks, hole, rank)
    on_a_king = {name: misfit(VARIANTS[name], 2, 13, 13) for name in GOLF_GAMES}
    assert on_a_king == {"golf": "only a Queen goes on a King",
                         "dead-king-golf": "nothing from the fans goes on a King",
                         "relaxed-golf": "only a Queen or an Ace goes on a King"}
    for name, rule in on_a_king.items():
        text = " ".join(rules_text(load_deal(f"pysol:2:{name}")).split())
        assert f" {rule[0].upper()}{rule[1:]}. " in text
    assert misfit(VARIANTS["golf"], 1, 13, 13) == "only a Queen goes on a King"
    assert misfit(VARIANTS["golf"], 13, 1, 13) == "K and A are not neighbours in this game"
    assert misfit(VARIANTS["black-hole"], 5, 1, 13) == "its rank must be one above or below"
