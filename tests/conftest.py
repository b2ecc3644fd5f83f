"""Fixtures and settings every test shares (shared functions and constants live in
tests/helpers.py)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from .helpers import reference

# Property tests check outcomes, never time: no per-example deadline, which a busy
# machine would turn into a failure.
settings.register_profile("outcomes", deadline=None)
settings.load_profile("outcomes")


@pytest.fixture(autouse=True)
def no_terminal_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output is checked as a pipe gives it: the width of the terminal that started the
    tests (pytest-xdist's workers set COLUMNS=80) does not leak into it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(scope="session")
def ref() -> dict[int, dict[str, str]]:
    return reference()
