"""The page of `blackhole serve` on layouts not made of fans (TriPeaks' peaks,
Escalator's pyramid), in headless chromium as tests/test_web_browser.py drives it: every
card drawn at its slot's place, covered cards dimmed and refused, a deal played by
clicks and the talon, and the SAT solver's winning line stepped to the end; the
position document (`/api/position`) held to the rules engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from blackhole.model.deal import Kind
from blackhole.model.positions import load_position
from blackhole.model.rules import initial_state, legal_moves, play, replay

from .test_web import Server

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from .test_web_browser import _open, _score, _solve, _text, _until  # noqa: E402
from .test_web_browser import browser as browser  # noqa: E402,F401 (a fixture)
from .test_web_browser import downloads as downloads  # noqa: E402,F401 (a fixture)

SPEC = "pysol:5:tri-peaks"  # won: the SAT solver's line clears the peaks


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server("--workers", "1")
    yield running
    running.stop()


def _cards(driver) -> dict[str, object]:
    return {node.get_attribute("data-card"): node
            for node in driver.find_elements(By.CSS_SELECTOR, "#fans .card[data-card]")}


def _hole(driver) -> str:
    """The foundation's card, read in one step (the page may redraw between two)."""
    return driver.execute_script(
        "const node = document.querySelector('#hole .card');"
        "return node ? node.dataset.card : null;")


def test_the_position_document_places_every_card_as_the_tableau_does(server) -> None:
    deal = load_position(SPEC).deal
    status, _, found = server.ask("/api/position", {"deal": SPEC})
    assert status == 200 and found["columns"] == deal.tableau.columns == 19
    assert [(slot["card"], slot["column"], slot["row"], slot["free"])
            for slot in found["slots"]] == \
        [(str(card), column, row, deal.tableau.is_free(slot))
         for slot, (card, (column, row)) in enumerate(zip(deal.tableau.cards,
                                                         deal.tableau.places, strict=True))]
    # after a move, the card played has gone and the cards it covered alone are free
    first = next(move for move in legal_moves(deal, initial_state(deal))
                 if move.kind is Kind.PLAY)
    _, _, after = server.ask("/api/position", {"deal": SPEC, "after": str(first.card)})
    state = play(deal, initial_state(deal), first)
    assert {slot["card"] for slot in after["slots"]} == \
        {str(card) for card in deal.tableau.cards} - {str(first.card)}
    assert {slot["card"] for slot in after["slots"] if slot["free"]} == \
        {str(deal.tableau.cards[slot]) for slot in deal.tableau.free(state.gone)}
    # a fans game keeps its fans, and gains its slots
    _, _, fans = server.ask("/api/position", {"deal": "pysol:2:golf"})
    assert len(fans["layout"]["fans"]) == 7 and len(fans["slots"]) == 35


@pytest.mark.slow
@pytest.mark.parametrize("spec", [SPEC, "pysol:5:escalator"])
def test_the_cards_lie_at_their_places_and_covered_ones_are_dimmed(browser, server,
                                                                   spec) -> None:
    deal = load_position(spec).deal
    _open(browser, server, spec)
    cards = _cards(browser)
    assert set(cards) == {str(card) for card in deal.tableau.cards}
    assert not browser.find_elements(By.CSS_SELECTOR, "#fans .fan")
    assert _score(browser) == "0 of 28" and _hole(browser) == str(deal.foundation)
    boxes = {name: node.rect for name, node in cards.items()}
    where = deal.where()
    width = boxes[str(deal.tableau.cards[0])]["width"]
    for card, (column, row) in where.items():
        box = boxes[str(card)]
        for other, (other_column, other_row) in where.items():
            if other_row == row and other_column == column + 2:  # its neighbour: a card on
                assert abs(boxes[str(other)]["x"] - box["x"] - width) < width * 0.2
            if other_row == row + 1 and other_column == column + 1:  # half a card across,
                lower = boxes[str(other)]  # and lying lower, over it
                assert abs(lower["x"] - box["x"] - width / 2) < width * 0.2
                assert 0 < lower["y"] - box["y"] < box["height"]
    free = {str(deal.tableau.cards[slot]) for slot in deal.tableau.free()}
    covered = {name for name, node in cards.items()
               if "covered" in node.get_attribute("class").split()}
    assert covered == set(cards) - free
    fits = {str(move.card) for move in legal_moves(deal, initial_state(deal))
            if move.kind is Kind.PLAY}
    assert {name for name, node in cards.items()
            if "playable" in node.get_attribute("class").split()} == fits
    # a covered card does not play: it says so, and nothing moves
    apex = str(deal.tableau.cards[0])
    browser.execute_script("arguments[0].click()", cards[apex])
    _until(browser, lambda: "is covered" in _text(browser, "#status"), "no refusal said")
    assert _score(browser) == "0 of 28" and _hole(browser) == str(deal.foundation)


@pytest.mark.slow
def test_a_tri_peaks_deal_played_by_clicks_then_its_winning_line_stepped(browser,
                                                                        server) -> None:
    deal = load_position(SPEC).deal
    _open(browser, server, SPEC)
    state, played = initial_state(deal), []
    for _ in range(3):  # a card that fits, by a click; else the talon
        move = next((move for move in legal_moves(deal, state) if move.kind is Kind.PLAY),
                    None)
        if move is None:
            browser.find_element(By.CSS_SELECTOR, "#talon .card.playable").click()
            move = next(move for move in legal_moves(deal, state)
                        if move.kind is Kind.TURN)
        else:
            _cards(browser)[str(move.card)].click()
        state = play(deal, state, move)
        played.append(move)
        _until(browser, lambda move=move: _hole(browser) == str(move.card),
               f"{move.card} was not played")
        assert str(move.card) not in _cards(browser)
    assert _score(browser) == f"{sum(m.kind is Kind.PLAY for m in played)} of 28"
    browser.find_element(By.TAG_NAME, "body").send_keys("t")  # the talon's key
    state = play(deal, state, legal_moves(deal, state)[-1])
    _until(browser, lambda: _hole(browser) == str(state.foundation), "t did not turn")
    browser.find_element(By.ID, "restart").click()
    _until(browser, lambda: _hole(browser) == str(deal.foundation), "no restart")
    _solve(browser, "sat")
    assert _text(browser, "#verdict") == "solved"
    steps = browser.find_elements(By.CSS_SELECTOR, "#line li")
    assert steps and all("fan" not in step.text for step in steps)
    browser.find_element(By.CSS_SELECTOR, "#speed option[value='150']").click()
    browser.find_element(By.ID, "play").click()
    _until(browser, lambda: _text(browser, "#outcome") == "won", "the line did not win")
    assert _score(browser) == "28 of 28" and not _cards(browser)
    line = [item.get_attribute("data-card") for item in steps]
    assert replay(deal, line).won
