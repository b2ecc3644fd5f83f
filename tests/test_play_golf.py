"""`blackhole play` for the Golf family: the talon on the screen and under a key, undo,
saved games that keep the talon's progress, the end screens, and the hint engine (or its
refusal) on Golf deals; each position checked against the rules engine."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from blackhole.backends import Verdict
from blackhole.base.errors import InputError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move
from blackhole.model.games import VARIANTS
from blackhole.model.positions import load_position
from blackhole.model.rules import Outcome, initial_state, legal_moves, play, replay
from blackhole.play import engine
from blackhole.play.app import TURN, PlayApp
from blackhole.play.board import rules_text, table_size
from blackhole.play.game import Game
from blackhole.play.session import Review, review
from blackhole.play.widgets import EndScreen, RulesScreen, review_text
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve

from .helpers import GOLF_GAMES, cli
from .test_play import Tmux, drive, illegal_fan, letter, needs_tmux, settle, shown

SPEC = "pysol:2:golf"  # solvable: Golf's talon starts 3♠ 10♠ 9♥ on the 2♠


def key(fan: int | None) -> str:
    """The key that plays a move: its fan's letter, or t to turn the talon (no fan)."""
    return "t" if fan is None else letter(fan)


def winning_line(spec: str) -> list[Move]:
    """The solver's winning line, cut where the last fan card is played (the game is
    won there; talon cards may remain)."""
    deal = load_position(spec).deal
    line = list(solve(spec).moves)
    for end in range(len(line) + 1):
        if replay(deal, [card for card, _, _ in line[:end]]).won:
            return line[:end]
    raise AssertionError(f"the solver's line for {spec} does not win")


def end_text(game: PlayApp) -> str:
    assert isinstance(game.screen, EndScreen)
    return str(game.screen.query_one("#end").render())


# ---------------------------------------------------------------- the screen


def test_the_screen_shows_the_foundation_the_talon_and_seven_fans_of_five() -> None:
    deal = load_position(SPEC).deal
    need = table_size(deal)

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        assert shown(game, "#title") == f"{deal.game.title}   {SPEC}"
        assert shown(game, "#hole") == "foundation  2♠"
        assert shown(game, "#talon") == "talon ▸3♠ next, 16 left   (t turns it)"
        assert "score 0/35" in shown(game, "#status")
        assert "a-g play  t or Space turn the talon" in shown(game, "#keys")
        assert len(table.game.deal.fans) == 7 and len(table.query("#fan-h")) == 0
        for fan, cards in enumerate(deal.fans):
            column = shown(game, f"#fan-{letter(fan)}")
            assert [c.unicode() for c in cards] == column.replace("▸", " ").split()[1:]
            marked = "▸" in column
            assert marked == (fan in {move.fan for move in table.game.legal()})
        assert not table.query_one("#small").display  # at the size it names, all shows
        for widget in ("#title", "#hole", "#talon", "#status", "#keys",
                       *(f"#fan-{letter(fan)}" for fan in range(7))):
            region = table.query_one(widget).region
            assert region.right <= need[0] and region.bottom <= need[1], widget
        await pilot.press("question_mark")
        assert isinstance(game.screen, RulesScreen)
        await pilot.press("escape")

    drive(PlayApp(SPEC), script, size=need)


def test_the_rules_and_the_words_come_from_the_games_fields() -> None:
    for name in GOLF_GAMES:
        game = VARIANTS[name]
        text = rules_text(load_position(f"pysol:2:{name}").deal)
        assert text.startswith(f"{game.title}\n")
        assert f"{game.rules.talon} more stay in the talon" in text and "7 fans of 5" in text
        assert ("K and A are neighbours" in text) == game.rules.wrap
        assert "every fan is empty (talon cards may remain)" in text and "out of 35" in text
        assert max(len(line) for line in text.splitlines()) <= 74
        assert len(text.splitlines()) <= 20  # the rules box fits a 24-line terminal
    black_hole = rules_text(load_position("pysol:2").deal)
    assert "talon" not in black_hole and "K and A are neighbours" in black_hole

    async def script(game: PlayApp, pilot) -> None:  # Black Hole has no talon to turn
        await pilot.press("t")
        assert game.table.game.moves == () and shown(game, "#message") == \
            "this game has no talon"
        assert not game.table.query_one("#talon").display
        assert shown(game, "#hole").startswith("hole  A♠")

    drive(PlayApp("pysol:2"), script)


# ---------------------------------------------------------------- playing


def test_turning_playing_and_undoing_follow_the_rules_engine() -> None:
    deal = load_position(SPEC).deal

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        states = [initial_state(deal)]
        await pilot.press("t")
        states.append(play(deal, states[-1], Move.turn()))
        assert table.game.state == states[-1] and states[-1].turned == 1
        assert shown(game, "#hole").startswith("foundation  3♠")
        assert shown(game, "#talon").startswith("talon ▸10♠ next, 15 left")
        assert "score 0/35   moves 1" in shown(game, "#status")
        card, fan, _ = next(move for move in legal_moves(deal, states[-1])
                            if move.kind is Kind.PLAY)
        await pilot.press(letter(fan))
        states.append(play(deal, states[-1], Move(fan=fan, kind=Kind.PLAY)))
        assert table.game.state == states[-1] and table.game.state.foundation == card
        assert "score 1/35   moves 2" in shown(game, "#status")
        await pilot.press("space")
        states.append(play(deal, states[-1], Move.turn()))
        assert table.game.state == states[-1] and table.game.state.turned == 2
        assert replay(deal, table.game.played).state == table.game.state
        before = table.game
        bad = illegal_fan(before)
        await pilot.press(letter(bad))
        assert table.game == before
        assert f"(fan {letter(bad)}) does not fit on 10♠" in shown(game, "#message")
        for back in range(3):
            await pilot.press("u")
            assert table.game.state == states[-2 - back]
        assert shown(game, "#hole") == "foundation  2♠"
        assert shown(game, "#talon").startswith("talon ▸3♠ next, 16 left")
        await pilot.press("r", "r", "r")
        assert table.game.state == states[-1] and "undos 3" in shown(game, "#status")

    drive(PlayApp(SPEC), script)


def test_a_spent_talon_is_refused_and_a_click_turns_it() -> None:
    talon = load_position(SPEC).deal.talon

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        assert table.game.state.turned == 15
        await pilot.click("#talon")
        assert table.game.state.turned == 16 and table.game.state.foundation == talon[-1]
        assert shown(game, "#talon") == "talon spent: nothing left to turn"
        before = table.game
        await pilot.press("t")
        assert table.game == before
        assert shown(game, "#message") == "the talon is spent: nothing left to turn"

    drive(PlayApp(SPEC, " ".join(map(str, talon[:15]))), script)


def test_a_golf_game_won_from_the_solvers_line_saves_and_checks(tmp_path: Path) -> None:
    line = winning_line(SPEC)

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press(*(key(fan) for _, fan, _ in line))
        await pilot.pause()
        table = game.table
        assert table.game.played == tuple(card for card, _, _ in line)
        assert table.game.outcome is Outcome.WON and table.game.score == 35
        left = 16 - table.game.state.turned
        assert f"You won: 35/35, every fan is cleared, with {left} talon card" in end_text(game)
        await pilot.press("escape", "s", "enter")
        assert f"saved {len(line)} moves" in shown(game, "#message")

    drive(PlayApp(SPEC, folder=tmp_path), script)
    checked = cli("check", SPEC, str(tmp_path / "pysol-2-golf.moves"))
    assert checked.exit_code == 0 and "won: all 35 cards moved" in checked.output


def test_saved_games_and_positions_keep_the_talons_progress(tmp_path: Path) -> None:
    """From a position file with a talon card turned, turn another, play, save: the file
    replays through check and --after to the same position, talon included."""
    dealt = cli("deal", SPEC, "--after", "3S 4H", "--format", "json")
    assert dealt.exit_code == 0, dealt.output
    spec = str(tmp_path / "golf.json")
    Path(spec).write_text(dealt.output)
    seen = {}

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        assert table.game.start.deal.turned == 1 and "score 1/35" in shown(game, "#status")
        assert shown(game, "#talon").startswith("talon ▸10♠ next, 15 left")
        await pilot.press("t")
        fan = next(move.fan for move in table.game.legal() if move.fan is not None)
        await pilot.press(letter(fan), "s", "enter")
        assert table.game.state.turned == 1 and table.game.deal.talon[0] == Card(10, "S")
        seen["position"] = table.game.position

    drive(PlayApp(spec, folder=tmp_path), script)
    saved = tmp_path / "golf.moves"
    position = seen["position"]
    again = load_position(spec, f"@{saved}")
    assert again.deal == position.deal and again.moved == position.moved == 2
    assert again.deal.turned == 2 and len(again.deal.talon) == 14
    checked = cli("check", spec, str(saved), "--json")
    assert checked.exit_code == 1 and json.loads(checked.output)["outcome"] == "unfinished"

    async def go_on(game: PlayApp, pilot) -> None:
        assert game.table.game.position.deal == position.deal
        assert shown(game, "#talon").startswith("talon ▸9♥ next, 14 left")
        await pilot.press("u", "u")  # the saved moves are the game's own: they undo
        assert game.table.game.position.deal == load_position(spec).deal

    drive(PlayApp(spec, f"@{saved}"), go_on)


def test_a_new_deal_keeps_the_game() -> None:
    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("N")
        table = game.table
        assert table.spec == "random:41:dead-king-golf"
        assert table.game.deal == load_position("random:41:dead-king-golf").deal
        assert shown(game, "#title").startswith("Dead King Golf   random:41:dead-king-golf")
        assert shown(game, "#talon").startswith("talon ▸") and "16 left" in shown(game, "#talon")

    drive(PlayApp("pysol:2:dead-king-golf", seeds=lambda: 41), script)


# ---------------------------------------------------------------- the hint engine


def test_an_engine_that_refuses_golf_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint engine's InputError for the game is said once per question, in one line;
    it is not asked again on this deal, the coach stays off, and the game goes on to its
    end screen."""
    asked: list[object] = []
    refusal = "Golf is not played by this engine yet"

    def refuses(position, *args):
        asked.append(position)
        raise InputError(refusal, "pysol:1:golf", token="golf")

    monkeypatch.setattr(engine, "missing", lambda: None)
    monkeypatch.setattr(engine, "hints_of", refuses)
    monkeypatch.setattr(engine, "best_of", refuses)

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        await settle(game, pilot)  # the first hints, asked on their own, were refused
        assert len(asked) == 1 and table.refused == refusal
        await pilot.press("H")
        await settle(game, pilot)
        assert shown(game, "#message") == f"hint failed: {refusal}"
        await pilot.press("w")
        await settle(game, pilot)
        assert shown(game, "#message") == f"coach failed: {refusal}"
        assert "coach off" in shown(game, "#status") and len(asked) == 1
        while table.game.legal():
            await pilot.press(key(table.game.legal()[0].fan))
        await settle(game, pilot)
        assert table.game.outcome is Outcome.BLOCKED and len(asked) == 1
        text = end_text(game)
        assert f"Blocked at {table.game.score}/35: no top card fits " \
               f"{table.game.state.foundation.unicode()} and the talon is spent." in text
        assert f"the best score is unknown: {refusal}" in text

    drive(PlayApp("pysol:1:golf"), script)


@cache
def golf_refused() -> str | None:
    """The hint engine's refusal of Golf, or None when it answers Golf."""
    try:
        engine.hints_of(load_position(SPEC), 10)
    except InputError as error:
        return error.detail
    return None


def needs_golf_hints() -> None:
    if engine.missing() or golf_refused():
        pytest.skip(f"the hint engine does not answer Golf: {golf_refused()}")


def test_a_hint_on_golf_names_the_talon_when_only_it_moves() -> None:
    needs_golf_hints()
    deal = load_position(SPEC).deal
    line = winning_line(SPEC)
    game = Game(load_position(SPEC))
    for count, move in enumerate(line):  # the first position where only the talon moves
        if [legal.fan for legal in game.legal()] == [None] and count:
            break
        game = game.play(move)
    before = [card for card, _, _ in line[:count]]

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        await pilot.press("H")
        await settle(app, pilot)
        card = table.game.next_talon()
        assert shown(app, "#message") == \
            f"hint: play {card.unicode()} off the talon: the game stays winnable"
        assert table.hinted == Move.turn(card) and table.hinted_fan() == TURN
        await pilot.press("t")
        assert table.game.state == play(deal, game.state, Move.turn())
        for _ in range(3):  # hints keep it winnable, by the solver's word
            await pilot.press("H")
            await settle(app, pilot)
            assert "stays winnable" in shown(app, "#message")
            moves, hinted = table.game.moves, table.hinted
            await pilot.press(key(hinted.fan))
            assert table.game.moves == (*moves, hinted)
            assert solve(table.game.position.deal).verdict is Verdict.SOLVED

    drive(PlayApp(SPEC, " ".join(map(str, before))), script)


def test_a_blocked_golf_game_names_the_talon_turn_that_cost_cards() -> None:
    """Turning the whole talon first on pysol:1:golf: the review names the first costly
    move, a talon turn, and the best line replays to the best score."""
    needs_golf_hints()

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        table.replay_seconds = 0.01
        while table.game.legal():
            await pilot.press(key(table.game.legal()[-1].fan))  # the talon while it lasts
        await settle(app, pilot)
        assert table.game.outcome is Outcome.BLOCKED and table.game.state.turned == 16
        found = app.screen.found
        assert isinstance(found, Review) and found.lost_fan is None
        assert table.game.moves[found.lost_at].kind is Kind.TURN
        start = best_score(table.game.start)
        assert found.best == start.best and start.proven
        lost = Game(table.game.start, table.game.moves[:found.lost_at])
        assert best_score(lost.position).best == start.best
        after = best_score(lost.turn().position)
        assert after.best == found.best_after < start.best
        text = end_text(app)
        assert f"The best possible on this deal: {start.best}/35." in text
        assert f"Move {found.lost_at + 1} ({found.lost_card.unicode()} off the talon) was " \
               "the first to cost cards" in text
        await pilot.press("b")
        while table.replaying is not None:
            await pilot.pause(0.05)
        assert table.game.score == start.best
        assert replay(table.game.deal, table.game.played).played == start.best

    drive(PlayApp("pysol:1:golf"), script)


def test_review_text_names_a_talon_turn() -> None:
    found = Review(1, 35, 29, True, (), lost_at=2, lost_card=Card(11, "H"), lost_fan=None,
                   best_after=17)
    assert "Move 3 (JH off the talon) was the first to cost cards: after it the best " \
           "still reachable was 17/35." in str(review_text(found, str))


def test_a_game_started_after_a_talon_turn_numbers_its_moves_from_the_deal() -> None:
    """A game started after 8H, a talon turn and no card off a column, started from a
    position (one move made); the first move that cost cards is numbered from the deal's
    start, as every answer numbers moves."""
    game = Game(load_position("pysol:1:golf", "8H"))
    while game.legal():
        game = game.play(game.legal()[-1])  # the talon while it lasts
    found = review(game, {}, best_score)
    assert found.started == 1 and found.lost_at is not None
    text = str(review_text(found, str))
    assert "from where this game started" in text
    assert f"Move {found.lost_at + 2} ({found.lost_card} " in text
    lost = game.moves[found.lost_at]
    full = Game(load_position("pysol:1:golf"), (Move.turn(Card(8, "H")), *game.moves))
    assert full.moves[found.lost_at + 1] == lost  # the same move, from the deal's start


def test_q_on_the_end_screen_quits_as_it_says() -> None:
    """The end screen offers "Q quit": the key ends the game from there."""

    async def script(app: PlayApp, pilot) -> None:
        table = app.table
        while table.game.legal():
            await pilot.press(key(table.game.legal()[-1].fan))
        await settle(app, pilot)
        assert "Q quit" in end_text(app)
        await pilot.press("Q")
        await pilot.pause()
        assert not app.is_running

    drive(PlayApp("pysol:1:golf"), script)


# ---------------------------------------------------------------- a real terminal


@needs_tmux
def test_golf_in_a_real_terminal_under_tmux(tmp_path: Path) -> None:
    terminal = Tmux(tmp_path, 80, 24, SPEC)
    try:
        first = terminal.wait_for("score 0/35")
        lines = first.splitlines()
        assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
        assert "foundation  2♠" in first and "talon ▸3♠ next, 16 left" in first
        assert "Q quit" in first and "too small" not in first
        terminal.send("t")
        turned = terminal.wait_for("talon ▸10♠ next, 15 left")
        assert "foundation  3♠" in turned and "score 0/35   moves 1" in turned
        terminal.send("b")  # 4♥ on the 3♠
        assert "foundation  4♥" in terminal.wait_for("score 1/35")
        terminal.send("u")
        terminal.send("u")
        back = terminal.wait_for("undos 2")
        assert "foundation  2♠" in back and "talon ▸3♠ next, 16 left" in back
        terminal.send("Q")
        assert "pysol:2:golf: 0 of 35 cards moved" in terminal.wait_for("deals it again")
    finally:
        terminal.close()
