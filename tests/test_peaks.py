"""TriPeaks and Escalator: their deals, as PySolFC deals them, and their board and JSON
texts (rows top to bottom, `-` for a slot cleared), read back for deals and positions,
and the one-line errors of a deal typed in from another app."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.base.errors import InputError
from blackhole.model.cards import deck, parse_card
from blackhole.model.deal import Move
from blackhole.model.formats import (
    board_text,
    deal_json,
    parse_board,
    parse_position_text,
    position_json,
    saved_board,
)
from blackhole.model.games import ESCALATOR, TRI_PEAKS, VARIANTS
from blackhole.model.positions import load_position
from blackhole.model.rules import initial_state, legal_moves, replay
from blackhole.model.sources import expand_specs, load_deal

from .helpers import PEAK_GAMES, cli, random_line


def dealt_order(number: int) -> list:
    """The 52 cards of PySolFC's deal `number` in the order dealt, read off pysol_cards'
    own Golf deal of the number (the same shuffle): Golf deals its columns a row at a
    time (card s to column s mod 7), then its foundation's card, then its talon."""
    golf = load_deal(f"pysol:{number}:golf")
    return [golf.fans[s % 7][s // 7] for s in range(35)] + [golf.foundation, *golf.talon]


@pytest.mark.parametrize("name", PEAK_GAMES)
def test_pysol_deals_lay_out_the_shuffle_as_pysolfc_does(name: str) -> None:
    """Rows from the top, left to right (slot s gets card s dealt), then the waste's card,
    then the stock, next card first; the games of a shape share the deal."""
    numbers = (1, 2, 24, 31_999, 32_000, 32_001, 10**6, *random.Random(5).sample(range(10**6), 8))
    for number in numbers:
        dealt = dealt_order(number)
        deal = load_deal(f"pysol:{number}:{name}")
        assert list(deal.tableau.cards) == dealt[:28]
        assert deal.foundation == dealt[28] and list(deal.talon) == dealt[29:]
        assert deal.game is VARIANTS[name] and deal.name == f"pysol:{number}:{name}"
        assert len(deal.tableau.free()) == (10 if deal.game.shape == "peaks" else 7)


def test_random_deals_are_reproducible_and_ranges_name_the_game() -> None:
    one = load_deal("random:7:escalator")
    assert one == load_deal("random:7:escalator") and one.game is ESCALATOR
    assert sorted([*one.tableau.cards, one.foundation, *one.talon]) == sorted(deck())
    assert one != load_deal("random:8:escalator")
    assert expand_specs("pysol:3-4:tri-peaks") == ["pysol:3:tri-peaks", "pysol:4:tri-peaks"]
    with pytest.raises(InputError, match="standard deck"):
        load_deal("random:1:tri-peaks:ranks=9")


def test_the_board_draws_the_rows_and_reads_back() -> None:
    deal = load_deal("pysol:3:tri-peaks")
    text = saved_board(deal)
    lines = text.splitlines()
    assert lines[:2] == ["Game: tri-peaks", "Stock: " + " ".join(map(str, deal.talon))]
    assert lines[2] == f"Waste: {deal.foundation}"
    rows = [line.split() for line in lines[3:]]
    assert [len(row) for row in rows] == [3, 6, 9, 10]
    assert [card for row in rows for card in row] == [str(c) for c in deal.tableau.cards]
    assert lines[3].startswith(" " * 6) and lines[6].startswith(str(deal.tableau.cards[18]))
    assert parse_board(text, "b") == deal
    # a player's typing: no indentation, the talon's and foundation's own names
    typed = f"Game: tri-peaks\nTalon: {lines[1][7:]}\nFoundations: {deal.foundation}\n" \
        + "\n".join(" ".join(row) for row in rows)
    assert parse_board(typed, "b") == deal
    assert parse_board(board_text(deal), "b", TRI_PEAKS) == deal


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(PEAK_GAMES), st.integers(0, 10**6),
       st.integers(0, 51))
def test_positions_round_trip_through_board_and_json(number, name, seed, most) -> None:
    """A position a random legal line reaches reads back from its board (the same
    layout) and from its JSON (with its history, replayed)."""
    deal = load_deal(f"pysol:{number}:{name}")
    line = random_line(deal, random.Random(seed), most)
    position = load_position(f"pysol:{number}:{name}", ",".join(map(str, line)) or None)
    assert position.made == len(line)
    board = parse_position_text(saved_board(position.deal), "b")
    assert board.deal == position.deal and board.moved == position.moved
    again = parse_position_text(json.dumps(position_json(position)), "j")
    assert again == position and list(again.history) == line
    cleared = [row.count(None) for row in position_json(position)["rows"]]
    assert sum(cleared) == position.moved


def test_json_writes_rows_with_null_for_a_slot_cleared() -> None:
    position = load_position("pysol:2:escalator", None)
    first = legal_moves(position.deal, initial_state(position.deal))
    card = next(move.card for move in first if move.fan is not None)
    after = load_position("pysol:2:escalator", str(card))
    data = position_json(after)
    assert "fans" not in data and data["game"] == "escalator"
    assert data["rows"][-1].count(None) == 1 and data["history"] == [str(card)]
    assert deal_json(after.deal)["rows"] == data["rows"]


@pytest.mark.parametrize("change, words, line, token", [
    (lambda rows: rows[:-1], "laid out in 4 rows", 6, None),
    (lambda rows: [rows[0] + " -", *rows[1:]], "this row holds 3 cards", 4, None),
    (lambda rows: [rows[0].replace(rows[0].split()[0], "-"), *rows[1:]],
     "lies on a cleared slot", None, None),
    (lambda rows: [*rows[:3], rows[3].replace(rows[3].split()[1], rows[3].split()[0])],
     "duplicate card", 7, None),
    (lambda rows: [*rows[:3], rows[3].replace(rows[3].split()[1], "ZZ")], "unknown", 7, "ZZ"),
])
def test_a_typed_deal_gets_one_line_naming_its_line(change, words, line, token) -> None:
    deal = load_deal("pysol:11:tri-peaks")
    head, rows = board_text(deal).splitlines()[:2], board_text(deal).splitlines()[2:]
    text = "\n".join(["Game: tri-peaks", *head, *change(rows)]) + "\n"
    with pytest.raises(InputError, match=words) as raised:
        parse_board(text, "typed.board")
    error = raised.value
    assert "\n" not in str(error) and error.source == "typed.board"
    if line is not None:
        assert error.line == line
    if token is not None:
        assert error.token == token


def test_a_card_on_a_cleared_slot_is_named() -> None:
    """A row-3 slot cleared while both bottom cards on it remain: no line reaches that."""
    lines = saved_board(load_deal("pysol:11:tri-peaks")).splitlines()
    third = lines[5].split()
    lines[5] = " ".join(["-", *third[1:]])
    with pytest.raises(InputError, match="lies on a cleared slot") as raised:
        parse_board("\n".join(lines) + "\n", "p.board")
    assert raised.value.line == 7 and raised.value.token == lines[6].split()[0]


def test_a_fans_game_refuses_rows_and_a_peaks_game_refuses_fans() -> None:
    peaks = deal_json(load_deal("pysol:5:tri-peaks"))
    golf = deal_json(load_deal("pysol:5:golf"))
    peaks["fans"] = peaks.pop("rows")
    golf["rows"] = golf.pop("fans")
    with pytest.raises(InputError, match="TriPeaks is laid out in rows"):
        parse_position_text(json.dumps(peaks), "j")
    with pytest.raises(InputError, match="Golf is laid out in fans"):
        parse_position_text(json.dumps(golf), "j")


def test_the_rules_engine_names_the_cards_on_a_covered_one() -> None:
    deal = load_deal("pysol:5:tri-peaks")
    apex = deal.tableau.cards[0]
    judged = replay(deal, [Move(apex)])
    assert judged.outcome.value == "illegal" and f"{apex} is not free (" in judged.reason
    on_it = judged.reason.split("(")[1].removesuffix(" on it)").split()
    assert on_it == [str(deal.tableau.cards[3]), str(deal.tableau.cards[4])]


def test_the_cli_deals_shows_solves_and_checks_a_peaks_deal(tmp_path) -> None:
    board = tmp_path / "tp.board"
    dealt = cli("deal", "pysol:7:tri-peaks")
    assert dealt.exit_code == 0
    board.write_text(dealt.stdout)
    shown = cli("show", str(board), "--ascii")
    assert shown.exit_code == 0 and "[TS]" in shown.stdout and "rows run top to bottom" \
        in shown.stdout
    solved = cli("solve", str(board), "--backend", "sat", "--json")
    assert solved.exit_code == 0
    moves = json.loads(solved.stdout)["moves"]
    line = tmp_path / "line.json"
    line.write_text(solved.stdout)
    checked = cli("check", str(board), str(line))
    assert checked.exit_code == 0, checked.output
    text = cli("solve", "pysol:7:tri-peaks", "--backend", "sat")
    assert " from row 4" in text.stdout and " from the talon" in text.stdout
    judged = replay(load_deal("pysol:7:tri-peaks"), [Move(parse_card(m["card"]))
                                                     for m in moves])
    assert judged.outcome.value == "won"


