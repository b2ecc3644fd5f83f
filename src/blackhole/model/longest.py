"""The longest line an engine found on a Problem, and the bound it proved.

Every engine that looks for a best score answers with a `Longest`: the look's exhaustive
search (`look.longest`), the referee's (`backends.search.best_score`), the incremental SAT
climb (`backends.pysat_tools.LineSolver.longest`) and every backend's `best`, which also
says who answered and how long it took. `blackhole.questions.best` turns one into a position's
score, replayed by the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Longest:
    """`order`: the nodes of the longest line found, in play order (start excluded),
    `turned` of them talon cards (a game with a talon: the score counts fan cards only);
    `upper_bound`: the most fan cards any line may play, as far as the engine has proven;
    `proven`: the two meet. A backend's answer also names the backend, the engine or
    solver that answered, and the seconds taken; `stats` holds the engine's counters
    (the look's "nodes", the referee's "states", a solver's statistics)."""

    order: tuple[int, ...]
    upper_bound: int
    backend: str = ""
    solver: str = ""
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    turned: int = 0
    parks: tuple[tuple[int, int], ...] = ()  # a game with a cell: as `Result.parks`

    @property
    def played(self) -> int:
        """The fan cards the line plays: its score."""
        return len(self.order) - self.turned

    @property
    def proven(self) -> bool:
        return self.played == self.upper_bound
