"""The `auto` portfolio (the default backend) and the backends' one rule: each says which
engine answered. auto answers with the look or with its SAT solver and says which, with
each stage's time and work; sat and cpsat answer only with their own engine; a proof
asked for makes every refutation the SAT solver's. Verdicts are held to the reference
(the independent C solver) and every win is replayed by the rules engine."""

from __future__ import annotations

import json
import threading
import time

import pytest

import blackhole
from blackhole import drat
from blackhole.backends import Options, Verdict
from blackhole.backends.auto import RACE_BUDGET, free_cores
from blackhole.backends.kissat import installed as kissat_installed
from blackhole.backends.pysat_tools import DEFAULT_SOLVER
from blackhole.base.environment import CORES_VARIABLE
from blackhole.base.errors import InputError
from blackhole.encode.cnf import DEFAULT_FEATURES, build_cnf
from blackhole.look import c_engine_built
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve_deal

from .helpers import blackhole as run
from .helpers import reference

# The solver that takes the racing look's core once it gives up.
SECOND = "kissat" if kissat_installed() else DEFAULT_SOLVER

needs_core = pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")


def solve(number: int, backend: str = "auto", **options: object) -> blackhole.Solution:
    solution = solve_deal(load_deal(f"pysol:{number}"), backend, Options(timeout=60, **options))
    assert solution.verdict.value == reference()[number]["verdict"], number
    if solution.verdict is Verdict.SOLVED:
        assert solution.replay is not None and solution.replay.won
    return solution


def stage_of(result: blackhole.Result) -> dict:
    """The stage whose engine gave the answer: of that engine's stages (a race may run two
    SAT solvers), the one with an answer, else the last."""
    own = [s for s in result.stats["stages"] if s["engine"] == result.solver]
    return ([s for s in own if s["answer"] != "none"] or own)[-1]


@pytest.fixture(params=["1", "2"], ids=["sequential", "parallel"])
def cores(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """auto in both of its modes (parallel needs the look's compiled core)."""
    if request.param == "2" and not c_engine_built():
        pytest.skip("the compiled core is not built")
    monkeypatch.setenv(CORES_VARIABLE, request.param)
    return "sequential" if request.param == "1" else "parallel"


def test_auto_is_the_default_and_says_the_look_answered(cores: str) -> None:
    for number in (2, 1):  # won and refuted by the look at once
        result = solve_deal(load_deal(f"pysol:{number}"), "auto", Options()).result
        assert result.verdict.value == reference()[number]["verdict"]
        assert (result.backend, result.solver) == ("auto", "look")
        assert result.stats["mode"] == cores
        assert [s["engine"] for s in result.stats["stages"]] == ["look"]
        assert stage_of(result)["answer"] in ("won", "refuted")
        assert stage_of(result)["nodes"] > 0
    assert blackhole.solve("pysol:2").result.backend == "auto"  # the API's default


def test_what_the_look_leaves_within_its_budget_sat_answers(cores: str) -> None:
    """At 2,000 moves the look settles neither 400 (lost) nor 922 (won): the SAT solver
    answers, in turn (sequential), or in a race against the look, which gives up at once
    and hands its core to the second solver (parallel)."""
    for number in (400, 922):
        result = solve(number, budget=2000).result
        assert result.stats["mode"] == cores
        stages = result.stats["stages"]
        assert stages[0] == {**stages[0], "engine": "look", "nodes": 2000, "answer": "none"}
        assert result.solver in (DEFAULT_SOLVER, SECOND)
        if cores == "parallel":
            assert stages[1] == {**stages[1], "engine": "look", "answer": "none"}
            assert SECOND in [s["engine"] for s in stages]
        if cores == "sequential":  # the look's budget spent, SAT alone
            assert [s["engine"] for s in stages] == ["look", DEFAULT_SOLVER]
            assert result.solver == DEFAULT_SOLVER
        assert stage_of(result)["answer"] == ("won" if number == 922 else "refuted")
        assert result.seconds >= sum(s["seconds"] for s in stages[:1])


@needs_core
def test_in_a_race_sat_can_answer_first_and_the_look_is_stopped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """pysol:10929 is refuted by glucose4 in under a thousand conflicts, and by the look
    only after about 3 million moves: racing them, SAT answers and the look is stopped
    before its end (else it would show "refuted"), by SAT's answer or by its race budget
    (then its core goes to a second SAT solver)."""
    monkeypatch.setenv(CORES_VARIABLE, "2")
    result = solve_deal(load_deal("pysol:10929"), "auto", Options(timeout=60)).result
    assert result.verdict is Verdict.UNSOLVABLE
    assert result.stats["mode"] == "parallel"
    engines = [s["engine"] for s in result.stats["stages"]]
    # the quick look, then the race: SAT, and a second SAT once the look gives up
    assert engines[:3] == ["look", "look", DEFAULT_SOLVER] and len(engines) <= 4
    quick, look, *sats = result.stats["stages"]
    assert quick["answer"] == "none" and quick["nodes"] <= 20_000
    assert result.solver == DEFAULT_SOLVER  # the look needs more than its race budget
    assert look["answer"] == "none" and look["nodes"] <= RACE_BUDGET  # stopped or spent
    assert [s["answer"] for s in sats].count("refuted") >= 1
    assert all(s["answer"] in ("refuted", "none") for s in sats)


def test_a_proof_asked_for_makes_the_refutation_sat_s(cores: str) -> None:
    """The look refutes pysol:837, but its refutation has no proof: with a proof asked
    for, glucose4 refutes it and hands in its DRUP proof, which the project's checker
    accepts; a win (pysol:2) is its own proof, so the look may still give it."""
    lost = solve(837, proof=True).result
    assert lost.solver == DEFAULT_SOLVER and lost.proof
    assert lost.stats["stages"][0]["engine"] == "look"
    encoding = build_cnf(build_problem(load_deal("pysol:837")), DEFAULT_FEATURES)
    proof = drat.parse_proof("".join(line + "\n" for line in lost.proof))
    assert drat.check_proof(encoding.clauses, proof).ok
    won = solve(2, proof=True).result
    assert won.solver == "look" and won.proof is None


def test_sat_cpsat_and_the_others_answer_only_with_their_own_engine() -> None:
    """Deals the look settles at once (2 won, 1 refuted), and for sat one it needs long
    for (202): each backend answers with its own engine, having built its model."""
    engines = {"sat": DEFAULT_SOLVER, "sat:cadical195": "cadical195",
               "cpsat": "cp-sat:inverse", "look": "look", "search": "dfs"}
    for number, labels in ((2, engines), (1, engines), (202, ["sat"])):
        for label in labels:
            engine = engines[label]
            name, _, variant = label.partition(":")
            result = solve(number, name, **({"solver": variant} if variant else {})).result
            assert (result.backend, result.solver) == (name, engine), (number, label)
            assert "stages" not in result.stats
            if name in ("sat", "cpsat"):
                assert result.stats["vars"] > 0


def test_the_cores_variable_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CORES_VARIABLE, "3")
    assert free_cores() == 3
    monkeypatch.delenv(CORES_VARIABLE)
    assert free_cores() >= 1
    monkeypatch.setenv(CORES_VARIABLE, "")  # set but empty: as if unset
    assert solve_deal(load_deal("pysol:2"), "auto", Options()).verdict is Verdict.SOLVED
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(CORES_VARIABLE, bad)
        with pytest.raises(InputError, match=CORES_VARIABLE):
            solve_deal(load_deal("pysol:2"), "auto", Options())


def test_the_budget_is_checked_and_auto_takes_a_sat_solver() -> None:
    for bad in (0, -5, 1.5, True):
        with pytest.raises(InputError) as caught:
            blackhole.solve("pysol:2", "look", budget=bad)
        assert caught.value.source == "budget"
    assert blackhole.solve("pysol:2", "auto:cadical195", budget=10).result.solver \
        in ("look", "cadical195")


def test_the_best_score_by_auto_is_the_look_s_best_or_sat_s_climb() -> None:
    won = best_score("pysol:2")
    assert (won.backend, won.solver, won.best, won.proven) == ("auto", "look", 51, True)
    best = {1: 3, 25: 2}  # tests/data/pysol-1-1000-best.csv
    for number, expected in best.items():
        lost = best_score(f"pysol:{number}", "auto")
        assert (lost.solver, lost.best, lost.proven) == ("look", expected, True)
        assert [s["answer"] for s in lost.stats["stages"]] == ["best"]
        climbed = best_score(f"pysol:{number}", "auto", budget=1)  # the look gives up
        assert (climbed.solver, climbed.best, climbed.proven) == ("glucose3", expected, True)
        assert [s["answer"] for s in climbed.stats["stages"]] == ["none", "best"]


def test_sat_s_best_score_is_its_own_even_where_the_look_wins() -> None:
    """The short search seeds sat's climb, but the win comes from the solver."""
    found = best_score("pysol:2", "sat")
    assert found.solver == "glucose3" and found.best == 51 and found.proven
    assert found.stats["calls"] >= 1


def test_the_command_line_says_which_engine_answered() -> None:
    cpsat = run("solve", "pysol:837", "--backend", "cpsat", "--json")
    assert cpsat.returncode == 1
    data = json.loads(cpsat.stdout)
    assert (data["backend"], data["solver"], data["verdict"]) == \
        ("cpsat", "cp-sat:inverse", "unsolvable")
    look = run("solve", "pysol:837", "--backend", "look", "--json")
    assert look.returncode == 1
    assert (json.loads(look.stdout)["backend"], json.loads(look.stdout)["solver"]) == \
        ("look", "look")
    default = run("solve", "pysol:2")
    assert default.returncode == 0 and "auto: look answered" in default.stdout
    refuted = run("solve", "pysol:1", "--backend", "look")
    assert refuted.returncode == 1 and "no proof" in refuted.stdout
    unknown = run("solve", "pysol:915", "--backend", "look", "--budget", "100")
    assert unknown.returncode == 3 and "move budget reached" in unknown.stdout
    refused = run("solve", "pysol:2", "--backend", "sat", "--budget", "100")
    assert refused.returncode == 2 and "--budget" in refused.stderr
    assert "look's refutations carry no proof" in " ".join(run("solve", "--help").stdout.split())


@pytest.mark.skipif(not kissat_installed(), reason="kissat is not installed (the [kissat] extra)")
def test_the_second_entrant_kissat_is_stopped_when_the_race_is_over() -> None:
    """kissat needs about 30 s for random:24:ranks=31; told to stop after half a second (as
    the race tells it once another engine has answered), it is killed within moments and
    its answer is unknown."""
    from blackhole.backends.kissat import KissatBackend

    problem = build_problem(load_deal("random:24:ranks=31"))
    stop = bytearray(1)
    timer = threading.Timer(0.5, stop.__setitem__, (0, 1))
    began = time.perf_counter()
    timer.start()
    result = KissatBackend().solve(problem, Options(timeout=60), stop=stop)
    assert result.verdict is Verdict.UNKNOWN and result.solver == "kissat"
    assert 0.5 < time.perf_counter() - began < 3
