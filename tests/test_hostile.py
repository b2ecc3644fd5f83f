"""Hostile and careless input, as a new user or an attacker would try it.

Every case is one real command line. Each must end with its documented exit code, exactly
one line on stderr, and no traceback: exit 1 only ever means "unsolvable" or "check
failed", 2 is bad input or usage, 3 unknown, 4 an internal error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .helpers import EXAMPLES, blackhole, child_env


@dataclass(frozen=True)
class Case:
    name: str
    args: list[str]  # after `blackhole`; "{tmp}" is replaced by the case's folder
    code: int
    setup: Callable[[Path], None] | None = None
    stdin: str | None = None
    says: str = ""  # a phrase the one stderr line must contain


def _write(name: str, text: str | bytes) -> Callable[[Path], None]:
    def setup(folder: Path) -> None:
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return setup


def _script(name: str, body: str) -> Callable[[Path], None]:
    def setup(folder: Path) -> None:
        path = folder / name
        path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
        path.chmod(0o755)
    return setup


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "deal.fifo")


PYSOL_2 = (EXAMPLES / "pysol-2.board").read_text(encoding="utf-8")
NESTED_JSON = "[" * 100_000 + "]" * 100_000


def _thousand_ranks() -> str:
    """The largest deck JSON allows: 1000 ranks, 3,999 cards to play."""
    cards = [f"{'A' if rank == 1 else rank}{suit}" for suit in "CDHS"
             for rank in range(1, 1001) if (rank, suit) != (1, "S")]
    return json.dumps({"foundation": "AS", "ranks": 1000,
                       "fans": [cards[i:i + 3] for i in range(0, len(cards), 3)]})

CASES = [
    # numbers and limits
    Case("timeout inf", ["solve", "pysol:2", "--timeout", "inf"], 2, says="--timeout"),
    Case("timeout nan", ["solve", "pysol:2", "--timeout", "nan"], 2, says="--timeout"),
    Case("timeout negative", ["solve", "pysol:2", "--timeout", "-1"], 2, says="--timeout"),
    Case("seed too big for CP-SAT", ["solve", "pysol:2", "--backend", "cpsat", "--seed",
                                     "2147483648"], 2, says="--seed"),
    Case("jobs 0", ["bench", "pysol:1", "--jobs", "0"], 2, says="--jobs"),
    Case("unknown option", ["solve", "pysol:2", "--frobnicate"], 2, says="--help"),
    Case("missing argument", ["solve"], 2, says="--help"),
    Case("unknown command", ["sovle", "pysol:2"], 2, says="--help"),
    Case("empty feature list", ["solve", "pysol:2", "--features", ",,,"], 2,
         says="--features"),
    Case("option of another backend", ["solve", "pysol:2", "--model", "boolean"], 2,
         says="--model"),
    Case("unknown backend variant", ["solve", "pysol:2", "--backend", "search:fast"], 2,
         says="--backend"),
    # specs
    Case("superscript digit", ["show", "pysol:²"], 2),
    Case("5,000-digit game number", ["show", "pysol:" + "9" * 5000], 2),
    Case("5,000-digit seed", ["show", "random:" + "9" * 5000], 2),
    Case("negative game", ["show", "pysol:-3"], 2),
    Case("no such file", ["show", "{tmp}/nothing.board"], 2),
    Case("a folder as a deal", ["show", "{tmp}"], 2, says="directory"),
    Case("certify of commas", ["certify", ",,,", "--out", "{tmp}/c"], 2),
    # files
    Case("deeply nested JSON", ["show", "{tmp}/nested.json"], 2,
         setup=_write("nested.json", NESTED_JSON)),
    Case("JSON of the wrong shape", ["show", "{tmp}/shape.json"], 2,
         setup=_write("shape.json", '{"fans": {"a": 1}}')),
    Case("binary junk", ["show", "{tmp}/junk.board"], 2,
         setup=_write("junk.board", bytes(range(256)) * 10)),
    Case("30 MB board", ["show", "{tmp}/big.board"], 2, says="MB",
         setup=_write("big.board", "Foundations: AS\n" + "QD " * 10_000_000)),
    Case("comment after the cards", ["show", "{tmp}/comment.board"], 0,
         setup=_write("comment.board", PYSOL_2.replace("QD JC TC", "QD JC TC  # first fan"))),
    Case("a named pipe", ["show", "{tmp}/deal.fifo"], 0, setup=_fifo),
    Case("a 1000-rank deck", ["solve", "{tmp}/big.json", "--timeout", "5"], 2,
         says='"ranks" must be a whole number from 2 to 100',
         setup=lambda folder: _write("big.json", _thousand_ranks())(folder)),
    # outside answers and formats
    Case("external solver that lies UNSAT", [
        "solve", "pysol:2", "--backend", "external", "--solver-cmd", "{tmp}/liar"], 3,
        setup=_script("liar", "print('s UNSATISFIABLE')\nraise SystemExit(20)\n")),
    Case("external solver that lies SAT", [
        "solve", "pysol:2", "--backend", "external", "--solver-cmd", "{tmp}/liar"], 4,
        setup=_script("liar", "print('s SATISFIABLE')\nprint('v 1 2 3 0')\n"
                              "raise SystemExit(10)\n")),
    Case("bench on a bad Dask address", ["bench", "pysol:1", "--dask", "garbage",
                                        "--out", "{tmp}/r.jsonl"], 2),
    Case("check of black-hole-solve's Unsolved!", ["check", "pysol:2", "{tmp}/unsolved.txt"],
         2, says="holds no moves", setup=_write("unsolved.txt", "Unsolved!\n")),
]


def _run(case: Case, folder: Path) -> subprocess.CompletedProcess:
    if case.setup is not None:
        case.setup(folder)
    args = [arg.replace("{tmp}", str(folder)) for arg in case.args]
    if "deal.fifo" in " ".join(args):  # a writer on the other end of the pipe
        writer = subprocess.Popen(["sh", "-c", f"cat > '{folder}/deal.fifo'"],
                                  stdin=subprocess.PIPE, text=True)
        writer.stdin.write(PYSOL_2)
        writer.stdin.close()
    return blackhole(*args, stdin=case.stdin, cwd=folder, timeout=120)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_input_gets_one_line_and_its_exit_code(case: Case, tmp_path: Path) -> None:
    done = _run(case, tmp_path)
    assert "Traceback" not in done.stderr
    assert done.returncode == case.code, done.stderr
    if case.code in (2, 4):  # an error: one line on stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        assert case.says in lines[0]
        assert len(lines[0]) < 300
    else:  # a verdict (or success) is told on stdout
        assert done.stderr == "" and case.says in done.stdout


def test_a_bug_is_exit_4_with_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    # A bug planted in a command: the guard turns it into one line and exit 4.
    env = child_env()
    code = ("from blackhole.cli import app; import blackhole.cli.deals as d; "
            "d.load_position = lambda *given: 1 / 0; "
            "app(['show', 'pysol:2'], prog_name='blackhole')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 4
    assert done.stderr.count("\n") == 1 and "ZeroDivisionError" in done.stderr
    debug = subprocess.run([sys.executable, "-c", code.replace("['show'", "['--debug', 'show'")],
                           capture_output=True, text=True, env=env)
    assert debug.returncode == 4 and "Traceback" in debug.stderr


def test_a_closed_pipe_keeps_the_verdict(tmp_path: Path) -> None:
    env = child_env()
    for spec, code in (("pysol:2", 0), ("pysol:837", 1)):
        shell = (f"{sys.executable} -m blackhole solve {spec} | head -1 >/dev/null; "
                 "echo ${PIPESTATUS[0]}")
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, env=env)
        assert done.stdout.strip() == str(code)
        assert done.stderr == ""


@pytest.mark.parametrize("variable,args", [
    ("BLACKHOLE_LOOK_ENGINE", ["solve", "pysol:2"]),
    ("BLACKHOLE_PROBE_ENGINE", ["solve", "pysol:2"]),  # its deprecated name, when alone
    ("BLACKHOLE_DRAT_ENGINE", ["certify", "pysol:1", "--out", "{tmp}/c"]),
])
def test_a_bad_engine_variable_is_bad_input(variable: str, args: list[str],
                                            tmp_path: Path, monkeypatch) -> None:
    """An engine switch read from the environment is input like an option: a value
    outside its choices is one line naming the variable, exit 2, before any work."""
    monkeypatch.delenv("BLACKHOLE_LOOK_ENGINE", raising=False)
    monkeypatch.setenv(variable, "fortran")
    done = _run(Case("engine", args, 2), tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and variable in lines[0] and "fortran" in lines[0]
    assert not (tmp_path / "c").exists()


