"""The pipeline: deal → problem → backend → decode → replay through the rules engine.

Nothing is called solved until `rules.replay` has won with the decoded moves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from blackhole.backends import Options, Result, Verdict, choose, make_backend
from blackhole.base.errors import InternalError
from blackhole.model.deal import Deal, Position
from blackhole.model.formats import moves_json
from blackhole.model.positions import as_position
from blackhole.model.problem import Problem, build_problem, line_moves
from blackhole.model.rules import Move, Replay, replay


@dataclass(frozen=True)
class Solution:
    """The answer for one deal: the backend's Result, and when solved the moves as the
    rules engine replayed them."""

    deal: Deal
    result: Result
    moves: tuple[Move, ...]  # (card, 0-based fan, kind) in play order, when solved
    replay: Replay | None  # the rules engine's verdict on the moves, when solved
    position: Position | None = None  # the position `solve` was given, cards played kept

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict

    def to_json(self, spec: str = "", position: Position | None = None) -> dict[str, Any]:
        """The stable JSON schema documented in the README. An answer from a position
        (`position` with moves made, talon turns included) adds `after`, the moves played
        on the position `spec` holds, and `moved`, the cards moved from the start of the
        deal before `moves`: `check` replays such an answer from `spec`."""
        result, position = self.result, position or self.position
        data: dict[str, Any] = {"deal": spec or self.deal.name}
        if position is not None and position.made:
            data.update(after=moves_json(position.after), moved=position.moved)
        return {**data, "verdict": result.verdict.value, "moves": moves_json(self.moves),
                "backend": result.backend, "solver": result.solver,
                "seconds": round(result.seconds, 6), "stats": result.stats}


def decode(problem: Problem, result: Result, deal: Deal) -> Solution:
    """Turn a backend's node order into moves and have the rules engine judge them."""
    if result.verdict is not Verdict.SOLVED:
        return Solution(deal, result, (), None)
    if result.order is None:
        raise InternalError(f"{result.backend} said solved but gave no move order")
    # the moves as the rules engine names them: card, fan (None for a talon card), kind
    judged = replay(deal, line_moves(problem, result.order, result.parks))
    if not judged.won:
        raise InternalError(f"{result.backend}/{result.solver} answer fails replay: "
                            f"{judged.describe()}")
    return Solution(deal, result, judged.moves, judged)


SPENT_LIMIT = 1e-6  # seconds: what a backend is given once the limit has passed


def solve_deal(deal: Deal, backend: str, options: Options) -> Solution:
    """Solve `deal` with the backend named `backend` (a registry name, no variant)."""
    began = time.perf_counter()
    solver = make_backend(backend)
    solver.check(options)
    solver.check_size(deal.cards_in_fans, deal.name or "deal")
    problem = build_problem(deal, solver.name, solver.plays)
    if options.timeout is not None:  # the limit covers building the problem too
        left = options.timeout - (time.perf_counter() - began)
        # A limit already spent still goes to the backend, which stops at once and names
        # its engine in the unknown answer.
        options = replace(options, timeout=max(left, SPENT_LIMIT))
    return decode(problem, solver.solve(problem, options), deal)


def solve(deal: Deal | Position | str, backend: str = "auto", *,
          timeout: float | None = None, **options: Any) -> Solution:
    """Solve a deal or a position: a Deal, a Position (the cards already played stay
    played), or any deal spec such as "pysol:2" or a file path.

    `backend` is a registry name with an optional variant ("auto", the default, "look",
    "sat", "sat:glucose4", "cpsat:boolean"); `Result.solver` names the engine that
    answered; keyword options are `Options` fields (solver, model, workers, seed,
    features, ...), each one the backend reads. A solution is returned only after the
    rules engine replayed it; a limit reached is Verdict.UNKNOWN. Bad input, including
    an option of another backend, raises InputError before any work.
    """
    name, chosen = choose(backend, timeout, **options)
    position = as_position(deal)
    return replace(solve_deal(position.deal, name, chosen), position=position)


def solution_json(spec: str, solution: Solution) -> dict[str, Any]:
    """The stable JSON schema documented in the README."""
    return solution.to_json(spec)
