"""One interface for every way of solving, and a registry of the backends by name.

A backend takes a Problem and Options and returns a Result whose `order` lists the
nodes in play order and whose `solver` names the engine that gave the answer. It never
sees game rules beyond the Problem, and never prints. Solver packages are imported only
inside their backend module, so the tool still works when one of them is missing.

Each backend runs only its own technology: `look` the look (blackhole.look), `sat` a
SAT solver, `cpsat` CP-SAT, `maxsat` RC2, `external` a DIMACS binary and `search` the
referee. A helper search may seed one (a starting bound for the best score) but never
gives its answer. `auto`, the default, is the portfolio of the look and a SAT solver,
and its Result says which of them answered.

The interface, the Options, the Result and the registry are `blackhole.backends.base`,
re-exported here with `blackhole.model.longest.Longest` (the answer of `best`); this module
chooses a backend from a label (`sat:glucose4`) and the options a caller gives, refusing
an option the backend does not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from blackhole.backends.base import (
    FINDS_BEST,
    MAX_MODEL_CELLS,
    MAX_SEED,
    MAX_WORKERS,
    REGISTRY,
    Backend,
    Options,
    Result,
    Verdict,
    available_backends,
    best_backends,
    make_backend,
)
from blackhole.base.errors import InputError
from blackhole.model.longest import Longest

__all__ = ["DEFAULT_BACKEND", "FINDS_BEST", "MAX_MODEL_CELLS", "MAX_SEED", "MAX_WORKERS",
           "REGISTRY", "VARIANT_FIELD", "Backend", "Longest", "Options", "Result",
           "Verdict", "available_backends", "best_backends", "check_options_apply",
           "choose", "make_backend", "split_label"]


# The backend of `solve` and the other one-deal commands when none is named.
DEFAULT_BACKEND = "auto"

# `backend:VARIANT` labels: the Options field the variant sets (sat:glucose4, cpsat:boolean,
# auto:cadical195 for auto's SAT solver).
VARIANT_FIELD = {"sat": "solver", "cpsat": "model", "maxsat": "solver", "auto": "solver"}


def split_label(label: str, options: Options | None = None) -> tuple[str, Options]:
    """`sat` → ("sat", options); `sat:glucose4` → ("sat", options with solver=glucose4).

    The one parser of backend labels, for `solve`, `bench` and the Python API alike.
    """
    options = options or Options()
    if not isinstance(label, str):
        raise InputError("a backend is named by a str such as \"sat:glucose4\"", "backend",
                         token=type(label).__name__)
    name, colon, variant = label.strip().partition(":")
    if name not in REGISTRY:
        raise InputError(f"unknown backend (choose from {', '.join(REGISTRY)})", "backend",
                         token=label)
    if not colon:
        return name, options
    if name not in VARIANT_FIELD or not variant:
        raise InputError("this backend takes no :VARIANT" if name not in VARIANT_FIELD
                         else "empty :VARIANT", "backend", token=label)
    chosen = getattr(options, VARIANT_FIELD[name])
    if chosen is not None and chosen != variant:
        raise InputError(f"names {VARIANT_FIELD[name]} {variant!r}, but {chosen!r} was "
                         "given too", "backend", token=label)
    return name, replace(options, **{VARIANT_FIELD[name]: variant})


def check_options_apply(names: Sequence[str], given: Iterable[str]) -> None:
    """Each Options field in `given` (those the user set) must be one that a backend of
    `names` reads, or the user would believe it took effect: the one check, for one
    backend (`choose`) and for the several of a bench."""
    for field_name in given:
        if any(field_name in make_backend(name).reads for name in names):
            continue
        users = [name for name in available_backends()
                 if field_name in make_backend(name).reads]
        chosen = f"the {names[0]} backend" if len(names) == 1 else "the backends chosen"
        raise InputError(f"does not apply to {chosen} (it is for "
                         f"{', '.join(users) or 'no backend'})", field_name)


def choose(label: str, timeout: float | None = None, **given: Any) -> tuple[str, Options]:
    """The backend `label` names (a registry name, no variant) and the Options for it,
    from keyword values as a caller gives them (None, or a False flag, is "not given").

    The one check of every entry point that runs one backend (`solve`, `best_score`, the
    CLI): an unknown option, a bad value, or an option that the backend does not read is
    an InputError naming the Options field, before any work; nothing is ignored."""
    given = {name: value for name, value in given.items()
             if value is not None and value is not False}
    name, options = split_label(label, Options.make(timeout=timeout, **given))
    check_options_apply([name], given)
    return name, options
