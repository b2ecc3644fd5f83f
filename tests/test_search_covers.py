"""The `search` referee on cover graphs: TriPeaks, TriPeaks without the wrap and
Escalator, whose cards wait for the two cards lying on them. Its verdicts agree with
`sat`'s and with the reference file's, each of its wins replays in the rules engine, and
its best scores are the reference file's and the rules engine's own exhaustive count.

The reference file, tests/data/tri-peaks-1-1000.csv, is written by this module run as a
program (`python -m tests.test_search_covers OUT`, tests/data/README.md): the referee's
verdict and best score of each deal, each verdict checked against `sat` and each line
replayed by the rules engine as it is written.
"""

from __future__ import annotations

import csv
import os
import platform
import random
import statistics
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from blackhole.backends import Options, Verdict
from blackhole.backends.search import SearchBackend
from blackhole.model.deal import Deal
from blackhole.model.games import VARIANTS
from blackhole.model.positions import load_position
from blackhole.model.problem import build_problem
from blackhole.model.rules import State, initial_state, legal_moves, play, replay
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve

from .helpers import ROOT, random_line

REFERENCE = ROOT / "tests" / "data" / "tri-peaks-1-1000.csv"
COLUMNS = ("deal", "game", "verdict", "best", "states", "seconds")
# The games whose layout is a cover graph, from the one table of games.
COVER_GAMES = tuple(name for name, game in VARIANTS.items() if not game.chains)
FIRST = range(1, 31)  # the fast suite's deals of each game
ALL = range(1, 1001)  # the reference file's
SAT_CHECKED = range(1, 11)  # the deals each run checks against sat again
# pysol:1-30 in the fast suite, pysol:31-120 with the slow checks (the file's every
# verdict was checked against sat as it was written)
RANGES = [pytest.param(FIRST, id="1-30"),
          pytest.param(range(31, 121), id="31-120", marks=pytest.mark.slow)]


@cache
def reference() -> dict[tuple[int, str], dict[str, str]]:
    """(deal, game) → the reference file's row."""
    with REFERENCE.open(newline="") as handle:
        return {(int(row["deal"]), row["game"]): row for row in csv.DictReader(handle)}


def spec(number: int, game: str) -> str:
    return f"pysol:{number}:{game}"


def most_by_the_rules(deal: Deal) -> int:
    """The most tableau cards any legal line plays, by a memoised search over the rules
    engine's states and legal moves (nothing of the referee's)."""
    known: dict[State, int] = {}

    def most(state: State) -> int:
        if state not in known:
            known[state] = max((int(move.card not in deal.talon)
                                + most(play(deal, state, move))
                                for move in legal_moves(deal, state)), default=0)
        return known[state]

    return most(initial_state(deal))


def agrees(number: int, game: str) -> None:
    """The referee's verdict on one deal is the reference file's (and `sat`'s, on the
    first deals), and its win replays in the rules engine."""
    found = solve(spec(number, game), "search")
    row = reference()[(number, game)]
    assert found.result.backend == "search"
    assert found.verdict.value == row["verdict"], (number, game)
    if number in SAT_CHECKED:
        assert solve(spec(number, game), "sat").verdict is found.verdict, (number, game)
    if found.verdict is Verdict.SOLVED:
        assert replay(found.deal, found.moves).won, (number, game)


def scores(number: int, game: str) -> None:
    """The referee's best score of one deal is the reference file's, proven, and its line
    plays that many tableau cards in the rules engine."""
    found = best_score(spec(number, game), "search")
    row = reference()[(number, game)]
    assert found.best == int(row["best"]) and found.proven, (number, game)
    assert found.of == 28 and found.backend == "search"
    played = replay(load_deal(spec(number, game)), found.moves)
    assert played.played == found.best and not played.reason, (number, game)
    assert played.won is (row["verdict"] == "solved")


# ---------------------------------------------------------------- the reference file


def test_the_reference_holds_every_deal_of_each_cover_game_once() -> None:
    rows = reference()
    assert set(COVER_GAMES) == {"tri-peaks", "tri-peaks-strict", "escalator"}
    assert set(rows) == {(n, game) for n in ALL for game in COVER_GAMES}
    for row in rows.values():
        best = int(row["best"])
        assert 0 <= best <= 28 and (row["verdict"] == "solved") is (best == 28), row
        assert int(row["states"]) > 0 and float(row["seconds"]) >= 0


def test_tri_peaks_without_the_wrap_wins_no_deal_the_wrap_loses() -> None:
    """A line without the wrap is a line with it (the strict game's fits are a subset of
    TriPeaks'), so its wins are TriPeaks' wins and its best scores are no higher."""
    rows = reference()
    for n in ALL:
        strict, wrapped = rows[(n, "tri-peaks-strict")], rows[(n, "tri-peaks")]
        assert int(strict["best"]) <= int(wrapped["best"]), n


# ---------------------------------------------------------------- verdicts and best scores


@pytest.mark.parametrize("deals", RANGES)
@pytest.mark.parametrize("game", COVER_GAMES)
def test_the_referee_agrees_with_sat_and_the_reference(game: str, deals: range) -> None:
    """Each deal's verdict (`agrees`) and best score (`scores`)."""
    for number in deals:
        agrees(number, game)
        scores(number, game)


@pytest.mark.parametrize("game", COVER_GAMES)
def test_the_referee_agrees_with_sat_from_positions(game: str) -> None:
    """From positions part played (a legal line of the deal, cut anywhere), the referee
    and `sat` give one verdict, and the referee's win replays from the position."""
    rng = random.Random(game)
    for number in range(1, 13):
        line = random_line(load_deal(spec(number, game)), rng, rng.randint(1, 30))
        position = load_position(spec(number, game), " ".join(map(str, line)))
        found = solve(position, "search")
        assert solve(position, "sat").verdict is found.verdict, (number, line)
        if found.verdict is Verdict.SOLVED:
            assert replay(position, found.moves).won


def test_the_referee_stops_at_its_limit_with_no_verdict() -> None:
    lost = next(n for n in ALL if reference()[(n, "tri-peaks-strict")]["verdict"]
                == "unsolvable" and int(reference()[(n, "tri-peaks-strict")]["states"])
                > 10_000)
    problem = build_problem(load_deal(spec(lost, "tri-peaks-strict")), "search",
                            SearchBackend.plays)
    found = SearchBackend().solve(problem, Options(timeout=1e-6))
    assert found.verdict is Verdict.UNKNOWN and found.order is None


# TriPeaks' fewest-state lost deals hold 188,000 states each: seconds for the rules
# engine's search, so it runs with the slow checks.
@pytest.mark.parametrize("game", [pytest.param("tri-peaks", marks=pytest.mark.slow),
                                  "tri-peaks-strict", "escalator"])
def test_the_best_scores_are_the_rules_engine_s_own_count(game: str) -> None:
    """On the two lost deals of the fewest states, the reference's best score is the
    most cards a search over the rules engine's moves plays."""
    lost = sorted((int(reference()[(n, game)]["states"]), n) for n in ALL
                  if reference()[(n, game)]["verdict"] == "unsolvable")[:2]
    assert lost, game
    for _, number in lost:
        deal = load_deal(spec(number, game))
        assert most_by_the_rules(deal) == int(reference()[(number, game)]["best"]), number


def test_a_best_line_stopped_at_its_limit_is_legal_and_unproven() -> None:
    lost = max(ALL, key=lambda n: int(reference()[(n, "tri-peaks-strict")]["states"]))
    found = best_score(spec(lost, "tri-peaks-strict"), "search", timeout=0.05)
    assert not found.proven and found.upper_bound == 28
    assert found.best <= int(reference()[(lost, "tri-peaks-strict")]["best"])


# ---------------------------------------------------------------- writing the file


def refereed(number: int, game: str) -> dict[str, object]:
    """One row of the reference file: the referee's verdict (checked against `sat`, its
    win replayed) with its states and seconds, and its best score (its line replayed)."""
    found = solve(spec(number, game), "search")
    checked = solve(spec(number, game), "sat")
    if checked.verdict is not found.verdict:
        raise AssertionError(f"{spec(number, game)}: search {found.verdict}, sat "
                             f"{checked.verdict}")
    best = best_score(spec(number, game), "search")
    if not best.proven or best.won is not (found.verdict is Verdict.SOLVED):
        raise AssertionError(f"{spec(number, game)}: best {best.best} against "
                             f"{found.verdict}")
    return {"deal": number, "game": game, "verdict": found.verdict.value,
            "best": best.best, "states": found.result.stats["states"],
            "seconds": f"{found.result.seconds:.4f}", "best_seconds": best.seconds}


def main(out: Path) -> None:
    """Write the reference file to `out` (aside, then renamed into place) and print the
    counts and the referee's times."""
    began = time.perf_counter()
    rows = [refereed(number, game) for number in ALL for game in COVER_GAMES]
    aside = out.with_suffix(".csv.part")
    with aside.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(aside, out)
    for game in COVER_GAMES:
        mine = [row for row in rows if row["game"] == game]
        solve_times = sorted(float(row["seconds"]) for row in mine)
        best_times = sorted(float(row["best_seconds"]) for row in mine)
        won = sum(row["verdict"] == "solved" for row in mine)
        for label, times in (("solve", solve_times), ("best", best_times)):
            print(f"{game}: won {won} lost {len(mine) - won}; {label} median "
                  f"{statistics.median(times):.4f} p90 "
                  f"{statistics.quantiles(times, n=10)[-1]:.4f} "
                  f"max {max(times):.3f} total {sum(times):.1f} s")
    print(f"all: {time.perf_counter() - began:.0f} s wall on {platform.node()}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
