"""Text from outside (a certificate's labels, a file's name, a folder given on the command
line) is printed as it is: no Rich markup, link or emoji code in it is read, on a pipe or
on a terminal, and none of it can end a command with a crash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .helpers import EXAMPLES, blackhole

HOSTILE = ["[/]", "[link=http://evil.example]click[/link] :x:", "x[red]y [bold]"]
TERMINAL = {"FORCE_COLOR": "1", "COLUMNS": "200"}  # Rich as on a terminal: styles, links


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plain") / "genuine"
    made = blackhole("certify", "pysol:1:golf", "--out", str(folder))
    assert made.returncode == 1, made.stderr
    return folder


def relabelled(certificate: Path, where: Path, label: str) -> Path:
    """A copy of the certificate whose manifest names its deal `label`."""
    copy = where / f"copy-{HOSTILE.index(label)}"
    shutil.copytree(certificate, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["deal"]["spec"] = label
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return copy


@pytest.mark.parametrize("env", [{}, TERMINAL], ids=["piped", "terminal"])
@pytest.mark.parametrize("label", HOSTILE)
def test_a_label_is_printed_as_it_is(certificate: Path, tmp_path: Path, label: str,
                                     env: dict[str, str]) -> None:
    """The label is data: verify prints it literally and judges the proof (which the
    label does not touch), never crashing on it or turning it into a link or an emoji."""
    copy = relabelled(certificate, tmp_path, label)
    checked = blackhole("verify", str(copy), env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    flat = checked.stdout.replace("\n", "")
    assert f"labelled {label!r}" in flat
    assert "\x1b]8;" not in checked.stdout  # no hyperlink escape
    assert "❌" not in checked.stdout


def test_a_hostile_label_does_not_stop_a_folder_check(certificate: Path,
                                                     tmp_path: Path) -> None:
    """`verify FOLDER` checks every certificate in it, the relabelled ones included."""
    shutil.copytree(certificate, tmp_path / "genuine")
    for label in HOSTILE:
        relabelled(certificate, tmp_path, label)
    checked = blackhole("verify", str(tmp_path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(HOSTILE) + 1} of {len(HOSTILE) + 1} certificates" in checked.stdout


@pytest.mark.parametrize("env", [{}, TERMINAL], ids=["piped", "terminal"])
def test_a_folder_name_with_brackets_is_written_and_named(tmp_path: Path,
                                                          env: dict[str, str]) -> None:
    """certify writes into `r[/]s` and says so, with the verdict's exit code (1)."""
    out = tmp_path / "r[/]s"
    made = blackhole("certify", "pysol:1:golf", "--out", str(out), env=env)
    assert made.returncode == 1, made.stderr
    assert str(out) in made.stdout.replace("\n", "")
    assert (out / "manifest.json").is_file()


def test_a_file_name_with_brackets_is_named_as_it_is(tmp_path: Path) -> None:
    """bench's table names the deal `x[red].board`, not `x.board`."""
    board = tmp_path / "x[red].board"
    shutil.copy(EXAMPLES / "worked-example.board", board)
    ran = blackhole("bench", str(board), "--backends", "look", "--out",
                    str(tmp_path / "results.jsonl"), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "x[red].board" in ran.stdout
