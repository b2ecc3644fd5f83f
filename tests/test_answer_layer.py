"""One answer layer (issue #49 part 4): the command line's `--json` and the web API's
answer to the same question are the same document with the same exit code, in two
games; the exit codes are defined once (`blackhole.base.exits`), and processes are killed in
one place (`blackhole.base.children.kill_tree`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from blackhole.base.exits import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    verdict_exit,
)
from blackhole.web.api import answer, check

from .helpers import ROOT, cli

SRC = ROOT / "src" / "blackhole"
# Each game's deal, and a position in it (a legal first move), for every question.
DEALS = {"black-hole": ("pysol:2", "2S"), "golf": ("pysol:2:golf", None)}
TIMED = ("seconds", "stats")  # how long it took and the engine's counters: not the answer


def _same_answer(question: str, deal: str, after: str | None, cli_args: list[str],
                 **query: str) -> tuple[dict, dict]:
    """The CLI's and the API's document for one question, timings left out, after
    checking that both give the same exit code."""
    given = {"deal": deal, **({"after": after} if after else {}), **query}
    served = answer(check(question, given, None))
    flags = [*(["--after", after] if after else []), *cli_args]
    done = cli(question, deal, *flags)
    assert done.exit_code == served.exit_code, (done.stdout, done.stderr, served.data)
    printed = json.loads(done.stdout)
    if isinstance(printed, dict):
        for key in TIMED:
            printed.pop(key, None), served.data.pop(key, None)
    return printed, served.data


@pytest.mark.parametrize("game", sorted(DEALS))
@pytest.mark.parametrize("question", ["solve", "best", "hint", "analyze"])
def test_the_cli_and_the_api_give_one_answer(game: str, question: str) -> None:
    deal, after = DEALS[game]
    options = {"backend": "auto"} if question in ("solve", "best") else {}
    printed, served = _same_answer(question, deal, after, ["--json", "--timeout", "60"],
                                   timeout="60", **options)
    assert printed == served
    assert printed["deal"] == deal


@pytest.mark.parametrize("game", sorted(DEALS))
def test_an_analysed_line_is_one_answer(game: str) -> None:
    deal, after = DEALS[game]
    first = answer(check("hint", {"deal": deal, **({"after": after} if after else {})},
                         None)).data["moves"][0]["card"]
    printed, served = _same_answer("analyze", deal, after, ["--json", "--line", first],
                                   line=first)
    assert printed == served and printed["line"] == "given"


@pytest.mark.parametrize("spec", ["pysol:25", "pysol:2", "pysol:1:golf", "pysol:2:golf"])
def test_the_atlas_is_one_answer(spec: str) -> None:
    printed, served = _same_answer("atlas", spec, None, ["--json"])
    assert printed == served


@pytest.mark.parametrize("game", sorted(DEALS))
def test_a_layout_and_a_position_are_one_answer(game: str) -> None:
    """`deal --format json` is the API's deal, and the position's layout."""
    deal, after = DEALS[game]
    printed, served = _same_answer("deal", deal, after, ["--format", "json"])
    assert printed == served
    shown = answer(check("position", {"deal": deal, **({"after": after} if after else {})},
                         None))
    assert shown.exit_code == EXIT_OK and shown.data["layout"] == printed


@pytest.mark.parametrize("spec", ["pysol:25", "pysol:2:golf"])
def test_a_certificate_is_one_verdict_and_exit(spec: str, tmp_path: Path) -> None:
    served = answer(check("certify", {"deal": spec, "timeout": "60"}, None))
    done = cli("certify", spec, "--out", str(tmp_path / "c"), "--json", "--timeout", "60")
    assert done.exit_code == served.exit_code == verdict_exit(served.data["verdict"])
    assert json.loads(done.stdout)[0]["verdict"] == served.data["verdict"]
    assert served.data["certified"] and served.filename.endswith(".zip")


def test_the_exit_codes_are_the_contract() -> None:
    assert (EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL, EXIT_INTERRUPTED) \
        == (0, 1, 2, 3, 4, 130)
    assert [verdict_exit(v) for v in ("solved", "unsolvable", "unknown")] == [0, 1, 3]


def _trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in SRC.rglob("*.py")}


def test_exit_codes_and_the_verdict_map_are_defined_once() -> None:
    """Only blackhole.base.exits names an EXIT_ code or maps verdicts to exit codes."""
    defined = set()
    for path, tree in _trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                if any(name.startswith("EXIT_") or name == "VERDICT_EXIT" for name in names):
                    defined.add(path.relative_to(SRC).as_posix())
            if isinstance(node, ast.Dict) and any(
                    isinstance(key, ast.Attribute) and key.attr in ("SOLVED", "UNSOLVABLE")
                    for key in node.keys) and any(
                    isinstance(value, ast.Name) and value.id.startswith("EXIT_")
                    for value in node.values):
                defined.add(path.relative_to(SRC).as_posix())
    assert defined == {"base/exits.py"}


def test_only_children_kills_a_process_group() -> None:
    killers = {path.relative_to(SRC).as_posix() for path, tree in _trees().items()
               for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and node.attr == "killpg"}
    assert killers == {"base/children.py"}
