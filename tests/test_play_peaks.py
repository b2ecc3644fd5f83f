"""`blackhole play` for layouts not made of fans (TriPeaks' peaks, Escalator's pyramid):
every card drawn at its slot's place, the keys read off the screen (the letter under a
free card), a game won along the SAT solver's line, and a covered card that does not
play; each position checked against the rules engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move
from blackhole.model.positions import load_position
from blackhole.model.rules import Outcome, initial_state, legal_moves, play, replay
from blackhole.play.app import PlayApp
from blackhole.play.board import HALF, PLAYABLE_STYLE, table_size
from blackhole.play.slots import slots_text
from blackhole.play.widgets import EndScreen, RulesScreen
from blackhole.questions.pipeline import solve

from .helpers import cli
from .test_play import drive, settle, shown

SPEC = "pysol:5:tri-peaks"  # won: the SAT solver's line clears the peaks
PEAKS_GAMES = ("tri-peaks", "tri-peaks-strict", "escalator")


def layout_lines(game: PlayApp) -> list[str]:
    """The layout as the screen shows it, line by line."""
    return shown(game, "#slots").split("\n")


def where(game: PlayApp, card: Card) -> tuple[int, int]:
    """The character and line where the screen draws `card`'s name."""
    name = card.unicode()
    found = [(line.index(name), y) for y, line in enumerate(layout_lines(game))
             if name in line]
    assert len(found) == 1, f"{name} is drawn {len(found)} times"
    return found[0]


def key_under(game: PlayApp, card: Card) -> str:
    """The letter the screen shows under `card` (a space when it shows none)."""
    x, y = where(game, card)
    return layout_lines(game)[y + 1][x]


def style_at(text: Text, x: int, y: int) -> str:
    """The style of the character at `x` on line `y` of `text` (the last span there)."""
    offset = sum(len(line) + 1 for line in text.plain.split("\n")[:y]) + x
    styles = [str(span.style) for span in text.spans if span.start <= offset < span.end]
    return styles[-1] if styles else ""


def winning_line(spec: str) -> list[Move]:
    """The SAT solver's winning line, cut where the last tableau card goes (the game is
    won there; stock cards may remain)."""
    deal = load_position(spec).deal
    line = list(solve(spec, "sat").moves)
    for end in range(len(line) + 1):
        if replay(deal, line[:end]).won:
            return line[:end]
    raise AssertionError(f"the solver's line for {spec} does not win")


# ---------------------------------------------------------------- the screen


@pytest.mark.parametrize("name", PEAKS_GAMES)
def test_every_card_lies_at_its_place_and_the_free_ones_carry_their_letters(name) -> None:
    spec = f"pysol:5:{name}"
    deal = load_position(spec).deal
    need = table_size(deal)
    assert need[0] <= 80 and need[1] <= 24

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        assert not table.query("#fan-a") and not table.query_one("#small").display
        lines = layout_lines(game)
        assert len(lines) == max(row for _, row in deal.tableau.places) + 2
        for card, (column, row) in zip(deal.tableau.cards, deal.tableau.places, strict=True):
            assert where(game, card) == (HALF * column + 1, row), card
        free = [deal.tableau.cards[slot] for slot in deal.tableau.free()]
        # the free cards are the bottom row, lettered a, b, c, ... left to right
        by_column = sorted(free, key=lambda card: deal.where()[card][0])
        assert [key_under(game, card) for card in by_column] == \
            [chr(ord("a") + i) for i in range(len(free))]
        covered = set(deal.tableau.cards) - set(free)
        assert all(key_under(game, card) == " " for card in covered)
        # the cards that fit on the foundation are marked, and only those
        fits = {move.card for move in legal_moves(deal, initial_state(deal))
                if move.kind is Kind.PLAY}
        for card in deal.tableau.cards:
            x, y = where(game, card)
            assert (lines[y][x - 1] == "▸") == (card in fits), card
        assert shown(game, "#hole") == f"foundation  {deal.foundation.unicode()}"
        assert shown(game, "#talon").startswith(f"talon ▸{deal.talon[0].unicode()} next, 23 left")
        assert "a b c.. play the card over it  t or Space turn the talon" in shown(game, "#keys")
        for widget in ("#title", "#hole", "#talon", "#slots", "#status", "#keys"):
            region = table.query_one(widget).region
            assert region.right <= need[0] and region.bottom <= need[1], widget
        await pilot.press("question_mark")
        assert isinstance(game.screen, RulesScreen)
        rules = str(game.screen.query_one("Static").render())
        assert "of 28 cards, in rows that" in rules and "out of 28" in rules
        await pilot.press("escape")

    drive(PlayApp(spec), script, size=need)


def test_a_covered_card_is_dimmed_and_does_not_play() -> None:
    deal = load_position(SPEC).deal

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        apex = deal.tableau.cards[0]  # the first peak's top, under two rows and more
        assert not deal.tableau.is_free(0)
        x, y = where(game, apex)
        assert style_at(slots_text(table.game, False), x, y) == "dim"
        free = [deal.tableau.cards[slot] for slot in deal.tableau.free()]
        assert all(style_at(slots_text(table.game, False), *where(game, card)) in
                   ("underline", PLAYABLE_STYLE) for card in free)
        await pilot.click("#slots", offset=(x, y))
        assert table.game.moves == ()
        assert shown(game, "#message") == \
            f"{apex.unicode()} is covered: the cards lying on it must go first"
        # a letter no free card has plays nothing either
        await pilot.press("p")
        assert table.game.moves == () and shown(game, "#message") == \
            "no free card has the letter p"
        # a free card that does not fit is refused with the reason
        hole = deal.foundation
        misfit = next(card for card in free if abs(card.rank - hole.rank) not in (1, 12))
        await pilot.press(key_under(game, misfit))
        assert table.game.moves == ()
        assert shown(game, "#message").startswith(
            f"{misfit.unicode()} does not fit on {hole.unicode()}: ")
        # a click on a free card that fits plays it, and undo puts it back in its place
        card = next(move.card for move in table.game.legal() if move.kind is Kind.PLAY)
        before = layout_lines(game)
        x, y = where(game, card)
        await pilot.click("#slots", offset=(x, y))
        assert table.game.played == (card,) and shown(game, "#hole").startswith(
            f"foundation  {card.unicode()}")
        assert card.unicode() not in shown(game, "#slots")
        await pilot.press("u")
        assert table.game.moves == () and layout_lines(game) == before

    drive(PlayApp(SPEC), script)


# ---------------------------------------------------------------- a whole game


def test_a_tri_peaks_deal_is_won_by_the_keys_the_screen_shows(tmp_path: Path) -> None:
    line = winning_line(SPEC)
    deal = load_position(SPEC).deal

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        state = initial_state(deal)
        for move in line:
            key = "t" if move.kind is Kind.TURN else key_under(game, move.card)
            assert key.isalpha(), f"{move.card} shows no letter"
            await pilot.press(key)
            state = play(deal, state, move)
            assert table.game.state == state, move
        await pilot.pause()
        assert table.game.outcome is Outcome.WON
        assert isinstance(game.screen, EndScreen)
        spare = len(deal.talon) - state.turned
        assert f"You won: 28/28, the tableau is cleared, with {spare} talon card" in \
            str(game.screen.query_one("#end").render())
        await pilot.press("escape")
        assert "score 28/28" in shown(game, "#status")
        assert shown(game, "#slots").split() == []  # every slot cleared
        await pilot.press("s", "enter")

    drive(PlayApp(SPEC, folder=tmp_path), script)
    won = cli("check", SPEC, str(tmp_path / "pysol-5-tri-peaks.moves"))
    assert won.exit_code == 0, won.output


def test_a_hint_names_a_card_and_reverses_its_letter_which_then_plays_it() -> None:
    """The hint engine's best move, drawn on the letter of its card: that letter plays
    it, and the game stays winnable, as the solver says of the position after it."""

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        await pilot.press("H")
        await settle(game, pilot)
        hinted = table.hinted
        assert hinted is not None and hinted.kind is Kind.PLAY
        assert shown(game, "#message") == \
            f"hint: play {hinted.card.unicode()}: the game stays winnable"
        drawn = slots_text(table.game, False, hinted.card)
        x, y = where(game, hinted.card)
        assert style_at(drawn, x, y + 1) == "bold reverse"
        await pilot.press(key_under(game, hinted.card))
        assert table.game.played == (hinted.card,)
        assert solve(table.game.position, "sat").verdict.value == "solved"

    drive(PlayApp(SPEC), script)
