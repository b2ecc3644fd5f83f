"""Golf positions say where they stand: a talon turn is a move wherever moves are counted
(an answer's `after`, move numbers, `Position.made`), a file is read only when play can
reach it, a bad board names its own line, and every board the tool writes reads back."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.atlas import lookup
from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, Kind, unreachable_top
from blackhole.model.formats import board_text, parse_board, parse_position_text
from blackhole.model.games import GAME_NAMES, rank_fits
from blackhole.model.positions import load_position
from blackhole.model.rules import initial_state, legal_moves, replay
from blackhole.model.sources import load_deal
from blackhole.questions.advice import analyze, hints
from blackhole.questions.best import best_score
from blackhole.web.api import answer, check

from .helpers import cli, random_line

# ---------------------------------------------------------------- answers keep `after`


def test_a_saved_golf_answer_from_a_talon_turn_checks(tmp_path) -> None:
    """`solve --after 3S` (a talon turn, no card off a column) names its `after`, so
    `check` replays the file from the spec and wins, as the engine's own line does."""
    solved = cli("solve", "pysol:2:golf", "--after", "3S", "--json")
    data = json.loads(solved.output)
    assert solved.exit_code == 0 and data["after"] == [{"card": "3S", "fan": None}]
    assert data["moved"] == 0
    saved = tmp_path / "s.json"
    saved.write_text(solved.output)
    checked = cli("check", "pysol:2:golf", str(saved))
    assert checked.exit_code == 0 and "won: all 35 cards moved" in checked.output
    judged = replay(load_deal("pysol:2:golf"),
                    ["3S", *(move["card"] for move in data["moves"])])
    assert judged.won


def test_the_api_answer_from_a_talon_turn_names_its_after() -> None:
    found = answer(check("solve", {"deal": "pysol:2:golf", "after": "3S"}, None))
    assert found.exit_code == 0 and found.data["after"] == [{"card": "3S", "fan": None}]
    best = answer(check("best", {"deal": "pysol:2:golf", "after": "3S"}, None))
    assert best.data["after"] == [{"card": "3S", "fan": None}]
    shown = answer(check("position", {"deal": "pysol:2:golf", "after": "3S"}, None))
    assert (shown.data["moved"], shown.data["made"]) == (0, 1)  # the page's line: move 2 on


# ---------------------------------------------------------------- move numbers


def test_made_counts_talon_turns_as_moves() -> None:
    position = load_position("pysol:1:golf", "8H 7S 2C")
    assert (position.moved, position.deal.turned, position.made) == (1, 2, 3)
    assert position.history_known and len(position.history) == position.made


def test_analyze_numbers_a_golf_line_from_the_start() -> None:
    """The first losing move of a line walked from a position is the move of the same
    card when the whole line is walked from the deal's start."""
    later = analyze(load_position("pysol:1:golf", "8H"), "7S 2C JH")
    whole = analyze("pysol:1:golf", "8H 7S 2C JH")
    assert [step.number for step in later.steps] == [2, 3, 4]
    assert later.first_loss.number == whole.first_loss.number == 4
    assert later.first_loss.card == whole.first_loss.card
    shown = cli("analyze", "pysol:1:golf", "--after", "8H", "--line", "7S 2C JH")
    assert "first move that loses: move 4 (JH)" in shown.output


@pytest.mark.parametrize("command", ["solve", "best"])
def test_a_line_from_a_golf_position_is_numbered_as_from_the_start(command) -> None:
    """The moves printed from `--after "AC 3S 4H"` (a talon turn among them) carry the
    numbers the same cards carry in the whole line from the deal's start."""
    after = ["AC", "3S", "4H"]
    shown = cli(command, "pysol:2:golf", "--after", " ".join(after), "--ascii")
    assert shown.exit_code == 0
    numbered = re.findall(r"^ *(\d+)\. (\S+) from", shown.output, re.MULTILINE)
    cards = after + [card for _, card in numbered]
    assert len(numbered) > 20
    assert [int(number) for number, _ in numbered] == list(range(4, len(cards) + 1))
    assert replay(load_deal("pysol:2:golf"), cards).won


def test_check_names_an_illegal_move_by_its_number_from_the_start(tmp_path) -> None:
    """After the talon turn 3S, the next move is move 2 of the deal."""
    line = tmp_path / "line.txt"
    line.write_text("KD")  # under other cards
    checked = cli("check", "pysol:2:golf", str(line), "--after", "3S", "--json")
    assert checked.exit_code == 1 and json.loads(checked.output)["illegal_move"] == 2


# ---------------------------------------------------------------- reachable files


def _off_column(spec: str, card: str) -> str:
    """`spec`'s board with `card` (a top card) moved onto the foundation, the talon
    untouched."""
    lines = cli("deal", spec).output.splitlines()
    out = []
    for line in lines:
        if line.startswith("Foundations:"):
            line = f"Foundations: {card}"
        elif line.split()[-1:] == [card]:
            line = " ".join(line.split()[:-1])
        out.append(line)
    return "\n".join(out) + "\n"


def test_a_golf_file_play_cannot_reach_is_refused(tmp_path) -> None:
    """pysol:1:golf with 4H off a column onto TH, the talon untouched: no line leaves 4H
    there (4H goes on no card that could lie under it), so every command refuses it, where
    it claimed a best of 33 against the deal's proven 29."""
    assert lookup("pysol:1:golf").best == 29 == best_score("pysol:1:golf").best
    board = tmp_path / "u.board"
    board.write_text(_off_column("pysol:1:golf", "4H"))
    for command in (["show"], ["hint"], ["certify", "--out", str(tmp_path / "c")]):
        refused = cli(*command, str(board))
        assert refused.exit_code == 2, (command, refused.output)
        assert refused.output.strip().splitlines() == [
            f"error: {board}:3: 1 card(s) are off the fans and 0 talon card(s) turned, "
            "yet the cards on the foundation play in no order that ends with 4H by Golf's "
            "rules, so no line leaves it on top: '4H'"]
    assert not (tmp_path / "c").exists()
    data = json.loads(cli("deal", "pysol:1:golf", "--format", "json").output)
    data["foundation"], data["fans"][0] = "4H", data["fans"][0][:-1]
    with pytest.raises(InputError) as raised:
        parse_position_text(json.dumps(data, indent=1), "u.json")
    assert (raised.value.token, raised.value.line) == ("4H", 2)


def test_a_card_off_a_column_that_fits_is_read_and_scored_as_play_does() -> None:
    """7S after the talon's 8H is reachable: the board of that position reads back, and
    its best equals the best from the position played there."""
    played = load_position("pysol:1:golf", "8H 7S")
    read = parse_board(cli("deal", "pysol:1:golf", "--after", "8H 7S").output, "p.board")
    assert read == played.deal
    assert best_score(parse_position_text(board_text(read), "p", read.game)).best == \
        best_score(played).best <= 29


def _some_order_plays(pile: list[Card], top: Card, turns: int, game, ranks: int) -> bool:
    """The referee, by brute force: some order of `pile` ending with `top`, each card on
    the one before as `rank_fits` says but for at most `turns` (talon cards turned)."""
    rest = [card for card in pile if card != top]
    for order in itertools.permutations(rest):
        line = [*order, top]
        misfits = sum(not rank_fits(game, card.rank, below.rank, ranks)
                      for below, card in itertools.pairwise(line))
        if misfits <= turns:
            return True
    return False


@settings(max_examples=150)
@given(st.sampled_from(GAME_NAMES), st.integers(1, 32000), st.integers(0, 10**6))
def test_the_reach_check_agrees_with_trying_every_order(name, number, seed) -> None:
    """Free cards taken off the tableau at random (legal or not: a fan's top card, or a
    card with none on it), talon cards turned and any card of them left on the
    foundation: the file is read exactly when some order of the foundation's cards
    plays, as trying every order says."""
    deal = load_deal(f"pysol:{number}:{name}")
    rng = random.Random(seed)
    tableau, gone = deal.tableau, 0
    pile = [] if deal.foundation is None else [deal.foundation]
    for _ in range(rng.randint(0, 6 if deal.game.rules.talon else 7)):
        slot = rng.choice(tableau.free(gone))
        gone |= 1 << slot
        pile.append(tableau.cards[slot])
    turned = rng.randint(0, min(2, len(deal.talon)))
    pile += deal.talon[:turned]
    if not pile:
        return
    top = rng.choice(pile)
    made = Deal(tableau.without(gone), top, deal.ranks, talon=deal.talon[turned:],
                game=deal.game)
    assert (not unreachable_top(made)) == _some_order_plays(
        pile, top, turned, deal.game, deal.ranks), (pile, top, turned)


@pytest.mark.parametrize("game", ["black-hole", "golf", "dead-king-golf", "relaxed-golf"])
def test_the_one_check_refuses_a_top_card_on_nothing_it_fits_in_every_game(game) -> None:
    """The same question of every game, read from its rules: a card off a column with no
    talon card turned must fit on a card that could lie under it."""
    spec = f"pysol:1:{game}" if game != "black-hole" else "pysol:1"
    deal = load_deal(spec)
    state = initial_state(deal)
    tops = [deal.fans[fan][-1] for fan in range(len(deal.fans))]
    fits = {move.card for move in legal_moves(deal, state) if move.kind is Kind.PLAY}
    unfit = next(card for card in tops if card not in fits)
    with pytest.raises(InputError, match="no line leaves it on top"):
        parse_board(_off_column(spec, str(unfit)), "u.board")
    if fits:
        card = sorted(fits)[0]
        assert parse_board(_off_column(spec, str(card)), "f.board").foundation == card


def test_hints_from_a_saved_golf_position_agree_with_the_start() -> None:
    """A position saved after a talon turn and read back keeps the deal's count: its
    best hint is the start's hint for that turn."""
    start = {(hint.card, hint.fan): hint.found for hint in hints("pysol:1:golf")}
    saved = parse_position_text(cli("deal", "pysol:1:golf", "--after", "8H").output, "t")
    assert saved.made == 1 and saved.moved == 0
    assert max(hint.found for hint in hints(saved)) == start[saved.deal.foundation, None]


# ---------------------------------------------------------------- bad boards name their line


def _golf_board() -> list[str]:
    return cli("deal", "pysol:1:golf").output.splitlines()  # Game, Talon, Foundations, fans


@pytest.mark.parametrize(("change", "line", "token", "words"), [
    (lambda b: [b[0], b[1] + " " + b[-1].split()[-1], *b[2:-1],
                " ".join(b[-1].split()[:-1])], 2, "Talon:", "talon holds at most 16"),
    (lambda b: [b[0], b[1], "Foundations: -", *b[3:]], 3, "Foundations: -",
     "Golf's foundation always holds a card"),
    (lambda b: ["Ranks: 14", *b], 1, "Ranks: 14", "Golf is dealt with 13 ranks only, not 14"),
    (lambda b: b[1:], 1, "Talon:", "must name its game (a line 'Game: NAME'"),
])
def test_a_bad_golf_board_names_its_file_line_and_token(change, line, token, words,
                                                        tmp_path) -> None:
    board = tmp_path / "bad.board"
    board.write_text("\n".join(change(_golf_board())) + "\n")
    shown = cli("show", str(board))
    assert shown.exit_code == 2 and len(shown.output.strip().splitlines()) == 1
    assert shown.output.startswith(f"error: {board}:{line}: ") and words in shown.output
    with pytest.raises(InputError) as raised:
        parse_board(board.read_text(), "bad.board")
    assert (raised.value.line, raised.value.token) == (line, token)
    assert words in raised.value.detail and "--game" not in raised.value.detail


@pytest.mark.parametrize(("key", "value", "words"), [
    ("foundation", None, "Golf's foundation always holds a card"),
    ("ranks", 14, "Golf is dealt with 13 ranks only, not 14"),
    ("talon", "one more", "talon holds at most 16 cards, found 17"),
])
def test_a_bad_golf_json_names_the_line_of_its_key(key, value, words) -> None:
    data = json.loads(cli("deal", "pysol:1:golf", "--format", "json").output)
    if value == "one more":  # a column's top card put in the talon too
        data["talon"].append(data["fans"][0].pop())
    else:
        data[key] = value
    text = json.dumps(data, indent=1)
    with pytest.raises(InputError) as raised:
        parse_position_text(text, "bad.json")
    line = next(number for number, row in enumerate(text.splitlines(), start=1)
                if row.startswith(f' "{key}"'))
    assert (raised.value.line, raised.value.token) == (line, key)
    assert words in raised.value.detail


# ---------------------------------------------------------------- boards read back


def test_a_saved_golf_position_shows_and_plays_on(tmp_path) -> None:
    board = tmp_path / "pos.board"
    board.write_text(cli("deal", "pysol:1:golf", "--after", "8H 7S").output)
    shown = cli("show", str(board), "--ascii")
    assert shown.exit_code == 0
    assert "hole: 7S   (1 of 35 moved, 1 talon card turned)" in shown.output
    turned = cli("show", "pysol:1:golf", "--after", "8H", "--ascii")
    assert "hole: 8H   (0 of 35 moved, 1 talon card turned)" in turned.output
    later = load_position(str(board), "2C")
    assert later.deal == load_position("pysol:1:golf", "8H 7S 2C").deal


def test_the_page_names_no_option_for_a_board_without_its_game() -> None:
    body = board_text(load_position("pysol:1:golf", "8H 7S").deal)
    refused = answer(check("position", {}, body))
    assert refused.exit_code == 2 and "--game" not in refused.data["error"]
    assert "'Game: NAME'" in refused.data["error"]
    named = answer(check("position", {}, cli("deal", "pysol:1:golf", "--after",
                                             "8H 7S").output))
    assert named.exit_code == 0 and named.data["moved"] == 1


@settings(max_examples=40)
@given(st.sampled_from(GAME_NAMES), st.integers(1, 10**6), st.integers(0, 10**6))
def test_every_board_deal_writes_reads_back_as_the_same_position(name, number,
                                                                 line_seed) -> None:
    """A random legal line of any game, cut anywhere: `deal`'s board reads back, with no
    option, as the same game and layout, with the same cards moved and moves made."""
    spec = f"pysol:{number}:{name}"
    rng = random.Random(line_seed)
    line = [str(card) for card in random_line(load_deal(spec), rng, rng.randint(0, 60))]
    played = load_position(spec, line)
    written = cli("deal", spec, *(["--after", " ".join(line)] if line else []))
    assert written.exit_code == 0, written.output
    read = parse_position_text(written.output, "pos.board")
    assert read.deal == played.deal and read.deal.game == played.deal.game
    assert (read.moved, read.made, read.of) == (played.moved, played.made, played.of)
    assert read.made == len(line)
