"""Certificates of unsolvability: written, checked independently, and tamper-evident."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blackhole.backends import Options, Verdict
from blackhole.certify import MANIFEST_FILE, PROOF_FILE, certify, sha256, verify
from blackhole.cli import app
from blackhole.deal import load_deal
from blackhole.pipeline import solve_deal

from .conftest import easy_for_search, reference

# Unsolvable deals of pysol:1-1000 whose certificates are quick to make and check, and
# one (837, the C solver's hardest deal) with a proof of a few thousand lines.
SAMPLE = [n for n, row in reference().items() if row["verdict"] == "unsolvable"][:12] + [837]


@pytest.fixture(scope="module")
def certificate_837(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cert") / "837"
    cert = certify(load_deal("pysol:837"), "pysol:837", folder)
    assert cert.verdict is Verdict.UNSOLVABLE and cert.check.ok
    assert cert.manifest["proof"]["lines"] > 100  # a real refutation, not a trivial one
    return folder


@pytest.mark.parametrize("number", SAMPLE)
def test_unsolvable_reference_deals_are_certified_and_verified(number, tmp_path) -> None:
    cert = certify(load_deal(f"pysol:{number}"), f"pysol:{number}", tmp_path)
    assert cert.verdict is Verdict.UNSOLVABLE and cert.check.ok, cert.check
    assert verify(tmp_path).ok
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["proof"]["sha256"] == sha256((tmp_path / PROOF_FILE).read_bytes())
    assert "symmetry" not in manifest["encoding"]["features"]


@pytest.mark.parametrize("number", [n for n in SAMPLE if n in easy_for_search()])
def test_search_also_finds_no_solution(number) -> None:
    assert solve_deal(load_deal(f"pysol:{number}"), "search", Options()).verdict \
        is Verdict.UNSOLVABLE


def test_solvable_deal_gets_replayed_moves_not_a_certificate(tmp_path) -> None:
    cert = certify(load_deal("pysol:2"), "pysol:2", tmp_path)
    assert cert.verdict is Verdict.SOLVED and cert.solution.replay.won
    assert not (tmp_path / MANIFEST_FILE).exists()
    assert json.loads((tmp_path / "solution.json").read_text())["verdict"] == "solved"


def _copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    target.mkdir()
    for item in folder.iterdir():
        (target / item.name).write_bytes(item.read_bytes())
    return target


def _rewrite_manifest(folder: Path, change) -> None:
    path = folder / MANIFEST_FILE
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def test_truncated_proof_is_rejected_even_with_a_matching_hash(certificate_837,
                                                               tmp_path) -> None:
    folder = _copy(certificate_837, tmp_path)
    lines = (folder / PROOF_FILE).read_text().splitlines(keepends=True)
    short = "".join(lines[: len(lines) // 2])
    (folder / PROOF_FILE).write_text(short)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(short.encode())))
    result = verify(folder)
    assert not result.ok and result.reason


def test_proof_for_another_deal_is_rejected(certificate_837, tmp_path) -> None:
    other = tmp_path / "other"
    certify(load_deal("pysol:93"), "pysol:93", other)
    folder = _copy(certificate_837, tmp_path)
    proof = (other / PROOF_FILE).read_bytes()
    (folder / PROOF_FILE).write_bytes(proof)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(proof)))
    assert not verify(folder).ok


def test_edited_deal_or_cnf_is_refused(certificate_837, tmp_path) -> None:
    folder = _copy(certificate_837, tmp_path)
    board = (folder / "deal.board").read_text()
    (folder / "deal.board").write_text(board.replace("\n", "\r\n"))
    assert "deal.board" in verify(folder).reason
    (tmp_path / "b").mkdir()
    folder = _copy(certificate_837, tmp_path / "b")
    with (folder / "formula.cnf").open("a") as handle:
        handle.write("1 0\n")
    assert "differs" in verify(folder).reason


def test_symmetry_breaking_features_are_refused(certificate_837, tmp_path) -> None:
    folder = _copy(certificate_837, tmp_path)
    _rewrite_manifest(folder, lambda m: m["encoding"]["features"].append("symmetry"))
    assert "not allowed" in verify(folder).reason


def test_cli_certify_and_verify_exit_codes(tmp_path) -> None:
    runner = CliRunner()
    made = runner.invoke(app, ["certify", "pysol:25", "--out", str(tmp_path / "c")])
    assert made.exit_code == 1 and "certified unsolvable" in made.output
    checked = runner.invoke(app, ["verify", str(tmp_path / "c")])
    assert checked.exit_code == 0 and "VERIFIED" in checked.output
    solvable = runner.invoke(app, ["certify", "pysol:2", "--out", str(tmp_path / "s")])
    assert solvable.exit_code == 0 and "solvable" in solvable.output
    missing = runner.invoke(app, ["verify", str(tmp_path / "nothing")])
    assert missing.exit_code == 2


def test_folders_stay_apart_and_a_rerun_leaves_no_stale_certificate(tmp_path) -> None:
    deals = tmp_path / "deals"
    deals.mkdir()
    runner = CliRunner()
    (deals / "x.board").write_text(runner.invoke(app, ["deal", "pysol:2"]).stdout)
    (deals / "x.json").write_text(runner.invoke(app, ["deal", "pysol:1", "--format",
                                                      "json"]).stdout)
    out = tmp_path / "certs"
    result = runner.invoke(app, ["certify", str(deals), "--out", str(out)])
    assert result.exit_code == 1  # one unsolvable among them
    assert (out / "x" / "solution.json").is_file()  # pysol:2 is solvable
    assert verify(out / "x-2").ok  # pysol:1 is not
    # certify a solvable deal where the unsolvable one's certificate was
    again = runner.invoke(app, ["certify", str(deals / "x.board"), "--out", str(out / "x-2")])
    assert again.exit_code == 0
    assert sorted(p.name for p in (out / "x-2").iterdir()) == ["deal.board", "solution.json"]


def test_bad_choices_and_places_are_one_line_errors_before_any_work(tmp_path) -> None:
    runner = CliRunner()
    cases = [(["--solver", "lingeling"], "not a proof-logging solver"),
             (["--checker", "nope"], "unknown checker")]
    if shutil.which("drat-trim") is None:
        cases.append((["--checker", "drat-trim"], "drat-trim is not on PATH"))
    for options, message in cases:
        out = tmp_path / "never"
        result = runner.invoke(app, ["certify", "pysol:1", "--out", str(out), *options])
        assert result.exit_code == 2 and message in result.stderr
        assert result.stderr.count("\n") == 1 and not out.exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    result = runner.invoke(app, ["certify", "pysol:1", "--out", str(blocked / "c")])
    assert result.exit_code == 2 and "cannot write the certificate" in result.stderr


def test_a_manifest_that_is_no_object_is_not_verified(tmp_path) -> None:
    (tmp_path / MANIFEST_FILE).write_text("[]")
    result = verify(tmp_path)
    assert not result.ok and "not a JSON object" in result.reason
