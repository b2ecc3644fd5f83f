"""Report: reading results files, the figures by hand, checks of every claim (solved
lines, forged boards, best-score lines), plots, and the report command."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.base.errors import InputError
from blackhole.bench import read_results
from blackhole.bench.plots import write_plots
from blackhole.bench.report import summarize
from blackhole.bench.stats import quantile, wilson_interval
from blackhole.model.formats import deal_json
from blackhole.model.sources import load_deal

from .helpers import cli, reference, results_line, winning_moves


@pytest.fixture
def known(tmp_path: Path) -> Path:
    """Ten solvable PySolFC deals (11, 2..10), two backends; sat superseded once, one
    disagreement on deal 10. The seconds and the unsolvable claims are made up."""
    sat = [1, 2, 3, 4, 10, 0.5, 0.25, 6, 7, 8]
    cpsat = [2, 1, 1, 5, 20, 1, 1, 9, 9, 9]
    verdicts = ["solved"] * 8 + ["unsolvable", "solved"]
    deals = [11, *range(2, 11)]
    lines = [results_line("pysol:11", "sat", "unknown", 99)]  # replaced by the later line
    for i, n in enumerate(deals):
        lines.append(results_line(f"pysol:{n}", "sat", verdicts[i], sat[i]))
        cp_verdict = "unsolvable" if n == 10 else ("unknown" if n == 8 else verdicts[i])
        lines.append(results_line(f"pysol:{n}", "cpsat", cp_verdict, cpsat[i]))
    path = tmp_path / "known.jsonl"
    path.write_text("".join(lines))
    return path


def test_quantiles_and_wilson_by_hand() -> None:
    assert quantile([10, 1, 4, 2, 3], 0.5) == 3
    assert quantile([1, 2, 3, 4, 10], 0.9) == pytest.approx(4 + 0.6 * 6)  # rank 3.6
    assert quantile([], 0.5) is None
    low, high = wilson_interval(8, 10)
    # p = 0.8, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71674,
    # half-width 1.96 / 1.38416 * sqrt(0.016 + 0.0096040) = 0.22658
    assert low == pytest.approx(0.71674 - 0.22658, abs=1e-4)
    assert high == pytest.approx(0.71674 + 0.22658, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(869_413, 1_000_000)
    assert low < 0.869413 < high and high - low < 0.0014


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1e4, allow_nan=False), min_size=2, max_size=60),
       st.integers(1, 99))
def test_quantile_is_the_inclusive_method(values: list[float], percent: int) -> None:
    expected = statistics.quantiles(values, n=100, method="inclusive")[percent - 1]
    assert quantile(values, percent / 100) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_wilson_interval_holds_the_observed_fraction(successes: int, extra: int) -> None:
    trials = successes + extra
    low, high = wilson_interval(successes, trials)
    assert 0 <= low <= high <= 1
    if trials:
        assert low - 1e-12 <= successes / trials <= high + 1e-12


_TEXT = st.text(max_size=6)  # quotes, backslashes, control and non-ASCII characters too


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TEXT, st.none() | st.integers(-5, 10**6) | st.booleans(),
                          st.sampled_from([None, "park", "unpark"])), max_size=60),
       st.none() | _TEXT, st.floats(0, 1e4, allow_nan=False),
       st.dictionaries(_TEXT, st.none() | st.integers() | _TEXT, max_size=3))
def test_a_line_is_the_json_of_its_record(moves: list, reason: str | None, seconds: float,
                                          stats: dict) -> None:
    """`Record.line` writes its moves as text: the line is still exactly the JSON of
    `to_json`, and it reads back as the same record."""
    from blackhole.bench.record import Record

    record = Record("pysol:5", "auto", "unknown", seconds, wall=seconds, stats=stats,
                    moves=tuple(moves), reason=reason)
    line = record.line()
    assert line == (json.dumps(record.to_json(), default=str) + "\n").encode()
    if all(type(fan) is not bool for _, fan, _ in moves):
        assert Record.from_json(json.loads(line)).line() == line


def test_report_figures(known: Path) -> None:
    report = summarize(read_results(known), str(known))
    assert report.records == 21 and report.duplicates == 1 and report.deals == 10
    sat, cpsat = report.backends
    assert (sat.backend, sat.tasks, sat.solved, sat.unsolvable, sat.unknown) == (
        "sat", 10, 9, 1, 0)
    # sat seconds sorted: 0.25 0.5 1 2 3 4 6 7 8 10
    assert sat.median == pytest.approx(3.5)
    assert sat.p90 == pytest.approx(8 + 0.1 * 2)  # rank 8.1
    assert sat.p99 == pytest.approx(8 + 0.91 * 2)  # rank 8.91
    assert (sat.max, sat.total) == (10, pytest.approx(41.75))
    assert (cpsat.solved, cpsat.unsolvable, cpsat.unknown) == (7, 2, 1)
    assert cpsat.median == pytest.approx(3.5) and cpsat.max == 20
    # fastest: sat wins deals 1, 4, 5, 6, 7, 8 (cpsat unknown), 9, 10; cpsat wins 2 and 3
    assert (sat.fastest, cpsat.fastest) == (8, 2)
    assert [(d.deal, d.solved_by, d.unsolvable_by) for d in report.disagreements] == [
        ("pysol:10", ["sat"], ["cpsat"])]
    assert not report.consistent
    (pysol,) = report.solvability
    # deal 9 unsolvable, deal 10 disputed: 8 solvable of 9 settled
    assert (pysol.source, pysol.deals, pysol.solvable, pysol.unsolvable, pysol.unsettled) == (
        "pysol", 10, 8, 1, 1)
    assert pysol.fraction == pytest.approx(8 / 9)
    assert (pysol.low, pysol.high) == pytest.approx(wilson_interval(8, 9))
    assert pysol.published == 0.869413 and pysol.published_inside is True
    data = json.loads(json.dumps(report.to_json()))
    assert data["backends"][0]["p90"] == pytest.approx(8.2)
    assert data["disagreements"][0]["deal"] == "pysol:10"


def test_published_figure_outside_a_lopsided_sample(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    solvable = [n for n, row in reference().items() if row["verdict"] == "solved"][:50]
    others = [n for n in range(1, 1001) if n not in solvable][:50]  # claimed unsolvable
    path.write_text("".join([results_line(f"pysol:{n}", "search", "solved", 0.1) for n in solvable]
                            + [results_line(f"pysol:{n}", "search", "unsolvable", 0.1)
                               for n in others]))
    (pysol,) = summarize(read_results(path)).solvability
    assert pysol.fraction == 0.5 and pysol.published_inside is False
    assert summarize(read_results(path)).consistent


def test_bad_results_files_name_file_line_and_token(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such results file"):
        read_results(tmp_path / "none.jsonl")
    path = tmp_path / "bad.jsonl"
    path.write_text(results_line("pysol:2", "sat", "solved", 1) + '{"deal": "pysol:2", oops}\n')
    with pytest.raises(InputError) as caught:
        read_results(path)
    assert str(caught.value).startswith(f"{path}:2: invalid JSON")
    assert "'oops}'" in str(caught.value)
    path.write_text(results_line("pysol:1", "sat", "maybe", 1))
    with pytest.raises(InputError, match=r":1: unknown verdict: 'maybe'"):
        read_results(path)
    for seconds, token in ((-5, "-5"), (float("nan"), "NaN"), (1e400, "Infinity")):
        path.write_text(results_line("pysol:3", "sat", "solved", 1)
                        + results_line("pysol:2", "sat", "solved", seconds))
        with pytest.raises(InputError, match=f":2: field 'seconds' must be a finite number "
                                             f">= 0: '{token}'"):
            read_results(path)


def test_plots_are_valid_images(known: Path, tmp_path: Path) -> None:
    from matplotlib.image import imread

    folder = tmp_path / "plots"
    written = write_plots(summarize(read_results(known)), folder)
    assert sorted(p.name for p in written) == [
        "cactus.png", "cactus.svg", "sat-vs-cpsat.png", "sat-vs-cpsat.svg"]
    for path in written:
        data = path.read_bytes()
        if path.suffix == ".png":
            assert data.startswith(b"\x89PNG\r\n\x1a\n")
            image = imread(path)
            assert image.shape[0] > 100 and image.shape[1] > 100
        else:
            assert b"<svg" in data[:1000]
    only_search = tmp_path / "one.jsonl"
    only_search.write_text(results_line("pysol:1", "search", "unsolvable", 0.1))
    assert [p.name for p in write_plots(summarize(read_results(only_search)),
                                        tmp_path / "p2")] == [
        "cactus.png", "cactus.svg"]


def test_report_command_exits_4_on_a_disagreement(known: Path) -> None:
    result = cli("report", str(known))
    assert result.exit_code == 4
    assert "DISAGREEMENT pysol:10: solved by sat; unsolvable per cpsat" in result.stdout
    as_json = cli("report", str(known), "--json")
    assert as_json.exit_code == 4
    assert json.loads(as_json.stdout)["disagreements"] == [
        {"deal": "pysol:10", "solved_by": ["sat"], "unsolvable_by": ["cpsat"], "best": {}}]


def test_report_command_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = cli("report", str(tmp_path / "none.jsonl"))
    assert missing.exit_code == 2
    assert missing.stderr == f"error: {tmp_path / 'none.jsonl'}: no such results file\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(results_line("pysol:2", "sat", "solved", 1) + "[1, 2\n")
    result = cli("report", str(bad), "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(f"error: {bad}:2: invalid JSON")


def test_piped_report_keeps_long_names_and_every_figure(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text("".join(results_line(f"pysol:{n}", backend, "solved", seconds)
                            for n in range(2, 5)
                            for backend, seconds in (("cpsat:inverse", 123.25),
                                                     ("sat:cadical195", 1.5))))
    result = cli("report", str(path))
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()
            if line.startswith(("cpsat:", "sat:"))}
    assert rows["cpsat:inverse"][1:5] == ["3", "0", "0", "0"]
    # total, fastest, answered by (lines without a solver: the backend label)
    assert rows["cpsat:inverse"][-3:] == ["369.75", "0", "cpsat:inverse"]
    assert rows["sat:cadical195"][-3:] == ["4.50", "3", "sat:cadical195"]


def test_all_in_a_row_is_its_own_source_and_nothing_settled_is_not_outside(
        tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(results_line("pysol:1", "sat", "unsolvable", 1)
                    + results_line("pysol:3:all-in-a-row", "sat", "solved", 1)
                    + results_line("pysol:3", "cpsat", "unknown", 60))
    data = json.loads(cli("report", str(path), "--json").stdout)
    rows = {s["source"]: s for s in data["solvability"]}
    assert (rows["pysol"]["deals"], rows["pysol"]["unsolvable"]) == (2, 1)
    assert rows["pysol:all-in-a-row"]["solvable"] == 1
    assert rows["pysol:all-in-a-row"]["published"] is None
    nothing = tmp_path / "none.jsonl"
    nothing.write_text(results_line("pysol:3", "cpsat", "unknown", 60))
    text = cli("report", str(nothing)).stdout
    assert "outside" not in text and "86.94%" in text


def test_a_solved_line_whose_moves_do_not_win_is_an_error(tmp_path: Path) -> None:
    good = json.loads(results_line("pysol:2", "sat", "solved", 1))
    swapped = {**good, "backend": "cpsat",
               "moves": [good["moves"][1], good["moves"][0], *good["moves"][2:]]}
    bare = {**good, "backend": "search", "moves": []}
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (good, swapped, bare)))
    report = summarize(read_results(path))
    assert not report.consistent
    reasons = {e["backend"]: e["reason"] for e in report.errors}
    assert set(reasons) == {"cpsat", "search"}
    assert reasons["cpsat"].startswith("solved, but its moves do not win: illegal at move 1")
    assert "blocked after 0" in reasons["search"] or "unfinished" in reasons["search"]
    assert [b.solved for b in report.backends] == [1, 0, 0]
    result = cli("report", str(path))
    assert result.exit_code == 4


def _solved_line(spec: str, **changes: Any) -> dict[str, Any]:
    return {**json.loads(results_line(spec, "sat", "solved", 1)), **changes}


def _report_of(tmp_path: Path, *lines: dict[str, Any]):
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return summarize(read_results(path))


def test_a_win_that_parks_is_written_with_its_parks_and_checked_by_them(tmp_path: Path) -> None:
    """pysol:1:worm-hole's win parks: its line names each park's kind, reads back as
    written, and replays to a win; the same moves without their kinds do not win."""
    from blackhole.bench.record import Record

    good = _solved_line("pysol:1:worm-hole", backend="auto")
    assert any(move.get("kind") == "park" for move in good["moves"])
    line = Record.from_json(good).line()
    assert json.loads(line)["moves"] == good["moves"]
    assert _report_of(tmp_path, good).consistent
    bare = {**good, "moves": [{"card": m["card"], "fan": m["fan"]} for m in good["moves"]]}
    (error,) = _report_of(tmp_path, bare).errors
    assert error["reason"].startswith("solved, but its moves do not win: illegal at move")


def test_a_line_whose_deal_cannot_be_derived_says_so(tmp_path: Path) -> None:
    report = _report_of(tmp_path, _solved_line("pysol:2", deal="somewhere/x.board"))
    (error,) = report.errors
    assert error["reason"].startswith("its deal cannot be derived again:")
    assert "holds no board" in error["reason"] and "\n" not in error["reason"]
    assert not report.consistent


def test_a_forged_board_is_checked_like_our_own(tmp_path: Path) -> None:
    board = deal_json(load_deal("pysol:2"))
    line = _solved_line("pysol:2", deal="mine.board", board=board)
    assert _report_of(tmp_path, line).consistent  # the moves win the board in the line
    other = deal_json(load_deal("pysol:3"))
    forged = _report_of(tmp_path, {**line, "board": other})
    assert forged.errors[0]["reason"].startswith("solved, but its moves do not win")
    wrong = _report_of(tmp_path, {**line, "deal": "pysol:3", "board": board})
    assert "is not the deal pysol:3 deals" in wrong.errors[0]["reason"]
    bad_board = _report_of(tmp_path, {**line, "board": {"fans": "no"}})
    assert bad_board.errors[0]["reason"].startswith("its deal cannot be derived again")


@pytest.mark.parametrize(("change", "message"), [
    ({"moves": "KH"}, "field 'moves' must be a list"),
    ({"moves": [{"card": "KH", "fan": 1, "kind": "fly"}]}, "field 'moves' must be a list"),
    ({"board": [1]}, "field 'board' must be an object"),
    ({"task": "guess"}, "unknown task: 'guess'"),
    ({"best": -1, "task": "best"}, "field 'best' must be a whole number >= 0"),
    ({"stats": 3}, "field 'stats' must be an object"),
])
def test_a_malformed_field_is_bad_input(tmp_path: Path, change: dict[str, Any],
                                        message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(_solved_line("pysol:2", **change)) + "\n")
    with pytest.raises(InputError, match=f":1: {message}"):
        read_results(path)


def _longest_line(spec: str) -> list[dict[str, Any]]:
    """A longest legal line of a deal whose game tree is tiny, by trying every line."""
    from blackhole.model.rules import initial_state, legal_moves, play

    deal = load_deal(spec)

    def longest(state) -> list[dict[str, Any]]:
        best: list[dict[str, Any]] = []
        for move in legal_moves(deal, state):
            line = [{"card": str(move.card), "fan": move.fan}, *longest(play(deal, state, move))]
            best = max(best, line, key=len)
        return best

    return longest(initial_state(deal))


def _best_line(backend: str, best: int, moves: list, **more: Any) -> dict[str, Any]:
    line = {"deal": "pysol:1", "backend": backend, "task": "best", "seconds": 0.1,
            "best": best, "moves": moves, "upper_bound": best, "proven": True,
            "verdict": "unsolvable"}
    return {**line, **more}


def test_best_lines_are_replayed_and_compared(tmp_path: Path) -> None:
    line = _longest_line("pysol:1")
    assert len(line) == 3  # as the independent exact search says (reference best: 3 of 51)
    report = _report_of(tmp_path, _best_line("sat", 3, line), _best_line("cpsat", 3, line),
                        _best_line("search", 2, line[:2], proven=False, upper_bound=51,
                                   verdict="unknown"))
    assert report.consistent, report.errors
    assert report.best.histogram == {3: 1} and report.best.of == 51
    assert [(b.backend, b.task, b.unsolvable, b.unknown) for b in report.backends] == [
        ("sat", "best", 1, 0), ("cpsat", "best", 1, 0), ("search", "best", 0, 1)]
    (pysol,) = report.solvability
    assert (pysol.solvable, pysol.unsolvable) == (0, 1)  # a proven best below 51


def test_best_scores_that_cannot_all_hold_are_a_disagreement(tmp_path: Path) -> None:
    line = _longest_line("pysol:1")
    low = _report_of(tmp_path, _best_line("sat", 3, line),
                     _best_line("maxsat", 2, line[:2]))  # proves 2: the other line beats it
    (dispute,) = low.disagreements
    assert dispute.best == {"sat (best)": 3, "maxsat (best)": 2} and not low.consistent
    bound = _report_of(tmp_path, _best_line("sat", 3, line),
                       _best_line("cpsat", 2, line[:2], proven=False, upper_bound=2,
                                  verdict="unknown"))
    assert bound.disagreements and bound.best.histogram == {}


@pytest.mark.parametrize(("change", "says"), [
    ({"claim": 3, "moves": "two"}, "claims best 3, but its moves score 2"),
    ({"moves": "swapped"}, "its best line is illegal"),
    ({"upper_bound": 51}, "proven, but its upper bound 51 is not its best"),
    ({"upper_bound": 1}, "upper bound 1 outside 2..51"),
    ({"verdict": "solved"}, "solved, but its best is 2 of 51"),
    ({"proven": False, "upper_bound": 51}, "unsolvable, but its best 2 of 51 is not proven"),
])
def test_a_best_line_whose_claims_fail_is_an_error(tmp_path: Path, change: dict[str, Any],
                                                   says: str) -> None:
    line = _longest_line("pysol:1")
    moves = {"two": line[:2], "swapped": [line[1], line[0]]}.get(change.get("moves"), line[:2])
    more = {k: v for k, v in change.items() if k not in ("moves", "claim")}
    record = _best_line("sat", change.get("claim", 2), moves, **more)
    (error,) = _report_of(tmp_path, record).errors
    assert error["reason"] == says or error["reason"].startswith(says)
    assert error["task"] == "best"


def test_a_best_line_that_wins_is_solved(tmp_path: Path) -> None:
    moves = winning_moves("pysol:2")
    win = {**_best_line("sat", 51, moves, verdict="solved"), "deal": "pysol:2"}
    report = _report_of(tmp_path, win, json.loads(results_line("pysol:2", "sat", "solved", 1)))
    assert report.consistent and report.best.histogram == {51: 1}
    (pysol,) = report.solvability
    assert pysol.solvable == 1


def test_the_best_score_histogram_is_drawn(tmp_path: Path) -> None:
    from matplotlib.image import imread

    line = _longest_line("pysol:1")
    report = _report_of(tmp_path, _best_line("sat", 3, line))
    written = write_plots(report, tmp_path / "plots")
    assert {p.name for p in written} == {"cactus.png", "cactus.svg", "best-scores.png",
                                        "best-scores.svg"}
    assert imread(tmp_path / "plots" / "best-scores.png").shape[0] > 100


def test_the_report_names_the_engine_that_answered(tmp_path: Path) -> None:
    """auto answered 2 and 3 with the look and 1 with glucose4: the report says so, per
    backend, in JSON and in text."""
    path = tmp_path / "r.jsonl"
    path.write_text(results_line("pysol:1", "auto", "unsolvable", 0.5, "glucose4")
                    + results_line("pysol:2", "auto", "solved", 0.01, "look")
                    + results_line("pysol:3", "auto", "solved", 0.02, "look")
                    + results_line("pysol:4", "auto", "unknown", 9.0, "look"))
    report = summarize(read_results(path), str(path))
    (auto,) = report.backends
    assert auto.engines == {"look": 2, "glucose4": 1}  # settled deals only
    assert json.loads(json.dumps(report.to_json()))["backends"][0]["engines"] == \
        {"look": 2, "glucose4": 1}
    shown = cli("report", str(path))
    assert shown.exit_code == 0 and "answered by" in shown.stdout
    assert "look 2, glucose4 1" in shown.stdout


def test_the_fastest_counts_only_races_between_different_engines(tmp_path: Path) -> None:
    """On pysol:2 look and auto were both answered by the look: no race, no winner. On
    pysol:3 auto's glucose4 beat the look; on pysol:1 sat (glucose4) beat auto's look."""
    path = tmp_path / "r.jsonl"
    path.write_text(results_line("pysol:2", "look", "solved", 0.001, "look")
                    + results_line("pysol:2", "auto", "solved", 0.002, "look")
                    + results_line("pysol:3", "look", "solved", 0.5, "look")
                    + results_line("pysol:3", "auto", "solved", 0.1, "glucose4")
                    + results_line("pysol:1", "auto", "unsolvable", 0.2, "look")
                    + results_line("pysol:1", "sat", "unsolvable", 0.1, "glucose4"))
    fastest = {b.backend: b.fastest for b in summarize(read_results(path)).backends}
    assert fastest == {"look": 0, "auto": 1, "sat": 1}
