"""`blackhole play`: real games driven through Textual's headless pilot, and one in a real
terminal under tmux."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blackhole.cli import app as cli
from blackhole.deal import load_position
from blackhole.pipeline import solve
from blackhole.play.app import EndScreen, PlayApp, RulesScreen, SaveScreen, Table
from blackhole.play.board import FAN_LETTERS
from blackhole.rules import Game, Outcome

from .conftest import ROOT

SIZE = (80, 24)
Script = Callable[[PlayApp, object], Awaitable[None]]


def drive(game: PlayApp, script: Script) -> None:
    """Run `game` headless at 80×24 and let `script(app, pilot)` play it."""

    async def main() -> None:
        async with game.run_test(size=SIZE) as pilot:
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


def letter(fan: int) -> str:
    return FAN_LETTERS[fan]


def illegal_fan(game: Game) -> int:
    """A fan whose top card does not fit on the hole."""
    legal = {fan for _, fan in game.legal()}
    return next(fan for fan in range(len(game.deal.fans))
                if fan not in legal and game.top(fan) is not None)


# ---------------------------------------------------------------- playing


def test_pysol_2_played_to_a_win_from_the_solvers_moves() -> None:
    moves = solve("pysol:2").moves

    async def script(game: PlayApp, pilot) -> None:
        assert "score 0/51" in shown(game, "#status")
        assert "pysol:2" in shown(game, "#status")
        await pilot.press(*(letter(fan) for _, fan in moves))
        await pilot.pause()
        assert game.table.game.played == tuple(card for card, _ in moves)
        assert game.table.game.outcome is Outcome.WON
        assert isinstance(game.screen, EndScreen)
        assert "You won: 51/51" in str(game.screen.query_one("#end").render())
        await pilot.press("escape")
        assert "score 51/51" in shown(game, "#status") and "moves 51" in shown(game, "#status")

    drive(PlayApp("pysol:2"), script)


def test_the_screen_shows_the_hole_every_fan_and_the_playable_cards() -> None:
    async def script(game: PlayApp, pilot) -> None:
        text = screen_text(game)
        assert "hole  A♠" in text
        deal = game.table.game.deal
        for fan, cards in enumerate(deal.fans):
            column = shown(game, f"#fan-{letter(fan)}")
            assert column.split()[0] == letter(fan)
            assert [c.unicode() for c in cards] == column.replace("▸", " ").split()[1:]
        for card, fan in game.table.game.legal():  # 2♠, 2♥ and K♥ fit the A♠
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
    line = [card for card, _ in solve("pysol:2").moves]
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
    moves = solve("pysol:2").moves[:12]

    async def script(game: PlayApp, pilot) -> None:
        table = game.table
        seen = [(table.game.state, screen_text(game).split("\n", 3)[:3])]
        for _, fan in moves:
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
        assert table.game.moves == tuple(fan for _, fan in moves)
        assert f"moves {len(moves)}   undos {len(moves)}" in shown(game, "#status")
        await pilot.press("r")
        assert "nothing to redo" in shown(game, "#message")

    drive(PlayApp("pysol:2"), script)


def test_a_click_on_a_fan_plays_its_top_card() -> None:
    async def script(game: PlayApp, pilot) -> None:
        await pilot.click("#fan-b")
        assert str(game.table.game.state.hole) == "2S"

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
    moves = solve("pysol:2").moves
    runner = CliRunner()

    async def script(game: PlayApp, pilot) -> None:
        await pilot.press(*(letter(fan) for _, fan in moves[:20]))
        await pilot.press("u")  # 19 moves stand
        await pilot.press("s")
        assert isinstance(game.screen, SaveScreen)
        await pilot.press("enter")
        assert isinstance(game.screen, Table)
        assert "saved 19 moves" in shown(game, "#message")

    drive(PlayApp("pysol:2", folder=tmp_path), script)
    saved = tmp_path / "pysol-2.moves"
    checked = runner.invoke(cli, ["check", "pysol:2", str(saved), "--json"])
    assert checked.exit_code == 1, checked.output  # unfinished: a legal move remains
    verdict = json.loads(checked.output)
    assert verdict["outcome"] == "unfinished" and verdict["played"] == 19
    position = load_position("pysol:2", f"@{saved}")
    assert position.history == tuple(card for card, _ in moves[:19])

    async def finish(game: PlayApp, pilot) -> None:
        assert game.table.game.score == 19
        await pilot.press(*(letter(fan) for _, fan in moves[19:]))
        await pilot.press("escape", "s", "enter")

    drive(PlayApp("pysol:2", f"@{saved}", folder=tmp_path), finish)
    won = runner.invoke(cli, ["check", "pysol:2", str(tmp_path / "pysol-2-2.moves")])
    assert won.exit_code == 0 and "won" in won.output


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


# ---------------------------------------------------------------- the command


def test_bad_input_is_refused_before_the_screen_opens(tmp_path: Path) -> None:
    runner = CliRunner()
    for args, needle in [(["pysol:0"], "pysol:0"), (["-"], "terminal"),
                         (["pysol:2", "--after", "10C"], "move 1 is illegal"),
                         (["pysol:2", "--after", "@-"], "terminal"),
                         (["random:1:ranks=20"], "at most 17 fans")]:
        result = runner.invoke(cli, ["play", *args])
        assert result.exit_code == 2, (args, result.output)
        assert needle in result.output and len(result.output.strip().splitlines()) == 1


def test_quitting_never_waits_for_the_engine() -> None:
    """A question still being worked out runs in a daemon thread: the process ends at
    once (a pool's thread would hold it for the full 30 s)."""
    code = "import time; from blackhole.play.engine import in_background; " \
           "in_background(time.sleep, 30); print('left')"
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60)
    assert done.stdout == "left\n" and time.monotonic() - began < 20


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_real_terminal_under_tmux(tmp_path: Path) -> None:
    """The game in a real 80×24 terminal: keys sent by tmux, the screen read back."""
    socket = f"blackhole-play-{os.getpid()}"
    tmux = ["tmux", "-L", socket]
    env = f"PYTHONPATH={ROOT / 'src'} TERM=xterm-256color"
    command = f"cd {tmp_path} && env {env} {sys.executable} -m blackhole play pysol:2; " \
              "sleep 30"

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "game"], check=True,
                              capture_output=True, text=True).stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if text in (now := screen()):
                return now
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never showed:\n{screen()}")

    subprocess.run([*tmux, "new-session", "-d", "-s", "game", "-x", "80", "-y", "24",
                    command], check=True)
    try:
        first = wait_for("score 0/51")
        lines = first.splitlines()
        assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
        assert "hole  A♠" in first and "pysol:2" in first
        assert " a   b   c" in first and "▸2♠" in first and "▸K♥" in first
        subprocess.run([*tmux, "send-keys", "-t", "game", "b"], check=True)
        after = wait_for("score 1/51")
        assert "hole  2♠" in after and "▸3♠" in after
        subprocess.run([*tmux, "send-keys", "-t", "game", "a"], check=True)
        refused = wait_for("does not fit")
        assert "score 1/51" in refused and "10♣ (fan a) does not fit on 2♠" in refused
        subprocess.run([*tmux, "send-keys", "-t", "game", "u"], check=True)
        assert "hole  A♠" in wait_for("undos 1")
        subprocess.run([*tmux, "send-keys", "-t", "game", "Q"], check=True)
        assert "pysol:2: 0 of 51 cards moved" in wait_for("deals it again")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
