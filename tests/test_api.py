"""The public Python API (`import blackhole`): what a library user gets."""

from __future__ import annotations

import subprocess
import sys

import pytest

import blackhole

from .helpers import reference


def test_all_names_are_the_exported_ones() -> None:
    assert set(blackhole.__all__) == set(blackhole._EXPORTS) | {"__version__"}
    for name in blackhole.__all__:
        assert getattr(blackhole, name) is not None


def test_import_is_cheap_and_loads_no_solver() -> None:
    code = ("import sys, blackhole; "
            "print(sorted(m for m in ('pysat', 'ortools', 'typer', 'rich', 'matplotlib', "
            "'dask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# The engines each backend label may answer with: auto, the look or its SAT solver (on
# 837 they race where two cores are free); every other one only its own.
ENGINES = {"auto": {"look", "glucose4"}, "look": {"look"}, "sat": {"glucose4"},
           "sat:cadical195": {"cadical195"}, "cpsat": {"cp-sat:inverse"},
           "cpsat:boolean": {"cp-sat:boolean"}}


@pytest.mark.parametrize("number", [1, 2, 3, 25, 837])
@pytest.mark.parametrize("backend", list(ENGINES))
def test_solve_a_spec_agrees_with_the_reference(number: int, backend: str) -> None:
    solution = blackhole.solve(f"pysol:{number}", backend, timeout=60)
    assert solution.verdict.value == reference()[number]["verdict"]
    assert solution.result.backend == backend.partition(":")[0]
    assert solution.result.solver in ENGINES[backend]
    if solution.verdict is blackhole.Verdict.SOLVED:
        judged = blackhole.replay(solution.deal, [card for card, _, _ in solution.moves])
        assert judged.won


def test_solve_takes_a_deal_and_options() -> None:
    deal = blackhole.load_deal("pysol:2")
    solution = blackhole.solve(deal, "cpsat", model="inverse", seed=3, workers=1)
    assert solution.verdict is blackhole.Verdict.SOLVED
    assert solution.result.solver == "cp-sat:inverse"
    assert solution.result.stats["seed"] == 3
    assert solution.to_json("pysol:2")["verdict"] == "solved"


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"solvr": "g3"}, "options"),
    ({"timeout": 0}, "timeout"),
    ({"timeout": float("nan")}, "timeout"),
    ({"seed": 2**31}, "seed"),
    ({"backend": "nope"}, "backend"),
    ({"backend": "search:x"}, "backend"),
])
def test_bad_options_name_the_field(kwargs: dict, field: str) -> None:
    backend = kwargs.pop("backend", "sat")
    with pytest.raises(blackhole.InputError) as caught:
        blackhole.solve("pysol:2", backend, **kwargs)
    assert caught.value.source == field
    assert "--" not in str(caught.value)  # the library speaks of fields, not CLI flags


def test_a_variant_and_the_same_option_must_agree() -> None:
    with pytest.raises(blackhole.InputError):
        blackhole.solve("pysol:2", "sat:glucose4", solver="minisat22")
    same = blackhole.solve("pysol:2", "sat:glucose4", solver="glucose4")
    assert same.verdict.value == "solved" and same.result.solver == "glucose4"


def test_build_problem_is_the_deal_as_a_graph() -> None:
    problem = blackhole.build_problem(blackhole.load_deal("pysol:2"))
    assert problem.size == 52 and problem.start == 0
    assert len(problem.precedence) == 17 * 2


def test_certify_and_verify_through_the_api(tmp_path) -> None:
    import blackhole.certificates  # noqa: F401  (loading the module keeps the function names)

    deal = blackhole.load_deal("pysol:837")
    certificate = blackhole.certify(deal, tmp_path / "837")
    assert certificate.verdict is blackhole.Verdict.UNSOLVABLE
    assert blackhole.verify(tmp_path / "837").ok


def test_the_version_is_the_one_pyproject_gives() -> None:
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "blackhole-solitaire"
    assert blackhole.__version__ == pyproject["project"]["version"]


# ---------------------------------------------------------------- the library checks its inputs


def _best_reference() -> dict[int, int]:
    import csv
    from pathlib import Path

    path = Path(__file__).parent / "data" / "pysol-1-1000-best.csv"
    with path.open(newline="") as handle:
        return {int(row["deal"]): int(row["best"]) for row in csv.DictReader(handle)}


def test_solve_takes_a_position_and_keeps_its_cards_played() -> None:
    start = blackhole.solve("pysol:2", "look")
    played = [card for card, _, _ in start.moves[:5]]
    position = blackhole.load_position("pysol:2", " ".join(map(str, played)))
    assert position.moved == 5
    solution = blackhole.solve(position, "sat")
    assert solution.verdict is blackhole.Verdict.SOLVED
    assert len(solution.moves) == 51 - 5
    rest = [card for card, _, _ in solution.moves]
    assert blackhole.replay(position.deal, rest).won
    assert blackhole.replay(start.deal, played + rest).won  # from the start of the deal
    data = solution.to_json("pysol:2")  # as `solve --after` writes it, for `check`
    assert data["moved"] == 5 and [m["card"] for m in data["after"]] == list(map(str, played))


@pytest.mark.parametrize(("backend", "kwargs", "field"), [
    ("sat", {"model": "inverse", "workers": 4, "solver_cmd": "kissat"}, "model"),
    ("sat", {"workers": 4}, "workers"),
    ("sat", {"solver_cmd": "kissat"}, "solver_cmd"),
    ("cpsat", {"solver": "g4"}, "solver"),
    ("look", {"features": "domain"}, "features"),
    ("auto", {"seed": 3}, "seed"),
])
def test_an_option_of_another_backend_is_refused(backend: str, kwargs: dict,
                                                 field: str) -> None:
    with pytest.raises(blackhole.InputError) as caught:
        blackhole.solve("pysol:2", backend, **kwargs)
    assert caught.value.source == field
    assert f"does not apply to the {backend} backend" in str(caught.value)


def test_an_option_of_another_backend_is_refused_by_best_score() -> None:
    with pytest.raises(blackhole.InputError) as caught:
        blackhole.best_score("pysol:1", "search", solver="g3")
    assert caught.value.source == "solver"
    assert "does not apply to the search backend" in str(caught.value)


def test_solver_aliases_are_resolved_by_the_library() -> None:
    assert blackhole.solve("pysol:25", "sat", solver="g4").result.solver == "glucose4"
    assert blackhole.solve("pysol:25", "sat:g3").result.solver == "glucose3"
    found = blackhole.best_score("pysol:25", "sat", solver="g3")
    assert found.solver == "glucose3" and found.best == _best_reference()[25]


@pytest.mark.parametrize("timeout", ["5", True, [5]])
def test_a_timeout_that_is_no_number_says_so(timeout: object) -> None:
    with pytest.raises(blackhole.InputError) as caught:
        blackhole.solve("pysol:2", "sat", timeout=timeout)
    assert caught.value.source == "timeout"
    assert "number of seconds" in caught.value.detail
    assert "positive" not in caught.value.detail


def _three_ways(spec: str) -> list[object]:
    return [spec, blackhole.load_deal(spec), blackhole.load_position(spec)]


@pytest.mark.parametrize("number", [178])
def test_best_score_hints_and_analyze_are_the_api(number: int) -> None:
    spec, exact = f"pysol:{number}", _best_reference()[number]
    for given in _three_ways(spec):
        found = blackhole.best_score(given, "search")
        assert isinstance(found, blackhole.Best)
        assert found.proven and found.best == exact
        assert blackhole.replay(blackhole.load_deal(spec),
                                [card for card, _, _ in found.moves]).played == exact
        hints = blackhole.hints(given)
        assert hints and all(isinstance(hint, blackhole.Hint) for hint in hints)
        assert max(hint.best for hint in hints) == exact
        assert not any(hint.winnable for hint in hints)
        analysis = blackhole.analyze(given)
        assert isinstance(analysis, blackhole.Analysis)
        assert analysis.best == exact and analysis.score == exact
        assert all(isinstance(step, blackhole.Step) for step in analysis.steps)


def test_the_questions_refuse_what_is_no_position() -> None:
    for question in (blackhole.best_score, blackhole.hints, blackhole.analyze):
        with pytest.raises(blackhole.InputError):
            question(42)


def test_every_answer_gives_its_moves_as_one_type() -> None:
    position = blackhole.load_position("pysol:178", "KD")
    answers = [*blackhole.solve("pysol:2", "sat").moves, *position.after,
               *blackhole.best_score(position, "search").moves,
               *(hint.move for hint in blackhole.hints(position)),
               *(step.move for step in blackhole.analyze(position).steps)]
    assert answers and all(type(move) is blackhole.Move for move in answers)
    deal = position.deal
    for move in blackhole.best_score(position, "search").moves:
        card, fan, kind = move  # a Move reads as (card, fan, kind)
        assert deal.where()[card][0] == fan == move.fan
        assert kind is blackhole.Kind.PLAY == move.kind


def test_analyze_reads_card_names_and_refuses_bad_ones() -> None:
    analysis = blackhole.analyze("pysol:2", line=["2S"], timeout=30)
    assert [str(step.card) for step in analysis.steps] == ["2S"]
    with pytest.raises(blackhole.InputError, match="line"):
        blackhole.analyze("pysol:2", line=["ZZ"])


@pytest.mark.parametrize(("call", "field"), [
    (lambda: blackhole.load_deal(None), "deal"),
    (lambda: blackhole.load_position(42), "deal"),
    (lambda: blackhole.solve("pysol:2", 123), "backend"),
    (lambda: blackhole.solve("pysol:2", None), "backend"),
    (lambda: blackhole.solve("pysol:2", "sat", features=123), "features"),
    (lambda: blackhole.solve("pysol:2", "sat", features=[1, 2]), "features"),
    (lambda: blackhole.analyze("pysol:2", line=123), "line"),
    (lambda: blackhole.analyze("pysol:2", line=[None]), "line"),
    (lambda: blackhole.analyze("pysol:2", line=""), "line"),
    (lambda: blackhole.replay("pysol:2", []), "deal"),
    (lambda: blackhole.replay(blackhole.load_deal("pysol:2"), 7), "moves"),
    (lambda: blackhole.replay(blackhole.load_deal("pysol:2"), ["2S", 3.0]), "moves"),
    (lambda: blackhole.build_problem("pysol:2"), "deal"),
    (lambda: blackhole.load_position("pysol:2", after=[None]), "after"),
], ids=["load_deal-None", "load_position-int", "solve-int-backend", "solve-None-backend",
        "features-int", "features-ints", "analyze-int", "analyze-None", "analyze-empty",
        "replay-spec", "replay-int", "replay-float-move", "build_problem-spec",
        "after-None-move"])
def test_a_bad_argument_is_an_input_error_naming_it(call, field: str) -> None:
    """Never an AttributeError or TypeError from inside: the error names the argument."""
    with pytest.raises(blackhole.InputError) as raised:
        call()
    assert raised.value.source == field, str(raised.value)


def test_the_forms_a_user_would_pass_work(tmp_path) -> None:
    from pathlib import Path

    deal = blackhole.load_deal(Path(__file__).parents[1] / "examples" / "pysol-2.board")
    assert deal == blackhole.load_deal("pysol:2")
    after = blackhole.load_position("pysol:2", after=["2S", "3H"])
    assert after == blackhole.load_position("pysol:2", after="2S 3H") and after.moved == 2
    by_text = blackhole.analyze("pysol:2", line="2S 3H", timeout=60)
    by_list = blackhole.analyze("pysol:2", line=["2S", "3H"], timeout=60)
    assert [str(step.card) for step in by_text.steps] == ["2S", "3H"]
    assert (by_text.found, by_text.critical) == (by_list.found, by_list.critical)
    named = blackhole.replay(deal, ["2S", "3H"])
    assert named == blackhole.replay(deal, [blackhole.Move(card) for card in after.history])
    assert named.played == 2
    cert = blackhole.certify("pysol:25", tmp_path / "c")
    assert blackhole.verify(tmp_path / "c" / "manifest.json").ok
    assert blackhole.verify(str(tmp_path / "c" / "manifest.json")).claim == cert.verdict.value
