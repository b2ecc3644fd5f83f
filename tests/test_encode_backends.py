"""Every registered backend, every SAT feature set and every CP-SAT model, on deals the
look does not settle at once, through the Backend interface: the verdict is the search
referee's (or, for pysol deals, the independent C solver's), every solution meets the
original Problem constraints (tests/helpers.py), and the engine that answered is the
one the backend names, so no encoding is tested by another engine's answer."""

from __future__ import annotations

from functools import cache

import pytest

from blackhole.backends import Options, Verdict, make_backend
from blackhole.backends.pysat_tools import DEFAULT_SOLVER
from blackhole.encode.cnf import CERTIFY_FEATURES, DEFAULT_FEATURES, FEATURES, NEEDS
from blackhole.encode.cpsat import DEFAULT_FEATURES as MODEL_DEFAULTS
from blackhole.encode.cpsat import MODEL_FEATURES, MODELS
from blackhole.look import look
from blackhole.model.deal import Deal
from blackhole.model.problem import build_problem
from blackhole.model.sources import load_deal

from .helpers import check_order, check_symmetry, reference, runnable_backends, small_deal

# A deal is "not settled at once" when the look neither wins nor refutes it in this many
# moves: every one of these takes it longer than its first greedy line.
LOOK_MOVES = 50
PER_VERDICT = 5  # small deals of each verdict
# pysol deals on which the look needs more than 20,000 moves (tests/test_auto.py)
PYSOL_DEALS = [202, 400, 837]

# The engine each backend's answer must come from (external: its binary's name).
ENGINES = {"look": {"look"}, "sat": {DEFAULT_SOLVER}, "cpsat": {"cp-sat:inverse"},
           "maxsat": {"rc2/glucose3"}, "search": {"dfs"}, "external": {"cadical"},
           "auto": {"look", DEFAULT_SOLVER}, "kissat": {"kissat"}}


def deal_of(seed: int) -> Deal:
    return small_deal(seed, ranks=range(5, 10), fan_sizes=(2, 3, 4))


@cache
def hard_deals() -> tuple[tuple[Deal, Verdict], ...]:
    """The first PER_VERDICT deals of each verdict that the look leaves unsettled after
    LOOK_MOVES moves, with the referee's verdict."""
    chosen: dict[Verdict, list[tuple[Deal, Verdict]]] = {Verdict.SOLVED: [],
                                                         Verdict.UNSOLVABLE: []}
    for seed in range(1000):
        deal = deal_of(seed)
        outcome = look(build_problem(deal), LOOK_MOVES)
        if outcome.line is not None or outcome.refuted:
            continue
        verdict = make_backend("search").solve(build_problem(deal), Options()).verdict
        if len(chosen[verdict]) < PER_VERDICT:
            chosen[verdict].append((deal, verdict))
        if all(len(found) == PER_VERDICT for found in chosen.values()):
            break
    return tuple(chosen[Verdict.SOLVED] + chosen[Verdict.UNSOLVABLE])


def test_the_deals_are_ones_the_look_does_not_settle_at_once() -> None:
    deals = hard_deals()
    assert len(deals) == 2 * PER_VERDICT
    for deal, _ in deals:
        outcome = look(build_problem(deal), LOOK_MOVES)
        assert outcome.line is None and not outcome.refuted, deal.name
    for number in PYSOL_DEALS:
        outcome = look(build_problem(load_deal(f"pysol:{number}")), 20_000)
        assert outcome.line is None and not outcome.refuted, number


def solve_and_check(name: str, deal: Deal, expected: Verdict, options: Options,
                    engines: set[str]) -> None:
    problem = build_problem(deal)
    result = make_backend(name).solve(problem, options)
    assert result.verdict is expected, (name, deal.name, options)
    assert result.solver in engines, (name, result.solver)
    assert result.backend == name
    if expected is Verdict.SOLVED:
        check_order(problem, result.order)
        if "symmetry" in (options.features or ()):
            check_symmetry(problem, result.order)
    else:
        assert result.order is None


@pytest.mark.parametrize("name", runnable_backends())
def test_every_backend_agrees_with_the_referee_and_answers_itself(name: str) -> None:
    for deal, expected in hard_deals():
        solve_and_check(name, deal, expected, Options(timeout=60), ENGINES[name])


def named_feature_sets() -> list[frozenset[str]]:
    """The sets the project names (none, default, certificates', all) and each feature
    switched on or off from the default, with the feature it needs."""
    sets = {frozenset(), DEFAULT_FEATURES, CERTIFY_FEATURES, FEATURES}
    for feature in FEATURES:
        needed = {NEEDS[feature]} if feature in NEEDS else set()
        if feature in DEFAULT_FEATURES:
            sets.add(DEFAULT_FEATURES - {feature}
                     - {f for f, need in NEEDS.items() if need == feature})
        else:
            sets.add(DEFAULT_FEATURES | {feature} | needed)
    return sorted(sets, key=lambda s: (len(s), sorted(s)))


@pytest.mark.parametrize("features", named_feature_sets(),
                         ids=lambda f: "+".join(sorted(f)) or "none")
def test_every_sat_feature_set_on_deals_the_look_leaves(features: frozenset[str]) -> None:
    for deal, expected in hard_deals():
        solve_and_check("sat", deal, expected, Options(timeout=60, features=features),
                        {DEFAULT_SOLVER})


@pytest.mark.parametrize("model", MODELS)
def test_every_cpsat_model_on_deals_the_look_leaves(model: str) -> None:
    sets = {MODEL_DEFAULTS[model], frozenset(MODEL_FEATURES[model])}
    for features in sets:
        for deal, expected in hard_deals()[::2]:
            solve_and_check("cpsat", deal, expected,
                            Options(timeout=60, model=model, features=features),
                            {f"cp-sat:{model}"})


@pytest.mark.parametrize("label", ["sat", "cpsat"])
def test_pysol_deals_the_look_leaves_are_answered_by_the_encoding(label: str) -> None:
    name, _, model = label.partition(":")
    engine = DEFAULT_SOLVER if name == "sat" else f"cp-sat:{model or 'inverse'}"
    for number in PYSOL_DEALS:
        expected = Verdict(reference()[number]["verdict"])
        solve_and_check(name, load_deal(f"pysol:{number}"), expected,
                        Options(timeout=60, model=model or None), {engine})
