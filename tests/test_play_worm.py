"""`blackhole play` for Worm Hole and Unstable Worm Hole (issue #51): the cell drawn under
the hole, z then a fan's letter parks its top card, 0 (or a click on the cell) plays the
cell's card, hints name parks; each position checked against the rules engine, driven
through Textual's headless pilot as tests/test_play.py drives Black Hole."""

from __future__ import annotations

from pathlib import Path

import pytest

from blackhole.model.cards import parse_card
from blackhole.model.deal import Kind, Move
from blackhole.model.positions import load_position
from blackhole.model.rules import Outcome, replay
from blackhole.play.app import PlayApp
from blackhole.play.board import rules_text, table_size
from blackhole.play.widgets import EndScreen
from blackhole.questions.best import best_score

from .helpers import cli
from .test_play import SIZE, drive, letter, needs_engine, settle, shown

GAMES = ("worm-hole", "unstable-worm-hole")


def keys(move: Move) -> tuple[str, ...]:
    """The keys that make `move`: its fan's letter, z first for a park, 0 for the cell's
    card."""
    if move.kind is Kind.UNPARK:
        return ("0",)
    return ("z", letter(move.fan)) if move.kind is Kind.PARK else (letter(move.fan),)


@pytest.mark.parametrize("game", GAMES)
def test_a_won_line_that_parks_is_played_by_keys_and_saved(game: str, tmp_path: Path) -> None:
    """The referee's win of pysol:1 (it parks) played key by key: each position is the
    rules engine's, the cell line shows the cell's card, and the saved file replays."""
    spec = f"pysol:1:{game}"
    win = best_score(spec, "search").moves
    assert any(move.kind is Kind.PARK for move in win)

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        assert shown(app, "#cell").startswith("cell: empty")
        deal = table.game.deal
        for number, move in enumerate(win, start=1):
            await pilot.press(*keys(move))
            assert table.game.moves == tuple(win[:number]), (number, str(move))
            assert table.game.state == replay(deal, win[:number]).state
            cell, line = table.game.state.cell, shown(app, "#cell")
            assert line.replace("▸", "").startswith(f"cell: {cell.unicode()}" if cell
                                                    else "cell: empty"), number
            fits = any(legal.kind is Kind.UNPARK for legal in table.game.legal())
            assert ("▸" in line) == fits, number  # marked when it fits on the hole
        assert table.game.outcome is Outcome.WON and isinstance(app.screen, EndScreen)
        await pilot.press("escape")
        assert "score 51/51" in shown(app, "#status")
        await pilot.press("s", "enter")

    drive(PlayApp(spec, folder=tmp_path), script)
    saved = tmp_path / f"pysol-1-{game}.moves"
    assert "park:" in saved.read_text()
    won = cli("check", spec, str(saved))
    assert won.exit_code == 0 and "won: all 51 cards moved" in won.output


def test_park_undo_redo_and_a_click_on_the_cell() -> None:
    """z then a letter parks (the fan's card leaves it, the score stays); u takes the park
    back; a click on the cell plays its card when it fits; a refused park says why."""
    spec = "pysol:148:worm-hole"  # A♥ tops fan j; under it K♣, which fits the A♠

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        start = table.game
        await pilot.press("z", "j")
        assert table.game.moves == (Move.park(parse_card("AH"), 9),)
        assert "A♥" in shown(app, "#cell") and "score 0/51" in shown(app, "#status")
        assert "▸K♣" in shown(app, "#fan-j")  # the card under it fits now
        await pilot.press("u")
        assert table.game.moves == () and table.game.state == start.state
        await pilot.press("r")
        assert shown(app, "#cell").startswith("cell: A♥")
        await pilot.press("z", "a")  # the cell is taken
        assert "the cell holds AH" in shown(app, "#message")
        assert len(table.game.moves) == 1
        await pilot.press("j", "d", "d")  # K♣, A♣, 2♠: the A♥ fits now
        assert "▸A♥" in shown(app, "#cell")
        await pilot.click("#cell")
        assert table.game.moves[-1] == Move.unpark(parse_card("AH"))
        assert "score 4/51" in shown(app, "#status") and "cell: empty" in shown(app, "#cell")
        await pilot.press("0")
        assert "the cell is empty" in shown(app, "#message")
        await pilot.press("z", "escape")  # any other key leaves the park unmade
        assert "no card parked" in shown(app, "#message")

    drive(PlayApp(spec), script)


def test_unstable_worm_hole_takes_one_park_and_says_so() -> None:
    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        assert "(0 of 1 use made)" in shown(app, "#cell")
        await pilot.press("z", "j", "j", "d", "d", "0")
        assert "(1 of 1 use made)" in shown(app, "#cell")
        assert table.game.outcome is Outcome.BLOCKED and isinstance(app.screen, EndScreen)
        await pilot.press("escape", "z", "a")
        assert "all taken" in shown(app, "#message") and len(table.game.moves) == 5

    drive(PlayApp("pysol:148:unstable-worm-hole"), script)


@pytest.mark.parametrize("game", GAMES)
def test_the_table_fits_80_by_24_and_the_rules_name_the_cell(game: str) -> None:
    deal = load_position(f"pysol:1:{game}").deal
    width, rows = table_size(deal)
    assert width <= SIZE[0] and rows <= SIZE[1]
    rules = rules_text(deal).replace("\n", " ")
    assert "One free cell" in rules and "z a-q" in rules
    assert ("takes 1 card(s) a deal" in rules) == (game == "unstable-worm-hole")


@needs_engine
def test_a_hint_names_a_park_and_the_cell_and_keeps_the_best() -> None:
    """On the lost pysol:148 every first move is a park: the hint names one that keeps
    the best score (6, the referee's), its fan marked; after K♣ A♣ 2♠ it names the cell's
    card."""

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        await pilot.press("H")
        await settle(app, pilot)
        hinted = table.hinted
        assert hinted.kind is Kind.PARK and shown(app, "#message").startswith("hint: park ")
        assert "into the cell" in shown(app, "#message") and "6/51" in shown(app, "#message")
        after = best_score(table.game.play(hinted).position, "search")
        assert after.best == 6
        await pilot.press(*keys(hinted))
        assert table.game.moves == (hinted,)

    drive(PlayApp("pysol:148:worm-hole"), script)

    async def from_the_cell(app: PlayApp, pilot) -> None:
        await pilot.press("H")
        await settle(app, pilot)
        assert app.table.hinted.kind is Kind.UNPARK
        assert "from the cell" in shown(app, "#message")
        await pilot.press("0")
        assert app.table.game.moves[-1].kind is Kind.UNPARK

    drive(PlayApp("pysol:148:worm-hole", "park:AH KC AC 2S"), from_the_cell)


@needs_engine
def test_the_end_review_names_a_losing_park() -> None:
    """A park that leaves no win (6♦ at the start of pysol:1: best 5, as the referee says)
    is the move the end review names, in the screen's words."""
    from blackhole.play import engine
    from blackhole.play.game import Game
    from blackhole.play.session import review
    from blackhole.play.widgets import review_text

    start = load_position("pysol:1:worm-hole")
    fan = next(fan for fan, cards in enumerate(start.deal.fans) if cards[-1] == parse_card("6D"))
    game = Game(start).park_fan(fan)
    after = best_score(game.position, "search")
    for move in after.moves:  # then the best play, to the end
        game = game.play(move)
    assert game.outcome is Outcome.BLOCKED
    found = review(game, {}, engine.best_of)
    expected = after.best
    assert (found.best, found.lost_at, found.lost_kind, found.best_after) == \
        (51, 0, Kind.PARK, expected)
    text = str(review_text(found, lambda card: str(card)))
    assert f"Move 1 (6D from fan {letter(fan)} into the cell) lost the game" in text
