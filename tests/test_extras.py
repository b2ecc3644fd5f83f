"""The core install works without the extras, and a feature whose extra is missing says
which to install (exit 2). The core is run in a process where the extras' modules cannot
be imported (a meta-path finder refuses them), as after `pip install blackhole-solitaire`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib

import pytest

from blackhole.base.extras import EXTRAS

from .helpers import ROOT, child_env

BLOCK = """
import sys
class _Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(name)
        return None
sys.meta_path.insert(0, _Absent())
import importlib.util
_real = importlib.util.find_spec
importlib.util.find_spec = lambda name, package=None: (
    None if name.split(".")[0] in {blocked!r} else _real(name, package))
from blackhole.cli import app
sys.argv = ["blackhole", *{args!r}]
app()
"""


def _without_extras(*args: str, cwd) -> subprocess.CompletedProcess:
    blocked = sorted({module for modules in EXTRAS.values() for module in modules})
    script = BLOCK.format(blocked=blocked, args=list(args))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=child_env(), cwd=cwd, timeout=120)


def test_the_core_solves_without_the_extras(tmp_path) -> None:
    done = _without_extras("solve", "pysol:2", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"verdict": "solved"' in done.stdout


@pytest.mark.parametrize(("args", "extra"), [
    (["play", "pysol:2"], "play"),
    (["bench", "pysol:2", "--backends", "look", "--out", "r.jsonl", "--plots", "plots"],
     "bench"),
    (["serve", "--port", "0"], "web"),
    pytest.param(["solve", "pysol:2", "--backend", "kissat"], "kissat",
                 marks=pytest.mark.skipif(shutil.which("kissat") is not None,
                                          reason="kissat on PATH stands in for the extra")),
])
def test_a_missing_extra_is_named(tmp_path, args, extra) -> None:
    done = _without_extras(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"pip install 'blackhole-solitaire[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_the_extras_install_what_extras_py_names() -> None:
    """pyproject's extras and EXTRAS agree (the distributions' import names)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    imports = {"matplotlib": "matplotlib", "dask[distributed]": "distributed",
               "textual": "textual", "passagemath-kissat": "sage_wheels",
               "starlette": "starlette", "uvicorn": "uvicorn"}
    for extra, modules in EXTRAS.items():
        named = {imports[spec.split(">=")[0]] for spec in
                 project["optional-dependencies"][extra]}
        assert named == set(modules)
    assert "blackhole-solitaire[bench,play,kissat,web]" in \
        project["optional-dependencies"]["all"]
