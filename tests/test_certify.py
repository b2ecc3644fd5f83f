"""Certificates of unsolvability: written, checked independently, and tamper-evident."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from blackhole import drat
from blackhole.backends import Options, Verdict
from blackhole.backends.pysat_tools import PROOF_SOLVERS
from blackhole.base.environment import DRAT_VARIABLE
from blackhole.base.errors import InputError
from blackhole.certificates import batch, certify, certify_best, make, verify
from blackhole.certificates.batch import certify_all, plan
from blackhole.certificates.files import (
    BEST_CLAIM,
    CERTIFICATE_FORMAT,
    DEAL_FILE,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    bound_encoding,
    dimacs,
    sha256,
)
from blackhole.certificates.make import check_choices
from blackhole.drat import check as drat_check
from blackhole.model.deal import position_of
from blackhole.model.formats import board_text, parse_board
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import blackhole, child_env, cli, easy_for_search, reference

# Unsolvable deals of pysol:1-1000 whose certificates are quick to make and check, and
# one (837, the C solver's hardest deal) with a proof of a few thousand lines.
SAMPLE = [n for n, row in reference().items() if row["verdict"] == "unsolvable"][:12] + [837]


@pytest.fixture(scope="module")
def certificate_837(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cert") / "837"
    cert = certify(load_deal("pysol:837"), folder)  # labelled by the deal's name
    assert cert.verdict is Verdict.UNSOLVABLE and cert.check.ok and cert.certified
    assert cert.proof.lines > 100  # a real refutation, not a trivial one
    return folder


@pytest.mark.parametrize("number", SAMPLE)
def test_unsolvable_reference_deals_are_certified_and_verified(number, tmp_path) -> None:
    cert = certify(f"pysol:{number}", tmp_path)
    assert cert.verdict is Verdict.UNSOLVABLE and cert.check.ok, cert.check
    found = verify(tmp_path)
    assert found.ok and found.claim == "unsolvable" and found.spec == f"pysol:{number}"
    assert found.dealt
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["proof"]["sha256"] == sha256((tmp_path / PROOF_FILE).read_bytes())
    assert manifest["proof"]["sha256"] == cert.proof.sha256
    assert manifest["deal"] == {"spec": f"pysol:{number}", "file": "deal.board",
                                "sha256": sha256(cert.board.encode()), "board": cert.board}
    assert "symmetry" not in manifest["encoding"]["features"]


@pytest.mark.parametrize("number", [n for n in SAMPLE if n in easy_for_search()])
def test_search_also_finds_no_solution(number) -> None:
    assert solve_deal(load_deal(f"pysol:{number}"), "search", Options()).verdict \
        is Verdict.UNSOLVABLE


def test_solvable_deal_gets_replayed_moves_not_a_certificate(tmp_path) -> None:
    cert = certify("pysol:2", tmp_path)
    assert cert.verdict is Verdict.SOLVED and cert.solution.replay.won
    assert not (tmp_path / MANIFEST_FILE).exists()
    assert json.loads((tmp_path / SOLUTION_FILE).read_text())["verdict"] == "solved"
    found = verify(tmp_path)
    assert found.ok and found.claim == "solved" and found.played == 51 and found.dealt


def test_a_solution_that_does_not_win_is_not_verified(tmp_path) -> None:
    certify("pysol:2", tmp_path)
    data = json.loads((tmp_path / SOLUTION_FILE).read_text())
    data["moves"] = data["moves"][:-1]
    (tmp_path / SOLUTION_FILE).write_text(json.dumps(data))
    found = verify(tmp_path)
    assert not found.ok and "does not win" in found.reason
    result = cli("verify", str(tmp_path))
    assert result.exit_code == 1 and "NOT VERIFIED" in result.output
    # the moves of pysol:2 next to another deal's board
    certify("pysol:2", tmp_path)
    data = json.loads((tmp_path / SOLUTION_FILE).read_text())
    data["deal"] = "pysol:3"
    (tmp_path / SOLUTION_FILE).write_text(json.dumps(data))
    found = verify(tmp_path)
    assert not found.ok and "is not the deal pysol:3" in found.reason


def handed_over(check: drat.CheckResult) -> bool:
    """The compiled core of the checker did not accept the proof: the Python checker
    judged it (the core handed it over, or never took it: it uses variables the formula
    does not have)."""
    return check.engine == "python"


def _copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    target.mkdir(parents=True)
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
    assert not result.ok and result.reason and handed_over(result.check)


def test_a_proof_with_bytes_that_are_not_text_is_refused_as_malformed(certificate_837,
                                                                      tmp_path) -> None:
    folder = _copy(certificate_837, tmp_path)
    tampered = (folder / PROOF_FILE).read_bytes().replace(b"\n", "\n\u00e9 0\n".encode(), 1)
    (folder / PROOF_FILE).write_bytes(tampered)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(tampered)))
    result = verify(folder)
    assert not result.ok and result.reason.startswith(f"{PROOF_FILE} is malformed")


def test_an_early_empty_clause_is_rejected(certificate_837, tmp_path) -> None:
    """The empty clause moved to the front: 837 is not refuted by unit propagation
    alone, so it cannot be RUP there."""
    assert verify(certificate_837).check.stats["trivial"] == 0
    folder = _copy(certificate_837, tmp_path)
    tampered = "0\n" + (folder / PROOF_FILE).read_text()
    (folder / PROOF_FILE).write_text(tampered)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(tampered.encode())))
    result = verify(folder)
    assert not result.ok and result.reason == "lemma 1 (line 1) is not RUP/RAT"
    assert handed_over(result.check)


def test_a_forged_deal_spec_is_not_verified(certificate_837, tmp_path) -> None:
    """837's certificate, its manifest saying it is about the solvable pysol:2."""
    folder = _copy(certificate_837, tmp_path)
    _rewrite_manifest(folder, lambda m: m["deal"].update(spec="pysol:2"))
    found = verify(folder)
    assert not found.ok and found.spec == "pysol:2"
    assert "deal.board is not the deal pysol:2" in found.reason
    result = cli("verify", str(folder))
    assert result.exit_code == 1
    assert "NOT VERIFIED" in result.output and "pysol:2" in result.output
    # a spec that deals nothing is refused, not an error of the user
    _rewrite_manifest(folder, lambda m: m["deal"].update(spec="pysol:x"))
    assert "does not deal" in verify(folder).reason


def test_the_manifest_must_hold_the_board(certificate_837, tmp_path) -> None:
    folder = _copy(certificate_837, tmp_path)
    other = board_text(load_deal("pysol:2"))
    _rewrite_manifest(folder, lambda m: m["deal"].update(board=other))
    assert "not the board the manifest names" in verify(folder).reason
    _rewrite_manifest(folder, lambda m: m.update(format="blackhole-certificate/1"))
    assert "unknown certificate format" in verify(folder).reason


def test_both_engines_verify_a_certificate_alike(certificate_837, monkeypatch) -> None:
    """The compiled core (where built) accepts 837's proof with the Python checker's
    counts; the manifest says which engine judged it when it was made."""
    made = json.loads((certificate_837 / MANIFEST_FILE).read_text())["checker"]
    assert made == {"name": "blackhole", "ok": True, "reason": "", "engine": "c"
                    if drat.c_engine_built() and drat_check._engine(None) == "auto" else "python"}
    monkeypatch.setenv(DRAT_VARIABLE, "auto")
    auto = verify(certificate_837).check
    monkeypatch.setenv(DRAT_VARIABLE, "python")
    python = verify(certificate_837).check
    assert auto.ok and python.ok and python.engine == "python"
    assert auto.engine == ("c" if drat.c_engine_built() else "python")
    for key in ("lemmas", "core_lemmas", "rup_literals", "ignored_deletions"):
        assert auto.stats[key] == python.stats[key]


def test_verify_names_the_deal_in_its_verdict(certificate_837) -> None:
    result = cli("verify", str(certificate_837))
    assert result.exit_code == 0
    assert "VERIFIED pysol:837" in result.output and "dealt again" in result.output
    data = json.loads(cli("verify", str(certificate_837), "--json").stdout)
    assert data["verified"] and data["deal"] == "pysol:837" and data["dealt"]
    assert data["claim"] == "unsolvable"


BOMB_MEMORY = 512 * 2**20  # bytes of address space: verify of 837 needs under 300 MB


def _bomb(certificate_837: Path, tmp_path: Path, first_line: str) -> Path:
    folder = _copy(certificate_837, tmp_path)
    proof = (first_line + (folder / PROOF_FILE).read_text()).encode()
    (folder / PROOF_FILE).write_bytes(proof)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(proof)))
    return folder


def _verify_limited(folder: Path) -> subprocess.CompletedProcess:
    """`blackhole verify` in a process limited to BOMB_MEMORY of address space."""
    script = ("import resource, sys\n"
              f"resource.setrlimit(resource.RLIMIT_AS, ({BOMB_MEMORY}, {BOMB_MEMORY}))\n"
              "from blackhole.cli import app\n"
              "app(['verify', sys.argv[1]])\n")
    return subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True,
                          text=True, timeout=120, env=child_env())


def test_a_proof_bomb_is_not_verified_in_bounded_memory_and_time(certificate_837,
                                                                 tmp_path) -> None:
    sane = _verify_limited(certificate_837)
    assert sane.returncode == 0 and "VERIFIED" in sane.stdout  # the limit is no obstacle
    for name, line in [("deleted", "d 100000000 0\n"), ("added", "100000000 0\n"),
                       ("wide", "-2000000000 1 0\n")]:
        folder = _bomb(certificate_837, tmp_path / name, line)
        began = time.perf_counter()
        run = _verify_limited(folder)
        assert run.returncode == 1, run.stderr
        assert "NOT VERIFIED" in run.stdout and "beyond the formula's" in run.stdout
        assert "Traceback" not in run.stderr
        assert time.perf_counter() - began < 60


def test_a_proof_over_the_cap_is_refused_unread(certificate_837, tmp_path,
                                                monkeypatch) -> None:
    size = (certificate_837 / PROOF_FILE).stat().st_size
    monkeypatch.setattr(drat, "MAX_PROOF_BYTES", size - 1)
    found = verify(certificate_837)
    assert not found.ok and "larger than the cap" in found.reason


def test_certify_writes_no_proof_that_verify_would_refuse(certificate_837, tmp_path,
                                                         monkeypatch) -> None:
    """A proof over verify's cap makes the deal unknown: no proof is written (the folder
    holds only the deal tried, as for any unknown)."""
    size = (certificate_837 / PROOF_FILE).stat().st_size
    monkeypatch.setattr(drat, "MAX_PROOF_BYTES", size - 1)
    cert = certify("pysol:837", tmp_path / "big")
    assert cert.verdict is Verdict.UNKNOWN and "larger than verify reads" in cert.reason
    assert sorted(p.name for p in (tmp_path / "big").iterdir()) == [DEAL_FILE]


def test_proof_for_another_deal_is_rejected(certificate_837, tmp_path) -> None:
    other = tmp_path / "other"
    certify("pysol:93", other)
    folder = _copy(certificate_837, tmp_path)
    proof = (other / PROOF_FILE).read_bytes()
    (folder / PROOF_FILE).write_bytes(proof)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(proof)))
    found = verify(folder)
    assert not found.ok and handed_over(found.check)


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
    made = cli("certify", "pysol:25", "--out", str(tmp_path / "c"))
    assert made.exit_code == 1 and "certified unsolvable" in made.output
    checked = cli("verify", str(tmp_path / "c"))
    assert checked.exit_code == 0 and "VERIFIED pysol:25" in checked.output
    solvable = cli("certify", "pysol:2", "--out", str(tmp_path / "s"))
    assert solvable.exit_code == 0 and "solvable" in solvable.output
    replayed = cli("verify", str(tmp_path / "s"))
    assert replayed.exit_code == 0 and "VERIFIED pysol:2" in replayed.output
    assert "solution.json wins" in replayed.output
    missing = cli("verify", str(tmp_path / "nothing"))
    assert missing.exit_code == 2


def test_folders_stay_apart_and_a_rerun_leaves_no_stale_certificate(tmp_path) -> None:
    deals = tmp_path / "deals"
    deals.mkdir()
    (deals / "x.board").write_text(cli("deal", "pysol:2").stdout)
    (deals / "x.json").write_text(cli("deal", "pysol:1", "--format", "json").stdout)
    out = tmp_path / "certs"
    result = cli("certify", str(deals), "--out", str(out))
    assert result.exit_code == 1  # one unsolvable among them
    assert (out / "x" / "solution.json").is_file()  # pysol:2 is solvable
    assert verify(out / "x-2").ok  # pysol:1 is not
    # certify a solvable deal where the unsolvable one's certificate was
    again = cli("certify", str(deals / "x.board"), "--out", str(out / "x-2"))
    assert again.exit_code == 0
    assert sorted(p.name for p in (out / "x-2").iterdir()) == ["deal.board", "solution.json"]


def test_bad_choices_and_places_are_one_line_errors_before_any_work(tmp_path) -> None:
    cases = [(["--solver", "lingeling"], "unknown SAT solver"),
             (["--solver", "cadical153"], "no checkable proof from this solver"),
             (["--solver", "nope"], "unknown SAT solver"),
             (["--checker", "nope"], "unknown checker")]
    if shutil.which("drat-trim") is None:
        cases.append((["--checker", "drat-trim"], "drat-trim is not on PATH"))
    for options, message in cases:
        out = tmp_path / "never"
        result = cli("certify", "pysol:1", "--out", str(out), *options)
        assert result.exit_code == 2 and message in result.stderr
        assert result.stderr.count("\n") == 1 and not out.exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    result = cli("certify", "pysol:1", "--out", str(blocked / "c"))
    assert result.exit_code == 2 and "cannot write the certificate" in result.stderr
    # every spec of a list is read before the first deal is certified
    out = tmp_path / "list"
    result = cli("certify", "pysol:1,pysol:3,no-such.board", "--out", str(out))
    assert result.exit_code == 2 and "no-such.board" in result.stderr and not out.exists()
    result = cli("certify", ",,,", "--out", str(out))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and not out.exists()


@pytest.mark.parametrize("name", ["g4", "glucose4", "Glucose3", "g3", "mcb", "maplecm"])
def test_every_name_solve_takes_is_taken(name) -> None:
    assert check_choices(name, "blackhole") in PROOF_SOLVERS


def test_the_timeout_bounds_the_whole_certificate(tmp_path) -> None:
    deal = load_deal("pysol:265")  # the longest proof check of 1-1000
    began = time.perf_counter()
    cert = certify(deal, tmp_path, timeout=0.05)
    # Unknown shows the limit held (the whole certificate takes well over a second); the
    # clock only catches a run that ignores the limit for long.
    assert time.perf_counter() - began < 10
    assert cert.verdict is Verdict.UNKNOWN and cert.reason
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deal.board"]
    assert cert.left_in_place() == f"{tmp_path} holds only the deal tried (deal.board), " \
                                   "no certificate"
    # What is left is no certificate: verify says so, a failed check (exit 1), not an error.
    found = verify(tmp_path)
    assert not found.ok and "holds only deal.board" in found.reason
    checked = blackhole("verify", str(tmp_path))
    assert checked.returncode == 1 and "NOT VERIFIED" in checked.stdout, checked.stderr
    said = blackhole("certify", "pysol:265", "--timeout", "0.05", "--out", str(tmp_path))
    assert said.returncode == 3
    assert f"{tmp_path} holds only the deal tried (deal.board)" in " ".join(said.stdout.split())


def test_a_check_out_of_time_is_unknown_not_a_verdict(tmp_path, monkeypatch) -> None:
    real = drat.check_proof

    def late(clauses, proof, *, deadline=None):
        return real(clauses, proof, deadline=time.perf_counter() - 1)

    monkeypatch.setattr(drat, "check_proof", late)
    cert = certify("pysol:837", tmp_path, timeout=60)
    assert cert.verdict is Verdict.UNKNOWN and "checking the proof" in cert.reason
    assert not (tmp_path / MANIFEST_FILE).exists()
    result = cli("certify", "pysol:837", "--out", str(tmp_path / "c"), "--timeout", "60")
    assert result.exit_code == 3 and "unknown" in result.output


def test_parallel_jobs_give_the_same_certificates(tmp_path) -> None:
    specs = ["pysol:1", "pysol:2", "pysol:25"]
    one = {job.spec: c for job, c in certify_all(plan(specs, tmp_path / "one"))}
    result = cli("certify", ",".join(specs), "--out", str(tmp_path / "two"), "--jobs", "2")
    assert result.exit_code == 1 and "3 deals: 2 certified unsolvable" in result.output
    for spec, name in zip(specs, ["pysol-1", "pysol-2", "pysol-25"], strict=True):
        two = verify(tmp_path / "two" / name)
        assert two.ok and two.claim == ("solved" if spec == "pysol:2" else "unsolvable")
        if one[spec].proof is not None:  # the same proof, byte for byte
            assert (tmp_path / "two" / name / "proof.drup").read_bytes() == \
                (tmp_path / "one" / name / "proof.drup").read_bytes()


def test_resume_keeps_finished_folders_and_redoes_the_rest(tmp_path) -> None:
    specs = ["pysol:1", "pysol:2", "pysol:25"]
    first = dict((job.spec, c) for job, c in certify_all(plan(specs, tmp_path)))
    (tmp_path / "pysol-25" / MANIFEST_FILE).unlink()  # as if interrupted there
    again = dict((job.spec, c) for job, c in certify_all(plan(specs, tmp_path), resume=True))
    assert again["pysol:1"].resumed and again["pysol:2"].resumed
    assert not again["pysol:25"].resumed and again["pysol:25"].certified
    assert again["pysol:1"].proof == first["pysol:1"].proof
    # a kept folder must still be of its deal: another deal's certificate is redone
    shutil.rmtree(tmp_path / "pysol-1")
    shutil.copytree(tmp_path / "pysol-25", tmp_path / "pysol-1")
    third = dict((job.spec, c) for job, c in certify_all(plan(specs, tmp_path), resume=True))
    assert not third["pysol:1"].resumed and third["pysol:1"].certified
    result = cli("certify", ",".join(specs), "--out", str(tmp_path), "--resume")
    assert result.exit_code == 1 and "3 kept from an earlier run" in result.output


def test_an_interrupted_certify_says_what_it_finished(tmp_path, monkeypatch) -> None:
    real = batch.run_job

    def interrupted(job):
        if job.spec == "pysol:25":
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(batch, "run_job", interrupted)
    result = cli("certify", "pysol:1,pysol:2,pysol:25,pysol:93", "--out", str(tmp_path))
    assert result.exit_code == 130
    assert "interrupted: 2 of 4 deals finished (pysol:1, pysol:2)" in result.stderr
    assert "--resume" in result.stderr


def test_a_manifest_that_is_no_object_is_not_verified(tmp_path) -> None:
    (tmp_path / MANIFEST_FILE).write_text("[]")
    result = verify(tmp_path)
    assert not result.ok and "not a JSON object" in result.reason
    (tmp_path / MANIFEST_FILE).write_text("[" * 100_000)
    result = verify(tmp_path)
    assert not result.ok and "not valid JSON" in result.reason


def test_a_folder_without_a_certificate_is_bad_input(tmp_path) -> None:
    """Nothing claimed is nothing failed: the library raises InputError, the CLI exits 2
    with one line (exit 1 is kept for a check that failed)."""
    with pytest.raises(InputError, match="not a certificate folder"):
        verify(tmp_path)
    (tmp_path / "notes.txt").write_text("no certificate here\n")
    result = blackhole("verify", str(tmp_path), timeout=120)
    assert result.returncode == 2, result.stderr
    assert "not a certificate folder" in result.stderr and str(tmp_path) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_lying_solver_gets_no_certificate(tmp_path, monkeypatch) -> None:
    """certify believes nothing the solver says: a refutation of the solvable pysol:2
    whose proof is only the empty clause fails the check against the CNF certify built
    from the deal (exit 4), and so does a refutation without a proof."""
    from blackhole.base.errors import InternalError

    monkeypatch.setattr(make, "_refute",
                        lambda encoding, solver, deadline: (False, None, (), ["0"], {}))
    cert = certify("pysol:2", tmp_path / "a")
    assert cert.verdict is Verdict.UNSOLVABLE and not cert.certified
    assert cert.check.reason == "lemma 1 (line 1) is not RUP/RAT" and handed_over(cert.check)
    result = cli("certify", "pysol:2", "--out", str(tmp_path / "b"))
    assert result.exit_code == 4 and "REJECTED" in result.output
    monkeypatch.setattr(make, "_refute",
                        lambda encoding, solver, deadline: (False, None, (), None, {}))
    with pytest.raises(InternalError, match="no proof"):
        certify("pysol:2", tmp_path / "c")


def test_a_solver_that_sees_other_clauses_gets_no_certificate(tmp_path, monkeypatch) -> None:
    """The check reads the clauses certify built from the deal, not the solver's: a
    solver handed a stronger CNF (a unit clause that contradicts the first clause added)
    writes a proof that refutes its CNF, and that proof fails against the deal's."""
    real = make._refute

    def stronger(encoding, solver, deadline):
        from dataclasses import replace

        first = encoding.clauses[0]
        more = [[-lit] for lit in first]
        return real(replace(encoding, clauses=[*encoding.clauses, *more]), solver, deadline)

    monkeypatch.setattr(make, "_refute", stronger)
    cert = certify("pysol:2", tmp_path)
    assert cert.verdict is Verdict.UNSOLVABLE and not cert.certified


# ---------------------------------------------------------------- optimality certificates


def exhaustive_best(position) -> int:
    """The most cards any legal line scores from `position` (counted from the start of
    the deal), by trying every line through the rules engine: small deals only."""
    from blackhole.model.rules import initial_state, legal_moves, play

    deal = position.deal
    seen: dict = {}

    def most(state) -> int:
        if state not in seen:
            seen[state] = max((1 + most(play(deal, state, move))
                               for move in legal_moves(deal, state)), default=0)
        return seen[state]

    return position.moved + most(initial_state(deal))


def _position(spec: str, after: str | None = None):
    from blackhole.model.positions import load_position

    return load_position(spec, after)


@pytest.mark.parametrize(("spec", "after"), [("pysol:29", None), ("pysol:63", None),
                                             ("pysol:38", "2D 3S")])
def test_optimality_certificates_are_written_and_verified(spec, after, tmp_path) -> None:
    position = _position(spec, after)
    best = exhaustive_best(position)
    cert = certify_best(position, best, tmp_path, spec=spec)
    assert cert.certified and cert.best == best and cert.moved == position.moved
    found = verify(tmp_path)
    assert found.ok and found.claim == "best" and found.best == best and found.dealt
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["claim"] == BEST_CLAIM
    assert manifest["bound"]["best"] == best
    assert manifest["position"] == {"moved": position.moved,
                                    "moves": [str(c) for c in position.history]}
    result = cli("verify", str(tmp_path))
    assert result.exit_code == 0 and f"scores more than {best}" in result.output


def test_a_bound_one_too_high_is_refused(tmp_path) -> None:
    """A bound one below the best claims a score nobody can pass is out of reach, yet a
    line reaches it: there is no proof, and certify_best says which line scores more."""
    position = _position("pysol:29")
    best = exhaustive_best(position)
    with pytest.raises(InputError, match=f"scores {best}"):
        certify_best(position, best - 1, tmp_path / "low")
    with pytest.raises(InputError, match="no line can score more"):
        certify_best(position, 51, tmp_path / "won")


def _bound_changed(folder: Path, best: int, *, restate: bool) -> None:
    """The manifest claims `best`; with `restate`, formula.cnf and its hash are made
    the CNF of that bound too, so only the proof stands between the claim and VERIFIED."""
    _rewrite_manifest(folder, lambda m: m["bound"].update(best=best))
    if restate:
        position = position_of(
            parse_board((folder / "deal.board").read_text()))
        encoding, _ = bound_encoding(position, best)
        text = dimacs(encoding).encode()
        (folder / "formula.cnf").write_bytes(text)
        _rewrite_manifest(folder, lambda m: m["cnf"].update(sha256=sha256(text)))


def test_a_tampered_optimality_certificate_is_not_verified(tmp_path) -> None:
    position = _position("pysol:63")
    best = exhaustive_best(position)
    made = tmp_path / "made"
    certify_best(position, best, made, spec="pysol:63")
    # a stronger claim than the proof's: the re-derived CNF is not the stored one
    folder = _copy(made, tmp_path / "a")
    _bound_changed(folder, best - 1, restate=False)
    found = verify(folder)
    assert not found.ok and "CNF hash" in found.reason
    # the same claim with its own CNF: the proof does not refute it (a line reaches best)
    folder = _copy(made, tmp_path / "b")
    _bound_changed(folder, best - 1, restate=True)
    found = verify(folder)
    assert not found.ok and found.check is not None and not found.check.ok
    # the empty clause first: not RUP (the bound CNF is satisfiable without the proof)
    folder = _copy(made, tmp_path / "c")
    tampered = "0\n" + (folder / PROOF_FILE).read_text()
    (folder / PROOF_FILE).write_text(tampered)
    _rewrite_manifest(folder, lambda m: m["proof"].update(sha256=sha256(tampered.encode())))
    assert verify(folder).reason == "lemma 1 (line 1) is not RUP/RAT"
    # moves that do not lead to deal.board's position
    folder = _copy(made, tmp_path / "d")
    _rewrite_manifest(folder, lambda m: m["deal"].update(spec="pysol:64"))
    assert not verify(folder).ok
    result = cli("verify", str(folder))
    assert result.exit_code == 1 and "NOT VERIFIED" in result.output


def test_an_optimality_certificate_after_moves_names_them(tmp_path) -> None:
    position = _position("pysol:38", "2D 3S")
    best = exhaustive_best(position)
    certify_best(position, best, tmp_path / "made", spec="pysol:38")
    for name, moves, why in [("other", ["2C", "3S"], "not the position of pysol:38"),
                              ("illegal", ["KC", "2D"], "do not replay"),
                              ("short", ["2D"], "names 1 moves")]:
        folder = _copy(tmp_path / "made", tmp_path / name)
        _rewrite_manifest(folder, lambda m, moves=moves: m["position"].update(moves=moves))
        found = verify(folder)
        assert not found.ok and why in found.reason


# ---------------------------------------------------------------- certificate formats


def test_formula_cnf_is_the_encoding_clause_for_clause(certificate_837) -> None:
    """The fast DIMACS writer gives the clauses of the encoding, one a line, with the
    header drat-trim reads; the comment lines name the encoding."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem

    encoding = cnf.build_cnf(build_problem(load_deal("pysol:837")), cnf.CERTIFY_FEATURES)
    text = (certificate_837 / "formula.cnf").read_text()
    assert text == dimacs(encoding)
    num_vars, clauses = drat.parse_dimacs(text)
    assert (num_vars, clauses) == (encoding.num_vars, encoding.clauses)
    body = [line for line in text.splitlines() if not line.startswith(("c ", "p "))]
    assert body == [" ".join(map(str, clause)) + " 0" for clause in encoding.clauses]
    assert f"c blackhole SAT encoding {cnf.ENCODING_VERSION}" in text.splitlines()


def test_an_empty_clause_is_written_on_its_own_line() -> None:
    from dataclasses import replace

    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem

    encoding = cnf.build_cnf(build_problem(load_deal("pysol:1")), cnf.CERTIFY_FEATURES)
    odd = replace(encoding, clauses=[[1, -2], [], [], [3]])
    assert dimacs(odd).split("p cnf")[1].splitlines()[1:] == \
        ["1 -2 0", "0", "0", "3 0"]


def test_a_format_2_certificate_still_verifies(certificate_837, tmp_path) -> None:
    """Format 2 held `Encoding.dimacs()` (a comment per variable): verify re-derives
    that text for a format-2 manifest, and refuses the format-3 text under it."""
    from blackhole.encode import cnf
    from blackhole.model.problem import build_problem

    folder = _copy(certificate_837, tmp_path)
    encoding = cnf.build_cnf(build_problem(load_deal("pysol:837")), cnf.CERTIFY_FEATURES)
    old = encoding.dimacs().encode()
    (folder / "formula.cnf").write_bytes(old)
    _rewrite_manifest(folder, lambda m: (m.update(format="blackhole-certificate/2"),
                                         m["cnf"].update(sha256=sha256(old))))
    found = verify(folder)
    assert found.ok and found.check.ok, found.reason
    (folder / "formula.cnf").write_text(dimacs(encoding))
    _rewrite_manifest(folder, lambda m: m["cnf"].update(
        sha256=sha256((folder / "formula.cnf").read_bytes())))
    found = verify(folder)
    assert not found.ok and "CNF hash" in found.reason
    _rewrite_manifest(folder, lambda m: m.update(format="blackhole-certificate/1"))
    found = verify(folder)
    assert not found.ok and "unknown certificate format" in found.reason


def test_certify_times_each_stage(certificate_837) -> None:
    facts = json.loads((certificate_837 / MANIFEST_FILE).read_text())
    assert facts["format"] == CERTIFICATE_FORMAT
    assert set(facts["seconds"]) == {"encode", "solve", "check", "write"}
    assert all(value > 0 for value in facts["seconds"].values())


def test_verify_takes_the_out_folder_of_a_run(tmp_path: Path) -> None:
    """`verify OUT` checks every certificate a `certify --out OUT` run wrote, and says so
    only when all of them hold."""
    made = cli("certify", "pysol:1,pysol:2,pysol:27", "--out", str(tmp_path))
    assert made.exit_code == 1, made.output  # pysol:1 and 27 have no solution
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pysol-1", "pysol-2", "pysol-27"]
    checked = cli("verify", str(tmp_path))
    assert checked.exit_code == 0, checked.output
    assert checked.output.count("VERIFIED") == 3 and "3 of 3 certificates" in checked.output
    lines = json.loads(cli("verify", str(tmp_path), "--json").output)
    assert [line["deal"] for line in lines] == ["pysol:1", "pysol:2", "pysol:27"]
    assert all(line["verified"] for line in lines)
    (tmp_path / "pysol-27" / "deal.board").write_text(board_text(load_deal("pysol:1")))
    again = cli("verify", str(tmp_path))
    assert again.exit_code == 1 and "NOT VERIFIED" in again.output
    assert "2 of 3 certificates" in again.output


# ---------------------------------------------------------------- what the library takes


def test_a_deal_is_labelled_by_its_name_and_folders_may_be_str(tmp_path: Path) -> None:
    folder = str(tmp_path / "two")
    cert = certify(load_deal("pysol:2"), folder)
    assert cert.spec == "pysol:2" and cert.verdict is Verdict.SOLVED
    assert json.loads((tmp_path / "two" / SOLUTION_FILE).read_text())["deal"] == "pysol:2"
    found = verify(folder)
    assert found.ok and found.spec == "pysol:2" and found.label == "dealt"


def test_a_deal_is_never_labelled_as_another(tmp_path: Path) -> None:
    """Deal 2 under the name of deal 837 is labelled by its board's digest, not 837; so
    is a deal without a name. The digest is checked by verify like any label."""
    cert = certify(replace(load_deal("pysol:2"), name="pysol:837"), tmp_path / "two")
    board = (tmp_path / "two" / "deal.board").read_bytes()
    assert parse_board(board.decode()) == load_deal("pysol:2")
    assert cert.spec == f"sha256:{sha256(board)}"
    found = verify(tmp_path / "two")
    assert found.ok and found.spec == cert.spec and found.label == ""
    assert found.board_sha256 == sha256(board) and "digest" in found.label_note
    nameless = certify(replace(load_deal("pysol:1"), name=""), tmp_path / "one")
    assert nameless.certified and nameless.spec.startswith("sha256:")
    assert verify(tmp_path / "one").ok
    _rewrite_manifest(tmp_path / "one", lambda m: m["deal"].update(spec=cert.spec))
    found = verify(tmp_path / "one")
    assert not found.ok and "not the digest of deal.board" in found.reason


def test_a_position_is_labelled_by_its_deal_and_its_known_moves(tmp_path: Path) -> None:
    from blackhole.model.positions import load_position
    from blackhole.model.rules import initial_state, legal_moves

    cert = certify(load_position("pysol:25", "2C"), tmp_path / "a")
    assert cert.certified and cert.spec == "pysol:25" and cert.history == ("2C",)
    assert json.loads((tmp_path / "a" / MANIFEST_FILE).read_text())["position"] == {
        "moved": 1, "moves": ["2C"]}
    found = verify(tmp_path / "a")
    assert found.ok and found.label == "dealt" and found.replayed == 1
    # a position file without its history: labelled by the file while it shows the
    # position, by the digest once played on (the file's moves are not known)
    board = tmp_path / "after-2C.board"
    board.write_text((tmp_path / "a" / "deal.board").read_text())
    held = load_position(str(board))
    assert certify(held, tmp_path / "b").spec == str(board)
    assert verify(tmp_path / "b").label == "file"
    card = legal_moves(held.deal, initial_state(held.deal))[0].card
    cert = certify(load_position(str(board), str(card)), tmp_path / "c")
    assert cert.spec.startswith("sha256:") and cert.history == ()
    assert verify(tmp_path / "c").ok


@pytest.mark.parametrize(("call", "parameter"), [
    (lambda folder: certify(42, folder), "deal_or_spec"),
    (lambda folder: certify(None, folder), "deal_or_spec"),
    (lambda folder: certify("pysol:2", 42), "folder"),
    (lambda folder: certify("pysol:2", ""), "folder"),
    (lambda folder: certify("pysol:2", folder, timeout="5"), "timeout"),
    (lambda folder: certify("pysol:2", folder, timeout=0), "timeout"),
    (lambda folder: certify("pysol:2", folder, timeout=float("nan")), "timeout"),
    (lambda folder: certify("pysol:2", folder, solver=4), "solver"),
    (lambda folder: certify("pysol:2", folder, solver="cadical153"), "solver"),
    (lambda folder: certify("pysol:2", folder, checker="z3"), "checker"),
    (lambda folder: verify(42), "folder"),
    (lambda folder: verify(b"certificate"), "folder"),
])
def test_bad_values_are_one_line_input_errors_naming_the_parameter(call, parameter,
                                                                   tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        call(tmp_path / "c")
    assert caught.value.source == parameter, caught.value
    assert str(caught.value).startswith(f"{parameter}: ") and "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # refused before any work


def _documented_certify_fields() -> set[str]:
    """The fields docs/json.md gives for every row of `certify --json`."""
    import re

    text = (Path(__file__).parents[1] / "docs" / "json.md").read_text(encoding="utf-8")
    found = re.search(r"`certify --json` prints a list.*?`\{(.*?)\}`", text, re.S)
    assert found, "docs/json.md documents certify --json"
    return set(re.findall(r'"(\w+)"', found.group(1)))


def test_every_certify_json_row_has_the_documented_fields(tmp_path) -> None:
    fields = _documented_certify_fields()
    rows = []
    for args, out in ((["pysol:2,pysol:25"], "run"), (["pysol:2,pysol:25", "--resume"], "run"),
                      (["random:24:ranks=31", "--timeout", "0.2"], "hard")):
        result = cli("certify", *args, "--out", str(tmp_path / out), "--json")
        assert result.exit_code in (0, 1, 3), result.output
        rows += json.loads(result.stdout)
    assert [set(row) for row in rows] == [fields] * len(rows)
    by = {(row["deal"], row["resumed"]): row for row in rows}
    won, lost = by[("pysol:2", False)], by[("pysol:25", False)]
    assert won["verdict"] == "solved" and won["certified"] and won["moves"]
    assert won["proof_lines"] is None and won["position"] is None
    assert lost["verdict"] == "unsolvable" and lost["certified"] and lost["proof_lines"] > 0
    assert by[("pysol:2", True)]["certified"] and by[("pysol:25", True)]["certified"]
    unknown = by[("random:24:ranks=31", False)]
    assert unknown["verdict"] == "unknown" and not unknown["certified"] and unknown["reason"]
    assert verify(tmp_path / "run" / "pysol-2").ok and verify(tmp_path / "run" / "pysol-25").ok
