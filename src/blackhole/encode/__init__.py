"""The encodings of a Problem, siblings over one layout (`encode.layout`):

- `encode.cnf`: the SAT encoding (encodings/sat.md), with optional positions for lines
  that may stop early;
- `encode.cpsat`: the CP-SAT models (encodings/cpsat.md), and the optional-position
  model that maximises the cards played.

`export` writes any of them, or the problem graph, as text; it holds the rules of which
option applies to which format. Solving is the backends' job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from blackhole.base.errors import InputError
from blackhole.model.problem import Problem

FORMATS: tuple[str, ...] = ("problem-json", "dimacs", "cpsat")
# Options field → the formats it applies to.
APPLIES: dict[str, tuple[str, ...]] = {"features": ("dimacs", "cpsat"), "model": ("cpsat",)}


def export(problem: Problem, format: str, *, features: Iterable[str] | None = None,
           model: str | None = None) -> str:
    """The problem as `format`: "problem-json" (the graph), "dimacs" (the CNF with its
    features; None: the game's default, `cnf.default_features`) or "cpsat" (the CP-SAT
    `model` with its features, as CpModelProto text). An option that does not apply to
    the format, or an unknown format, is an InputError naming the field."""
    if format not in FORMATS:
        raise InputError(f"unknown format (choose from {', '.join(FORMATS)})", "format",
                         token=format)
    given = {"features": features, "model": model}
    for name, value in given.items():
        if value is not None and format not in APPLIES[name]:
            shown = value if isinstance(value, str) else ",".join(sorted(value)) or "none"
            raise InputError(f"applies to format {' or '.join(APPLIES[name])} only", name,
                             token=shown)
    if format == "problem-json":
        return json.dumps(problem.to_json()) + "\n"
    if format == "dimacs":
        from blackhole.encode.cnf import build_cnf, default_features

        chosen = default_features(problem) if features is None else features
        return build_cnf(problem, chosen).dimacs()
    from blackhole.encode.cpsat import export_model

    return export_model(problem, model, features)
