"""The public Python API (`import blackhole`): what a library user gets."""

from __future__ import annotations

import subprocess
import sys

import pytest

import blackhole
from tests.conftest import reference


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
        judged = blackhole.replay(solution.deal, [card for card, _ in solution.moves])
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
