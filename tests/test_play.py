"""`blackhole play`: real games driven through Textual's headless pilot, and one in a real
terminal under tmux."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from blackhole.backends import Verdict
from blackhole.base.errors import InternalError
from blackhole.model.cards import Card
from blackhole.model.deal import Kind, Move
from blackhole.model.positions import load_position
from blackhole.model.rules import Outcome
from blackhole.play import engine
from blackhole.play.app import PlayApp, Table
from blackhole.play.board import FAN_LETTERS, table_size
from blackhole.play.game import Game
from blackhole.play.session import review, save_text
from blackhole.play.widgets import (
    ConfirmScreen,
    EndScreen,
    RulesScreen,
    SaveScreen,
    review_text,
)
from blackhole.questions.pipeline import solve

from .helpers import ROOT, blackhole, child_env, cli

SIZE = (80, 24)
Script = Callable[[PlayApp, object], Awaitable[None]]


def drive(game: PlayApp, script: Script, size: tuple[int, int] = SIZE) -> None:
    """Run `game` headless (at 80×24) and let `script(app, pilot)` play it."""

    async def main() -> None:
        async with game.run_test(size=size) as pilot:
            await pilot.pause()
            await script(game, pilot)

    asyncio.run(main())


def shown(game: PlayApp, selector: str) -> str:
    """The plain text a widget of the table shows now."""
    return str(game.table.query_one(selector).render())


def screen_text(game: PlayApp) -> str:
    """Everything the table shows, as plain text (the fans column by column)."""
    parts = [shown(game, f"#{name}") for name in ("title", "hole", "status", "message")]
    parts += [shown(game, f"#fan-{FAN_LETTERS[fan]}") for fan in
              range(len(game.table.game.deal.fans))]
    return "\n".join(parts)


TWO_OF_SPADES = Move(Card(2, "S"), 1, Kind.PLAY)  # pysol:2's fan b ("b" plays it)


def letter(fan: int) -> str:
    return FAN_LETTERS[fan]


def illegal_fan(game: Game) -> int:
    """A fan whose top card does not fit on the hole."""
    legal = {move.fan for move in game.legal()}
    return next(fan for fan in range(len(game.deal.fans))
                if fan not in legal and game.top(fan) is not None)


# ---------------------------------------------------------------- playing


def test_pysol_2_played_to_a_win_from_the_solvers_moves(tmp_path: Path) -> None:
    moves = solve("pysol:2").moves

    async def script(game: PlayApp, pilot) -> None:
        assert "score 0/51" in shown(game, "#status")
        assert "pysol:2" in shown(game, "#status")
        await pilot.press(*(letter(fan) for _, fan, _ in moves))
        await pilot.pause()
        assert game.table.game.played == tuple(card for card, _, _ in moves)
        assert game.table.game.outcome is Outcome.WON
        assert isinstance(game.screen, EndScreen)
        assert "You won: 51/51" in str(game.screen.query_one("#end").render())
        await pilot.press("escape")
        assert "score 51/51" in shown(game, "#status") and "moves 51" in shown(game, "#status")
        await pilot.press("s", "enter")

    drive(PlayApp("pysol:2", folder=tmp_path), script)
    won = cli("check", "pysol:2", str(tmp_path / "pysol-2.moves"))
    assert won.exit_code == 0 and "won: all 51 cards moved" in won.output


def test_the_screen_shows_the_hole_every_fan_and_the_playable_cards() -> None:
    async def script(game: PlayApp, pilot) -> None:
        text = screen_text(game)
        assert "hole  A♠" in text
        deal = game.table.game.deal
        for fan, cards in enumerate(deal.fans):
            column = shown(game, f"#fan-{letter(fan)}")
            assert column.split()[0] == letter(fan)
            assert [c.unicode() for c in cards] == column.replace("▸", " ").split()[1:]
        for card, fan, _ in game.table.game.legal():  # 2♠, 2♥ and K♥ fit the A♠
            assert f"▸{card.unicode()}" in shown(game, f"#fan-{letter(fan)}")
        assert sum(shown(game, f"#fan-{letter(f)}").count("▸") for f in range(17)) == 3
        assert all(region.size.width <= SIZE[0] for region in [game.screen])

    drive(PlayApp("pysol:2"), script)


def test_ascii_draws_plain_cards() -> None:
    async def script(game: PlayApp, pilot) -> None:
        text = screen_text(game)
        assert "hole  AS" in text and "QD" in text and "♠" not in text
        assert ">2S" in shown(game, "#fan-b")

    drive(PlayApp("pysol:2", ascii_only=True), script)


def test_an_illegal_key_press_changes_nothing() -> None:
    async def script(game: PlayApp, pilot) -> None:
        before, text = game.table.game, screen_text(game)
        fan = illegal_fan(before)
        await pilot.press(letter(fan))
        assert game.table.game == before
        message = shown(game, "#message")
        assert f"fan {letter(fan)}" in message and "does not fit on A♠" in message
        assert screen_text(game).replace(message, "") == text
        await pilot.press("u")  # nothing to undo: still nothing changes
        assert game.table.game == before and game.table.undos == 0

    drive(PlayApp("pysol:2"), script)


def test_empty_and_missing_fans_are_refused() -> None:
    line = [card for card, _, _ in solve("pysol:2").moves]
    start = load_position("pysol:2")
    count = next(k for k in range(len(line)) if any(
        not fan for fan in load_position("pysol:2", " ".join(map(str, line[:k]))).deal.fans))
    empty = next(f for f, fan in enumerate(start.deal.fans) if set(fan) <= set(line[:count]))

    async def script(game: PlayApp, pilot) -> None:
        before = game.table.game
        await pilot.press(letter(empty))
        assert game.table.game == before
        assert f"fan {letter(empty)} is empty" in shown(game, "#message")
        assert "·" in shown(game, f"#fan-{letter(empty)}")

    drive(PlayApp("pysol:2", " ".join(map(str, line[:count]))), script)

    async def thirteen(game: PlayApp, pilot) -> None:  # All in a Row: fans a-m
        assert "a-m play" in shown(game, "#keys")
        await pilot.press("p")
        assert game.table.game.moves == () and "no fan p" in shown(game, "#message")

    drive(PlayApp("pysol:2:all-in-a-row"), thirteen)


def test_undo_and_redo_restore_the_exact_position() -> None:
    moves = solve("pysol:2").moves[:8]

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        seen = [(table.game.state, screen_text(game).split("\n", 3)[:3])]
        for _, fan, _ in moves:
            await pilot.press(letter(fan))
            seen.append((table.game.state, screen_text(game).split("\n", 3)[:3]))
        for back in range(len(moves)):
            await pilot.press("u")
            state, _ = seen[-2 - back]
            assert table.game.state == state
            assert table.game.position.deal == Game(table.game.start,
                                                    table.game.moves).position.deal
        assert table.game.moves == () and table.undos == len(moves)
        assert shown(game, "#hole").startswith("hole  A♠")
        for step in range(1, len(moves) + 1):
            await pilot.press("r")
            assert table.game.state == seen[step][0]
            assert shown(game, "#hole") == seen[step][1][1]
        assert table.game.moves == tuple(moves)
        assert f"moves {len(moves)}   undos {len(moves)}" in shown(game, "#status")
        await pilot.press("r")
        assert "nothing to redo" in shown(game, "#message")

    drive(PlayApp("pysol:2"), script)


def test_a_click_on_a_fan_plays_its_top_card() -> None:
    async def script(game: PlayApp, pilot) -> None:
        await pilot.click("#fan-b")
        assert str(game.table.game.state.foundation) == "2S"

    drive(PlayApp("pysol:2"), script)


def test_after_moves_are_played_and_can_be_undone() -> None:
    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        assert [str(c) for c in table.game.played] == ["2S", "3S"]
        assert "score 2/51" in shown(game, "#status")
        await pilot.press("u", "u")
        assert table.game.moves == ()

    drive(PlayApp("pysol:2", "2S 3S"), script)


def test_new_deal_and_rules() -> None:
    async def script(game: PlayApp, pilot) -> None:
        assert game.table.spec == "random:41" and "random:41" in shown(game, "#message")
        await pilot.press("N")
        assert game.table.spec == "random:42" and game.table.game.moves == ()
        assert game.table.game.deal == load_position("random:42").deal
        assert "random:42" in shown(game, "#status")
        await pilot.press("question_mark")
        assert isinstance(game.screen, RulesScreen)
        await pilot.press("escape")
        assert isinstance(game.screen, Table)

    seeds = iter(range(41, 50))
    drive(PlayApp(seeds=lambda: next(seeds)), script)


# ---------------------------------------------------------------- saving


def test_the_saved_file_replays_through_check_and_after(tmp_path: Path) -> None:
    line = [card for card, _, _ in solve("pysol:2").moves]

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("u")  # 19 of the 20 moves stand
        await pilot.press("s")
        assert isinstance(game.screen, SaveScreen)
        await pilot.press("enter")
        assert isinstance(game.screen, Table)
        assert "saved 19 moves" in shown(game, "#message")

    drive(PlayApp("pysol:2", " ".join(map(str, line[:20])), folder=tmp_path), script)
    saved = tmp_path / "pysol-2.moves"
    checked = cli("check", "pysol:2", str(saved), "--json")
    assert checked.exit_code == 1, checked.output  # unfinished: a legal move remains
    verdict = json.loads(checked.output)
    assert verdict["outcome"] == "unfinished" and verdict["played"] == 19
    assert load_position("pysol:2", f"@{saved}").history == tuple(line[:19])

    async def go_on(game: PlayApp, pilot) -> None:
        assert game.table.game.played == tuple(line[:19])
        assert "score 19/51" in shown(game, "#status")

    drive(PlayApp("pysol:2", f"@{saved}"), go_on)


def test_a_save_that_fails_says_why_and_stays_open(tmp_path: Path) -> None:
    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("s")
        field = game.screen.query_one("#save-path")
        await pilot.press("Q", "u")  # typed into the name: neither quits nor undoes
        assert field.value.endswith("Qu") and game.is_running
        field.value = str(tmp_path / "no-such-folder" / "x.moves")
        await pilot.press("enter")
        assert isinstance(game.screen, SaveScreen)
        assert "cannot save there" in str(game.screen.query_one("#save-error").render())
        await pilot.press("escape")
        assert isinstance(game.screen, Table)

    drive(PlayApp("pysol:2", folder=tmp_path), script)


def test_save_asks_before_it_replaces_a_file(tmp_path: Path) -> None:
    kept = tmp_path / "mine.moves"
    kept.write_text("# not a game of this deal\n")

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("s")
        field = game.screen.query_one("#save-path")
        field.value = str(kept)
        await pilot.press("enter")  # the file exists: asked, not written
        assert isinstance(game.screen, SaveScreen)
        assert f"{kept} exists: Enter again replaces it" in \
            str(game.screen.query_one("#save-error").render())
        assert kept.read_text() == "# not a game of this deal\n"
        await pilot.press("escape")  # cancelled: still not written
        assert isinstance(game.screen, Table) and kept.read_text().startswith("# not a game")
        await pilot.press("s")
        game.screen.query_one("#save-path").value = str(kept)
        await pilot.press("enter", "enter")  # asked, then agreed
        assert isinstance(game.screen, Table)
        assert kept.read_text() == save_text(game.table.game, "pysol:2")

    drive(PlayApp("pysol:2", "2S 3S", folder=tmp_path), script)
    assert load_position("pysol:2", f"@{kept}").history == load_position("pysol:2", "2S 3S").history


def test_a_new_deal_asks_before_it_drops_a_game(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "missing", lambda: "no hints in this test")  # no prefetch

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        await pilot.press("b")  # 2♠: a game in progress
        await pilot.press("N")
        assert isinstance(game.screen, ConfirmScreen)
        assert "Drop this game (1/51, 1 moves not saved)" in \
            str(game.screen.query_one("#question").render())
        await pilot.press("n")  # kept
        assert isinstance(game.screen, Table)
        assert table.spec == "pysol:2" and table.game.moves == (TWO_OF_SPADES,)
        await pilot.press("N", "escape")  # kept again
        assert table.spec == "pysol:2" and table.game.moves == (TWO_OF_SPADES,)
        await pilot.press("N", "y")  # dropped
        assert isinstance(game.screen, Table) and table.spec == "random:41"
        assert table.game.moves == ()
        await pilot.press("N")  # nothing played on this deal: no question
        assert isinstance(game.screen, Table) and table.spec == "random:42"
        await pilot.press(letter(table.game.legal()[0].fan), "s", "enter")
        await pilot.press("N")  # saved: nothing to lose
        assert isinstance(game.screen, Table) and table.spec == "random:43"

    seeds = iter(range(41, 50))
    drive(PlayApp("pysol:2", folder=tmp_path, seeds=lambda: next(seeds)), script)


def test_a_terminal_too_small_for_every_fan_says_so() -> None:
    need = table_size(load_position("pysol:2").deal)

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        warning = table.query_one("#small")
        assert not warning.display
        for fan in range(17):  # at the size it names, every fan lies on the screen
            region = table.query_one(f"#fan-{letter(fan)}").region
            assert region.right <= need[0] and region.bottom <= need[1]
        assert table.query_one("#keys").region.bottom <= need[1]
        for size in ((need[0] - 1, need[1]), (need[0], need[1] - 1), (40, 12)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert warning.display, size
            assert str(warning.render()) == (
                f"terminal too small: the 17 fans need {need[0]}x{need[1]}, this one is "
                f"{size[0]}x{size[1]}; enlarge it (Q quits)")
        await pilot.resize_terminal(*need)
        await pilot.pause()
        assert not warning.display

    drive(PlayApp("pysol:2"), script, size=need)


# ---------------------------------------------------------------- the command


def test_bad_input_is_refused_before_the_screen_opens(tmp_path: Path) -> None:
    for args, needle in [(["pysol:0"], "pysol:0"), (["-"], "terminal"),
                         (["pysol:2", "--after", "10C"], "move 1 is illegal"),
                         (["pysol:2", "--after", "2S ZZ"],
                          "error: --after: unknown suit in card: 'ZZ'"),
                         (["pysol:2", "--after", "@-"], "terminal"),
                         (["random:1:ranks=20"], "at most 17 fans")]:
        result = cli("play", *args)
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.output and len(result.output.strip().splitlines()) == 1


def test_quitting_never_waits_for_the_engine() -> None:
    """A question still being worked out runs in a daemon thread: the process ends at
    once (a pool's thread would hold it for the full 300 s)."""
    code = "import time; from blackhole.play.engine import in_background; " \
           "in_background(time.sleep, 300); print('left')"
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=child_env(), timeout=240)
    assert done.stdout == "left\n" and time.monotonic() - began < 120


def test_play_without_a_terminal_is_one_line_exit_2() -> None:
    done = blackhole("play", "pysol:2", stdin="", timeout=60)  # stdin a pipe, no terminal
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1 and "not a terminal" in done.stderr


class Tmux:
    """`blackhole play SPEC` (pysol:2 unless told) in a real terminal of `width`×`height`
    under its own tmux server: keys sent by tmux, the screen read back."""

    def __init__(self, folder: Path, width: int, height: int, spec: str = "pysol:2") -> None:
        # a server of its own per test: a server being killed may still hold a shared name
        name = "".join(c if c.isalnum() else "-" for c in spec)
        self.tmux = ["tmux", "-L", f"blackhole-play-{os.getpid()}-{width}x{height}-{name}"]
        env = f"PYTHONPATH={ROOT / 'src'} TERM=xterm-256color"
        # COLUMNS and LINES, when set, override the terminal's own size (Textual reads them)
        command = f"cd {folder} && env -u COLUMNS -u LINES {env} {sys.executable} -m " \
                  f"blackhole play {spec}; sleep 30"
        self.run("new-session", "-d", "-s", "game", "-x", str(width), "-y", str(height),
                 command)

    def run(self, *args: str) -> str:
        return subprocess.run([*self.tmux, *args], check=True, capture_output=True,
                              text=True).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "game")

    def send(self, key: str) -> None:
        self.run("send-keys", "-t", "game", key)

    def wait_until(self, ok: Callable[[str], bool]) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if ok(now := self.screen()):
                return now
            time.sleep(0.1)
        raise AssertionError(f"never shown:\n{self.screen()}")

    def wait_for(self, text: str) -> str:
        return self.wait_until(lambda screen: text in screen)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@needs_tmux
def test_a_small_real_terminal_says_so_until_it_grows(tmp_path: Path) -> None:
    terminal = Tmux(tmp_path, 60, 20)
    try:
        small = terminal.wait_for("terminal too small")
        assert "need 69x15, this one is 60x20" in small.replace("\n", "")
        terminal.run("resize-window", "-t", "game", "-x", "80", "-y", "24")
        grown = terminal.wait_until(lambda text: "too small" not in text
                                    and "score 0/51" in text)
        assert "hole  A♠" in grown
    finally:
        terminal.close()


@needs_tmux
def test_a_real_terminal_under_tmux(tmp_path: Path) -> None:
    """The game in a real 80×24 terminal: keys sent by tmux, the screen read back."""
    terminal = Tmux(tmp_path, 80, 24)
    try:
        first = terminal.wait_for("score 0/51")
        lines = first.splitlines()
        assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
        assert "hole  A♠" in first and "pysol:2" in first and "too small" not in first
        assert " a   b   c" in first and "▸2♠" in first and "▸K♥" in first
        terminal.send("b")
        after = terminal.wait_for("score 1/51")
        assert "hole  2♠" in after and "▸3♠" in after
        terminal.send("a")
        refused = terminal.wait_for("does not fit")
        assert "score 1/51" in refused and "10♣ (fan a) does not fit on 2♠" in refused
        terminal.send("u")
        assert "hole  A♠" in terminal.wait_for("undos 1")
        terminal.send("Q")
        assert "pysol:2: 0 of 51 cards moved" in terminal.wait_for("deals it again")
    finally:
        terminal.close()


# ---------------------------------------------------------------- the hint engine

needs_engine = pytest.mark.skipif(engine.missing() is not None,
                                  reason="blackhole.questions.best is not in this build yet")


async def settle(game: PlayApp, pilot) -> None:
    """Wait until every question to the hint engine has its answer on the screen."""
    for _ in range(200):
        await game.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in game.workers):
            return
    raise AssertionError("the hint engine never settled")


def greedy_line(spec: str) -> list[Card]:
    """The first legal card, fan a first, until the game blocks or is won."""
    game = Game(load_position(spec))
    while game.legal():
        game = game.play(game.legal()[0])
    return list(game.played)


def reference_best() -> dict[int, int]:
    """The exact best scores of the unsolvable deals of pysol:1-1000, from an exhaustive
    search independent of this project."""
    with (ROOT / "tests" / "data" / "pysol-1-1000-best.csv").open(newline="") as handle:
        return {int(row["deal"]): int(row["best"]) for row in csv.DictReader(handle)}


@needs_engine
def test_a_hint_keeps_a_winnable_game_winnable() -> None:
    line = solve("pysol:2").moves[:8]

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        for _ in range(6):
            await pilot.press("H")
            await settle(game, pilot)
            assert "stays winnable" in shown(game, "#message")
            hinted, fan = table.hinted, table.hinted_fan()
            assert hinted.kind is Kind.PLAY and fan == hinted.fan
            assert f" {letter(fan)} " in shown(game, f"#fan-{letter(fan)}") + " "
            before = table.game
            await pilot.press(letter(fan))
            assert table.game.moves == (*before.moves, hinted)
            assert solve(table.game.position.deal).verdict is Verdict.SOLVED

    drive(PlayApp("pysol:2", " ".join(str(card) for card, _, _ in line)), script)


@needs_engine
def test_a_hint_answers_the_deal_on_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer for the previous deal that comes back late is dropped."""
    first_deal = load_position("pysol:2").deal
    late = threading.Event()
    asked = engine.hints_of

    def slow_for_the_first_deal(position, *args):
        if position.deal == first_deal:
            late.wait(20)
        return asked(position, *args)

    monkeypatch.setattr(engine, "hints_of", slow_for_the_first_deal)

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        await pilot.press("H", "N", "H")
        for _ in range(400):
            if shown(game, "#message").startswith("hint: play"):
                break
            await pilot.pause(0.05)
        late.set()
        await settle(game, pilot)
        assert table.spec == "random:3" and "hint: play" in shown(game, "#message")
        assert table.hinted in table.game.legal()
        card = table.game.top(table.hinted.fan).unicode()
        assert f"play {card} from fan {letter(table.hinted.fan)}" in shown(game, "#message")

    drive(PlayApp("pysol:2", seeds=lambda: 3), script)


def test_an_engine_failure_is_said_and_the_game_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*args):
        raise InternalError("the solver's line fails replay")

    monkeypatch.setattr(engine, "hints_of", fails)
    monkeypatch.setattr(engine, "missing", lambda: None)

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("H")
        await settle(game, pilot)
        assert shown(game, "#message") == "hint failed: the solver's line fails replay"
        await pilot.press("b")
        assert game.table.game.moves == (TWO_OF_SPADES,)

    drive(PlayApp("pysol:2"), script)


def losing_move(spec: str) -> tuple[list[Card], int]:
    """Along the solver's winning line, the first position with a legal move that loses
    (by the SAT solver, not the hint engine): the cards before it and that move's fan."""
    line = [card for card, _, _ in solve(spec).moves]
    game = Game(load_position(spec))
    for card in line:
        for move in game.legal():
            if move.card != card and solve(game.play(move).position.deal).verdict \
                    is Verdict.UNSOLVABLE:
                return list(game.played), move.fan
        game = game.play_card(card)
    raise AssertionError(f"no losing move along the line of {spec}")


@needs_engine
def test_the_coach_reports_the_loss_right_after_a_losing_move() -> None:
    from blackhole.questions.best import best_score

    before, fan = losing_move("pysol:2")

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        await pilot.press("w")
        await settle(game, pilot)
        assert "coach on" in shown(game, "#status")
        assert shown(game, "#coach") == "coach: still winnable"
        await pilot.press(letter(fan))
        await settle(game, pilot)
        said = shown(game, "#coach")
        exact = best_score(table.game.position, "search").best
        card = table.game.state.foundation.unicode()
        assert said == f"coach: {card} lost the game; the best still reachable is {exact}/51"
        await pilot.press("u")
        await settle(game, pilot)
        assert shown(game, "#coach") == "coach: still winnable"
        await pilot.press("w")
        assert shown(game, "#coach") == "" and "coach off" in shown(game, "#status")
        await pilot.press(letter(fan))  # lose again, then play on until blocked
        while table.game.legal():
            await pilot.press(letter(table.game.legal()[0].fan))
        await settle(game, pilot)
        text = str(game.screen.query_one("#end").render())
        assert "The best possible on this deal: 51/51." in text
        assert f"Move {len(before) + 1} ({card} from fan {letter(fan)}) lost the game: " \
               f"after it the best still reachable was {exact}/51." in text

    drive(PlayApp("pysol:2", " ".join(map(str, before))), script)


@needs_engine
def test_a_deal_without_a_first_move_ends_at_once_with_its_best() -> None:
    deal = next(n for n, best in sorted(reference_best().items()) if best == 0)

    async def script(game: PlayApp, pilot) -> None:
        await settle(game, pilot)
        assert isinstance(game.screen, EndScreen)
        text = str(game.screen.query_one("#end").render())
        assert "Blocked at 0/51" in text
        assert "That is the best possible on this deal: 0/51." in text

    drive(PlayApp(f"pysol:{deal}"), script)


@needs_engine
def test_an_unsolvable_deal_ends_blocked_with_its_exact_best_score() -> None:
    from blackhole.questions.best import best_score

    deal = 837  # the hardest of pysol:1-1000: 50 of 51 at best
    exact = reference_best()[deal]
    spec = f"pysol:{deal}"
    line = greedy_line(spec)
    assert len(line) < exact

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        table.replay_seconds = 0.01
        while table.game.legal():
            await pilot.press(letter(table.game.legal()[0].fan))
        await settle(game, pilot)
        assert isinstance(game.screen, EndScreen)
        text = str(game.screen.query_one("#end").render())
        assert f"Blocked at {len(line)}/51" in text
        assert f"The best possible on this deal: {exact}/51." in text
        found = game.screen.found
        lost = Game(table.game.start, table.game.moves[:found.lost_at])
        assert best_score(lost.position).best == exact
        assert best_score(lost.play(table.game.moves[found.lost_at]).position).best < exact
        fan = letter(table.game.moves[found.lost_at].fan)
        assert f"Move {found.lost_at + 1} ({found.lost_card.unicode()} from fan {fan}) was " \
               "the first to cost cards: after it the best still reachable was " \
               f"{found.best_after}/51." in text
        await pilot.press("b")
        while table.replaying is not None:
            await pilot.pause(0.05)
        await settle(game, pilot)
        assert table.game.score == exact and isinstance(game.screen, EndScreen)
        text = str(game.screen.query_one("#end").render())
        assert f"Blocked at {exact}/51" in text
        assert f"That is the best possible on this deal: {exact}/51." in text

    drive(PlayApp(spec), script)


@needs_engine
def test_the_end_review_names_only_a_proven_losing_move() -> None:
    """The start's best is known exactly; every other position is asked with a limit that
    has passed, so the engine proves nothing about it: no move may be named as lost."""
    from blackhole.questions.best import best_score

    start = load_position("pysol:837")
    game = Game(start)
    for card in greedy_line("pysol:837"):
        game = game.play_card(card)
    known = {(): best_score(start)}  # 50 of 51, proven: the greedy game lost cards
    open_ = review(game, known, lambda position: best_score(position, timeout=1e-4))
    assert not any(best.proven for moves, best in known.items() if moves)  # asked, open
    assert open_.best == reference_best()[837] > game.score and open_.lost_at is None
    text = str(review_text(open_, str))
    assert "left open which move cost cards" in text and "That is the best" not in text


@needs_engine
def test_the_coach_claims_no_loss_the_limit_left_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine asked with a limit that has passed proves nothing: the coach says so,
    and never that the game cannot be won (pysol:837 cannot, but that was not shown)."""
    best_of, hints_of = engine.best_of, engine.hints_of
    monkeypatch.setattr(engine, "best_of", lambda position, timeout=None:
                        best_of(position, 1e-4))
    monkeypatch.setattr(engine, "hints_of", lambda position, timeout=None:
                        hints_of(position, 1e-4))

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press("w")
        await settle(game, pilot)
        found = game.table.bests[()]
        assert not found.proven and found.upper_bound == 51
        assert shown(game, "#coach") == \
            f"coach: no win found in the time limit; a line reaches {found.best}/51"

    drive(PlayApp("pysol:837"), script)
