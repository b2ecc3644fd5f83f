"""The page of `blackhole serve` in a real headless browser: Debian's chromium driven by
Selenium through chromium-driver (no downloaded browser). The server runs as a real
process on a free port. Skipped, with the reason, where the browser or its driver is
not installed (`.ci/install` installs both).

A screenshot of a lost deal with its best line and analysis is kept: in the folder
BLACKHOLE_SCREENSHOTS names, else in the test's temporary folder."""

from __future__ import annotations

import csv
import functools
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .helpers import ROOT, blackhole, golf_reference, reference
from .test_web import HARD, Server, _alive, _family

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BROWSER = next(filter(None, (shutil.which(name) for name in ("chromium", "chromium-browser"))),
               None)
DRIVER = shutil.which("chromedriver")
if BROWSER is None or DRIVER is None:
    pytest.skip(f"no {'chromium' if BROWSER is None else 'chromedriver'} on PATH (Debian: "
                "apt-get install chromium chromium-driver)", allow_module_level=True)

WAIT_SECONDS = 20
BEST_CSV = ROOT / "tests" / "data" / "pysol-1-1000-best.csv"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server("--workers", "2")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def downloads(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads) -> Iterator[object]:
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads), "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console's lines
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1280,1000", "--lang=en"):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(options=options,
                                  service=webdriver.ChromeService(executable_path=DRIVER))
    except WebDriverException as error:
        pytest.skip(f"chromium does not start headless here: {error.msg}")
    driver.set_page_load_timeout(WAIT_SECONDS)
    yield driver
    driver.quit()


def _until(driver, condition, message: str):
    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.05).until(
        lambda _: condition(), message)


def _text(driver, selector: str) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0].text if found else ""


def _open(driver, server: Server, spec: str) -> None:
    driver.get(f"{server.url}/?deal={spec}")
    _until(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#board[data-ready]"),
           f"the page did not draw {spec}: {_text(driver, '#status')}")


def _score(driver) -> str:
    return _text(driver, "#score")


def _solve(driver, engine: str = "look") -> None:
    driver.find_element(By.CSS_SELECTOR, f"#engine option[value='{engine}']").click()
    driver.find_element(By.ID, "solve").click()
    _until(driver, lambda: _text(driver, "#verdict"),
           f"no verdict: {_text(driver, '#status')}")


def test_a_pysol_deal_is_drawn_as_17_fans_of_cards(browser, server) -> None:
    _open(browser, server, "pysol:1")
    fans = browser.find_elements(By.CSS_SELECTOR, "#fans .fan")
    assert len(fans) == 17
    cards = [card.get_attribute("data-card")
             for card in browser.find_elements(By.CSS_SELECTOR, "#fans .card[data-card]")]
    assert len(cards) == 51 and len(set(cards)) == 51
    assert browser.find_element(By.CSS_SELECTOR, "#hole .card").get_attribute(
        "data-card") == "AS"
    assert _score(browser) == "0 of 51"
    # the atlas answers for the number typed, at once, as the reference says
    _until(browser, lambda: "lost" in _text(browser, "#atlas"), "no atlas answer")
    assert _text(browser, "#atlas") == f"atlas: lost, best {_bests()[1]} of 51"
    box = browser.find_element(By.ID, "number")
    box.clear()
    box.send_keys("3")
    _until(browser, lambda: "won" in _text(browser, "#atlas"), "the atlas did not follow")
    assert reference()[3]["verdict"] == "solved"


def test_a_won_deal_is_solved_and_stepped_to_the_end(browser, server) -> None:
    _open(browser, server, "pysol:3")
    _solve(browser)
    assert _text(browser, "#verdict") == "solved"
    assert "look" in _text(browser, "#details")
    steps = browser.find_elements(By.CSS_SELECTOR, "#line li")
    assert len(steps) == 51
    first = steps[0].text.split()[0]
    browser.find_element(By.ID, "next").click()
    _until(browser, lambda: _score(browser) == "1 of 51", "next did not step")
    browser.find_element(By.ID, "next").click()
    _until(browser, lambda: _score(browser) == "2 of 51", "next did not step")
    browser.find_element(By.ID, "prev").click()
    _until(browser, lambda: _score(browser) == "1 of 51", "prev did not step back")
    assert browser.find_element(By.CSS_SELECTOR, "#hole .card").text == first
    # the move to come is marked, its card and its fan
    active = browser.find_elements(By.CSS_SELECTOR, "#fans .fan.active")
    assert len(active) == 1
    assert active[0].find_elements(By.CSS_SELECTOR, ".card.next")
    steps[49].click()  # jump to move 50, then play the rest at the fastest speed
    _until(browser, lambda: _score(browser) == "50 of 51", "no jump along the line")
    browser.find_element(By.CSS_SELECTOR, "#speed option[value='150']").click()
    browser.find_element(By.ID, "play").click()
    _until(browser, lambda: _score(browser) == "51 of 51", "the line did not play out")
    assert _text(browser, "#outcome") == "won"
    assert not browser.find_elements(By.CSS_SELECTOR, "#fans .card[data-card]")


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_each_engine_answers_on_the_page(browser, server, engine) -> None:
    _open(browser, server, "pysol:2")
    _solve(browser, engine)
    assert _text(browser, "#verdict") == "solved"
    assert _text(browser, "#details").startswith(f"answered by {engine}/")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#line li")) == 51


def test_three_moves_played_by_clicking_and_one_undone(browser, server) -> None:
    _open(browser, server, "pysol:3")
    played = []
    for moved in range(1, 4):
        card = browser.find_element(By.CSS_SELECTOR, "#board .card.playable")
        played.append(card.get_attribute("data-card"))
        card.click()
        _until(browser, lambda moved=moved: _score(browser) == f"{moved} of 51",
               f"click {moved} was not played")
        assert browser.find_element(By.CSS_SELECTOR, "#hole .card").get_attribute(
            "data-card") == played[-1]
    browser.find_element(By.ID, "undo").click()
    _until(browser, lambda: _score(browser) == "2 of 51", "undo did not take a move back")
    # the hint marks the cards whose lines go furthest, as `hint` finds them
    hints = json.loads(blackhole("hint", "pysol:3", "--after", " ".join(played[:2]),
                                 "--json").stdout)
    furthest = max(move["found"] for move in hints["moves"])
    browser.find_element(By.ID, "hint").click()
    _until(browser, lambda: _text(browser, "#status").startswith("hint:"), "no hint")
    assert {card.get_attribute("data-card") for card in browser.find_elements(
        By.CSS_SELECTOR, ".card.hinted")} == \
        {move["card"] for move in hints["moves"] if move["found"] == furthest}
    browser.find_element(By.ID, "coach").click()
    assert browser.find_element(By.CSS_SELECTOR, "#hole .card").get_attribute(
        "data-card") == played[1]
    # the card taken back lies on its fan again, playable
    assert browser.find_elements(By.CSS_SELECTOR, f".card.playable[data-card='{played[2]}']")
    # a fan's key plays its top card
    fan = browser.find_element(By.CSS_SELECTOR, "#fans .card.playable").find_element(
        By.XPATH, "..")
    name = fan.find_element(By.CSS_SELECTOR, ".label").text  # "4", or "12 (c)"
    key = name.split("(")[1].rstrip(")") if "(" in name else name
    browser.find_element(By.TAG_NAME, "body").send_keys(key)
    _until(browser, lambda: _score(browser) == "3 of 51", "the fan's key did not play")
    played[2] = browser.find_element(By.CSS_SELECTOR, "#hole .card").get_attribute(
        "data-card")
    # the address names the position, to share as a link
    assert browser.current_url.endswith("?deal=pysol%3A3&after=" + "+".join(played))
    # the coach says whether the position is still won, as `hint` does
    _until(browser, lambda: _text(browser, "#coach-says"), "the coach said nothing")
    coached = json.loads(blackhole("hint", "pysol:3", "--after", " ".join(played),
                                   "--json").stdout)
    assert _text(browser, "#coach-says") == ("coach: still winnable" if coached["winnable"]
                                             else f"coach: lost from here; best "
                                                  f"{coached['best']} of 51")


def _bests() -> dict[int, int]:
    """The reference's best score of each lost deal."""
    with BEST_CSV.open() as rows:
        return {int(row["deal"]): int(row["best"]) for row in csv.DictReader(rows)}


def test_a_lost_deal_shows_its_best_score_line_and_analysis(browser, server, tmp_path,
                                                            downloads) -> None:
    """The first lost deal of the reference whose best line is 15 cards or more: its
    best score, its line stepped through, and its analysis with the critical moves
    marked as the CLI marks them. The screenshot is taken along the line."""
    deal, best = next((deal, best) for deal, best in _bests().items() if best >= 15)
    _open(browser, server, f"pysol:{deal}")
    _solve(browser)
    _until(browser, lambda: browser.find_elements(By.ID, "analysis-summary"),
           f"no analysis: {_text(browser, '#status')}")
    assert _text(browser, "#verdict") == f"unsolvable: best {best} of 51"
    # the best score names the engine that found it, as `best --json` does
    found = json.loads(blackhole("best", f"pysol:{deal}", "--json").stdout)
    assert _text(browser, "#details").endswith(
        f"; best score {best} of 51 by {found['backend']}/{found['solver']}")
    line = browser.find_elements(By.CSS_SELECTOR, "#line li")
    assert len(line) == best
    # the analysis is of the line shown, as `analyze --line` gives it
    cards = [move.get_attribute("data-card") for move in line]
    analysis = json.loads(blackhole("analyze", f"pysol:{deal}", "--line", " ".join(cards),
                                    "--json").stdout)
    steps = browser.find_elements(By.CSS_SELECTOR, "#steps li")
    assert [step.text.split()[0] for step in steps] == [move.text.split()[0]
                                                        for move in line]
    assert len(steps) == best == analysis["best"]
    marked = ["critical" in step.get_attribute("class").split() for step in steps]
    assert marked == [step["critical"] for step in analysis["steps"]]
    assert sum(marked) == analysis["critical"] > 0
    assert all(step.text.endswith("CRITICAL") for step, critical in zip(steps, marked,
                                                                        strict=True)
               if critical)
    assert _text(browser, "#analysis-summary") == (
        f"{analysis['critical']} critical move(s); first move that loses: none; "
        f"the line ends at {best} of 51")
    # the move to come, when critical, is marked so on the board
    critical = [step["critical"] for step in analysis["steps"]]
    assert bool(browser.find_elements(By.CSS_SELECTOR, "#fans .card.next.critical")) \
        == critical[0]
    # the certificate: its zip saved by the browser, which verify accepts
    link = browser.find_element(By.ID, "certify")
    assert link.is_displayed()
    assert f"/api/certify?deal=pysol%3A{deal}" in link.get_attribute("href")
    link.click()
    saved = downloads / f"certificate-pysol-{deal}.zip"
    _until(browser, lambda: saved.is_file() and _text(browser, "#status").startswith("saved"),
           f"no certificate saved: {_text(browser, '#status')}")
    shutil.unpack_archive(saved, tmp_path)
    done = blackhole("verify", str(tmp_path / saved.stem))
    assert done.returncode == 0 and "has no solution" in done.stdout, done.stdout
    # step to the critical move nearest the line's middle, and take the screenshot there
    middle = min((k for k, is_critical in enumerate(critical) if is_critical),
                 key=lambda k: abs(k - best // 2))
    for moved in range(1, middle + 1):
        browser.find_element(By.ID, "next").click()
        _until(browser, lambda moved=moved: _score(browser) == f"{moved} of 51",
               "the best line did not step")
    current = browser.find_elements(By.CSS_SELECTOR, "#steps li.current")
    assert [step.text.split()[0] for step in current] == [line[middle].text.split()[0]]
    assert browser.find_elements(By.CSS_SELECTOR, "#fans .card.next.critical")
    assert _text(browser, "#critical-says").startswith("critical: only 1 of ")
    folder = Path(os.environ.get("BLACKHOLE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "web.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:4] == b"\x89PNG"
    browser.find_elements(By.CSS_SELECTOR, "#line li")[-1].click()
    _until(browser, lambda: _score(browser) == f"{best} of 51", "the best line did not end")
    assert _text(browser, "#outcome") == "blocked"


def test_what_the_limit_leaves_open_is_marked_as_the_cli_marks_it(browser, server) -> None:
    """pysol:837 analysed within 1 s: the moves left open are "critical ?", as many as
    the summary counts, and their count of good moves is "?"."""
    _open(browser, server, "pysol:837")
    limit = browser.find_element(By.ID, "timeout")
    limit.clear()
    limit.send_keys("1")
    _solve(browser)
    _until(browser, lambda: browser.find_elements(By.ID, "analysis-summary"),
           f"no analysis: {_text(browser, '#status')}")
    assert _text(browser, "#verdict").startswith("unsolvable: best ")
    summary = _text(browser, "#analysis-summary")
    counted = re.search(r"\((\d+) unknown: limit reached\)", summary)
    assert counted, summary
    unknown = int(counted.group(1))
    open_steps = [step.text for step in browser.find_elements(By.CSS_SELECTOR, "#steps li")
                  if "critical ?" in step.text]
    assert len(open_steps) == unknown > 0
    assert all(": ? of " in text for text in open_steps)


def test_a_link_opens_its_position(browser, server) -> None:
    _open(browser, server, "pysol:3&after=KD+AH")
    assert _score(browser) == "2 of 51"
    assert browser.find_element(By.CSS_SELECTOR, "#hole .card").get_attribute(
        "data-card") == "AH"
    assert "after 2 move(s)" in _text(browser, "#status")


def test_a_pasted_deal_is_played_and_bad_text_is_one_line(browser, server) -> None:
    board = ROOT.joinpath("examples", "worked-example.board").read_text()
    _open(browser, server, "pysol:1")
    browser.find_element(By.CSS_SELECTOR, "#picker summary")  # the deal picker is open
    paste = browser.find_element(By.ID, "paste")
    paste.send_keys("this is no deal")
    browser.find_element(By.ID, "open-paste").click()
    _until(browser, lambda: "error" in browser.find_element(By.ID, "status").get_attribute(
        "class"), "bad text gave no error")
    assert _text(browser, "#status").startswith("<stdin>") and "\n" not in \
        _text(browser, "#status")
    paste.clear()
    browser.execute_script("arguments[0].value = arguments[1]", paste, board)
    browser.find_element(By.ID, "open-paste").click()
    _until(browser, lambda: _dealt(browser, "pasted"), "the board did not open")
    fans = browser.find_elements(By.CSS_SELECTOR, "#fans .fan")
    assert len(fans) == 17  # the worked example: KH tops fan 1 and goes on the ace
    assert [card.get_attribute("data-card") for card in
            fans[0].find_elements(By.CSS_SELECTOR, ".card")] == ["4C", "QD", "KH"]
    fans[0].find_element(By.CSS_SELECTOR, ".card.playable[data-card='KH']").click()
    _until(browser, lambda: _score(browser) == "1 of 51", "the pasted deal did not play")


def test_golf_shows_its_talon_and_35_cards(browser, server) -> None:
    _open(browser, server, "pysol:3:golf")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#fans .fan")) == 7
    assert _score(browser) == "0 of 35"
    talon = browser.find_element(By.ID, "talon")
    assert talon.is_displayed() and "talon 16" in talon.text
    talon.find_element(By.CSS_SELECTOR, ".card.playable").click()
    _until(browser, lambda: "talon 15" in _text(browser, "#talon"), "the talon did not turn")
    assert _score(browser) == "0 of 35"  # a talon card scores nothing



def test_a_lost_golf_deal_shows_its_best_score_and_talon_moves(browser, server) -> None:
    assert golf_reference()[(1, "golf")]["verdict"] == "unsolvable"
    best = json.loads(blackhole("best", "pysol:1:golf", "--json").stdout)
    _open(browser, server, "pysol:1:golf")
    _solve(browser, "auto")
    _until(browser, lambda: browser.find_elements(By.ID, "analysis-summary"),
           f"no analysis: {_text(browser, '#status')}")
    assert _text(browser, "#verdict") == f"unsolvable: best {best['best']} of 35"
    line = [move.text for move in browser.find_elements(By.CSS_SELECTOR, "#line li")]
    steps = [step.text for step in browser.find_elements(By.CSS_SELECTOR, "#steps li")]
    assert len(line) == len(steps) > best["best"]  # talon turns are moves too
    assert any(text.endswith("from the talon") for text in line)
    assert [text.split(":")[0] for text in steps] == line


def test_the_page_fits_a_phone(browser, server) -> None:
    browser.set_window_size(390, 844)
    try:
        _open(browser, server, "pysol:1")
        wide = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0
        assert len(browser.find_elements(By.CSS_SELECTOR, "#fans .fan")) == 17
    finally:
        browser.set_window_size(1280, 1000)


def test_a_closed_tab_stops_its_solve(browser, server) -> None:
    """A long solve started in a tab is killed when the tab is closed."""
    status, _, _ = server.ask("/api/solve", {"deal": "pysol:2", "backend": "look"})
    assert status == 200  # the process that starts each solve's process has started
    before = _family(server.process.pid)
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        _open(browser, server, HARD)
        browser.find_element(By.CSS_SELECTOR, "#engine option[value='look']").click()
        limit = browser.find_element(By.ID, "timeout")
        limit.clear()
        limit.send_keys("50")
        browser.find_element(By.ID, "solve").click()
        _until(browser, lambda: _family(server.process.pid) - before, "no solve started")
        solving = list(_family(server.process.pid) - before)
    finally:
        browser.close()
        browser.switch_to.window(first)
    began = time.monotonic()
    while _alive(solving) and time.monotonic() - began < 10:
        time.sleep(0.05)
    assert not _alive(solving)


def _dealt(browser, shown: str) -> bool:
    """Whether the deal named `shown` is on the page: the status names it once dealt,
    and says "dealing …" while the page still shows the deal before."""
    status = _text(browser, "#status")
    return shown in status and not status.startswith("dealing")


def test_the_page_keeps_to_its_policy_and_no_other_site_frames_it(browser, server,
                                                                   tmp_path) -> None:
    """The page draws a deal and its best line under its Content-Security-Policy with no
    violation and no missing file (its icon found); another site's page that frames it
    is refused."""
    browser.get_log("browser")  # what the tests before left on the console
    _open(browser, server, "pysol:1")
    _solve(browser)
    _until(browser, lambda: browser.find_elements(By.ID, "analysis-summary"),
           f"no analysis: {_text(browser, '#status')}")
    assert _text(browser, "#verdict") == f"unsolvable: best {_bests()[1]} of 51"
    icon = browser.execute_async_script(
        "fetch(document.querySelector('link[rel=icon]').href).then(response => "
        "arguments[0](`${response.status} ${response.headers.get('content-type')}`))")
    assert icon == "200 image/svg+xml"
    logged = [entry["message"] for entry in browser.get_log("browser")]
    assert not [line for line in logged
                if "Content Security Policy" in line or "Failed to load" in line], logged
    # another site: a page on another port that frames this one
    (tmp_path / "frame.html").write_text(f"<iframe src='{server.url}/?deal=pysol:2'>"
                                         "</iframe>")
    other = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        QuietHandler, directory=str(tmp_path)))
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{other.server_address[1]}/frame.html")
        _until(browser, lambda: [entry for entry in browser.get_log("browser")
                                 if "frame-ancestors 'none'" in entry["message"]],
               "another site framed the page")
        browser.switch_to.frame(0)
        assert not browser.find_elements(By.ID, "board")
    finally:
        browser.switch_to.default_content()
        other.shutdown()
        other.server_close()


class QuietHandler(SimpleHTTPRequestHandler):
    """Another site's files, served without a line per request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def test_a_deal_is_picked_by_game_and_number_or_by_seed(browser, server) -> None:
    _open(browser, server, "pysol:1")
    browser.find_element(By.CSS_SELECTOR, "#game option[value='all-in-a-row']").click()
    number = browser.find_element(By.ID, "number")
    number.clear()
    number.send_keys("2")
    browser.find_element(By.ID, "open-number").click()
    _until(browser, lambda: _dealt(browser, "pysol:2:all-in-a-row"),
           "the picked deal did not open")
    assert browser.current_url.endswith("?deal=pysol%3A2%3Aall-in-a-row")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#fans .fan")) == 13
    assert _score(browser) == "0 of 52"  # All in a Row: an empty hole, every card to move
    seed = browser.find_element(By.ID, "seed")
    seed.send_keys("7")
    browser.find_element(By.ID, "open-seed").click()
    _until(browser, lambda: _dealt(browser, "random:7:all-in-a-row"),
           "the seeded deal did not open")
    layout = json.loads(blackhole("deal", "random:7:all-in-a-row", "--format", "json").stdout)
    shown = [[card.get_attribute("data-card") for card in fan.find_elements(
        By.CSS_SELECTOR, ".card[data-card]")]
        for fan in browser.find_elements(By.CSS_SELECTOR, "#fans .fan")]
    assert shown == layout["fans"]
