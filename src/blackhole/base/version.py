"""The installed version of the project, read from the package metadata (the one place
it is written is `pyproject.toml`).

Reading the metadata costs about 50 ms of imports, so it happens only when a version is
asked for (`blackhole --version`, a certificate's manifest), never at start-up.
"""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "blackhole-solitaire"  # the name on the package index; the import name is blackhole


@cache
def installed_version() -> str:
    """The version of the installed distribution, or "unknown" when the source tree runs
    without being installed (its metadata then does not exist)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
