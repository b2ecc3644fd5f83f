"""Certificates are never destroyed by a later run that does not finish, `verify` says
only what it checked, and positions are certified like deals.

Where exit codes, files or signals matter, these run `blackhole` as a real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from blackhole.backends import Verdict
from blackhole.base.errors import InputError, InternalError
from blackhole.certificates import certify, drat_trim, make, verify
from blackhole.certificates.batch import certify_all, plan
from blackhole.certificates.files import MANIFEST_FILE, SOLUTION_FILE, sha256
from blackhole.model.formats import board_text
from blackhole.model.positions import load_position
from blackhole.model.sources import load_deal

from .helpers import ROOT, blackhole, child_env, children, cli, command, default_sigint


def start(*args: str, output: int = subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen(command(*args), env=child_env(), text=True, stdout=output,
                            stderr=output, preexec_fn=default_sigint)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, by relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    """A certify run's --out folder: pysol:2 (solvable) and pysol:25 (unsolvable)."""
    out = tmp_path_factory.mktemp("run") / "d"
    made = {job.spec: cert for job, cert in certify_all(plan(["pysol:2", "pysol:25"], out))}
    assert made["pysol:2"].verdict is Verdict.SOLVED and made["pysol:25"].certified
    return out


def _copy_tree(folder: Path, target: Path) -> Path:
    for path, data in snapshot(folder).items():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_bytes(data)
    return target


# ---------------------------------------------------------------- nothing proven is lost


def test_a_rerun_that_ends_unknown_leaves_the_certificates_as_they_were(run_folder,
                                                                         tmp_path) -> None:
    out = _copy_tree(run_folder, tmp_path / "d")
    before = snapshot(out)
    again = blackhole("certify", "pysol:2,pysol:25", "--out", str(out), "--timeout", "0.001")
    assert again.returncode == 3, again.stderr
    assert again.stdout.count("unknown (time limit reached") == 2
    assert snapshot(out) == before and hidden(out) == []
    checked = blackhole("verify", str(out))
    assert checked.returncode == 0 and "2 of 2 certificates" in checked.stdout


def test_an_error_or_a_rejected_proof_leaves_the_certificate_as_it_was(run_folder,
                                                                       tmp_path,
                                                                       monkeypatch) -> None:
    folder = _copy_tree(run_folder / "pysol-25", tmp_path / "c")
    before = snapshot(folder)

    def broken(encoding, solver, deadline):
        raise InternalError("the solver broke")

    monkeypatch.setattr(make, "_refute", broken)
    with pytest.raises(InternalError):
        certify("pysol:25", folder)
    assert snapshot(folder) == before
    # a solver whose "proof" the check rejects: reported, and nothing replaced
    monkeypatch.setattr(make, "_refute",
                        lambda encoding, solver, deadline: (False, None, (), ["0"], {}))
    cert = certify("pysol:2", folder)
    assert cert.verdict is Verdict.UNSOLVABLE and not cert.certified
    assert snapshot(folder) == before and hidden(tmp_path) == []
    assert verify(folder).ok


def test_ctrl_c_inside_the_sat_solver_is_an_interrupt(run_folder, tmp_path,
                                                      monkeypatch) -> None:
    """pysat catches SIGINT during a solve and raises its own error ("Caught keyboard
    interrupt"): certify turns it back into KeyboardInterrupt (exit 130, not 4), and the
    certificate stays."""
    from blackhole.backends import pysat_tools

    folder = _copy_tree(run_folder / "pysol-25", tmp_path / "c")
    before = snapshot(folder)

    def interrupted(solver, name, deadline, assumptions=()):
        raise RuntimeError("Caught keyboard interrupt")

    monkeypatch.setattr(pysat_tools, "run_solver", interrupted)
    with pytest.raises(KeyboardInterrupt):
        certify("pysol:25", folder)
    assert snapshot(folder) == before and hidden(tmp_path) == []


def test_ctrl_c_leaves_the_certificate_as_it_was(run_folder, tmp_path) -> None:
    """A real SIGINT to `certify` while it works on a deal where pysol:25's certificate
    lies: exit 130, the certificate as it was, no half-made folder left beside it. The
    deal, random:43:ranks=25, takes glucose4 some 30,000 conflicts (over ten seconds), so
    the signal comes while the work is under way, never after it (a deal of 60 ranks
    done in two seconds once finished before the signal on a fast machine)."""
    folder = _copy_tree(run_folder / "pysol-25", tmp_path / "c")
    before = snapshot(folder)
    process = start("certify", "random:43:ranks=25", "--out", str(folder))
    began = time.monotonic()
    while not any(".partial-" in name for name in hidden(tmp_path)) \
            and snapshot(folder) == before:  # at work beside the folder (or, before, in it)
        assert process.poll() is None and time.monotonic() - began < 60, process.stderr
        time.sleep(0.02)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert snapshot(folder) == before and hidden(tmp_path) == []


def test_a_folder_holding_other_files_is_refused_before_any_work(tmp_path) -> None:
    """certify replaces a certificate folder whole, so it never takes one that holds
    anything else."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n")
    refused = blackhole("certify", "pysol:25", "--out", str(out))
    assert refused.returncode == 2 and "notes.txt" in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    with pytest.raises(InputError, match="holds more than a certificate"):
        plan(["pysol:1"], out)


def _running(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] \
            != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_parent_ends_its_workers(tmp_path, how) -> None:
    """`certify --jobs 2` on two deals of seconds each: once both workers are at work,
    the parent is killed; its workers end at once instead of finishing their deals.
    SIGTERM is Ctrl-C (exit 130): the parent removes what they half made. After SIGKILL
    the next run on those folders removes it."""
    out = tmp_path / "d"
    specs = "random:5:ranks=60,random:7:ranks=60"
    # no pipes: the workers would hold them open, and waiting for them would wait for
    # the workers
    parent = start("certify", specs, "--out", str(out), "--jobs", "2",
                   output=subprocess.DEVNULL)
    began = time.monotonic()
    workers: list[int] = []

    def at_work() -> int:  # deals begun: made beside their place (or, before, in it)
        if not out.exists():
            return 0
        return len([p for p in out.iterdir() if ".partial-" in p.name
                    or (p / "deal.board").exists()])

    while len(workers) < 2 or at_work() < 2:
        assert parent.poll() is None and time.monotonic() - began < 60
        workers = children(parent.pid)
        time.sleep(0.02)
    try:
        parent.send_signal(how)
        parent.wait(timeout=30)
        ended = time.monotonic()
        while any(_running(pid) for pid in workers) and time.monotonic() - ended < 10:
            time.sleep(0.02)
        assert not any(_running(pid) for pid in workers)
    finally:
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
    left = [name for name in hidden(out) if ".partial-" in name]
    if how == signal.SIGTERM:
        assert parent.returncode == 130 and left == []
        return
    assert len(left) == 2  # killed outright, they could not tidy up
    cert = certify("pysol:25", out / "random-5-ranks=60")
    assert cert.certified and [n for n in hidden(out) if "random-5" in n] == []


# ---------------------------------------------------------------- verify says what it checked


def test_verify_names_every_folder_of_a_run_without_a_certificate(run_folder,
                                                                  tmp_path) -> None:
    out = _copy_tree(run_folder, tmp_path / "d")
    (out / "pysol-3").mkdir()
    (out / "pysol-3" / "deal.board").write_text(board_text(load_deal("pysol:3")))
    (out / "empty").mkdir()
    (out / ".pysol-4.partial-1-x").mkdir()  # a run's unfinished work: not a deal
    checked = blackhole("verify", str(out))
    assert checked.returncode == 1, checked.stdout
    said = " ".join(checked.stdout.split())  # as wrapped to the terminal's width
    assert f"NOT VERIFIED {out / 'pysol-3'}: no certificate: the folder holds only " \
           "deal.board" in said
    assert f"NOT VERIFIED {out / 'empty'}: no certificate: the folder is empty" in said
    assert "2 of 2 certificates" in said and "partial" not in said
    assert "2 folders hold no certificate (empty, pysol-3)" in said
    data = json.loads(cli("verify", str(out), "--json").stdout)
    assert [(Path(one["folder"]).name, one["verified"]) for one in data] == [
        ("empty", False), ("pysol-2", True), ("pysol-25", True), ("pysol-3", False)]


def test_verify_takes_a_file_of_the_certificate_as_its_folder(run_folder) -> None:
    folder = run_folder / "pysol-25"
    checked = blackhole("verify", str(folder / MANIFEST_FILE), "--json")
    assert checked.returncode == 0, checked.stderr
    data = json.loads(checked.stdout)
    assert data["verified"] and data["deal"] == "pysol:25"
    assert data["folder"] == str(folder)
    for path in (folder / "deal.board", run_folder / "pysol-2" / SOLUTION_FILE):
        found = cli("verify", str(path))
        assert found.exit_code == 0 and "VERIFIED pysol:2" in found.output
    other = cli("verify", str(ROOT / "pyproject.toml"))
    assert other.exit_code == 2 and "not a certificate folder" in other.stderr
    assert other.stderr.count("\n") == 1


def _relabel(folder: Path, spec: str) -> None:
    for name, key in ((MANIFEST_FILE, "deal"), (SOLUTION_FILE, None)):
        path = folder / name
        if path.is_file():
            data = json.loads(path.read_text())
            if key:
                data[key]["spec"] = spec
            else:
                data["deal"] = spec
            path.write_text(json.dumps(data))


@pytest.mark.parametrize("name", ["pysol-25", "pysol-2"])
def test_verify_checks_the_label_or_says_it_could_not(run_folder, tmp_path, monkeypatch,
                                                      name) -> None:
    """A label naming a file is compared with it (pysol:25's certificate labelled as the
    solvable examples/pysol-2.board, or /etc/passwd, is not verified); one naming no file
    is not checked, and the verdict names the deal by its board's digest. A spec is read
    in any case, as everywhere: `PYSOL:25` deals pysol:25 again."""
    monkeypatch.chdir(ROOT)
    folder = _copy_tree(run_folder / name, tmp_path / "c")
    other = "examples/pysol-2.board" if name == "pysol-25" else "examples/pysol-1.board"
    assert load_deal(other) != load_deal(f"pysol:{name[6:]}")
    for label, why in [(other, "is not the deal"), ("/etc/passwd", "holds no deal")]:
        _relabel(folder, label)
        found = verify(folder)
        assert not found.ok and why in found.reason, (label, found.reason)
    _relabel(folder, f"PYSOL:{name[6:]}")
    found = verify(folder)
    assert found.ok and found.label == "dealt", found.reason
    if name == "pysol-25":  # the case, in a real process
        _relabel(folder, other)
        refused = blackhole("verify", str(folder), cwd=ROOT)
        assert refused.returncode == 1 and "NOT VERIFIED" in refused.stdout
    (tmp_path / "mine.board").write_text(board_text(load_deal(f"pysol:{name[6:]}")))
    _relabel(folder, str(tmp_path / "mine.board"))
    found = verify(folder)
    assert found.ok and found.label == "file" and not found.dealt
    _relabel(folder, "lost/deal.board")
    found = verify(folder)
    assert found.ok and found.label == "" and "no such file" in found.label_note
    assert found.board_sha256 == sha256((folder / "deal.board").read_bytes())
    if name == "pysol-25":
        said = blackhole("verify", str(folder), cwd=ROOT)
        assert said.returncode == 0
        assert f"sha256:{found.board_sha256[:16]}" in said.stdout
        assert "'lost/deal.board', not checked: no such file" in " ".join(said.stdout.split())
    data = json.loads(cli("verify", str(folder), "--json").stdout)
    assert data["label"] == {"checked": False, "how": None, "note": "no such file here",
                             "replayed": 0}


# ---------------------------------------------------------------- positions


def test_certify_after_proves_a_position_lost_and_verify_rebuilds_it(tmp_path) -> None:
    """pysol:25 after 2C: its certificate names the move, verify deals pysol:25 again and
    replays it; a manifest whose moves are changed is not verified."""
    folder = tmp_path / "lost"
    made = blackhole("certify", "pysol:25", "--after", "2C", "--out", str(folder), "--json")
    assert made.returncode == 1, made.stderr
    assert json.loads(made.stdout)[0]["position"] == {"moved": 1, "moves": ["2C"]}
    facts = json.loads((folder / MANIFEST_FILE).read_text())
    assert facts["position"] == {"moved": 1, "moves": ["2C"]}
    assert (folder / "deal.board").read_text() == board_text(
        load_position("pysol:25", "2C").deal)
    found = verify(folder)
    assert found.ok and found.dealt and found.replayed == 1
    checked = blackhole("verify", str(folder))
    assert checked.returncode == 0 and "1 move(s) replayed" in checked.stdout
    facts["position"]["moves"] = ["AD"]
    (folder / MANIFEST_FILE).write_text(json.dumps(facts))
    assert not verify(folder).ok
    facts["position"]["moves"] = ["@-"]  # never read as a file or stdin
    (folder / MANIFEST_FILE).write_text(json.dumps(facts))
    assert "do not replay" in verify(folder).reason
    # a position that can still be won gets its winning line, from the position
    (won,) = certify_all(plan(["pysol:2"], tmp_path / "w", after="2S 3H"))
    assert won[1].verdict is Verdict.SOLVED
    solution = json.loads((tmp_path / "w" / SOLUTION_FILE).read_text())
    assert solution["position"] == {"moved": 2, "moves": ["2S", "3H"]}
    assert len(solution["moves"]) == 49
    found = verify(tmp_path / "w")
    assert found.ok and found.played == 49 and found.replayed == 2
    several = cli("certify", "pysol:2,pysol:3", "--after", "2S", "--out", str(tmp_path / "x"))
    assert several.exit_code == 2 and "--after" in several.stderr
    assert not (tmp_path / "x").exists()


def test_resume_keeps_a_position_only_for_the_same_moves(tmp_path) -> None:
    job, = plan(["pysol:25"], tmp_path / "p", after="2C")
    first, = certify_all([job])
    assert first[1].certified
    kept, = certify_all(plan(["pysol:25"], tmp_path / "p", after="2C"), resume=True)
    assert kept[1].resumed
    redone, = certify_all(plan(["pysol:25"], tmp_path / "p"), resume=True)
    assert not redone[1].resumed and redone[1].certified and verify(tmp_path / "p").ok


def test_a_position_file_label_is_read_and_played_on(tmp_path) -> None:
    board = tmp_path / "pos.board"
    board.write_text(board_text(load_position("pysol:25", "2C").deal))
    made = blackhole("certify", str(board), "--after", "AD", "--out", str(tmp_path / "c"))
    assert made.returncode == 1, made.stderr
    found = verify(tmp_path / "c")
    assert found.ok and found.label == "file" and found.replayed == 1


def test_best_certify_on_a_win_writes_solution_json(tmp_path) -> None:
    folder = tmp_path / "won"
    made = blackhole("best", "pysol:2", "--after", "2S 3H", "--certify", str(folder))
    assert made.returncode == 0, made.stderr
    assert "solution.json" in made.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["deal.board", SOLUTION_FILE]
    found = verify(folder)
    assert found.ok and found.claim == "solved" and found.played == 49
    assert found.dealt and found.replayed == 2
    checked = blackhole("verify", str(folder))
    assert checked.returncode == 0 and "VERIFIED pysol:2" in checked.stdout


def test_bench_says_it_takes_no_positions() -> None:
    shown = cli("bench", "--help")
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "takes no positions (no --after)" in said


# ---------------------------------------------------------------- the command line


def test_certify_takes_several_specs(tmp_path) -> None:
    made = cli("certify", "pysol:25", "pysol:2", "--out", str(tmp_path / "d"))
    assert made.exit_code == 1, made.output
    assert "2 deals: 1 certified unsolvable" in made.stdout
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["pysol-2", "pysol-25"]


DRAT_TRIM_REJECTS = """c parsing input formula with 10 variables and 20 clauses
c finished parsing, read 1000 bytes from proof file
c detected empty clause; start verification via backward checking
c RAT check failed on all possible pivots
c failed at proof line 7 (modulo deletion errors)
s NOT VERIFIED
c verification time: 0.001 seconds
"""


@pytest.mark.parametrize(("output", "reason"), [
    (DRAT_TRIM_REJECTS,
     "drat-trim: NOT VERIFIED: failed at proof line 7 (modulo deletion errors)"),
    ("c finished parsing, read 651 bytes from proof file\nc ERROR: no conflict\n"
     "s NOT VERIFIED\nc verification time: 0.000 seconds\n",
     "drat-trim: NOT VERIFIED: ERROR: no conflict"),
    ("c parsing input formula\nc conflict claimed, but not detected\ns NOT VERIFIED\n"
     "c verification time: 0.002 seconds\n",
     "drat-trim: NOT VERIFIED: conflict claimed, but not detected"),
    ("c error opening \"x.cnf\".\n", "drat-trim gave no verdict (exit 255): error opening "
     "\"x.cnf\"."),
])
def test_drat_trims_reason_is_its_message_not_its_timing(output, reason) -> None:
    assert drat_trim.reason(output, 255) == reason


def test_a_won_positions_solution_replays_with_check_from_the_deal(tmp_path) -> None:
    """certify --after on a winnable position writes solution.json with `after`, as
    solve --json does, so that `check SPEC solution.json` replays it from the deal."""
    folder = tmp_path / "won"
    made = blackhole("certify", "pysol:2", "--after", "KH AD", "--out", str(folder))
    assert made.returncode == 0, made.stderr
    checked = blackhole("check", "pysol:2", str(folder / "solution.json"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert blackhole("verify", str(folder)).returncode == 0


def test_a_certificate_written_by_1_1_0_for_all_in_a_row_still_verifies(tmp_path) -> None:
    """Proven work stays proven: 1.1.0 wrote All in a Row's deal.board with no Game line
    (its layout named the game then); a board that names no game is now Black Hole, yet
    that certificate is read as 1.1.0 read it and verifies, by `verify` and the API. A
    new certificate of the same deal names its game."""
    import tarfile

    with tarfile.open(ROOT / "tests" / "data" / "all-in-a-row-1.certificate-1.1.0.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data")
    old = tmp_path / "air-1"
    assert not (old / "deal.board").read_text().startswith("Game:")
    checked = verify(old)
    assert checked.ok and checked.claim == "unsolvable", checked.reason
    done = cli("verify", str(old))
    assert done.exit_code == 0, done.output
    new = certify("pysol:1:all-in-a-row", tmp_path / "new")
    assert new.verdict is Verdict.UNSOLVABLE
    assert (tmp_path / "new" / "deal.board").read_text().startswith("Game: all-in-a-row\n")
    assert verify(tmp_path / "new").ok
