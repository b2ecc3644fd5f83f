"""The README's examples run as written.

Every line of a ```bash block of README.md that starts with `blackhole ` carries a
comment saying what it does: `# exit N: ...` (a quick example: run here, as a real
process, and its exit code must be N), `# exit N, slow: ...` (run under the slow
checks), or `# terminal: ...` (needs a terminal: without one it must refuse, exit 2).
The commands run in README order in one scratch folder that sees the repository's
`examples/`, so a `verify` may check what a `certify` above it wrote. The ```python
block runs too, and each `print(...)  # TEXT` must print TEXT.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
TAG = re.compile(r"^(?P<command>blackhole .*?)\s+#\s*(?:exit (?P<code>\d+)(?P<slow>, slow)?:"
                 r"|(?P<terminal>terminal):)")


@dataclass(frozen=True)
class Example:
    command: str
    code: int | None  # None: needs a terminal
    slow: bool


def blocks(language: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


def examples() -> list[Example]:
    found = []
    for block in blocks("bash"):
        for line in block.splitlines():
            if not line.startswith("blackhole "):
                continue
            match = TAG.match(line)
            assert match, f"README example without '# exit N:' or '# terminal:': {line}"
            code = match["code"]
            found.append(Example(match["command"], None if code is None else int(code),
                                 bool(match["slow"])))
    return found


def environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "COLUMNS": "100"}


def run_in_order(chosen: list[Example], folder: Path) -> list[str]:
    """Run each example as a real process (through bash, for its redirections); return
    what went wrong."""
    (folder / "examples").symlink_to(ROOT / "examples")
    wrong = []
    for example in chosen:
        done = subprocess.run(["bash", "-c", example.command], cwd=folder, env=environment(),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=600)
        expected = 2 if example.code is None else example.code
        if done.returncode != expected:
            wrong.append(f"{example.command}: exit {done.returncode}, README says {expected}"
                         f"\n{done.stderr.strip()}")
        elif expected == 2 and len(done.stderr.strip().splitlines()) != 1:
            wrong.append(f"{example.command}: bad input must give one line: {done.stderr!r}")
    return wrong


def test_first_commands_are_the_ones_ci_runs() -> None:
    """The README's two commands are the lines .ci/install and .ci/run run (pip quiet)."""
    install, test = blocks("bash")[0].splitlines()
    ci = ((ROOT / ".ci" / "install").read_text() + (ROOT / ".ci" / "run").read_text())
    ran = [line.replace("pip install -q ", "pip install ") for line in ci.splitlines()
           if not line.startswith("#")]
    assert install in ran and test in ran
    assert '".[all,test]"' in install  # every extra, as the tests need


def test_every_command_has_an_example() -> None:
    from typer.main import get_command

    from blackhole.cli import app

    commands = set(get_command(app).commands)  # type: ignore[attr-defined]
    shown = {example.command.split()[1] for example in examples()}
    assert commands <= shown, f"commands without a README example: {commands - shown}"


def test_quick_examples_run_as_written(tmp_path: Path) -> None:
    quick = [example for example in examples() if not example.slow]
    assert len(quick) >= 15
    wrong = run_in_order(quick, tmp_path)
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_slow_examples_run_as_written(tmp_path: Path) -> None:
    slow = [example for example in examples() if example.slow]
    assert slow
    wrong = run_in_order(slow, tmp_path)
    assert not wrong, "\n".join(wrong)


def test_python_example_prints_what_it_says(tmp_path: Path) -> None:
    (code,) = blocks("python")
    expected = [re.search(r"#\s*(.*)$", line)[1] if "#" in line else None  # type: ignore[index]
                for line in code.splitlines() if line.lstrip().startswith("print(")]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert len(printed) == len(expected)
    for line, want in zip(printed, expected, strict=True):
        if want is not None:
            assert line == want
