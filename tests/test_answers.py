"""Answers carry their position, and input mistakes are named: saved answers from a
position replay through `check`, moves count from the deal's start in every command, a
JSON position's history must be legal, and the smaller input fixes of issue 19.

Exit codes and files are checked on real processes; the answers through the API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from blackhole.backends import Options
from blackhole.base.errors import InputError
from blackhole.model.cards import parse_card
from blackhole.model.formats import parse_position_text, position_json
from blackhole.model.positions import load_position
from blackhole.model.rules import replay

from .helpers import EXAMPLES, blackhole, cli

SOLUTION = [m["card"] for m in
            json.loads((EXAMPLES / "pysol-2.solution.json").read_text())["moves"]]
AFTER = " ".join(SOLUTION[:8])


def in_process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The command through Click's runner (the same exit codes, no start-up cost), as a
    CompletedProcess."""
    done = cli(*args, stdin=stdin)
    return subprocess.CompletedProcess(args, done.exit_code, done.stdout, done.stderr)


def one_error(done: subprocess.CompletedProcess) -> str:
    """Exit 2 with one line on stderr and nothing on stdout."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    return done.stderr.strip()


# ---------------------------------------------------------------- positions carried through


@pytest.mark.parametrize("command", ["solve", "best"])
def test_an_answer_from_a_position_names_it_and_check_replays_it(tmp_path: Path,
                                                                  command: str) -> None:
    done = blackhole(command, "pysol:2", "--after", AFTER, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["deal"] == "pysol:2" and data["moved"] == 8
    assert [move["card"] for move in data["after"]] == SOLUTION[:8]
    deal = load_position("pysol:2").deal
    assert [move["fan"] for move in data["after"]] == \
        [deal.where()[parse_card(card)][0] for card in SOLUTION[:8]]
    whole = [move["card"] for move in data["after"] + data["moves"]]
    assert replay(deal, [parse_card(card) for card in whole]).won  # the rules' verdict
    saved = tmp_path / "answer.json"
    saved.write_text(done.stdout)
    checked = blackhole("check", "pysol:2", str(saved), "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    verdict = json.loads(checked.stdout)
    assert (verdict["outcome"], verdict["played"], verdict["moved"]) == ("won", 51, 8)
    assert verdict["after"] == data["after"]
    same = in_process("check", "pysol:2", str(saved), "--after", AFTER)  # the same moves
    assert same.returncode == 0 and same.stdout.strip() == "won: all 51 cards moved"
    other = one_error(in_process("check", "pysol:2", str(saved), "--after", SOLUTION[0]))
    assert "starts after other moves than --after names" in other
    assert str(saved) in other


def test_an_answer_from_a_position_file_replays_from_that_file(tmp_path: Path) -> None:
    board = tmp_path / "p.board"
    board.write_text(blackhole("deal", "pysol:2", "--after", AFTER).stdout)
    done = blackhole("solve", str(board), "--after", " ".join(SOLUTION[8:10]), "--json")
    data = json.loads(done.stdout)
    assert done.returncode == 0 and (data["deal"], data["moved"]) == (str(board), 10)
    assert [move["card"] for move in data["after"]] == SOLUTION[8:10]
    saved = tmp_path / "answer.json"
    saved.write_text(done.stdout)
    checked = blackhole("check", str(board), str(saved))
    assert checked.returncode == 0 and checked.stdout.strip() == "won: all 51 cards moved"
    # the answer does not start from the deal: replaying its "after" there is refused
    assert "move 1 is illegal" in one_error(in_process("check", "pysol:2", str(saved)))


def test_a_fresh_deal_keeps_the_solve_schema() -> None:
    data = json.loads(blackhole("solve", "pysol:2", "--json").stdout)
    assert "after" not in data and "moved" not in data


def test_move_numbers_count_from_the_start_of_the_deal() -> None:
    after = " ".join(SOLUTION[:40])
    printed = {command: in_process(command, "pysol:2", "--after", after, "--ascii").stdout
               for command in ("solve", "best", "analyze")}
    for command, text in printed.items():
        numbers = [int(line.split(".")[0]) for line in text.splitlines()
                   if line.split(".")[0].strip().isdigit()]
        assert numbers == list(range(41, 52)), (command, text)
    assert printed["solve"].splitlines()[-1] == \
        "51 of 51 cards moved; replayed by the rules engine"
    analysed = json.loads(in_process("analyze", "pysol:2", "--after", after, "--json").stdout)
    assert [step["move"] for step in analysed["steps"]] == list(range(41, 52))


def test_check_numbers_an_illegal_move_from_the_start_of_the_deal(tmp_path: Path) -> None:
    rest = tmp_path / "rest.txt"
    rest.write_text(" ".join([*SOLUTION[8:10], "QC"]))
    done = blackhole("check", "pysol:2", str(rest), "--after", AFTER, "--json")
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["illegal_move"] == 11 and data["moved"] == 8
    text = blackhole("check", "pysol:2", str(rest), "--after", AFTER)
    assert text.stdout.startswith("illegal at move 11: QC")


def test_a_json_history_must_be_a_legal_line(tmp_path: Path) -> None:
    data = position_json(load_position("pysol:2", "2S 3S 2H 3H"))
    assert data["history"] == ["2S", "3S", "2H", "3H"]
    data["history"] = ["2H", "3S", "2S", "3H"]  # another legal order of the same cards
    assert parse_position_text(json.dumps(data), "p.json").history == \
        tuple(map(parse_card, data["history"]))
    data["history"] = ["3S", "2S", "2H", "3H"]  # 3S cannot follow the A♠
    with pytest.raises(InputError, match="\"history\" move 1 is illegal: 3S is not "
                                         "rank-adjacent to AS"):
        parse_position_text(json.dumps(data), "p.json")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert "move 1 is illegal" in one_error(blackhole("solve", str(path)))


# ---------------------------------------------------------------- input fixes


def test_random_seeds_run_to_ten_to_the_twenty() -> None:
    assert load_position("random:100000000000000000000").moved == 0
    done = blackhole("show", "random:100000000000000000001")
    assert "<= 100000000000000000000" in one_error(done)


def test_stdin_is_read_once(tmp_path: Path) -> None:
    board = blackhole("deal", "pysol:2", "--after", "2S").stdout
    line = one_error(blackhole("show", "-", "--after", "@-", stdin=board))
    assert line == "error: <stdin>: standard input can feed only one input, but the deal " \
                   "and --after both read it: save one to a file: '-'"
    for args in (["solve", "-", "--after", "@-"], ["check", "-", "-"],
                 ["check", "pysol:2", "-", "--after", "@-"], ["analyze", "-", "--line", "@-"]):
        line = one_error(in_process(*args, stdin=board))
        assert "standard input can feed only one input" in line, args
    assert in_process("show", "-", "--after", "3S", stdin=board).returncode == 0


def test_the_hole_card_is_named_as_such() -> None:
    line = one_error(blackhole("show", "pysol:2", "--after", "AS"))
    assert line == "error: --after: move 1 is illegal: AS is the hole's top card, not on a " \
                   "fan: 'AS'"


def test_a_json_position_error_speaks_json(tmp_path: Path) -> None:
    data = position_json(load_position("pysol:2", " ".join(SOLUTION[:30])))
    data["fans"] = [fan for fan in data["fans"] if fan]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    line = one_error(blackhole("show", str(path)))
    assert "write an empty fan as []" in line and "'-'" not in line


def test_timeout_help_and_check_agree() -> None:
    assert "positive" in one_error(blackhole("solve", "pysol:2", "--timeout", "0"))
    for command in ("solve", "best", "hint", "analyze"):
        shown = in_process(command, "--help").stdout
        assert "x>=0.0" not in shown and "(> 0)" in shown, command
        assert "positive" in one_error(in_process(command, "pysol:2", "--timeout", "0"))


def test_json_and_the_pysol_format_are_not_both_printed() -> None:
    line = one_error(blackhole("solve", "pysol:2", "--json", "--format", "pysol"))
    assert "--json and --format pysol" in line
    pysol = blackhole("solve", "pysol:2", "--format", "pysol")
    assert pysol.returncode == 0 and pysol.stdout.startswith("Solved!")


def test_a_feature_given_as_a_string_is_one_feature() -> None:
    assert Options(features="symmetry").features == frozenset({"symmetry"})
    assert Options(features=["domain", "symmetry"]).features == {"domain", "symmetry"}
