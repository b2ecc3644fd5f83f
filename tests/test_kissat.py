"""The kissat backend and `certify --solver kissat`: kissat's answers agree with the
referee and with glucose4, its limit holds, and its certificates verify and catch
tampering. Kissat comes with the `[kissat]` extra (the `[all]` install of the README and
of CI); where it is absent, the tests that run it are skipped, and the backend names the
extra to install."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from blackhole.backends import Options, Verdict, make_backend
from blackhole.backends import kissat as kissat_backend
from blackhole.base.errors import InputError
from blackhole.base.extras import MissingExtra
from blackhole.model.formats import board_text
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import children, cli, nearly_sorted_deal


def _installed() -> bool:
    try:
        kissat_backend.binary()
    except InputError:
        return False
    return True


needs_kissat = pytest.mark.skipif(not _installed(), reason="kissat not installed "
                                  "(pip install 'blackhole-solitaire[kissat]')")


def _verdict(spec: str, backend: str) -> Verdict:
    solution = solve_deal(load_deal(spec), backend, Options(timeout=120))
    if solution.verdict is Verdict.SOLVED:  # every win is replayed by the rules engine
        assert solution.replay is not None and solution.replay.won
    return solution.verdict


@needs_kissat
def test_kissat_agrees_with_the_referee_on_small_decks() -> None:
    verdicts = set()
    for ranks in (4, 5, 6):
        for seed in range(1, 31):
            spec = f"random:{seed}:ranks={ranks}"
            answer = _verdict(spec, "kissat")
            assert answer is not Verdict.UNKNOWN, spec
            assert answer == _verdict(spec, "search"), spec
            verdicts.add(answer)
    assert verdicts == {Verdict.SOLVED, Verdict.UNSOLVABLE}  # both answers, each checked


@needs_kissat
@pytest.mark.slow
def test_kissat_agrees_with_glucose4_on_pysol() -> None:
    for number in range(1, 201):
        spec = f"pysol:{number}"
        assert _verdict(spec, "kissat") == _verdict(spec, "sat"), spec  # glucose4, its default


@needs_kissat
def test_a_refutation_counts_only_with_its_checked_proof() -> None:
    result = make_backend("kissat").solve(build_problem(load_deal("pysol:837")), Options())
    assert result.verdict is Verdict.UNSOLVABLE and result.solver == "kissat"
    assert result.stats["proof"] == "checked" and result.stats["proof_bytes"] > 0
    assert result.stats["exit_code"] == 20


@needs_kissat
def test_the_timeout_gives_unknown_and_ends_kissat(tmp_path) -> None:
    deck = tmp_path / "deck.board"
    deck.write_text(board_text(nearly_sorted_deal(100, 1)))  # unknown to kissat at 20 s
    began = time.perf_counter()
    done = cli("solve", str(deck), "--backend", "kissat", "--timeout", "3")
    assert done.exit_code == 3, done.output
    assert "unknown" in done.output
    assert time.perf_counter() - began <= 3 + 15  # the CNF, then kissat killed at the limit
    left = [pid for pid in children(os.getpid()) if "kissat" in _name(pid)]
    assert not left  # killed and reaped, not left running


@needs_kissat
def test_bench_runs_kissat_beside_glucose4(tmp_path) -> None:
    out = tmp_path / "r.jsonl"
    done = cli("bench", "pysol:1-3", "--backends", "sat,kissat", "--out", str(out),
               "--jobs", "1")
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["backend"], r["solver"]) for r in records} == {("sat", "glucose4"),
                                                             ("kissat", "kissat")}
    assert "kissat" in done.output  # a row of the report's table


def test_without_kissat_the_backend_names_the_extra(monkeypatch) -> None:
    monkeypatch.setattr(kissat_backend, "wheel_binary", lambda: None)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingExtra, match=r"pip install 'blackhole-solitaire\[kissat\]'"):
        make_backend("kissat").check(Options())
    done = cli("solve", "pysol:2", "--backend", "kissat")
    assert done.exit_code == 2 and "[kissat]" in done.output
    assert cli("solve", "pysol:2", "--backend", "sat").exit_code == 0  # the rest works


def test_kissat_reads_no_other_backends_options() -> None:
    done = cli("solve", "pysol:2", "--backend", "kissat", "--solver-cmd", "cadical")
    assert done.exit_code == 2 and "does not apply" in done.output


@needs_kissat
def test_a_kissat_certificate_verifies_and_tampering_is_caught(tmp_path) -> None:
    folder = tmp_path / "cert"
    made = cli("certify", "pysol:837", "--solver", "kissat", "--out", str(folder))
    assert made.exit_code == 1, made.output  # certified unsolvable
    facts = json.loads((folder / "manifest.json").read_text())
    assert facts["solver"]["name"] == "kissat" and facts["proof"]["format"] == "drat"
    assert cli("verify", str(folder)).exit_code == 0
    # keep the deletions and the empty clause only, and make the manifest agree: only
    # the proof check can catch it now
    proof = folder / "proof.drup"
    lines = [line for line in proof.read_text().splitlines() if line.startswith("d ")]
    _rewrite(folder, proof, "\n".join([*lines, "0"]) + "\n")
    done = cli("verify", str(folder))
    assert done.exit_code == 1, done.output


@needs_kissat
def test_a_kissat_certificate_of_a_win_is_its_replayed_line(tmp_path) -> None:
    folder = tmp_path / "cert"
    assert cli("certify", "pysol:2", "--solver", "kissat", "--out", str(folder)).exit_code == 0
    facts = json.loads((folder / "solution.json").read_text())
    assert facts["solver"] == "kissat" and len(facts["moves"]) == 51
    assert cli("verify", str(folder)).exit_code == 0


def _rewrite(folder: Path, proof: Path, text: str) -> None:
    proof.write_text(text)
    manifest = folder / "manifest.json"
    facts = json.loads(manifest.read_text())
    data = text.encode()
    facts["proof"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data),
                          lines=text.count("\n"))
    manifest.write_text(json.dumps(facts, indent=2) + "\n")


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text()
    except OSError:  # ended meanwhile
        return ""
