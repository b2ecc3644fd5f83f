"""The pipeline: deal → problem → backend → decode → replay through the rules engine.

Nothing is called solved until `rules.replay` has won with the decoded moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from blackhole.backends import Options, Result, Verdict, make_backend
from blackhole.cards import Card
from blackhole.deal import Deal
from blackhole.errors import InternalError
from blackhole.problem import Problem, build_problem
from blackhole.rules import Replay, replay


@dataclass(frozen=True)
class Solution:
    deal: Deal
    result: Result
    moves: tuple[tuple[Card, int], ...]  # (card, 0-based fan) in play order, when solved
    replay: Replay | None  # the rules engine's verdict on the moves, when solved

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict


def decode(problem: Problem, result: Result, deal: Deal) -> Solution:
    """Turn a backend's node order into moves and have the rules engine judge them."""
    if result.verdict is not Verdict.SOLVED:
        return Solution(deal, result, (), None)
    if result.order is None:
        raise InternalError(f"{result.backend} said solved but gave no move order")
    moves = tuple((problem.cards[v], problem.fan_of[v]) for v in result.order)
    judged = replay(deal, [card for card, _ in moves])
    if not judged.won:
        raise InternalError(f"{result.backend}/{result.solver} answer fails replay: "
                            f"{judged.describe()}")
    return Solution(deal, result, moves, judged)


def solve_deal(deal: Deal, backend: str, options: Options) -> Solution:
    problem = build_problem(deal)
    solver = make_backend(backend)
    solver.check(options)
    result = solver.solve(problem, options)
    return decode(problem, result, deal)


def solution_json(spec: str, solution: Solution) -> dict:
    """The stable JSON schema documented in the README."""
    result = solution.result
    return {
        "deal": spec,
        "verdict": result.verdict.value,
        "moves": [{"card": str(card), "fan": fan} for card, fan in solution.moves],
        "backend": result.backend,
        "solver": result.solver,
        "seconds": round(result.seconds, 6),
        "stats": result.stats,
    }
