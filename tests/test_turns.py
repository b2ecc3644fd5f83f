"""The fewest talon turns to win (`best --objective turns`): the engines agree with one
another and with an exhaustive search over the rules engine, each line found replays to
a win with the turns it claims, a limit leaves the answer unproven (exit 3), a lost deal
exits 1 and a game without a talon is refused (exit 2)."""

from __future__ import annotations

import json
from collections import deque
from functools import cache

import pytest

from blackhole.backends import Options
from blackhole.model.positions import load_position
from blackhole.model.rules import initial_state, legal_moves, outcome, play
from blackhole.questions.turns import fewest_turns, turns_in

from .helpers import cli, runnable_backends


@cache
def referee_turns(spec: str) -> int | None:
    """The fewest turns of a win by a 0-1 breadth-first search over the rules engine's
    states (a turn costs 1, a tableau card 0); None when no line wins."""
    deal = load_position(spec, None).deal
    start = initial_state(deal)
    cost = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if outcome(deal, state).value == "won":
            return cost[state]
        for move in legal_moves(deal, state):
            after = play(deal, state, move)
            step = 1 if move.fan is None else 0
            if after not in cost or cost[state] + step < cost[after]:
                cost[after] = cost[state] + step
                if step:
                    queue.append(after)
                else:
                    queue.appendleft(after)
    return None


SPECS = ["pysol:4:tri-peaks", "pysol:3:escalator", "pysol:5:escalator",
         *(pytest.param(spec, marks=pytest.mark.slow) for spec in (
             "pysol:1:tri-peaks", "pysol:1:tri-peaks-strict", "pysol:2:golf", "pysol:1:golf"))]


@pytest.mark.parametrize("spec", SPECS)
def test_the_look_and_sat_agree_with_the_exhaustive_search(spec: str) -> None:
    want = referee_turns(spec)
    position = load_position(spec, None)
    for backend in ("look", "sat"):
        found = fewest_turns(position, backend, Options())
        assert found.proven and found.won is (want is not None), (spec, backend)
        assert found.fewest == want, (spec, backend)
        if want is not None:
            assert found.replay.won and turns_in(found.moves) == want
            assert all(step.backend == backend for step in found.steps)


@pytest.mark.parametrize("backend", [name for name in ("cpsat", "kissat", "auto")
                                     if name in runnable_backends()])
def test_every_engine_counts_the_same_turns(backend: str) -> None:
    for spec in ("pysol:4:tri-peaks",) if backend == "cpsat" else \
            ("pysol:4:tri-peaks", "pysol:5:escalator"):
        found = fewest_turns(load_position(spec, None), backend, Options())
        assert found.proven and found.fewest == referee_turns(spec), (spec, backend)


def test_turns_count_from_the_start_of_the_deal_in_a_position() -> None:
    spec = "pysol:4:tri-peaks"
    whole = fewest_turns(load_position(spec, None), "look", Options())
    first_turns = [move for move in whole.moves[:12]]
    after = ",".join(str(move.card) for move in first_turns)
    position = load_position(spec, after)
    found = fewest_turns(position, "look", Options())
    assert found.turned == turns_in(tuple(first_turns))
    assert found.fewest == whole.fewest  # a best line's first moves keep the best


def test_the_cli_exits_by_the_answer() -> None:
    won = cli("best", "pysol:4:tri-peaks", "--objective", "turns", "--backend", "sat",
              "--json")
    assert won.exit_code == 0
    document = json.loads(won.stdout)
    assert document["turns"] == referee_turns("pysol:4:tri-peaks") and document["proven"]
    assert {step["backend"] for step in document["steps"]} == {"sat"}
    lost = cli("best", "pysol:3:escalator", "--objective", "turns")
    assert lost.exit_code == 1 and "no line wins" in lost.stdout
    refused = cli("best", "pysol:4", "--objective", "turns")
    assert refused.exit_code == 2 and "has no talon" in refused.output
    certify = cli("best", "pysol:4:tri-peaks", "--objective", "turns", "--certify", "x")
    assert certify.exit_code == 2


def test_a_limit_leaves_the_turns_unproven() -> None:
    found = fewest_turns(load_position("pysol:1:tri-peaks", None), "sat",
                         Options(timeout=1e-6))
    assert not found.proven and found.fewest is None
    unknown = cli("best", "pysol:1:tri-peaks", "--objective", "turns", "--backend", "sat",
                  "--timeout", "0.000001", "--json")
    assert unknown.exit_code == 3 and json.loads(unknown.stdout)["turns"] is None
