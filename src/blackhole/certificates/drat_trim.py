"""drat-trim as a second opinion on a DRUP proof: run it on the files and read its word.

The project's own checker (`blackhole.drat`) needs none of this; drat-trim is an
outside program, used only when asked for (`checker="drat-trim"`) and found on PATH.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from blackhole.base import children
from blackhole.base.errors import InputError
from blackhole.drat import CheckResult

NAME = "drat-trim"

# drat-trim's messages that say what failed; the rest of its comment lines are progress
# and statistics (parsing, core sizes, and the timing line it prints after its verdict).
_CAUSE = re.compile(r"error|fail|not detected|memout|timeout", re.IGNORECASE)


def binary() -> str:
    """drat-trim's path; an InputError naming the checker when it is not on PATH."""
    found = shutil.which(NAME)
    if found is None:
        raise InputError(f"{NAME} is not on PATH", "checker", token=NAME)
    return found


def run(cnf_path: Path, proof_path: Path, timeout: float | None) -> CheckResult:
    """drat-trim's verdict on the proof of the CNF, within `timeout` seconds (at the limit
    the result is `timed_out`)."""
    program = binary()
    began = time.perf_counter()
    try:  # owned as every binary the tool starts: killed with all it started at the end
        output, code = children.run([program, str(cnf_path), str(proof_path)], timeout)
    except OSError as error:
        raise InputError(f"cannot run {NAME} ({error.strerror})", "checker",
                         token=program) from None
    if output is None:
        return CheckResult(ok=False, reason="time limit reached during the proof check",
                           stats={"seconds": time.perf_counter() - began}, timed_out=True)
    seconds = time.perf_counter() - began
    verdicts = [line.strip() for line in output.splitlines() if line.startswith("s ")]
    ok = verdicts == ["s VERIFIED"]
    return CheckResult(ok=ok, reason="" if ok else reason(output, code),
                       stats={"seconds": seconds}, timed_out=verdicts == ["s TIMEOUT"])


def reason(output: str, returncode: int | None = None) -> str:
    """Why drat-trim did not verify a proof, from its standard output: its verdict line
    (``s NOT VERIFIED``) and the last message before it that names what failed
    (``c failed at proof line 12 ...``, ``c ERROR: no conflict``), not the timing line it
    prints last. Without a verdict line, the exit code and its last message."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(lines) if line.startswith("s ")), None)
    before = lines if at is None else lines[:at]
    notes = [line[2:].strip() for line in before if line.startswith("c ")]
    cause = next((note for note in reversed(notes) if _CAUSE.search(note)),
                 notes[-1] if notes else "")
    if at is None:
        code = "" if returncode is None else f" (exit {returncode})"
        return f"{NAME} gave no verdict{code}" + (f": {cause}" if cause else "")
    verdict = lines[at][2:].strip()
    return f"{NAME}: {verdict}" + (f": {cause}" if cause else "")
