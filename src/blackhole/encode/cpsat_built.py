"""What every CP-SAT model of `encode.cpsat` is built into: `Built`, the model ready to
solve, how to read the play order back, the constraints per family and variables per
kind it holds, and the deadline its builder reads the clock against."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from ortools.sat.python import cp_model

from blackhole.base.deadline import CHECK_EVERY, check, paced

Literal = cp_model.LiteralT  # a Boolean variable, its negation, or a constant (bool)
T = TypeVar("T")


@dataclass
class Built:
    """A model ready to solve, how to read the play order back, and what it holds."""

    model: cp_model.CpModel
    read_order: Callable[[cp_model.CpSolver], tuple[int, ...]]
    name: str
    features: frozenset[str]
    families: dict[str, int] = field(default_factory=dict)  # constraints per family
    variables: dict[str, int] = field(default_factory=dict)  # variables per kind
    filled: list[cp_model.IntVar] = field(default_factory=list)  # optional positions
    deadline: float | None = None  # building stops here (OutOfTime)
    # a game with a cell: the parks of a solution, as `Result.parks` (none without one)
    read_parks: Callable[[cp_model.CpSolver], tuple[tuple[int, int], ...]] = \
        field(default=lambda solver: ())

    def tick(self) -> None:
        """A look at the clock while building: OutOfTime once the deadline has passed."""
        check(self.deadline)

    def paced(self, items: Iterable[T], every: int = CHECK_EVERY) -> Iterable[T]:
        """The items, with a look at the clock every `every` of them (`deadline.paced`)."""
        return paced(items, self.deadline, every)

    def count(self, family: str, added: int = 1) -> None:
        self.families[family] = self.families.get(family, 0) + added

    def made(self, kind: str, added: int = 1) -> None:
        self.variables[kind] = self.variables.get(kind, 0) + added
