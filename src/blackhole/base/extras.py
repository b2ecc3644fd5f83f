"""The optional parts of the install, and the check that one is there before it is used.

The core install solves, certifies and answers; `[bench]` adds the plots (matplotlib)
and Dask clusters (dask[distributed]); `[play]` adds the terminal game (textual);
`[kissat]` the kissat backend's binary (passagemath-kissat, whose wheel ships it in
`sage_wheels/bin`); `[web]` the local web page of `blackhole serve` (starlette, uvicorn);
`[all]` adds them all. A feature whose extra is missing raises
`MissingExtra`, an InputError (the CLI's exit 2) that says what to install.
"""

from __future__ import annotations

from importlib.util import find_spec

from blackhole.base.errors import InputError, InternalError

DISTRIBUTION = "blackhole-solitaire"

# extra -> the top-level modules it installs
EXTRAS: dict[str, tuple[str, ...]] = {
    "bench": ("matplotlib", "distributed"),
    "play": ("textual",),
    "kissat": ("sage_wheels",),
    "web": ("starlette", "uvicorn"),
}


class MissingExtra(InputError):
    """A feature needs an optional part of the install that is not there."""


def require(extra: str, module: str, feature: str) -> None:
    """Raise MissingExtra unless `module` (one of `EXTRAS[extra]`) can be imported."""
    if module not in EXTRAS[extra]:
        raise InternalError(f"{module} is in no extra of {sorted(EXTRAS)}")
    if find_spec(module) is None:
        raise missing(extra, feature)


def missing(extra: str, feature: str) -> MissingExtra:
    """The error of a `feature` whose `extra` is not installed: what to install."""
    return MissingExtra(f"{feature} needs the [{extra}] extra, which is not installed: "
                        f"pip install '{DISTRIBUTION}[{extra}]'")
