"""The atlas: the shipped files against the reference and fresh solves, the lookup as a
user runs it, and the builder from real bench results."""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from blackhole import atlas
from blackhole.atlas import lookup, read_atlas, shipped_games, shipped_path
from blackhole.atlas.build import build_atlas, write_atlas
from blackhole.backends import Options, Verdict
from blackhole.base.errors import InputError, InternalError
from blackhole.bench import run_bench
from blackhole.model.positions import load_position
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_position
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    GOLF_GAMES,
    PEAK_GAMES,
    ROOT,
    blackhole,
    golf_reference,
    reference,
    results_line,
)

BEST_CSV = ROOT / "tests" / "data" / "pysol-1-1000-best.csv"
SEED = int(os.environ.get("BLACKHOLE_ATLAS_SEED", "23"))  # the sample drawn


def _reference_best() -> dict[int, int]:
    with BEST_CSV.open(newline="") as handle:
        return {int(row["deal"]): int(row["best"]) for row in csv.DictReader(handle)}


def _atlas(*args: str) -> subprocess.CompletedProcess:
    return blackhole("atlas", *args, timeout=60)


# ---------------------------------------------------------------- the shipped files


def test_the_shipped_black_hole_atlas_holds_the_reference() -> None:
    """Every deal of 1-1000: won or lost as the independent C solver says, and each lost
    deal's best score as the independent exhaustive search says."""
    atlas = read_atlas(shipped_path("black-hole"))
    assert (atlas.game, atlas.first, atlas.of) == ("black-hole", 1, 51)
    assert atlas.last >= 1000 and not atlas.unsettled
    bests = _reference_best()
    for number, row in reference().items():
        answer = atlas.answer(number)
        assert answer.won == (row["verdict"] == "solved"), number
        assert answer.best == (51 if answer.won else bests[number]), number


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_shipped_golf_atlases_hold_black_hole_solve_s_verdicts(game: str) -> None:
    """Every Golf game's atlas ships, and deals 1-1000 are won or lost as the
    independent C solver says; a sample beyond them agrees with fresh solves by sat (an
    engine the atlas runs did not use)."""
    assert game in shipped_games()
    atlas = read_atlas(shipped_path(game))
    assert (atlas.game, atlas.first, atlas.of) == (game, 1, 35)
    assert atlas.last >= 1000 and not atlas.unsettled
    reference = golf_reference()
    for number in range(1, 1001):
        assert atlas.answer(number).won == (reference[(number, game)]["verdict"] == "solved")
    for number in random.Random(SEED).sample(range(1001, atlas.last + 1), 2):
        solved = solve_deal(load_deal(f"pysol:{number}:{game}"), "sat", Options(timeout=120))
        assert solved.verdict is not Verdict.UNKNOWN
        assert atlas.answer(number).won == (solved.verdict is Verdict.SOLVED), number


@pytest.mark.parametrize("game", PEAK_GAMES)
def test_the_shipped_peaks_atlases_hold_the_referees_verdicts(game: str) -> None:
    """TriPeaks' and Escalator's atlases ship; deals 1-1000 are won or lost as the search
    referee says (tests/data/tri-peaks-1-1000.csv, its verdicts checked by sat), each
    best score held equal to the referee's; a sample beyond them agrees with fresh
    solves by sat (an engine the atlas runs did not use)."""
    assert game in shipped_games()
    atlas = read_atlas(shipped_path(game))
    assert (atlas.game, atlas.first, atlas.of) == (game, 1, 28)
    assert atlas.last >= 1000 and not atlas.unsettled
    with (ROOT / "tests" / "data" / "tri-peaks-1-1000.csv").open(newline="") as handle:
        rows = {int(row["deal"]): row for row in csv.DictReader(handle) if row["game"] == game}
    assert sorted(rows) == list(range(1, 1001))
    for number, row in rows.items():
        answer = atlas.answer(number)
        assert answer.won == (row["verdict"] == "solved"), number
        assert answer.best in (None, int(row["best"])), number
    for number in random.Random(SEED).sample(range(1001, atlas.last + 1), 3):
        solved = solve_deal(load_deal(f"pysol:{number}:{game}"), "sat", Options(timeout=120))
        assert solved.verdict is not Verdict.UNKNOWN
        assert atlas.answer(number).won == (solved.verdict is Verdict.SOLVED), number


def test_the_shipped_games_are_read_from_the_data_folder() -> None:
    assert shipped_games()[:2] == ("black-hole", "all-in-a-row")
    assert all(shipped_path(game).is_file() for game in shipped_games())


def test_a_random_sample_of_the_shipped_atlases_agrees_with_fresh_solves() -> None:
    rng = random.Random(SEED)
    holes = read_atlas(shipped_path("black-hole"))
    rows = read_atlas(shipped_path("all-in-a-row"))
    lost = sorted(n for n, best in holes.lost.items() if n > 1000 and best is not None)
    won = [n for n in range(1001, holes.last + 1) if n not in holes.lost]
    for number in rng.sample(lost, 3) + rng.sample(won, 3):
        verdict = solve_deal(load_deal(f"pysol:{number}"), "auto", Options(timeout=60)).verdict
        assert verdict is (Verdict.UNSOLVABLE if number in holes.lost else Verdict.SOLVED)
        if number in holes.lost:
            found = best_position(load_position(f"pysol:{number}"), "auto",
                                  Options(timeout=60))
            if found.proven:
                assert found.best == holes.lost[number], number
    air_lost = sorted(rows.lost)
    air_won = [n for n in range(rows.first, rows.last + 1) if n not in rows.lost]
    for number in rng.sample(air_lost, 3) + rng.sample(air_won, 3):
        spec = f"pysol:{number}:all-in-a-row"
        verdict = solve_deal(load_deal(spec), "auto", Options(timeout=60)).verdict
        assert verdict is (Verdict.UNSOLVABLE if number in rows.lost else Verdict.SOLVED), spec


def test_the_lookup_command_answers_from_the_shipped_files() -> None:
    bests = _reference_best()
    lost = min(bests)
    won = next(n for n, row in reference().items() if row["verdict"] == "solved")
    answer = _atlas(f"pysol:{lost}", "--json")
    assert answer.returncode == 1
    assert json.loads(answer.stdout) == {"deal": f"pysol:{lost}", "won": False,
                                         "best": bests[lost], "of": 51}
    answer = _atlas(f"pysol:{won}")
    assert answer.returncode == 0 and answer.stdout == f"pysol:{won}: won (51 of 51)\n"
    rows = read_atlas(shipped_path("all-in-a-row"))
    lost_row = min(rows.lost)
    answer = _atlas(f"pysol:{lost_row}:all-in-a-row", "--json")
    assert answer.returncode == 1 and json.loads(answer.stdout) == {
        "deal": f"pysol:{lost_row}:all-in-a-row", "won": False, "best": None, "of": 52}


@pytest.mark.parametrize("spec, says", [
    ("pysol:{past}", "outside the atlas (it covers pysol:1 to pysol:{last})"),
    ("pysol:{past}:all-in-a-row", "outside the atlas"),
    ("random:5", "PySolFC deals only"),
    ("pysol:x", "expected a whole number"),
])
def test_a_deal_the_atlas_does_not_hold_is_one_line_and_exit_2(spec: str, says: str) -> None:
    last = read_atlas(shipped_path("black-hole")).last
    spec, says = (text.format(past=last + 1, last=last) for text in (spec, says))
    if "all-in-a-row" in spec:
        spec = spec.replace(str(last + 1), str(read_atlas(shipped_path("all-in-a-row")).last
                                                + 1))
    refused = _atlas(spec, "--json")
    assert refused.returncode == 2 and not refused.stdout
    assert refused.stderr.count("\n") == 1 and says in refused.stderr


# ---------------------------------------------------------------- building


def test_an_atlas_built_from_real_runs_holds_their_verdicts_and_bests(tmp_path: Path) -> None:
    deals = [1, 5, 6, 25, 27, 29, 34]  # quick for the referee; deals 2-4 get no line
    solve, plain = tmp_path / "solve.jsonl", tmp_path / "best.jsonl"
    run_bench([f"pysol:{n}" for n in deals], ["search"], Options(timeout=30), out_path=solve,
              jobs=2)
    lost = [n for n in deals if reference()[n]["verdict"] == "unsolvable"]
    run_bench([f"pysol:{n}" for n in lost[:3]], ["sat"], Options(timeout=60), out_path=plain,
              jobs=2, task="best")
    best = tmp_path / "best.jsonl.gz"
    best.write_bytes(gzip.compress(plain.read_bytes()))  # a compressed results file
    out = tmp_path / "bh.atlas.gz"
    write_atlas(build_atlas([solve, best], last=40), out)
    atlas = read_atlas(out)
    assert (atlas.first, atlas.last, atlas.of) == (1, 40, 51)
    bests = _reference_best()
    assert atlas.lost == {n: bests[n] if n in lost[:3] else None for n in lost}
    assert atlas.unsettled == set(range(1, 41)) - set(deals)
    assert lookup("pysol:25", out).to_json() == {"deal": "pysol:25", "won": False,
                                                  "best": bests[25], "of": 51}
    assert lookup("pysol:6", out).won and lookup("pysol:40", out).won is None
    with pytest.raises(InputError, match="outside the atlas"):
        lookup("pysol:41", out)
    with pytest.raises(InputError, match="an atlas of black-hole"):
        lookup("pysol:25:all-in-a-row", out)


def test_a_deal_no_run_settled_is_unknown(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text(results_line("pysol:2", "sat", "solved", 0.1)
                       + results_line("pysol:3", "sat", "unknown", 0.1)
                       + results_line("pysol:5", "sat", "solved", 0.1))
    results.write_text(results.read_text()
                       + results_line("pysol:1", "sat", "unsolvable", 0.1))
    out, listed = tmp_path / "a.atlas.gz", tmp_path / "lost.txt"
    built = blackhole("atlas-build", str(results), "--out", str(out), "--lost-list",
                      str(listed), timeout=60)
    assert built.returncode == 3 and "2 won, 1 lost" in built.stdout
    assert listed.read_text() == "pysol:1\n"
    assert "2 unsettled" in built.stdout  # pysol:3 unknown, pysol:4 has no line at all
    answer = _atlas("pysol:3", "--file", str(out), "--json")
    assert answer.returncode == 3 and json.loads(answer.stdout)["won"] is None
    assert _atlas("pysol:5", "--file", str(out)).returncode == 0


@pytest.mark.parametrize("forged", ["moved", "unparked"])
def test_a_line_that_fails_its_check_stops_the_build(tmp_path: Path, forged: str) -> None:
    """The build checks each line as the report does: a win whose moves win another deal,
    or whose park is written as a play, stops it (exit 4, naming the deal), even where
    another line says the deal is lost; the real line builds."""
    results = tmp_path / "r.jsonl"
    real = json.loads(results_line("pysol:1:worm-hole", "auto", "solved", 0.1))
    line = {"moved": {**real, "deal": "pysol:2:worm-hole"},
            "unparked": {**real, "deal": "pysol:2:worm-hole", "moves": [
                {"card": move["card"], "fan": move["fan"]} for move in real["moves"]]}}[forged]
    lost = {"deal": "pysol:2:worm-hole", "backend": "other", "verdict": "unsolvable",
            "seconds": 0.1}
    results.write_text("".join(json.dumps(each) + "\n" for each in (real, line, lost)))
    with pytest.raises(InternalError, match="pysol:2:worm-hole: a solve line of auto fails"):
        build_atlas([results], 1, 2)
    built = blackhole("atlas-build", str(results), "--out", str(tmp_path / "a.gz"), timeout=60)
    assert built.returncode == 4 and "pysol:2:worm-hole" in built.stderr
    results.write_text(json.dumps(real) + "\n")
    assert build_atlas([results], 1, 1).answer(1).won is True


def test_a_build_checked_by_several_processes_equals_one_and_stops_at_the_first_bad_line(
        tmp_path: Path) -> None:
    """Lines checked in a pool, a few to a chunk, build the same atlas as one process; a
    forged win and a line that is no JSON, in later chunks, stop it as one process would:
    the first of them in the file, by deal or by file and line."""
    results = tmp_path / "r.jsonl"
    lines = [results_line(f"pysol:{n}:worm-hole", "auto", "solved", 0.1) for n in (1, 3, 4)]
    lines += [results_line("pysol:2:worm-hole", "other", "unsolvable", 0.1)]
    results.write_text("".join(lines))
    alone = build_atlas([results], 1, 5, jobs=1)
    pooled = build_atlas([results], 1, 5, jobs=2, chunk=1)
    assert pooled.text() == alone.text() and pooled.lost == {2: None}
    assert pooled.unsettled == {5}
    forged = {**json.loads(lines[0]), "deal": "pysol:5:worm-hole"}
    results.write_text("".join(lines[:3]) + json.dumps(forged) + "\n" + "{cut\n" + lines[3])
    with pytest.raises(InternalError, match="pysol:5:worm-hole: a solve line of auto fails"):
        build_atlas([results], 1, 5, jobs=2, chunk=1)
    results.write_text("".join(lines[:3]) + "{cut\n" + json.dumps(forged) + "\n")
    with pytest.raises(InputError, match=r"r\.jsonl:4: invalid JSON"):
        build_atlas([results], 1, 5, jobs=2, chunk=1)


def test_a_rebuilt_atlas_replaces_the_old_one_whole_and_lookups_see_it(tmp_path: Path) -> None:
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    first.write_text(results_line("pysol:6", "sat", "solved", 0.1)
                     + results_line("pysol:25", "sat", "unsolvable", 0.1))
    second.write_text(results_line("pysol:6", "sat", "solved", 0.1))
    out = tmp_path / "bh.atlas.gz"
    write_atlas(build_atlas([first], first=6, last=25), out)
    assert lookup("pysol:25", out).won is False  # read, and kept inflated
    header, _ = atlas._load(out)  # every lookup shares it, so no caller may change it
    with pytest.raises(TypeError):
        header["last"] = 6  # type: ignore[index]
    with pytest.raises(TypeError):
        header["index"][0][0] = 7
    assert lookup("pysol:25", out).won is False and read_atlas(out).last == 25
    write_atlas(build_atlas([second], first=6, last=25), out)
    assert lookup("pysol:25", out).won is None  # the new file, not the one kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1.jsonl", "2.jsonl", out.name]
    assert out.stat().st_mode & 0o777 == 0o644
    folder = tmp_path / "taken"
    (folder / "kept").mkdir(parents=True)
    with pytest.raises(InputError, match="cannot write the atlas file"):
        write_atlas(build_atlas([first], first=6, last=25), folder)
    assert [p.name for p in folder.iterdir()] == ["kept"]


def test_lines_that_contradict_each_other_stop_the_build(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text(results_line("pysol:2", "sat", "solved", 0.1)
                       + results_line("pysol:2", "cpsat", "unsolvable", 0.1))
    with pytest.raises(InternalError, match="pysol:2: one line wins it"):
        build_atlas([results])
    mixed = tmp_path / "m.jsonl"
    mixed.write_text(results_line("pysol:2", "sat", "solved", 0.1)
                     + results_line("pysol:2:all-in-a-row", "sat", "unknown", 0.1))
    with pytest.raises(InputError, match="two games"):
        build_atlas([mixed])


def test_a_damaged_atlas_file_is_refused(tmp_path: Path) -> None:
    good = gzip.decompress(shipped_path("black-hole").read_bytes()).decode()
    header, _, body = good.partition("\n")
    cases = {
        "not gzip": b"plain text",
        "no header": gzip.compress(body.encode()),
        "bad line": gzip.compress(f"{header}\n0 12\n".encode()),
        "bad count": gzip.compress(f"{header}\n".encode()),
        "cut": shipped_path("black-hole").read_bytes()[:200],
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.gz"
        path.write_bytes(data)
        with pytest.raises(InputError):
            read_atlas(path)
