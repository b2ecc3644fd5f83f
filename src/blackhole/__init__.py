"""blackhole: solve, compare and certify deals of the patience game Black Hole.

The public Python API; the `blackhole` command line is a thin layer over it.

    import blackhole

    deal = blackhole.load_deal("pysol:2")
    solution = blackhole.solve(deal, "sat:glucose4", timeout=10)
    if solution.verdict is blackhole.Verdict.SOLVED:
        print([str(card) for card, fan in solution.moves])

Names are imported when first used, so `import blackhole` stays cheap and a command
loads only the solvers it runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name → the module that defines it
_EXPORTS = {
    "Deal": "blackhole.deal",
    "load_deal": "blackhole.deal",
    "Position": "blackhole.deal",
    "load_position": "blackhole.deal",
    "Problem": "blackhole.problem",
    "build_problem": "blackhole.problem",
    "replay": "blackhole.rules",
    "Replay": "blackhole.rules",
    "Options": "blackhole.backends",
    "Result": "blackhole.backends",
    "Verdict": "blackhole.backends",
    "available_backends": "blackhole.backends",
    "Solution": "blackhole.pipeline",
    "solve": "blackhole.pipeline",
    "Certificate": "blackhole.certificates",
    "certify": "blackhole.certificates",
    "verify": "blackhole.certificates",
    "InputError": "blackhole.errors",
    "InternalError": "blackhole.errors",
}

__all__ = [  # the same names as _EXPORTS (tests/test_api.py holds them equal)
    "Certificate", "Deal", "InputError", "InternalError", "Options", "Position", "Problem",
    "Replay", "Result", "Solution", "Verdict", "__version__", "available_backends",
    "build_problem", "certify", "load_deal", "load_position", "replay", "solve", "verify",
]

if TYPE_CHECKING:
    from blackhole.backends import Options, Result, Verdict, available_backends
    from blackhole.certificates import Certificate, certify, verify
    from blackhole.deal import Deal, Position, load_deal, load_position
    from blackhole.errors import InputError, InternalError
    from blackhole.pipeline import Solution, solve
    from blackhole.problem import Problem, build_problem
    from blackhole.rules import Replay, replay


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'blackhole' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
