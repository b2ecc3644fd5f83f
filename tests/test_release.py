"""The release: `python -m build` makes an sdist and a wheel, and the wheel installs into a
fresh venv and runs there.

The fresh venv gets the wheel alone (`--no-deps`); its dependencies (python-sat, ortools,
...) come from the test's own environment through a `.pth` line, so nothing is fetched
but what `build` itself needs for its isolated build. A `.pth` line adds a folder without
running the `.pth` files inside it, so the project's editable install does not come along:
`blackhole` can only be imported from the wheel.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True,
                          text=True, timeout=1200, stdin=subprocess.DEVNULL)


def test_build_makes_a_wheel_that_installs_and_runs(tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    dist = tmp_path / "dist"
    built = run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", dist, ROOT,
                cwd=tmp_path)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob(f"blackhole_solitaire-{version}.tar.gz")
    (wheel,) = dist.glob(f"blackhole_solitaire-{version}-*.whl")
    assert sdist.stat().st_size > 0
    names = zipfile.ZipFile(wheel).namelist()
    assert "blackhole/atlas/data/black-hole.atlas.gz" in names  # package data ships

    venv = tmp_path / "venv"
    made = run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                  cwd=tmp_path).stdout.strip()
    ours = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (Path(purelib) / "test-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    installed = run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel,
                    cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr

    where = run(python, "-c", "import blackhole; print(blackhole.__file__)", cwd=tmp_path)
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
    command = venv / "bin" / "blackhole"
    shown = run(command, "--version", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert version in shown.stdout
    solved = run(command, "solve", ROOT / "examples" / "worked-example.board", cwd=tmp_path)
    assert solved.returncode == 0, solved.stderr
    assert "solved" in solved.stdout.lower()
    looked_up = run(command, "atlas", "pysol:25", cwd=tmp_path)
    assert looked_up.returncode == 1, looked_up.stderr  # a lost deal, read from the wheel
    assert "best 2 of 51" in looked_up.stdout
