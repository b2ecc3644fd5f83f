"""blackhole: solve, compare and certify deals of the patience game Black Hole.

The public Python API; the `blackhole` command line is a thin layer over it.

    import blackhole

    deal = blackhole.load_deal("pysol:2")
    solution = blackhole.solve(deal, "sat:glucose4", timeout=10)
    if solution.verdict is blackhole.Verdict.SOLVED:
        print([str(move.card) for move in solution.moves])  # each a blackhole.Move

    position = blackhole.load_position("pysol:178", after="KD")  # a Deal or a spec too
    print(blackhole.best_score(position, "search").best)  # proven: 7 of 51
    print([(str(h.card), h.best) for h in blackhole.hints(position)])
    print(blackhole.analyze(position).first_loss)

An option the chosen backend does not read (`model=` for "sat") is an InputError, as
is any bad value; the library checks what it is given, and the CLI only names the flag.

Names are imported when first used, so `import blackhole` stays cheap and a command
loads only the solvers it runs.
"""

from __future__ import annotations

import importlib
from typing import Any

# The public names, by the module that defines them: the one list of the API.
_MODULES = {
    "blackhole.model.deal": ("Deal", "Position", "Move", "Kind"),
    "blackhole.model.tableau": ("Tableau",),
    "blackhole.model.sources": ("load_deal",),
    "blackhole.model.positions": ("load_position",),
    "blackhole.model.problem": ("Problem", "build_problem"),
    "blackhole.model.rules": ("Replay", "replay"),
    "blackhole.backends": ("Options", "Result", "Verdict", "available_backends"),
    "blackhole.questions.pipeline": ("Solution", "solve"),
    "blackhole.questions.best": ("Best", "best_score"),
    "blackhole.questions.advice": ("Hint", "hints", "Analysis", "Step", "analyze"),
    "blackhole.certificates": ("Certificate", "certify", "verify"),
    "blackhole.base.errors": ("BlackholeError", "InputError", "InternalError"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    if name == "__version__":
        from blackhole.base.version import installed_version

        return installed_version()
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'blackhole' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
