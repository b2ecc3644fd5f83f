"""CP-SAT on Worm Hole's cell (encodings/worm-hole.md, "CP-SAT"): the `inverse` model
(optional intervals of the cell's occupancy under one no-overlap, departures on the
half-step scale) and the `cnf` model (the SAT encoding's clauses) agree with the look
and the helpers' own search on PySolFC deals and on positions part played; every win
replays with its parks; the families are counted as specified; a model with two cards
in the cell at once is refused; the models that do not play a cell refuse it by name."""

from __future__ import annotations

import pytest
from ortools.sat.python import cp_model

from blackhole.backends import Options, Verdict
from blackhole.base.errors import InputError
from blackhole.encode.cpsat import build_model
from blackhole.encode.layout import make_layout
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import most_fan_cards
from .test_look_cell import GAMES, positions
from .test_sat_cell import LOST, checked_verdict, lost_agreeing_with_the_look

DEALS = {"inverse": (*range(1, 21), *LOST), "cnf": (*range(1, 11), *LOST)}


def cpsat_verdict(deal, model: str) -> Verdict:
    """The cpsat backend's verdict with `model`; a win has replayed (solve_deal)."""
    solution = solve_deal(deal, "cpsat", Options(timeout=120, model=model))
    assert solution.result.solver == f"cp-sat:{model}"
    return checked_verdict(deal, solution)


@pytest.mark.parametrize("model", DEALS)
@pytest.mark.parametrize("game", GAMES)
def test_pysol_deals_agree_with_the_look(game: str, model: str) -> None:
    assert lost_agreeing_with_the_look(
        game, DEALS[model], lambda deal: cpsat_verdict(deal, model)) == list(LOST)


@pytest.mark.parametrize("model", DEALS)
@pytest.mark.parametrize("game", GAMES)
def test_positions_agree_with_the_referee(game: str, model: str) -> None:
    verdicts = set()
    for spec, line, position in positions(game, 30 if model == "inverse" else 12):
        problem = build_problem(position.deal, "test", RULES_HELD)
        won = most_fan_cards(position.deal) == len(problem.required)
        assert (cpsat_verdict(position.deal, model) is Verdict.SOLVED) == won, (spec, line)
        verdicts.add(won)
    assert verdicts == {True, False}


@pytest.mark.parametrize("game", GAMES)
def test_the_inverse_model_counts_its_cell_families(game: str) -> None:
    problems = [build_problem(load_deal(f"pysol:1:{game}"), "test", RULES_HELD)]
    problems += [build_problem(position.deal, "test", RULES_HELD)
                 for _, _, position in positions(game, 6, seed=3)]
    for problem in problems:
        layout = make_layout(problem)
        built = build_model(problem, "inverse", frozenset())
        if not layout.parks:  # no park left: Black Hole's precedence on positions
            assert "departure" not in built.families
            assert built.families["precedence"] == len(problem.precedence)
            continue
        parkable = [c for c in layout.moves if problem.fan_of[c] >= 0
                    and 1 + len(layout.before[c]) <= layout.latest(c) - 1]
        limited = problem.parks_left is not None and problem.parks_left < len(parkable)
        expected = {"park-gap": 3 * len(parkable), "departure": len(problem.precedence),
                    "cell-no-overlap": 1}
        if limited:
            expected["cell-uses"] = 1
        assert {f: built.families.get(f, 0) for f in (*expected, "cell-uses")} == \
            {"cell-uses": 0, **expected}
        assert "precedence" not in built.families
        assert built.variables["cell"] == len(parkable) + (problem.cell is not None)


@pytest.mark.parametrize("game", GAMES)
def test_two_cards_in_the_cell_at_once_are_refused(game: str) -> None:
    problem = build_problem(load_deal(f"pysol:1:{game}"), "test", RULES_HELD)
    built = build_model(problem, "inverse", frozenset())
    model = built.model
    variables = {var.name: var for var in
                 (model.get_int_var_from_proto_index(i)
                  for i in range(len(model.proto.variables)))}
    # two cards parked, the first in gap 20 and unparked at move 23, the second parked in
    # gap 21: both in the cell during gap 21
    c, d = sorted(int(name[7:-1]) for name in variables if name.startswith("parked["))[-2:]
    model.add(variables[f"parked[{c}]"] == 1)
    model.add(variables[f"parked[{d}]"] == 1)
    model.add(variables[f"gap[{c}]"] == 20)
    model.add(variables[f"pos[{c}]"] == 23)
    model.add(variables[f"gap[{d}]"] == 21)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 60
    assert solver.solve(model) == cp_model.INFEASIBLE


@pytest.mark.parametrize("model", ("boolean", "circuit"))
def test_the_other_models_refuse_a_cell_by_name(model: str) -> None:
    problem = build_problem(load_deal("pysol:1:worm-hole"), "test", RULES_HELD)
    with pytest.raises(InputError, match="Worm Hole"):
        build_model(problem, model)
