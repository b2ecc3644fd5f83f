"""Entering a deal card by card: the slots of every game in the order they are filled
(`answers.entry_slots`), the deal the cards picked for them compose
(`answers.compose_deal`, every refusal one line naming its slot), the API serving both
(/api/entry, /api/compose), and the page's "Enter a deal" panel in headless chromium
(tests/test_web_browser.py drives it)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from blackhole import answers
from blackhole.base.errors import InputError
from blackhole.model.deal import Deal
from blackhole.model.formats import deal_json, parse_position_text, saved_board
from blackhole.model.games import VARIANTS, Start, game_named
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal

from .test_web import Server

try:  # the page's test needs chromium; the others run without it
    from .test_web_browser import browser as browser  # noqa: F401 (a fixture)
    from .test_web_browser import downloads as downloads  # noqa: F401 (a fixture)
    NO_BROWSER = ""
except pytest.skip.Exception as why:
    NO_BROWSER = str(why) or "no browser"

TRI_PEAKS = "pysol:5:tri-peaks"  # won: the solvers' line clears the peaks


def picks(deal: Deal) -> list[str]:
    """The cards of a fresh deal in the order its slots are filled."""
    first = [] if deal.foundation is None else [str(deal.foundation)]
    return first + [str(card) for card in (*deal.tableau.cards, *deal.talon)]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_games_deal_picked_in_slot_order_is_that_deal(name) -> None:
    game = VARIANTS[name]
    for number in (5, 77):
        deal = load_deal(f"pysol:{number}:{name}")
        found = answers.compose_deal(game, picks(deal))
        assert found.exit_code == 0 and found.found == deal
        document = found.document
        assert document["complete"] is True and document["next"] is None
        assert document["picked"] == document["of"] == 52
        assert document["cards"] == picks(deal)
        assert document["board"] == saved_board(deal)
        assert document["deal"] == deal_json(deal)
        for text in (document["board"], json.dumps(document["deal"])):
            assert parse_position_text(text, "entered").deal == deal


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_slots_are_the_foundation_the_tableau_by_place_then_the_talon(name) -> None:
    game = VARIANTS[name]
    deal = load_deal(f"pysol:5:{name}")
    document = answers.entry_slots(game).document
    slots = document["slots"]
    assert [slot["slot"] for slot in slots] == list(range(1, 53))
    assert document["game"] == name and document["shape"] == game.shape.value
    assert document["columns"] == deal.tableau.columns and len(set(document["deck"])) == 52
    first = int(game.start is not Start.EMPTY)
    assert [slot["pile"] for slot in slots] == \
        ["foundation"] * first + ["tableau"] * len(deal.tableau) + ["talon"] * len(deal.talon)
    assert [(slot["column"], slot["row"]) for slot in slots if slot["pile"] == "tableau"] \
        == list(deal.tableau.places)
    talon = [slot["label"] for slot in slots if slot["pile"] == "talon"]
    word = "talon" if game.chains else "stock"
    assert talon == [f"{word} card {n}" for n in range(1, len(deal.talon) + 1)]
    if first:
        assert slots[0]["label"] == ("foundation" if game.chains else "waste")


def test_labels_name_a_fans_card_from_the_bottom_and_a_rows_from_the_left() -> None:
    golf = answers.entry_slots(VARIANTS["golf"]).document["slots"]
    assert [slot["label"] for slot in golf[1:7]] == \
        [f"fan 1, card {n}" for n in range(1, 6)] + ["fan 2, card 1"]
    peaks = answers.entry_slots(VARIANTS["tri-peaks"]).document["slots"]
    assert [slot["label"] for slot in peaks[1:5]] == \
        ["row 1, card 1", "row 1, card 2", "row 1, card 3", "row 2, card 1"]
    assert peaks[28]["label"] == "row 4, card 10" and peaks[28]["row"] == 3


def refusal(game: str, cards: list[str], partial: bool = False) -> str:
    with pytest.raises(InputError) as refused:
        answers.compose_deal(game_named(game), cards, partial)
    message = str(refused.value)
    assert "\n" not in message
    return message


def test_a_bad_pick_is_one_line_naming_its_slot() -> None:
    cards = picks(load_deal(TRI_PEAKS))
    duplicate = cards[:11] + [cards[4]]
    for partial in (True, False):
        assert refusal("tri-peaks", duplicate, partial) == \
            f"slot 12 (row 3, card 2): duplicate card (already in slot 5): '{cards[4]}'"
    assert refusal("tri-peaks", cards[:3] + ["XZ"], True) == \
        "slot 4 (row 1, card 3): unknown suit in card: 'XZ'"
    assert refusal("golf", ["KS", "14H"], True) == \
        "slot 2 (fan 1, card 1): card not in a 13-rank deck: '14H'"
    assert refusal("black-hole", ["AS", "AS"], True) == \
        "slot 2 (fan 1, card 1): duplicate card (already in slot 1): 'AS'"
    assert refusal("all-in-a-row", ["1H"], True) == \
        "slot 1 (fan 1, card 1): unknown rank in card (write the ace as A): '1H'"
    assert refusal("tri-peaks", cards[:40]) == \
        "slot 41 (stock card 12): no card yet (12 of 52 slots left to fill)"
    assert refusal("escalator", cards + ["AS"]) == "slot 53: Escalator has 52 slots: 'AS'"


def test_a_partial_pick_says_how_far_it_has_come() -> None:
    cards = picks(load_deal(TRI_PEAKS))
    found = answers.compose_deal(game_named("tri-peaks"), [c.lower() for c in cards[:7]],
                                 partial=True)
    assert found.document == {"game": "tri-peaks", "cards": cards[:7], "picked": 7,
                              "of": 52, "complete": False, "next": 8, "board": None,
                              "deal": None}
    empty = answers.compose_deal(game_named("black-hole"), [], partial=True).document
    assert empty["picked"] == 0 and empty["next"] == 1 and empty["cards"] == []
    # a complete pick checked as partial is the deal
    assert answers.compose_deal(game_named("tri-peaks"), cards, True).document["complete"]


# ---------------------------------------------------------------- the API


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server("--workers", "1")
    yield running
    running.stop()


def test_the_api_serves_the_slots_and_composes_the_deal(server) -> None:
    for name in ("tri-peaks", "black-hole"):
        status, headers, found = server.ask("/api/entry", {"game": name})
        assert status == 200 and headers["x-blackhole-exit"] == "0"
        assert found == answers.entry_slots(VARIANTS[name]).document
    cards = picks(load_deal(TRI_PEAKS))
    status, headers, found = server.ask("/api/compose", {"game": "tri-peaks",
                                                         "cards": " ".join(cards)})
    assert status == 200 and headers["x-blackhole-exit"] == "0"
    assert found == answers.compose_deal(VARIANTS["tri-peaks"], cards).document
    # the board composed opens as a pasted deal does: the same layout as the spec's
    _, _, pasted = server.ask("/api/position", body=found["board"].encode())
    _, _, dealt = server.ask("/api/position", {"deal": TRI_PEAKS})
    assert pasted["layout"] == dealt["layout"] and pasted["slots"] == dealt["slots"]
    status, _, partly = server.ask("/api/compose", {"game": "tri-peaks", "partial": "true",
                                                    "cards": ",".join(cards[:3])})
    assert status == 200 and partly["next"] == 4 and partly["board"] is None


def test_the_api_refuses_a_bad_pick_in_one_line(server) -> None:
    cards = picks(load_deal(TRI_PEAKS))
    for query, error in (
            ({"game": "tri-peaks", "partial": "true", "cards": " ".join(cards[:4] + cards[1:2])},
             f"slot 5 (row 2, card 1): duplicate card (already in slot 2): '{cards[1]}'"),
            ({"game": "tri-peaks", "cards": " ".join(cards[:4])},
             "slot 5 (row 2, card 1): no card yet (48 of 52 slots left to fill)"),
            ({"game": "golf", "partial": "maybe"}, "partial: expected true or false: 'maybe'"),
            ({"cards": "AS"}, "game: no game: give game=NAME (one of /api/games)"),
            ({"game": "pyramid"}, "game: unknown game (one of "
                                  f"{', '.join(VARIANTS)}): 'pyramid'"),
            ({"game": "golf", "deal": "pysol:1"},
             "deal: compose takes no such parameter (it takes cards, game, partial)")):
        status, headers, found = server.ask("/api/compose", query)
        assert status == 400 and headers["x-blackhole-exit"] == "2", query
        assert found == {"error": error, "exit": 2}
    status, _, found = server.ask("/api/entry", [("game", "golf"), ("game", "golf")])
    assert status == 400 and found["error"].startswith("game: given more than once")


def test_another_sites_page_may_not_ask(server) -> None:
    for path, query in (("/api/entry", {"game": "golf"}),
                        ("/api/compose", {"game": "golf", "partial": "true"})):
        status, _, found = server.ask(path, query,
                                      headers={"Origin": "https://evil.example"})
        assert status == 403 and found["error"].startswith("Origin:")
        status, _, found = server.ask(path, query, headers={"Sec-Fetch-Site": "cross-site"})
        assert status == 403 and found["error"].startswith("Sec-Fetch-Site:")
        status, _, _ = server.ask(path, query, headers={"Origin": server.url,
                                                        "Sec-Fetch-Site": "same-origin"})
        assert status == 200


# ---------------------------------------------------------------- the page


@pytest.mark.slow
@pytest.mark.skipif(bool(NO_BROWSER), reason=NO_BROWSER)
def test_a_tri_peaks_deal_entered_card_by_card_is_solved_to_a_win(server,
                                                                  request) -> None:
    from selenium.webdriver.common.by import By

    from .test_web_browser import _score, _text, _until

    browser = request.getfixturevalue("browser")
    deal = load_deal(TRI_PEAKS)
    cards = picks(deal)
    browser.get(f"{server.url}/?deal=pysol:1")
    _until(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#entry[data-ready]"),
           f"no entry panel: {_text(browser, '#entry-says')}")
    browser.find_element(By.CSS_SELECTOR, "#entry summary").click()
    browser.find_element(By.CSS_SELECTOR, "#entry-game option[value='tri-peaks']").click()

    def count() -> str:
        return _text(browser, "#entry-count")

    def filling() -> str:
        node = browser.find_elements(By.CSS_SELECTOR, "#entry-board .card.filling")
        return node[0].get_attribute("title") if node else ""

    _until(browser, lambda: count() == "0 of 52", "the game's slots were not drawn")
    assert filling() == "slot 1 (waste)"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#entry-board .entry-slots .card")) \
        == 28
    for number, card in enumerate(cards[:6], start=1):  # the deck's cards, clicked
        browser.find_element(By.CSS_SELECTOR, f"#entry-grid .pick[data-card='{card}']").click()
        _until(browser, lambda number=number: count() == f"{number} of 52",
               f"{card} was not placed: {_text(browser, '#entry-says')}")
    assert filling() == "slot 7 (row 2, card 3)"
    used = browser.find_element(By.CSS_SELECTOR, f"#entry-grid .pick[data-card='{cards[2]}']")
    assert "used" in used.get_attribute("class").split()
    used.click()  # a card already placed is refused, as the library words it
    _until(browser, lambda: "duplicate" in _text(browser, "#entry-says"), "no refusal")
    assert _text(browser, "#entry-says") == \
        f"slot 7 (row 2, card 3): duplicate card (already in slot 3): '{cards[2]}'"
    assert count() == "6 of 52"
    box = browser.find_element(By.ID, "entry-card")
    box.send_keys(cards[40] + "\n")  # a wrong card typed, then taken back
    _until(browser, lambda: count() == "7 of 52", "the typed card was not placed")
    browser.find_element(By.ID, "entry-undo").click()
    _until(browser, lambda: count() == "6 of 52", "the card was not taken back")
    for row in range(6, 52, 8):  # the rest typed, several cards at once
        box.send_keys(" ".join(card.lower() for card in cards[row:row + 8]) + "\n")
        done = min(row + 8, 52)
        _until(browser, lambda done=done: count() == f"{done} of 52",
               f"not placed: {_text(browser, '#entry-says')}")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#entry-grid .pick.used")) == 52
    assert not filling()
    browser.find_element(By.CSS_SELECTOR, "#engine option[value='sat']").click()
    browser.find_element(By.ID, "entry-solve").click()
    _until(browser, lambda: _text(browser, "#verdict"), f"no verdict: {_text(browser, '#status')}")
    assert _text(browser, "#verdict") == "solved"
    shown = {node.get_attribute("data-card")
             for node in browser.find_elements(By.CSS_SELECTOR, "#fans .card[data-card]")}
    assert shown == {str(card) for card in deal.tableau.cards}
    assert parse_position_text(browser.find_element(By.ID, "paste").get_attribute("value"),
                               "pasted").deal == deal
    line = [item.get_attribute("data-card")
            for item in browser.find_elements(By.CSS_SELECTOR, "#line li")]
    assert replay(deal, line).won
    browser.find_element(By.CSS_SELECTOR, "#speed option[value='150']").click()
    browser.find_element(By.ID, "play").click()
    _until(browser, lambda: _text(browser, "#outcome") == "won", "the line did not win")
    assert _score(browser) == "28 of 28"


def test_docs_json_md_names_every_field_of_both_documents() -> None:
    from .helpers import ROOT

    text = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    section = text.partition("## Entering a deal")[2]
    assert section, "docs/json.md documents entering a deal"
    slots = answers.entry_slots(VARIANTS["golf"]).document
    cards = picks(load_deal("pysol:3:golf"))
    composed = answers.compose_deal(VARIANTS["golf"], cards).document
    for key in (*slots, *slots["slots"][0], *composed):
        assert f'"{key}"' in section, key
