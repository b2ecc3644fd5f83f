"""Small promises at the edges of the command line and the API: each answer as the README
says it, through real processes where the process matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import blackhole
from blackhole.look import engine_in_use
from blackhole.model.formats import deal_json

from .helpers import ROOT, child_env, default_sigint, nearly_sorted_deal, runnable_backends
from .helpers import blackhole as run


def test_after_a_saved_answer_plays_its_after_then_its_moves(tmp_path) -> None:
    """`--after @FILE` reads a position's `solve --json` as `check` does."""
    saved = run("solve", "pysol:2", "--after", "2S 3H", "--json")
    assert saved.returncode == 0, saved.stderr
    answer = tmp_path / "answer.json"
    answer.write_text(saved.stdout)
    assert run("check", "pysol:2", str(answer)).returncode == 0
    data = json.loads(run("best", "pysol:2", "--after", f"@{answer}", "--json").stdout)
    assert data["moved"] == 51 and data["best"] == 51  # all of it played: the position won
    assert len(data["after"]) == 51 and [m["card"] for m in data["after"][:2]] == ["2S", "3H"]


@pytest.mark.parametrize("backend", runnable_backends())
def test_an_answer_at_a_spent_limit_is_unknown_and_names_its_engine(backend: str) -> None:
    solution = blackhole.solve(nearly_sorted_deal(30, 1), backend, timeout=1e-6)
    assert solution.verdict is blackhole.Verdict.UNKNOWN
    assert solution.result.solver and solution.result.backend == backend


def test_an_unknown_answer_says_what_ran_not_what_answered(tmp_path) -> None:
    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps(deal_json(nearly_sorted_deal(60, 1))))
    texts = set()
    for _ in range(2):
        done = run("solve", str(deck), "--timeout", "0.5", "--ascii")
        assert done.returncode == 3, done.stderr
        line = done.stdout.strip().splitlines()[-1]
        assert line.startswith("unknown: time limit reached (auto: ") and " ran in " in line
        assert "answered" not in line
        texts.add(line.split(" ran in ")[0])
    assert len(texts) == 1  # the same command at the same limit, the same words


@pytest.mark.skipif(engine_in_use() != "c", reason="the look's compiled core is not built")
@pytest.mark.parametrize("importer", ["main", "thread"])
def test_ctrl_c_stops_the_looks_core_at_once(importer: str) -> None:
    """In a process of its own (SIGINT must not reach the tests' process), imported by the
    main thread or by another: the core learns which thread takes signals from
    `threading`, not from its import. It stops within a few seconds of the signal, not
    after its 30 s (it takes well under a tenth of a second unloaded; the slack is for a
    loaded machine)."""
    script = (
        "import signal, sys, threading, time\n"
        f"if {importer!r} == 'thread':\n"
        "    t = threading.Thread(target=lambda: __import__('blackhole._look_core'))\n"
        "    t.start(); t.join()\n"
        "from blackhole.look import look\n"
        "from blackhole.model.problem import build_problem\n"
        "from tests.helpers import nearly_sorted_deal\n"
        "problem = build_problem(nearly_sorted_deal(100, 1))\n"
        "sent = []\n"
        "def interrupt():\n"
        "    time.sleep(1.0); sent.append(time.perf_counter())\n"
        "    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)\n"
        "threading.Thread(target=interrupt, daemon=True).start()\n"
        "try:\n"
        "    look(problem, 1 << 62, seconds=30)\n"
        "except KeyboardInterrupt:\n"
        "    print(time.perf_counter() - sent[0]); sys.exit(0)\n"
        "sys.exit(5)\n")
    env = child_env()
    env["PYTHONPATH"] += os.pathsep + str(ROOT)  # for tests.helpers
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT, preexec_fn=default_sigint)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 5


def test_best_takes_a_budget_as_the_api_does() -> None:
    done = run("best", "pysol:837", "--backend", "look", "--budget", "1000", "--json")
    assert done.returncode == 3, done.stderr  # 837's best needs millions of moves
    data = json.loads(done.stdout)
    api = blackhole.best_score("pysol:837", "look", budget=1000)
    assert data["proven"] is False and (data["best"], data["upper_bound"]) == \
        (api.best, api.upper_bound)


def test_debug_after_the_command_is_taken_as_the_message_says() -> None:
    done = run("solve", "pysol:2", "--debug")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("args", "stdin", "says"), [
    (("solve", "pysol:2,pysol:3"), None, "names several deals"),
    (("solve", "-"), '"AS"', "a JSON string is no deal"),
    (("solve", "-"), "null", "a JSON null is no deal"),
    (("analyze", "pysol:2", "--line", ""), None, "--line: names no move"),
], ids=["a-list", "json-string", "json-null", "empty-line"])
def test_the_message_names_the_real_problem(args, stdin, says) -> None:
    done = run(*args, stdin=stdin)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert says in done.stderr
