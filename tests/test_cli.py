"""The command line through Typer's CliRunner: exit codes, output, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import EXAMPLES, blackhole, child_env, cli


def test_show_draws_unicode_and_ascii() -> None:
    result = cli("show", "pysol:2")
    assert result.exit_code == 0 and "Q♦" in result.output and "A♠" in result.output
    assert "Q♦ J♣ [10♣]" in result.output  # piped: the top card is marked in brackets
    plain = cli("show", "pysol:2", "--ascii")
    assert plain.exit_code == 0 and "QD JC [TC]" in plain.output
    assert plain.output.splitlines()[-1] == "fans run bottom -> top; [top card]"


def test_deal_writes_board_and_json_that_read_back(tmp_path) -> None:
    board = cli("deal", "pysol:2")
    assert board.output == (EXAMPLES / "pysol-2.board").read_text()
    as_json = cli("deal", "pysol:2", "--format", "json")
    path = tmp_path / "d.json"
    path.write_text(as_json.output)
    assert cli("deal", str(path)).output == board.output


def test_stdin_deal() -> None:
    text = (EXAMPLES / "pysol-2.board").read_text()
    assert cli("deal", "-", stdin=text).output == text


def test_check_accepts_our_json_and_black_hole_solve_output() -> None:
    for name in ["pysol-2.solution.json", "pysol-2.black-hole-solve.txt"]:
        result = cli("check", "pysol:2", str(EXAMPLES / name))
        assert result.exit_code == 0, result.output
        assert "won" in result.output


def test_check_plain_card_list_and_failures(tmp_path) -> None:
    moves = json.loads((EXAMPLES / "pysol-2.solution.json").read_text())["moves"]
    listing = tmp_path / "moves.txt"
    listing.write_text(" ".join(m["card"] for m in moves[:10]) + "\n")
    partial = cli("check", "pysol:2", str(listing), "--json")
    assert partial.exit_code == 1
    assert json.loads(partial.output)["played"] == 10
    swapped = [m["card"] for m in moves]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    listing.write_text(", ".join(swapped))
    illegal = cli("check", "pysol:2", str(listing), "--json")
    assert illegal.exit_code == 1 and json.loads(illegal.output)["illegal_move"] == 1


def test_solve_search_json_schema_and_exit_codes() -> None:
    solved = cli("solve", "pysol:2", "--backend", "search", "--json")
    assert solved.exit_code == 0
    data = json.loads(solved.output)
    assert set(data) == {"deal", "verdict", "moves", "backend", "solver", "seconds", "stats"}
    assert data["verdict"] == "solved" and len(data["moves"]) == 51
    assert all(set(m) == {"card", "fan"} for m in data["moves"])
    unsolvable = cli("solve", "pysol:1", "--backend", "search", "--json")
    assert unsolvable.exit_code == 1 and json.loads(unsolvable.output)["moves"] == []
    unknown = cli("solve", "pysol:837", "--backend", "search", "--timeout", "0.2")
    assert unknown.exit_code == 3 and "unknown" in unknown.output


def test_solve_pysol_format_round_trips_through_check(tmp_path) -> None:
    out = cli("solve", "pysol:2", "--backend", "search", "--format", "pysol")
    assert out.exit_code == 0 and out.output.startswith("Solved!")
    path = tmp_path / "bhs.txt"
    path.write_text(out.output)
    assert cli("check", "pysol:2", str(path)).exit_code == 0


@pytest.mark.parametrize("args", [
    ["show", "missing.board"],
    ["show", "pysol:abc"],
    ["solve", "pysol:2", "--backend", "nope"],
    ["check", "pysol:2", "no-such-solution.json"],
])
def test_bad_input_is_one_line_exit_2(args) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert "Traceback" not in result.output


def test_malformed_board_file_names_file_line_token(tmp_path) -> None:
    text = (EXAMPLES / "pysol-2.board").read_text().replace("QC 8C 2S", "QC 8C 2S 2S")
    path = tmp_path / "dup.board"
    path.write_text(text)
    result = cli("show", str(path))
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {path}:3: duplicate card: '2S'"


def test_malformed_solution_file(tmp_path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("2S 3H\nQQ\n")
    result = cli("check", "pysol:2", str(path))
    assert result.exit_code == 2 and f"{path}:2" in result.output and "'QQ'" in result.output


def test_a_generalised_deck_is_written_as_a_board_with_its_ranks(tmp_path) -> None:
    path = tmp_path / "five.json"
    fans = [["2S", "3S", "4S"], ["5S", "AH", "2H"], ["3H", "4H", "5H"], ["AD", "2D", "3D"],
            ["4D", "5D", "AC"], ["2C", "3C", "4C"], ["5C"]]
    five = {"foundation": "AS", "fans": fans, "ranks": 5}
    path.write_text(json.dumps(five))
    board = cli("deal", str(path))
    assert board.exit_code == 0 and board.output.startswith("Ranks: 5\nFoundations: AS\n")
    (tmp_path / "five.board").write_text(board.output)
    again = cli("deal", str(tmp_path / "five.board"), "--format", "json")
    assert again.exit_code == 0 and json.loads(again.output) == five
    path.write_text(json.dumps({"foundation": "AS", "fans": [["101H"]], "ranks": 101}))
    refused = cli("deal", str(path))
    assert refused.exit_code == 2 and '"ranks" must be a whole number' in refused.stderr
    assert refused.stderr.count("\n") == 1


@pytest.mark.parametrize(("backend", "flag", "value", "owner"), [
    ("search", "--solver", "glucose4", "auto, sat, maxsat"),
    ("sat", "--budget", "100", "auto, look"),
    ("sat", "--model", "circuit", "cpsat"),
    ("sat", "--workers", "2", "cpsat"),
    ("cpsat", "--solver-cmd", "cadical -q", "external"),
    ("search", "--features", "none", "sat, cpsat, external, kissat, maxsat"),
])
def test_an_option_of_another_backend_is_refused(backend, flag, value, owner) -> None:
    result = cli("solve", "pysol:1", "--backend", backend, flag, value)
    assert result.exit_code == 2
    assert result.stderr == f"error: {flag}: does not apply to the {backend} backend " \
                            f"(it is for {owner})\n"


def test_options_of_the_chosen_backend_are_taken() -> None:
    result = cli("solve", "pysol:2", "--backend", "cpsat", "--model", "boolean",
                 "--workers", "2", "--seed", "5", "--features", "none", "--json")
    stats = json.loads(result.stdout)["stats"]
    assert result.exit_code == 0
    assert (stats["model"], stats["workers"], stats["seed"], stats["features"]) == \
        ("boolean", 2, 5, [])


@pytest.mark.parametrize("backend", ["sat", "cpsat", "search", "external"])
def test_a_zero_timeout_is_refused_by_every_backend(backend) -> None:
    result = cli("solve", "pysol:1", "--backend", backend, "--timeout", "0")
    assert result.exit_code == 2
    assert result.stderr == ("error: --timeout: must be a positive, finite number of seconds: "
                             "'0.0'\n")


def test_encode_refuses_options_of_another_format_and_unwritable_files(tmp_path) -> None:
    cases = [(["--model", "circuit"], "error: --model: applies to format cpsat only"),
             (["--format", "problem-json", "--features", "none"],
              "error: --features: applies to format dimacs or cpsat only"),
             (["--format", "dimacs", "--out", str(tmp_path)], f"error: {tmp_path}: cannot write")]
    for options, message in cases:
        result = cli("encode", "pysol:1", *options)
        assert result.exit_code == 2 and result.stderr.startswith(message)
        assert result.stderr.count("\n") == 1


def test_version_and_python_dash_m() -> None:
    from blackhole import __version__

    assert cli("--version").output == f"blackhole {__version__}\n"
    done = blackhole("--version")
    assert done.returncode == 0 and done.stdout == f"blackhole {__version__}\n"


def test_solve_ascii_prints_plain_cards() -> None:
    result = cli("solve", "pysol:2", "--ascii")
    assert result.exit_code == 0
    assert "  1. 2S from fan 2" in result.output and "♠" not in result.output


def test_unknown_in_black_hole_solve_format_is_intractable() -> None:
    result = cli("solve", "pysol:837", "--backend", "search", "--timeout", "0.05",
                 "--format", "pysol")
    assert result.exit_code == 3 and result.output == "Intractable!\n"


def test_help_shows_no_type_after_flags() -> None:
    text = cli("solve", "--help").output
    assert "<bool>" not in text and "--json" in text and "--ascii" in text


def test_solve_from_a_position_replays_from_there() -> None:
    full = json.loads(cli("solve", "pysol:2", "--json").output)["moves"]
    first = " ".join(move["card"] for move in full[:10])
    result = cli("solve", "pysol:2", "--after", first, "--json")
    assert result.exit_code == 0
    rest = [move["card"] for move in json.loads(result.output)["moves"]]
    assert len(rest) == 41
    check = cli("check", "pysol:2", "-", stdin=first + " " + " ".join(rest))
    assert check.exit_code == 0


def test_solve_after_an_illegal_move_is_a_usage_error() -> None:
    result = cli("solve", "pysol:2", "--after", "KH QS")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: --after")


# Start-up (issue #12): a command loads its own module, and `solve` with the sat backend
# none of the heavy parts of the library or its dependencies.
NOT_FOR_SOLVE = ("ortools", "matplotlib", "dask", "distributed", "textual", "pebble", "numpy",
                 "rich", "blackhole.bench", "blackhole.certificates", "blackhole.drat",
                 "blackhole.questions.best", "blackhole.questions.advice", "blackhole.play",
                 "blackhole.cli.bench",
                 "blackhole.cli.certificates", "blackhole.cli.deals", "blackhole.cli.play",
                 "blackhole.cli.questions")

_MODULES_AFTER = """
import json, sys
from blackhole.cli import app
try:
    app(sys.argv[1:], prog_name="blackhole")
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _fresh_process(*args: str):
    """Run the command line in a new Python, stdout piped; return its stdout, exit code and
    every module it imported."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _MODULES_AFTER, *args], capture_output=True,
                          text=True, env=child_env(), timeout=120)  # piped: no terminal
    report = json.loads(done.stderr.splitlines()[-1])
    return done.stdout, report["code"], set(report["modules"])


def test_solve_loads_no_heavy_module() -> None:
    out, code, modules = _fresh_process("solve", "pysol:2")
    assert code == 0 and out.startswith("solved (auto: look answered")
    assert "  1. 2♠ from fan 2\n" in out
    assert {"blackhole.backends.auto", "blackhole.look", "blackhole.cli.solving"} <= modules
    assert "pysat.solvers" not in modules  # the look settled it: no SAT solver was loaded
    loaded = sorted(m for m in modules if m.split(".")[0] in NOT_FOR_SOLVE
                    or any(m == heavy or m.startswith(heavy + ".") for heavy in NOT_FOR_SOLVE))
    assert loaded == []


def test_help_and_typos_know_every_command_in_a_fresh_process() -> None:
    from blackhole.cli.commands import COMMANDS

    out, code, modules = _fresh_process("--help")
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line]
    assert code == 0 and listed == list(COMMANDS)
    out, code, _ = _fresh_process("sovle", "pysol:2")
    assert code == 2  # "No such command 'sovle'. Did you mean 'solve'?" on stderr
    _, code, modules = _fresh_process("check", "--help")
    assert code == 0 and "blackhole.cli.deals" in modules and "blackhole.cli.bench" not in modules


def test_the_command_table_is_the_one_list_of_the_commands() -> None:
    """Every command module is in the table, every entry names a function of its module,
    and no module registers a command of its own beside the table."""
    import importlib

    import blackhole.cli
    from blackhole.cli.commands import COMMANDS, app

    shared = {"__init__", "commands", "guard", "output", "options"}
    present = {path.stem for path in Path(blackhole.cli.__file__).parent.glob("*.py")}
    assert present - shared == {target.partition(":")[0] for target in COMMANDS.values()}
    for target in COMMANDS.values():
        module, _, function = target.partition(":")
        callback = getattr(importlib.import_module(f"blackhole.cli.{module}"), function)
        assert callable(callback) and callback.__module__ == f"blackhole.cli.{module}"
    assert app.registered_commands == []


def test_piped_text_without_rich_is_what_rich_prints() -> None:
    import io

    from rich.console import Console
    from rich.text import Text

    from blackhole.cli.output import PIPED_WIDTH, Styled, card_piece, plain_as_rich
    from blackhole.model.cards import Card

    solved = Styled("solved (sat/glucose3 in 0.010 s)\n", style="bold green")
    for number, card in enumerate([Card(13, "H"), Card(1, "S"), Card(10, "D")], start=1):
        solved.append(f"{number:>3}. ").append(*card_piece(card, False)).append(" from fan 3\n")
    solved.append("51 of 51 cards moved; replayed by the rules engine")
    cases = [solved, Styled("x" * PIPED_WIDTH), Styled("♥" * PIPED_WIDTH),
             Styled("x" * (PIPED_WIDTH + 1)), Styled("中" * 61), Styled("中" * 60),
             Styled("tab\there"), Styled("a\rb"), Styled("unknown: " + "why " * 40),
             Text("right", justify="right"), Text("K♥ plain", style="red"), "[bold]markup"]
    fast = []
    for number, renderable in enumerate(cases):
        rich_out = io.StringIO()
        Console(file=rich_out, highlight=False, width=PIPED_WIDTH).print(renderable)
        ours = plain_as_rich(renderable)
        if ours is not None:
            fast.append(number)
            assert ours == rich_out.getvalue(), repr(renderable)
    assert fast == [0, 1, 2, 5, 10]  # the rest (too wide, a tab, a control character,
    # justified, markup) is left to Rich


@pytest.mark.parametrize("command", ["play", "atlas", "solve", "best"])
def test_help_names_every_game_the_command_takes(command: str) -> None:
    """The games a command's help names come from the games table (and, for atlas, the
    atlases shipped), so a game added there is named without another edit."""
    from blackhole.atlas import shipped_games
    from blackhole.model.games import DEFAULT_GAME, GAME_NAMES

    shown = " ".join(cli(command, "--help").output.replace("│", " ").split())
    games = shipped_games() if command == "atlas" else GAME_NAMES
    for name in (n for n in games if n != DEFAULT_GAME.name):
        assert name in shown.replace("- ", "-"), (command, name)
