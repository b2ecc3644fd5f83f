"""What every backend shares: the Options a user sets, the Result it returns (and, for
a best score, a `blackhole.model.longest.Longest`), the `Backend` interface, and the registry
of the backends by name.

A backend module is named in REGISTRY as a string and imported only when used, so this
module imports none of them; `blackhole.backends` re-exports every name here and chooses
a backend from a label and options.
"""

from __future__ import annotations

import importlib
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from blackhole.base.errors import InputError, InternalError
from blackhole.model.games import refusal
from blackhole.model.longest import Longest
from blackhole.model.problem import Problem


class Verdict(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


# (card, position) pairs a model may hold, so that a solve stays within 1 GiB: every model
# here grows linearly in the cells (cards squared), and what a solver learns grows with
# time on top. Measured peak RSS of whole processes (docs/performance.md, "Memory"):
# CP-SAT's inverse model, the largest, about 2.2 KB a cell (273 MB at 42,849 cells,
# random:1:ranks=52); the CNF and its SAT solver 1.8 KB at first, but glucose4 under
# `auto` reached 1,133 MiB in 40 s at 299,209 cells (a nearly sorted 137-rank deck). So
# the bound is the largest deck a file or spec can hold (100 ranks, 399 cards to play:
# 159,201 cells), where `auto` peaked at 415 MiB in 40 s.
MAX_MODEL_CELLS = 160_000
MAX_WORKERS = 64  # CP-SAT threads: more is a typo on any machine this runs on
MAX_SEED = 2**31 - 1  # CP-SAT's random_seed is a 32-bit signed integer


@dataclass(frozen=True)
class Options:
    """Everything a user may set for one solve; each backend reads the fields it knows.

    Values are checked when the Options are made, so no backend sees a limit that is not
    a positive finite number or a seed CP-SAT cannot take. Errors name the field.
    """

    timeout: float | None = None  # wall seconds; None means no limit
    solver: str | None = None  # SAT solver name (sat backend)
    model: str | None = None  # CP-SAT model name (cpsat backend)
    workers: int = 1  # CP-SAT search workers (0: CP-SAT chooses)
    seed: int = 0  # CP-SAT random seed
    solver_cmd: str | None = None  # external DIMACS solver command line
    proof_arg: str | None = None  # external: arguments asking for a DRAT proof in {proof}
    features: frozenset[str] | None = None  # encoding features; None = the backend default
    proof: bool = False  # sat backend: log a DRUP proof, returned in Result.proof
    budget: int | None = None  # look, auto: the look's moves (nodes); None: the default

    def __post_init__(self) -> None:
        if self.timeout is not None and (isinstance(self.timeout, bool)
                                         or not isinstance(self.timeout, int | float)):
            raise InputError(f"must be a number of seconds, not "
                             f"{type(self.timeout).__name__}", "timeout",
                             token=str(self.timeout))
        if self.timeout is not None and not (math.isfinite(self.timeout)
                                             and self.timeout > 0):
            raise InputError("must be a positive, finite number of seconds", "timeout",
                             token=str(self.timeout))
        if not isinstance(self.workers, int) or not 0 <= self.workers <= MAX_WORKERS:
            raise InputError(f"must be a whole number from 0 to {MAX_WORKERS}", "workers",
                             token=str(self.workers))
        if self.budget is not None and (isinstance(self.budget, bool)
                                        or not isinstance(self.budget, int)
                                        or self.budget < 1):
            raise InputError("must be a whole number of moves, 1 or more", "budget",
                             token=str(self.budget))
        if not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise InputError(f"must be a whole number from 0 to {MAX_SEED}", "seed",
                             token=str(self.seed))
        if self.features is not None and not isinstance(self.features, frozenset):
            names = (self.features,) if isinstance(self.features, str) else self.features
            if not isinstance(names, Iterable) or not all(isinstance(n, str) for n in names):
                raise InputError("names encoding features: a str or a list of str",
                                 "features", token=type(self.features).__name__)
            object.__setattr__(self, "features", frozenset(names))  # a str is one name

    @classmethod
    def make(cls, **values: object) -> Options:
        """Options from keyword values, refusing a name that is no field (a typo would
        otherwise be silently ignored)."""
        known = {f.name for f in fields(cls)}
        for name in values:
            if name not in known:
                raise InputError(f"no such option (choose from {', '.join(sorted(known))})",
                                 "options", token=name)
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Result:
    verdict: Verdict
    order: tuple[int, ...] | None  # nodes in play order (start excluded) when solved
    backend: str
    solver: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    proof: list[str] | None = None  # DRUP lines of an unsatisfiability proof (Options.proof)
    # a game with a cell: the parks of the line, each (node, hole moves made before it)
    parks: tuple[tuple[int, int], ...] = ()


class Backend(ABC):
    """Solve a Problem under Options. Subclasses set `name`, the Options fields they read
    besides `timeout` (so a user who sets another gets told), and implement `solve`."""

    name: str = ""
    reads: frozenset[str] = frozenset()
    max_cells: int | None = MAX_MODEL_CELLS  # None: the backend builds no model
    # The rule features (`blackhole.model.games.Rules.features`) it plays: a deal of a game
    # with any other is refused before any work (`build_problem`), and the encoding or
    # search it runs refuses it too. None declared: Black Hole's rules only (All in a
    # Row's layout included).
    plays: frozenset[str] = frozenset()
    # The same for its best score (`best`): a game with a talon scores fan cards only.
    best_plays: frozenset[str] = frozenset()

    def check_game(self, problem: Problem, kind: str = "solve") -> None:
        """An InputError when the Problem's game holds a rule feature this backend does
        not play for `kind` ("solve": `plays`, "best": `best_plays`), for a backend whose
        encoding plays more than the backend answers for."""
        plays = self.best_plays if kind == "best" else self.plays
        refused = refusal(problem.game, plays, f"the {self.name} engine", problem.game.name)
        if refused is not None:
            raise refused

    def check_size(self, cards: int, source: str = "deal") -> None:
        """Refuse, before any work, a deal with `cards` to play whose model would not fit
        in memory (`source` names the deal in the message)."""
        cells = cards * cards
        if self.max_cells is not None and cells > self.max_cells:
            raise InputError(f"too large for the {self.name} backend: {cards} cards to play "
                             f"would need {cells:,} card-position cells (at most "
                             f"{self.max_cells:,})", source, token=f"{cards} cards")

    def check(self, options: Options) -> None:
        """Raise InputError for options this backend cannot take, before any work (the
        values every backend shares are checked when Options are made)."""
        return None  # nothing beyond the shared checks, unless a backend says otherwise

    @abstractmethod
    def solve(self, problem: Problem, options: Options) -> Result: ...

    # The best score (blackhole.questions.best): a backend that can find the longest line of a
    # Problem overrides `best` (and `check_best`, when it reads the Options otherwise).

    @property
    def finds_best(self) -> bool:
        return REGISTRY[self.name].finds_best

    def check_best(self, options: Options) -> None:
        """Raise InputError, before any work, when this backend cannot find a best score
        or cannot take these options for it."""
        if not self.finds_best:
            raise InputError(f"finds no best score (choose from "
                             f"{', '.join(best_backends())})",
                             "backend", token=self.name)
        self.check(options)

    def best(self, problem: Problem, options: Options) -> Longest:
        """The longest legal line of `problem` under the options' time limit; at the limit,
        the longest line found and the bound proven so far."""
        self.check_best(options)  # raises: this backend finds no best score
        raise InternalError(f"{self.name}: check_best let a best() through")


@dataclass(frozen=True)
class Registered:
    """A backend as the registry names it: where its class is ("module:Class", imported
    only when used) and whether it finds a best score (it overrides `Backend.best`)."""

    target: str
    finds_best: bool


REGISTRY = {
    "auto": Registered("blackhole.backends.auto:AutoBackend", finds_best=True),
    "look": Registered("blackhole.backends.look:LookBackend", finds_best=True),
    "sat": Registered("blackhole.backends.sat:SatBackend", finds_best=True),
    "cpsat": Registered("blackhole.backends.cpsat:CpsatBackend", finds_best=True),
    "search": Registered("blackhole.backends.search:SearchBackend", finds_best=True),
    "external": Registered("blackhole.backends.external:ExternalBackend", finds_best=False),
    "kissat": Registered("blackhole.backends.kissat:KissatBackend", finds_best=False),
    "maxsat": Registered("blackhole.backends.maxsat:MaxsatBackend", finds_best=True),
}

# The backends that find a best score, read from the registry (a help text lists them
# without importing any solver).
FINDS_BEST = tuple(name for name, entry in REGISTRY.items() if entry.finds_best)


def make_backend(name: str) -> Backend:
    if name not in REGISTRY:
        raise InputError(f"unknown backend (choose from {', '.join(REGISTRY)})", "backend",
                         token=name)
    module_name, _, class_name = REGISTRY[name].target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise InputError(f"backend not available here ({error})", "backend",
                         token=name) from None
    return getattr(module, class_name)()


def available_backends() -> list[str]:
    """The registered backends whose module imports on this machine."""
    names = []
    for name, entry in REGISTRY.items():
        try:
            importlib.import_module(entry.target.partition(":")[0])
        except ImportError:
            continue
        names.append(name)
    return names


def best_backends() -> list[str]:
    """The available backends that find a best score (`Backend.finds_best`)."""
    return [name for name in available_backends() if make_backend(name).finds_best]
