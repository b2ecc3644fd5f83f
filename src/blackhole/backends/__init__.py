"""One interface for every way of solving, and a registry of the backends by name.

A backend takes a Problem and Options and returns a Result whose `order` lists the
nodes in play order. It never sees game rules beyond the Problem, and never prints.
Solver packages are imported only inside their backend module, so the tool still works
when one of them is missing.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from blackhole.errors import InputError
from blackhole.problem import Problem


class Verdict(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Options:
    """Everything a user may set for one solve; each backend reads the fields it knows."""

    timeout: float | None = None  # wall seconds; None means no limit
    solver: str | None = None  # SAT solver name (sat backend)
    model: str | None = None  # CP-SAT model name (cpsat backend)
    workers: int = 1  # CP-SAT search workers
    seed: int = 0  # CP-SAT random seed
    solver_cmd: str | None = None  # external DIMACS solver command line
    features: frozenset[str] | None = None  # encoding features; None = the backend default
    proof: bool = False  # sat backend: log a DRUP proof, returned in Result.proof


@dataclass(frozen=True)
class Result:
    verdict: Verdict
    order: tuple[int, ...] | None  # nodes in play order (start excluded) when solved
    backend: str
    solver: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    proof: list[str] | None = None  # DRUP lines of an unsatisfiability proof (Options.proof)


class Backend(ABC):
    """Solve a Problem under Options. Subclasses set `name`, the Options fields they read
    besides `timeout` (so a user who sets another gets told), and implement `solve`."""

    name: str = ""
    reads: frozenset[str] = frozenset()

    def check(self, options: Options) -> None:
        """Raise InputError for options this backend cannot take, before any work; the
        limit is checked here for every backend."""
        if options.timeout is not None and options.timeout <= 0:
            raise InputError("timeout must be positive", "--timeout", token=str(options.timeout))

    @abstractmethod
    def solve(self, problem: Problem, options: Options) -> Result: ...


# name → "module:Class"; modules are imported only when used.
REGISTRY = {
    "sat": "blackhole.backends.sat:SatBackend",
    "cpsat": "blackhole.backends.cpsat:CpsatBackend",
    "search": "blackhole.backends.search:SearchBackend",
    "external": "blackhole.backends.external:ExternalBackend",
}


def make_backend(name: str) -> Backend:
    if name not in REGISTRY:
        raise InputError(f"unknown backend (choose from {', '.join(REGISTRY)})", "--backend",
                         token=name)
    module_name, _, class_name = REGISTRY[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise InputError(f"backend not available here ({error})", "--backend",
                         token=name) from None
    return getattr(module, class_name)()


def check_options_apply(backend: Backend, given: dict[str, str]) -> None:
    """`given` maps Options fields the user set to their flags: each must be one the
    backend reads, or the user would believe it took effect."""
    for field_name, flag in given.items():
        if field_name not in backend.reads:
            users = [name for name in available_backends()
                     if field_name in make_backend(name).reads]
            raise InputError(f"does not apply to the {backend.name} backend "
                             f"(it is for {', '.join(users) or 'no backend'})", flag)


def available_backends() -> list[str]:
    """The registered backends whose module imports on this machine."""
    names = []
    for name, target in REGISTRY.items():
        try:
            importlib.import_module(target.partition(":")[0])
        except ImportError:
            continue
        names.append(name)
    return names
