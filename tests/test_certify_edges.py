"""certify and verify at their edges: a file label from another working directory, two
writers of one folder, the run's times, a run folder with folders that hold no
certificate, and an external solver whose proof fails its check.

Every certificate here is made by the real proof-logging solver on real deals (pysol:25
and pysol:837 are unsolvable, pysol:2 solvable); the external solvers are a liar written
here as a shell script and Debian's cadical.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from blackhole.backends import Options, Verdict
from blackhole.certificates import certify, verify
from blackhole.certificates.batch import certify_all, plan
from blackhole.model.formats import board_text, deal_json
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    EXAMPLES,
    ROOT,
    blackhole,
    child_env,
    cli,
    command,
    default_sigint,
    nearly_sorted_deal,
)


def one_line(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command prints on stderr (no traceback)."""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip()


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ---------------------------------------------------------------- 1. the same verdict anywhere


def test_a_relative_file_label_gives_the_same_verdict_from_any_directory(tmp_path) -> None:
    """`certify examples/pysol-2.board` run from the repository records the file by its
    absolute path; `verify` from another directory, where examples/pysol-2.board is
    another deal (pysol:1), reads the same file and says which."""
    made = blackhole("certify", "examples/pysol-2.board", "--out", str(tmp_path / "c"),
                     cwd=ROOT)
    assert made.returncode == 0, made.stderr
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "examples").mkdir(parents=True)
    shutil.copy(EXAMPLES / "pysol-1.board", elsewhere / "examples" / "pysol-2.board")
    label = str(EXAMPLES / "pysol-2.board")
    for cwd in (elsewhere, ROOT, tmp_path):
        checked = blackhole("verify", str(tmp_path / "c"), "--json", cwd=cwd)
        assert checked.returncode == 0, (cwd, checked.stdout, checked.stderr)
        data = json.loads(checked.stdout)
        assert data["verified"] and data["label"]["how"] == "file", cwd
        assert data["label_file"] == label and data["label"]["note"] == ""
    assert json.loads((tmp_path / "c" / "solution.json").read_text())["deal"] == label
    said = blackhole("verify", str(tmp_path / "c"), cwd=elsewhere)
    assert f"the file {label} read" in " ".join(said.stdout.split())


def test_an_unsolvable_deal_s_file_label_is_absolute_from_the_library(tmp_path,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    cert = certify("examples/pysol-25.board", tmp_path / "c")
    assert cert.certified and cert.spec == str(EXAMPLES / "pysol-25.board")
    job, = plan(["examples/pysol-25.board"], tmp_path / "d")
    assert job.spec == cert.spec and job.folder == tmp_path / "d"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "pysol-25.board").write_text(board_text(load_deal("pysol:2")))
    found = verify(tmp_path / "c")
    assert found.ok and found.label == "file" and found.label_file == cert.spec


def test_a_relative_label_written_by_hand_says_it_was_read_from_here(tmp_path,
                                                                      monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    certify("pysol:25", tmp_path / "c")
    manifest = tmp_path / "c" / "manifest.json"
    facts = json.loads(manifest.read_text())
    facts["deal"]["spec"] = "examples/pysol-25.board"
    manifest.write_text(json.dumps(facts))
    found = verify(tmp_path / "c")
    assert found.ok and found.label == "file"
    assert found.label_file == str(EXAMPLES / "pysol-25.board")
    assert "relative" in found.label_note and "working directory" in found.label_note
    said = cli("verify", str(tmp_path / "c"))
    assert said.exit_code == 0
    assert "read from the working directory" in " ".join(said.output.split())


# ---------------------------------------------------------------- 2. one writer at a time


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_folder_another_certify_is_writing_is_refused(tmp_path) -> None:
    """A certify of a 100-rank deck that no solver settles in seconds holds its folder;
    a second certify of that folder, alone or in a run, is refused at once (exit 2, one
    line naming the folder and the writer) and does no work. Once the writer is killed,
    what it left blocks no one."""
    deck = tmp_path / "nearly-sorted.json"
    deck.write_text(json.dumps(deal_json(nearly_sorted_deal(100, 1))))
    out = tmp_path / "d"
    folder = out / "nearly-sorted"
    writer = subprocess.Popen(command("certify", str(deck), "--out", str(folder),
                                      "--timeout", "120"), env=child_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              preexec_fn=default_sigint)
    try:
        began = time.monotonic()
        while not (out.exists() and [n for n in hidden(out) if ".partial-" in n]):
            assert writer.poll() is None and time.monotonic() - began < 60
            time.sleep(0.02)  # till it is at work, beside its folder
        refused = blackhole("certify", "pysol:25", "--out", str(folder))
        assert refused.returncode == 2, refused.stdout
        line = one_line(refused)
        assert str(folder) in line and f"another certify (process {writer.pid})" in line
        in_run = blackhole("certify", "pysol:25", str(deck), "--out", str(out))
        assert in_run.returncode == 2 and str(folder) in one_line(in_run)
        assert not (out / "pysol-25").exists()  # refused before any work
        assert writer.poll() is None  # the premise: it was writing all along
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert [n for n in hidden(out) if ".partial-" in n or n.endswith(".lock")]
    done = blackhole("certify", "pysol:25", "--out", str(folder))
    assert done.returncode == 1, done.stderr
    assert verify(folder).ok and hidden(out) == []


# ---------------------------------------------------------------- 3. the run's times


def _seconds(pattern: str, text: str) -> float:
    found = re.search(pattern, " ".join(text.split()))
    assert found, text
    return float(found.group(1))


def test_the_summary_gives_the_run_s_wall_time_and_what_its_sums_cover(tmp_path) -> None:
    args = ["certify", "pysol:25,pysol:837,pysol:2", "--out", str(tmp_path)]
    began = time.perf_counter()
    first = cli(*args)
    took = time.perf_counter() - began
    assert first.exit_code == 1, first.output
    wall = _seconds(r"run: ([0-9.]+) s wall time", first.output)
    summed = _seconds(r"summed over deals ([0-9.]+) s", first.output)
    assert 0 < summed <= wall <= took  # one process: the deals' times fit in the run's
    assert "per deal worked on in this run (3)," in " ".join(first.output.split())
    assert "proofs made in this run: 2" in first.output
    again = cli(*args, "--resume")
    assert again.exit_code == 1, again.output
    said = " ".join(again.output.split())
    assert _seconds(r"run: ([0-9.]+) s wall time", said) > 0
    assert "no deal worked on (all 3 kept)" in said and "total 0.0 s" not in said
    (tmp_path / "pysol-837" / "manifest.json").unlink()  # as if interrupted there
    third = " ".join(cli(*args, "--resume").output.split())
    assert "per deal worked on in this run (1; the 2 kept are not counted)" in third
    assert "proofs made in this run: 1" in third


# ---------------------------------------------------------------- 4. verify counts certificates


def test_verify_counts_certificates_apart_from_folders_without_one(tmp_path) -> None:
    out = tmp_path / "d"
    made = {job.spec: c for job, c in certify_all(plan(["pysol:2", "pysol:25"], out))}
    assert made["pysol:25"].certified and made["pysol:2"].verdict is Verdict.SOLVED
    (out / "empty").mkdir()
    checked = cli("verify", str(out))
    said = " ".join(checked.output.split())
    assert checked.exit_code == 1  # a folder of the run holds no certificate
    assert f"2 of 2 certificates in {out} verified; 1 folder holds no certificate " \
           "(empty)" in said
    (out / "pysol-3").mkdir()
    (out / "pysol-3" / "deal.board").write_text(board_text(load_deal("pysol:3")))
    (out / "pysol-25" / "deal.board").write_text(board_text(load_deal("pysol:837")))
    checked = cli("verify", str(out))
    said = " ".join(checked.output.split())
    assert checked.exit_code == 1
    assert "1 of 2 certificates" in said
    assert "2 folders hold no certificate (empty, pysol-3)" in said


# ---------------------------------------------------------------- 5. external proofs


def _shell_liar(folder: Path, proof: str) -> str:
    """A solver that answers UNSATISFIABLE to any CNF, writing `proof` as its proof."""
    path = folder / "liar"
    path.write_text(f"#!/bin/sh\nprintf '{proof}' > \"$2\"\necho 's UNSATISFIABLE'\n"
                    "exit 20\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("proof", ["", "0\\n", "hello\\n"], ids=["empty", "only-0", "bogus"])
def test_an_external_proof_that_fails_its_check_is_unknown(tmp_path, proof) -> None:
    """pysol:2 is solvable: the liar's UNSATISFIABLE, with an empty, a bare or a bogus
    proof, is refused by the check, and the answer is unknown (exit 3), saying why."""
    liar = _shell_liar(tmp_path, proof)
    args = ["solve", "pysol:2", "--backend", "external", "--solver-cmd", liar,
            "--proof-arg", "{proof}"]
    done = blackhole(*args)
    assert done.returncode == 3, (done.stdout, done.stderr)
    said = " ".join(done.stdout.split())  # as wrapped to the terminal's width
    assert said.startswith("unknown") and "said UNSATISFIABLE but its proof" in said
    data = json.loads(blackhole(*args, "--json").stdout)
    assert data["verdict"] == "unknown" and data["stats"]["proof"] == "rejected"


@pytest.mark.skipif(shutil.which("cadical") is None, reason="cadical not installed")
def test_cadical_s_proof_without_its_lemmas_is_unknown(tmp_path) -> None:
    """cadical refutes pysol:837 honestly; the wrapper keeps only the deletions and the
    empty clause of its proof, which the check refuses: unknown, not unsolvable. The
    whole proof is checked and gives exit 1."""
    cut = tmp_path / "cut"
    cut.write_text("#!/bin/sh\ncadical -q --no-binary \"$1\" \"$2\" > /dev/null\n"
                   "code=$?\ngrep '^d ' \"$2\" > \"$2.cut\"\necho 0 >> \"$2.cut\"\n"
                   "mv \"$2.cut\" \"$2\"\necho 's UNSATISFIABLE'\nexit $code\n")
    cut.chmod(0o755)
    solution = solve_deal(load_deal("pysol:837"), "external",
                          Options(solver_cmd=str(cut), proof_arg="{proof}", timeout=120))
    assert solution.verdict is Verdict.UNKNOWN
    assert solution.result.stats["exit_code"] == 20
    assert solution.result.stats["proof"] == "rejected"
    done = blackhole("solve", "pysol:837", "--backend", "external", "--solver-cmd", str(cut),
                     "--proof-arg", "{proof}")
    assert done.returncode == 3, (done.stdout, done.stderr)
    honest = blackhole("solve", "pysol:837", "--backend", "external", "--solver-cmd",
                       "cadical -q")
    assert honest.returncode == 1, (honest.stdout, honest.stderr)


# ---------------------------------------------------------------- 6. help states the bounds


def test_certify_help_states_the_bounds_it_enforces() -> None:
    shown = cli("certify", "--help")
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0
    assert "x>=0.0" not in said and "(> 0, finite" in said
    assert "at least 1" in said and "no other maximum" in said
    for value in ("0", "-1", "inf", "nan"):
        refused = cli("certify", "pysol:2", "--timeout", value)
        assert refused.exit_code == 2 and "--timeout" in refused.stderr, value
    refused = cli("certify", "pysol:2", "--jobs", "0")
    assert refused.exit_code == 2 and "--jobs" in refused.stderr
