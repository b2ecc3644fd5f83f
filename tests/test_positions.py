"""Positions (a deal part played), the game in play, and generalised random decks."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.backends import Options
from blackhole.base.errors import InputError
from blackhole.model.cards import Card, deck, parse_card, rank_adjacent
from blackhole.model.deal import Kind, Move, Position, position_of
from blackhole.model.formats import (
    board_text,
    parse_board,
    parse_position_text,
    position_json,
    saved_board,
)
from blackhole.model.positions import load_position, read_moves
from blackhole.model.rules import Outcome, initial_state, legal_moves, play, replay, top_card
from blackhole.model.sources import expand_specs, load_deal, random_deal
from blackhole.play.game import Game
from blackhole.questions.pipeline import solve_deal

from .helpers import EXAMPLES, cli

SOLUTION = [m["card"] for m in
            json.loads((EXAMPLES / "pysol-2.solution.json").read_text())["moves"]]


def one_error_line(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    return result.stderr.strip()


def random_line(deal, rng: random.Random, limit: int | None = None) -> list[Card]:
    """Legal moves picked at random until blocked (or `limit` moves)."""
    state, line = initial_state(deal), []
    while (options := legal_moves(deal, state)) and (limit is None or len(line) < limit):
        move = rng.choice(options)
        assert move.card == top_card(deal, state, move.fan)
        line.append(move.card)
        state = play(deal, state, move)
    return line


# ------------------------------------------------------------ reading and writing


def test_a_fresh_deal_is_the_position_with_nothing_played() -> None:
    deal = load_deal("pysol:2")
    assert load_position("pysol:2") == Position(deal, 0, 51, ())
    assert position_of(deal) == Position(deal, 0, deal.cards_in_fans, ())
    aiar = load_position("pysol:3:all-in-a-row")
    assert (aiar.moved, aiar.of) == (0, 52)


def test_after_plays_the_moves_and_keeps_the_history() -> None:
    position = load_position("pysol:2", " ".join(SOLUTION[:10]))
    assert (position.moved, position.of) == (10, 51)
    assert position.history == tuple(map(parse_card, SOLUTION[:10]))
    assert position.deal.foundation == parse_card(SOLUTION[9])
    assert position.deal.cards_in_fans == 41
    assert load_position("pysol:2", ",".join(SOLUTION[:10])) == position
    assert load_position("pysol:2", "  " + ", ".join(SOLUTION[:10]) + " # ten") == position
    assert load_position("pysol:2", "") == load_position("pysol:2")


def test_empty_fans_are_written_as_a_dash_and_keep_their_place() -> None:
    position = load_position("pysol:2", " ".join(SOLUTION[:30]))
    text = board_text(position.deal)
    empty = [i for i, fan in enumerate(position.deal.fans) if not fan]
    assert empty and all(text.splitlines()[i + 1] == "-" for i in empty)
    for spelling in ("-", ": -", ":", "-   # emptied"):
        lines = text.splitlines()
        for i in empty:
            lines[i + 1] = spelling
        assert parse_board("\n".join(lines)) == position.deal


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.booleans())
def test_positions_round_trip_between_board_json_and_after(seed: int, play_seed: int,
                                                            any_card: bool) -> None:
    spec = f"random:{seed}" + (":any" if any_card else "")
    line = random_line(load_deal(spec), random.Random(play_seed))
    cut = random.Random(play_seed).randint(0, len(line))
    position = load_position(spec, " ".join(map(str, line[:cut])))
    assert (position.moved, position.of, len(position.history)) == (cut, 51, cut)
    from_board = parse_position_text(board_text(position.deal), "b")
    assert from_board == Position(position.deal, cut, 51, ())  # a board holds no history
    from_json = parse_position_text(json.dumps(position_json(position)), "j")
    assert from_json == position
    assert replay(load_deal(spec), position.history).played == cut


def _refused(data: dict, *, as_board: bool = True) -> None:
    """`data` (a position's JSON) is refused as JSON and, without a history, as a board."""
    with pytest.raises(InputError):
        parse_position_text(json.dumps(data), "j")
    if as_board and "history" not in data:
        board = [f"Ranks: {data['ranks']}", f"Foundations: {data['foundation'] or '-'}"]
        board += [" ".join(fan) or "-" for fan in data["fans"]]
        with pytest.raises(InputError):
            parse_position_text("\n".join(board) + "\n", "b")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(["", ":any"]),
       st.sampled_from([13, 4, 9, 22]), st.booleans())
def test_reached_positions_are_read_and_broken_ones_refused(seed: int, play_seed: int,
                                                            variant: str, ranks: int,
                                                            with_history: bool) -> None:
    """A position that random legal play reaches is read back, with its history or from
    its layout alone; the same position with a card duplicated, a card put on a fan past
    its dealt size, the hole emptied or moved onto a fan, or (with its history) a card
    taken off, is refused, and so is a deal with a card taken off that nothing could have
    played onto its hole."""
    spec = f"random:{seed}{variant}" + (f":ranks={ranks}" if ranks != 13 else "")
    rng = random.Random(play_seed)
    line = random_line(load_deal(spec), rng)
    position = load_position(spec, " ".join(map(str, line[:rng.randint(0, len(line))])))
    data = position_json(position)
    if not with_history:
        data.pop("history", None)
    read = parse_position_text(json.dumps(data), "j")
    assert (read.deal, read.moved, read.of) == (position.deal, position.moved, position.of)
    fans = data["fans"]
    cards = [card for fan in fans for card in fan]
    if len(cards) >= 2:  # a card twice
        changed = [list(fan) for fan in fans]
        at = next(i for i, fan in enumerate(changed) if fan)
        changed[at][-1] = next(card for card in cards if card != changed[at][-1])
        _refused({**data, "fans": changed})
    full = [i for i, fan in enumerate(fans) if len(fan) == 3]
    if full and cards:  # a fan past its dealt size
        changed = [list(fan) for fan in fans]
        source = next(i for i, fan in enumerate(changed) if fan and i != full[0]) \
            if any(fan for i, fan in enumerate(changed) if i != full[0]) else None
        if source is not None:
            changed[full[0]].append(changed[source].pop())
            _refused({**data, "fans": changed})
    if cards:  # the hole emptied, or its card also on a fan
        _refused({**data, "foundation": None})
        _refused({**data, "foundation": cards[0]})
    if with_history and position.moved and cards:  # a card taken off, history unchanged
        changed = [list(fan) for fan in fans]
        next(fan for fan in changed if fan).pop()
        _refused({**data, "fans": changed}, as_board=False)
    if not variant and not position.moved:  # fresh: off one card nothing leads to A♠
        loose = [card for card in cards if not rank_adjacent(parse_card(card).rank, 1, ranks)]
        changed = [[card for card in fan if card != loose[0]] for fan in fans]
        _refused({**data, "fans": changed})


def test_after_from_a_saved_position_equals_after_from_the_start(tmp_path) -> None:
    middle = load_position("pysol:2", " ".join(SOLUTION[:20]))
    for name, text in (("p.json", json.dumps(position_json(middle))),
                       ("p.board", board_text(middle.deal))):
        path = tmp_path / name
        path.write_text(text)
        later = load_position(str(path), " ".join(SOLUTION[20:35]))
        whole = load_position("pysol:2", " ".join(SOLUTION[:35]))
        assert (later.deal, later.moved, later.of) == (whole.deal, whole.moved, whole.of)
        assert later.history == (whole.history if name == "p.json" else ())


def test_after_reads_every_solution_format_from_a_file(tmp_path) -> None:
    expected = load_position("pysol:2", " ".join(SOLUTION))
    for name in ("pysol-2.solution.json", "pysol-2.black-hole-solve.txt"):
        assert load_position("pysol:2", f"@{EXAMPLES / name}") == expected
    listing = tmp_path / "moves.txt"
    listing.write_text("\n".join(SOLUTION[:5]) + "\n")
    assert load_position("pysol:2", f"@{listing}").moved == 5


def test_a_board_with_cards_missing_is_a_position() -> None:
    text = board_text(load_deal("pysol:2")).replace("QC 8C 2S", "QC 8C")
    position = parse_position_text(text, "p.board")
    assert (position.moved, position.of, position.history) == (1, 51, ())
    assert Card(2, "S") not in position.deal.where()


def test_all_in_a_row_positions_count_52() -> None:
    deal = load_deal("pysol:24:all-in-a-row")
    first = deal.fans[0][-1]
    position = load_position("pysol:24:all-in-a-row", str(first))
    assert (position.moved, position.of) == (1, 52)
    assert position.deal.foundation == first and len(position.deal.fans) == 13
    # a board names no game but Black Hole's by its layout: the board saved names it
    again = parse_position_text(saved_board(position.deal), "b")
    assert (again.deal, again.moved, again.of) == (position.deal, 1, 52)


def test_a_won_position_is_all_dashes_and_solves_with_no_moves() -> None:
    won = load_position("pysol:2", " ".join(SOLUTION))
    assert (won.moved, won.deal.cards_in_fans) == (51, 0)
    assert board_text(won.deal).splitlines()[1:] == ["-"] * 17
    assert parse_position_text(board_text(won.deal), "b").moved == 51
    for backend in ("search", "sat"):
        solution = solve_deal(won.deal, backend, Options(timeout=60))
        assert solution.verdict.value == "solved" and solution.moves == ()


# ------------------------------------------------------------ bad positions


@pytest.mark.parametrize("edit,words", [
    (("QC 8C 2S", "QC 8C 2S TC"), "duplicate card"),
    (("QC 8C 2S", "QC 8C AS"), "the hole's card cannot also lie on a fan"),
    (("JS 7C 5H\n", "JS 7C 5H 4H\n", "QS 4H KH", "QS KH"), "expected 3 cards in this fan"),
    (("Foundations: AS", "Game: all-in-a-row\nFoundations: -"), "card(s) missing"),
    (("Foundations: AS", "Foundations: -"), "Black Hole's foundation always holds a card"),
])
def test_bad_boards_are_one_line_exit_2(tmp_path, edit, words) -> None:
    path = tmp_path / "bad.board"
    text = board_text(load_deal("pysol:2"))
    for old, new in zip(edit[::2], edit[1::2], strict=True):
        text = text.replace(old, new, 1)
    path.write_text(text)
    assert words in one_error_line(cli("show", str(path)))


@pytest.mark.parametrize("after,message", [
    ("2S 3H 2S", "error: --after: move 3 is illegal: 2S already played: '2S'"),
    ("2S QC", "error: --after: move 2 is illegal: QC is not a top card: 'QC'"),
    ("TC", "error: --after: move 1 is illegal: TC is not rank-adjacent to AS: 'TC'"),
    ("AS", "error: --after: move 1 is illegal: AS is the hole's top card, not on a fan: 'AS'"),
    ("2S ZZ", "error: --after: unknown suit in card: 'ZZ'"),
])
def test_an_illegal_move_in_after_names_the_move_and_why(after: str, message: str) -> None:
    for command in (["show", "pysol:2"], ["deal", "pysol:2"],
                    ["check", "pysol:2", str(EXAMPLES / "pysol-2.solution.json")]):
        assert one_error_line(cli(*command, "--after", after)) == message


def test_illegal_move_in_an_after_file_names_the_file(tmp_path) -> None:
    path = tmp_path / "moves.txt"
    path.write_text("2S\n3H\nQC\n")
    assert one_error_line(cli("show", "pysol:2", "--after", f"@{path}")) == \
        f"error: {path}: move 3 is illegal: QC is not a top card: 'QC'"
    assert "no such moves file" in one_error_line(cli("show", "pysol:2", "--after", "@nope"))


@pytest.mark.parametrize("history,words", [
    (["2S"], "holds 1 moves but the layout shows 2"),
    (["QD", "2S"], "lies on a fan"),
    (["3H", "3H"], "moved twice"),
    (["3H", "2S"], "the last card of \"history\" must be the hole's card"),
    ("2S", "\"history\" is a list"),
    ([2, "3H"], "cards are strings"),
])
def test_json_history_must_match_the_layout(history, words) -> None:
    data = position_json(load_position("pysol:2", "2S 3H"))
    data["history"] = history
    with pytest.raises(InputError, match=words.replace("(", r"\(")) as caught:
        parse_position_text(json.dumps(data), "p.json")
    assert "\n" not in str(caught.value)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AKQJT98765432SHDC♥10 ,;#@\n-x", max_size=80))
def test_any_after_text_plays_or_fails_with_one_line(after: str) -> None:
    try:
        position = load_position("pysol:2", after)
    except InputError as error:
        assert "\n" not in str(error)
    else:
        assert position.moved == len(position.history) <= 51


# ------------------------------------------------------------ solving positions


@pytest.mark.parametrize("backend", ["search", "sat", "cpsat"])
@pytest.mark.parametrize("k", [1, 17, 30, 50])
def test_backends_solve_positions_and_the_answer_replays_from_there(backend, k) -> None:
    position = load_position("pysol:2", " ".join(SOLUTION[:k]))
    solution = solve_deal(position.deal, backend, Options(timeout=60))
    assert solution.verdict.value == "solved" and len(solution.moves) == 51 - k
    rest = [card for card, _, _ in solution.moves]
    assert replay(position.deal, rest).won
    assert replay(load_deal("pysol:2"), position.history + tuple(rest)).won


def test_a_lost_position_is_unsolvable_for_every_backend() -> None:
    deal = load_deal("pysol:2")
    for seed in range(200):  # a random line that blocks early leaves a lost position
        line = random_line(deal, random.Random(seed), limit=6)
        position = load_position("pysol:2", " ".join(map(str, line)))
        verdicts = {solve_deal(position.deal, backend, Options(timeout=60)).verdict.value
                    for backend in ("search", "sat")}
        assert len(verdicts) == 1
        if verdicts == {"unsolvable"}:
            return
    raise AssertionError("no lost position found among 200 random starts")


# ------------------------------------------------------------ the CLI


def test_show_draws_a_position_with_its_progress() -> None:
    result = cli("show", "pysol:2", "--after", " ".join(SOLUTION[:30]), "--ascii")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == f"hole: {SOLUTION[29]}   (30 of 51 moved)"
    assert any(line.endswith("-  (empty)") for line in lines)
    fresh = cli("show", "pysol:2", "--ascii").output
    assert fresh.splitlines()[0] == "hole: AS"


def test_deal_after_writes_a_board_and_json_that_read_back(tmp_path) -> None:
    after = " ".join(SOLUTION[:12])
    expected = load_position("pysol:2", after)
    board, as_json = tmp_path / "p.board", tmp_path / "p.json"
    board.write_text(cli("deal", "pysol:2", "--after", after).output)
    as_json.write_text(cli("deal", "pysol:2", "--after", after, "--format", "json").output)
    assert load_position(str(as_json)) == expected
    assert load_position(str(board)) == Position(expected.deal, 12, 51, ())
    assert cli("deal", str(board)).output == board.read_text()


def test_check_after_counts_from_the_start_of_the_deal(tmp_path) -> None:
    rest = tmp_path / "rest.txt"
    rest.write_text(" ".join(SOLUTION[10:]))
    won = cli("check", "pysol:2", str(rest), "--after", " ".join(SOLUTION[:10]))
    assert won.exit_code == 0 and won.output.strip() == "won: all 51 cards moved"
    rest.write_text(" ".join(SOLUTION[10:20]))
    partial = cli("check", "pysol:2", str(rest), "--after", " ".join(SOLUTION[:10]), "--json")
    data = json.loads(partial.output)
    assert partial.exit_code == 1
    assert (data["moved"], data["played"], data["total"], data["outcome"]) == \
        (10, 20, 51, "unfinished")
    assert [move["card"] for move in data["after"]] == SOLUTION[:10]
    rest.write_text(SOLUTION[0])
    again = cli("check", "pysol:2", str(rest), "--after", SOLUTION[0])
    assert again.exit_code == 1 and "2S is the hole's top card, not on a fan" in again.output
    rest.write_text(SOLUTION[0])
    gone = cli("check", "pysol:2", str(rest), "--after", " ".join(SOLUTION[:2]))
    assert f"{SOLUTION[0]} is already in the hole" in gone.output


def test_check_refuses_black_hole_solve_unsolved_with_one_line(tmp_path) -> None:
    path = tmp_path / "bhs.txt"
    path.write_text("Unsolved!\n")
    line = one_error_line(cli("check", "pysol:1", str(path)))
    assert line == (f"error: {path}:1: black-hole-solve's Unsolved! holds no moves to "
                    "replay (solve or certify tests that claim)")


def test_check_numbers_fans_from_one(tmp_path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"moves": [{"card": "KH", "fan": 3}]}))
    result = cli("check", "pysol:2", str(path))
    assert result.exit_code == 1
    assert result.output.strip() == "illegal at move 1: KH is in fan 13, not fan 4"


def test_folders_and_oversized_files_are_one_line_errors(tmp_path) -> None:
    assert one_error_line(cli("show", str(tmp_path))) == \
        f"error: {tmp_path}: is a directory, not a deal file"
    assert "is a directory" in one_error_line(cli("check", "pysol:2", str(tmp_path)))
    big = tmp_path / "big.board"
    with big.open("wb") as handle:
        handle.truncate(30_000_000)
    assert one_error_line(cli("show", str(big))) == \
        f"error: {big}: deal file larger than the 1 MB cap"
    assert one_error_line(cli("check", "pysol:2", str(big))) == \
        f"error: {big}: solution file larger than the 1 MB cap"


# ------------------------------------------------------------ the game in play


def test_game_plays_undoes_and_redoes() -> None:
    game = Game.of(load_deal("pysol:2"))
    assert not game.can_undo and game.score == 0 and game.outcome is Outcome.UNFINISHED
    assert Move(Card(2, "S"), 1, Kind.PLAY) in game.legal()
    for card in SOLUTION[:5]:
        game = game.play_card(parse_card(card))
    assert game.score == 5 and game.played == tuple(map(parse_card, SOLUTION[:5]))
    back = game.undo().undo()
    assert back.score == 3 and back.can_redo
    assert back.redo().redo() == game
    assert back.restart().score == 0 and back.restart().redo().redo().redo() == back
    branched = back.play(back.legal()[-1])
    assert not branched.can_redo  # a new move clears the redo list
    assert game.position == load_position("pysol:2", " ".join(SOLUTION[:5]))
    with pytest.raises(ValueError, match="not a top card"):
        game.play_card(Card(12, "C"))
    with pytest.raises(ValueError, match="nothing to undo"):
        Game.of(load_deal("pysol:2")).undo()


def test_game_from_a_position_counts_from_the_start() -> None:
    position = load_position("pysol:2", " ".join(SOLUTION[:40]))
    game = Game.of(position)
    for card in SOLUTION[40:]:
        game = game.play_card(parse_card(card))
    assert game.outcome is Outcome.WON and game.score == 51
    assert game.position.history == tuple(map(parse_card, SOLUTION))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_random_games_agree_with_replay(seed: int, play_seed: int) -> None:
    deal = random_deal(seed)
    rng = random.Random(play_seed)
    game = Game.of(deal)
    while game.legal():
        game = game.play(rng.choice(game.legal()))
        if rng.random() < 0.2:
            game = game.undo()
    judged = replay(deal, game.played)
    assert judged.outcome is game.outcome and judged.played == game.score
    assert judged.state == game.state


# ------------------------------------------------------------ random:SEED:ranks=R


@pytest.mark.parametrize("ranks", [2, 3, 5, 13, 16, 25, 52, 100])
@pytest.mark.parametrize("any_card", [False, True])
def test_generalised_random_decks_are_complete_and_dealt_in_threes(ranks, any_card) -> None:
    spec = f"random:7{':any' if any_card else ''}:ranks={ranks}"
    deal = load_deal(spec)
    assert deal == load_deal(spec) and deal.ranks == ranks
    cards = [card for fan in deal.fans for card in fan] + [deal.foundation]
    assert sorted(cards) == sorted(deck(ranks))
    assert all(len(fan) == 3 for fan in deal.fans[:-1]) and 1 <= len(deal.fans[-1]) <= 3
    assert len(deal.fans) == -(-(4 * ranks - 1) // 3)
    if not any_card:
        assert deal.foundation == Card(1, "S")
    assert load_position(spec) == Position(deal, 0, 4 * ranks - 1, ())


def test_thirteen_ranks_is_the_standard_random_deal() -> None:
    for seed in (0, 1, 99):
        assert load_deal(f"random:{seed}:ranks=13") == load_deal(f"random:{seed}")
        assert load_deal(f"random:{seed}:ranks=13:any") == load_deal(f"random:{seed}:any")
    assert load_deal("random:4:ranks=16") != load_deal("random:5:ranks=16")


def test_generalised_ranges_and_json() -> None:
    assert expand_specs("random:1-3:ranks=16") == [f"random:{n}:ranks=16" for n in (1, 2, 3)]
    assert expand_specs("random:1-2:ranks=8:any") == ["random:1:any:ranks=8",
                                                      "random:2:any:ranks=8"]
    written = cli("deal", "random:3:ranks=16", "--format", "json")
    data = json.loads(written.output)
    assert written.exit_code == 0 and data["ranks"] == 16 and len(data["fans"]) == 21
    assert parse_position_text(written.output, "j").deal == load_deal("random:3:ranks=16")
    board = cli("deal", "random:3:ranks=16")
    assert board.exit_code == 0 and board.output.startswith("Ranks: 16\nFoundations: AS\n")
    assert parse_position_text(board.output, "b").deal == load_deal("random:3:ranks=16")
    assert "2 to 100 ranks" in one_error_line(cli("show", "random:3:ranks=101"))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 100), st.booleans(), st.integers(0, 10**6))
def test_generalised_positions_round_trip_between_board_json_and_after(
        seed: int, ranks: int, any_card: bool, play_seed: int) -> None:
    spec = f"random:{seed}{':any' if any_card else ''}:ranks={ranks}"
    line = random_line(load_deal(spec), random.Random(play_seed))
    cut = random.Random(play_seed).randint(0, len(line))
    after = " ".join(map(str, line[:cut]))
    position = load_position(spec, after)
    of = 4 * ranks - 1
    assert (position.moved, position.of, position.deal.ranks) == (cut, of, ranks)
    board = cli("deal", spec, "--after", after)
    assert board.exit_code == 0 and board.output == board_text(position.deal)
    from_board = parse_position_text(board.output, "b")
    assert from_board == Position(position.deal, cut, of, ())  # a board holds no history
    as_json = cli("deal", spec, "--after", after, "--format", "json")
    assert parse_position_text(as_json.output, "j") == position
    assert board_text(parse_position_text(as_json.output, "j").deal) == board.output
    rest = " ".join(map(str, line[cut:cut + 3]))  # playing on from the board
    later = cli("deal", "-", "--after", rest, stdin=board.output)
    assert later.output == board_text(load_position(spec, f"{after} {rest}").deal)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 7), st.booleans())
def test_search_and_sat_agree_on_small_generalised_decks(seed, ranks, any_card) -> None:
    deal = load_deal(f"random:{seed}{':any' if any_card else ''}:ranks={ranks}")
    verdicts = {backend: solve_deal(deal, backend, Options(timeout=60)).verdict.value
                for backend in ("search", "sat")}
    assert len(set(verdicts.values())) == 1, verdicts


# ------------------------------------------------------------ one reader of move lists


def test_read_moves_reads_cards_and_files_and_names_the_source(tmp_path) -> None:
    cards = [parse_card(token) for token in SOLUTION[:6]]
    text = " ".join(SOLUTION[:3]) + ", " + ",".join(SOLUTION[3:6]) + "  # six"
    moves, source = read_moves(text, "--line")
    assert [move.card for move in moves] == cards and source == "--line"
    path = tmp_path / "m.txt"
    path.write_text("\n".join(SOLUTION[:6]) + "\n")
    moves, source = read_moves(f"@{path}", "--line")
    assert [move.card for move in moves] == cards and source == str(path)
    listed, _ = read_moves(f"@{EXAMPLES / 'pysol-2.black-hole-solve.txt'}", "after")
    assert [move.card for move in listed] == list(map(parse_card, SOLUTION))
    assert read_moves("", "after") == ([], "after")
    path.write_text("2S\n3H ZZ\n")
    for text, where in (("2S\n3H ZZ", "after"), (f"@{path}", f"{path}:2")):
        with pytest.raises(InputError) as caught:
            read_moves(text, "after")
        assert str(caught.value) == f"{where}: unknown suit in card: 'ZZ'"
    with pytest.raises(InputError, match="no such moves file"):
        read_moves("@nope.txt", "after")


@pytest.mark.parametrize("line,message", [
    ("2S ZZ", "error: --line: unknown suit in card: 'ZZ'"),
    ("2S QC", "error: --line: move 2 is illegal: QC is not a top card: 'QC'"),
])
def test_analyze_line_errors_name_the_option(line: str, message: str) -> None:
    assert one_error_line(cli("analyze", "pysol:2", "--line", line)) == message


def test_analyze_line_errors_in_a_file_name_the_file(tmp_path) -> None:
    path = tmp_path / "line.txt"
    path.write_text("2S\n3H\nQC\n")
    assert one_error_line(cli("analyze", "pysol:2", "--line", f"@{path}")) == \
        f"error: {path}: move 3 is illegal: QC is not a top card: 'QC'"
