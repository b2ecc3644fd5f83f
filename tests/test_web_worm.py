"""The page of `blackhole serve` plays Worm Hole's free cell (issue #51), in headless
chromium as tests/test_web_browser.py drives it: the cell drawn beside the hole, a fan's
top card clicked then the cell parks it (or Park / z, then the card or its fan's key), a
click on the cell's card plays it; each position the page reaches is the rules engine's,
and a solver's line and a lost deal's analysis name parks."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest

from blackhole.model.deal import Kind
from blackhole.model.positions import load_position
from blackhole.model.rules import replay

from .test_web import Server

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.webdriver.common.by import By  # noqa: E402

from .test_web_browser import _open, _score, _solve, _text, _until  # noqa: E402
from .test_web_browser import browser as browser  # noqa: E402,F401 (a fixture)
from .test_web_browser import downloads as downloads  # noqa: E402,F401 (a fixture)

LOST = "pysol:148:worm-hole"  # best 6 of 51; every first move is a park
KEYS = "123456789abcdefgijklmnopqrsvwxy"  # the page's fan keys (app.js)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server("--workers", "1")
    yield running
    running.stop()


def _cell(driver) -> str | None:
    """The cell's card (None: empty), read in one step."""
    return driver.execute_script(
        "const node = document.querySelector('#cell .card');"
        "return node ? (node.dataset.card || null) : undefined;")


def _top(driver, fan: int):
    return driver.find_elements(By.CSS_SELECTOR, f"#fans .fan[data-fan='{fan}'] .card")[-1]


def _after(driver) -> list[str]:
    """The moves the page's address names."""
    return parse_qs(urlparse(driver.current_url).query).get("after", [""])[0].split()


def _settled(driver, moves: int) -> None:
    _until(driver, lambda: len(_after(driver)) == moves,
           f"the page did not reach {moves} moves: {_text(driver, '#status')}")


def _agrees(driver, spec: str) -> None:
    """The page's cell, hole and score are the rules engine's after the moves it names."""
    played = replay(load_position(spec).deal, " ".join(_after(driver)))
    assert played.outcome.value != "illegal"
    state = played.state
    _until(driver, lambda: _cell(driver) == (str(state.cell) if state.cell else None),
           f"the cell shows {_cell(driver)}, the rules {state.cell}")
    assert browser_hole(driver) == str(state.foundation)
    assert _score(driver) == f"{played.played} of 51"


def browser_hole(driver) -> str:
    return driver.execute_script("return document.querySelector('#hole .card').dataset.card;")


def test_a_card_clicked_then_the_cell_parks_and_the_cells_card_plays(browser, server) -> None:
    _open(browser, server, LOST)
    assert browser.find_element(By.ID, "cell").is_displayed()
    assert browser.find_element(By.ID, "park").is_displayed()
    assert _cell(browser) is None and "cell (0 parked)" in _text(browser, "#cell")
    # nothing fits the A♠: every top card may only park
    assert not browser.find_elements(By.CSS_SELECTOR, "#fans .card.playable")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#fans .card.parkable")) == 17
    _top(browser, 9).click()  # A♥ (fan 10): selected, not moved
    assert "selected: click the cell" in _text(browser, "#status") and _after(browser) == []
    browser.find_element(By.ID, "cell").click()
    _settled(browser, 1)
    assert _after(browser) == ["park:AH"] and "parked A♥ into the cell" in _text(browser, "#status")
    _agrees(browser, LOST)
    _top(browser, 9).click()  # K♣ fits the A♠ now: a click plays it
    _settled(browser, 2)
    for count in (3, 4):  # A♣ and 2♠ by fan 4's key
        browser.find_element(By.TAG_NAME, "body").send_keys(KEYS[3])
        _settled(browser, count)
    _agrees(browser, LOST)
    assert "playable" in browser.find_element(By.CSS_SELECTOR, "#cell .card").get_attribute("class")
    browser.find_element(By.CSS_SELECTOR, "#cell .card").click()
    _settled(browser, 5)
    assert "A♥ from the cell" in _text(browser, "#status")
    _agrees(browser, LOST)
    assert _score(browser) == "4 of 51"
    browser.find_element(By.ID, "undo").click()
    _settled(browser, 4)
    _agrees(browser, LOST)


def test_park_or_z_then_a_fits_card_or_a_fan_key_parks_it(browser, server) -> None:
    """After Park a click on a card that fits parks it rather than playing it; z then a
    fan's key parks that fan's top card; the unstable cell refuses a second park."""
    spec = "pysol:148:unstable-worm-hole"
    browser.get(f"{server.url}/?deal={spec}&after=park:AH")
    _until(browser, lambda: _cell(browser) == "AH", "the link's park is not drawn")
    _agrees(browser, spec)
    browser.find_element(By.ID, "undo").click()
    _settled(browser, 0)
    browser.find_element(By.ID, "park").click()
    assert browser.find_element(By.ID, "park").get_attribute("aria-pressed") == "true"
    browser.find_element(By.TAG_NAME, "body").send_keys(KEYS[9])  # fan 10's A♥
    _settled(browser, 1)
    assert _after(browser) == ["park:AH"]
    _top(browser, 9).click()  # K♣ plays
    _settled(browser, 2)
    browser.find_element(By.TAG_NAME, "body").send_keys("z")
    assert "holds A♥" in _text(browser, "#status")  # the cell is taken
    for count, key in ((3, KEYS[3]), (4, KEYS[3]), (5, "0")):  # A♣, 2♠, the cell's A♥
        browser.find_element(By.TAG_NAME, "body").send_keys(key)
        _settled(browser, count)
    _agrees(browser, spec)
    browser.find_element(By.ID, "cell").click()
    assert "takes no more cards" in _text(browser, "#status")  # its one use is spent
    assert not browser.find_elements(By.CSS_SELECTOR, "#fans .card.parkable")


def test_a_won_line_that_parks_is_stepped_to_the_end(browser, server) -> None:
    spec = "pysol:4:worm-hole"  # the look's win parks twice
    _open(browser, server, spec)
    _solve(browser, "look")
    assert _text(browser, "#verdict") == "solved"
    items = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#line li")]
    assert sum("into the cell, from fan" in item for item in items) >= 1
    assert sum(item.endswith("from the cell") for item in items) >= 1
    for step in range(len(items)):
        browser.find_element(By.ID, "next").click()
        _settled(browser, step + 1)
    _agrees(browser, spec)
    _until(browser, lambda: _text(browser, "#outcome") == "won", "not won at the line's end")
    assert any(token.startswith("park:") for token in _after(browser))


def test_a_lost_deal_shows_its_best_line_its_analysis_and_a_park_hint(browser,
                                                                     server) -> None:
    from blackhole.questions.best import best_score

    _open(browser, server, LOST)
    browser.find_element(By.ID, "hint").click()
    _until(browser, lambda: _text(browser, "#status").startswith("hint:"), "no hint")
    assert "park " in _text(browser, "#status") and "best 6 of 51" in _text(browser, "#status")
    assert browser.find_elements(By.CSS_SELECTOR, "#fans .card.hinted")
    _solve(browser, "look")
    _until(browser, lambda: _text(browser, "#analysis-summary"), "no analysis")
    assert _text(browser, "#verdict") == "unsolvable: best 6 of 51"
    assert best_score(LOST, "search").best == 6
    steps = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#steps li")]
    assert any("into the cell, from fan" in step for step in steps)
    assert any("from the cell" in step for step in steps)
    assert "the line ends at 6 of 51" in _text(browser, "#analysis-summary")
    line = browser.find_elements(By.CSS_SELECTOR, "#line li")
    line[-1].click()
    _settled(browser, len(line))
    _agrees(browser, LOST)
    moves = replay(load_position(LOST).deal, " ".join(_after(browser))).moves
    assert any(move.kind is Kind.PARK for move in moves) and _score(browser) == "6 of 51"
