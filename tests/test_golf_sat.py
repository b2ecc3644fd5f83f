"""The SAT encoding of the Golf family (encodings/golf.md) and the `sat` backend on Golf
(and CP-SAT's `inverse` and `cnf` models, the `cpsat` backend):
verdicts against black-hole-solve's (tests/data/golf-1-1000.csv) and the search
referee, on PySolFC deals and on small generated Golf deals of every variant; every
decoded line replayed by the rules engine; the features it refuses; the clause counts
recomputed from the formulas of encodings/golf.md."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from blackhole.backends import Options, Verdict
from blackhole.base.errors import InputError
from blackhole.encode.cnf import (
    DEFAULT_FEATURES,
    DIRECTED_DEFAULT_FEATURES,
    FEATURES,
    build_cnf,
    default_features,
)
from blackhole.model.deal import Deal
from blackhole.model.problem import RULES_HELD, build_problem, same_rank_pairs
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import (
    GOLF_GAMES,
    check_symmetry,
    golf_referee,
    golf_reference,
    refereed_golf_deals,
    small_golf,
    specified,
)

# Feature sets every small deal is solved with: the Golf default (card-level), the
# Black Hole default (rank-level, with talon(q)), everything sound, and the bare core.
SOUND = FEATURES - {"deadrank"}
FEATURE_SETS = [DIRECTED_DEFAULT_FEATURES, DEFAULT_FEATURES, SOUND, frozenset(),
                frozenset({"rank", "forward", "symmetry"})]


def sat_verdict(deal: Deal, features: frozenset[str] | None = None) -> Verdict:
    solution = solve_deal(deal, "sat", Options(timeout=60, features=features))
    assert solution.result.backend == "sat"
    if solution.verdict is Verdict.SOLVED:  # solve_deal replayed it; check it again
        assert solution.replay is not None and solution.replay.won
        assert replay(deal, [card for card, _, _ in solution.moves]).won
    return solution.verdict


# ---------------------------------------------------------------- verdicts


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_small_golf_deals_agree_with_the_search_referee(game: str) -> None:
    for seed, deal, expected in refereed_golf_deals(game):
        for features in FEATURE_SETS:
            assert sat_verdict(deal, features) is expected, (seed, sorted(features))


def agree_with_black_hole_solve(verdict_of, game: str, numbers: range) -> None:
    """`verdict_of` (sat's or CP-SAT's) gives black-hole-solve's verdict on each deal."""
    for number in numbers:
        deal = load_deal(f"pysol:{number}:{game}")
        assert verdict_of(deal).value == golf_reference()[number, game]["verdict"], number


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_pysol_golf_deals_agree_with_black_hole_solve(game: str) -> None:
    agree_with_black_hole_solve(sat_verdict, game, range(1, 6))


# Deals 6-30: about a minute for `golf`, the slowest variant (one process, load about
# 2-3); all 1000 would take well over an hour (encodings/golf.md, "Measured").
@pytest.mark.slow
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_pysol_golf_deals_6_to_30_agree_with_black_hole_solve(game: str) -> None:
    agree_with_black_hole_solve(sat_verdict, game, range(6, 31))


@pytest.mark.slow
@pytest.mark.parametrize("game", GOLF_GAMES)
def test_pysol_golf_sat_agrees_with_the_search_referee(game: str) -> None:
    for number in range(1, 6):
        deal = load_deal(f"pysol:{number}:{game}")
        assert sat_verdict(deal) is solve_deal(deal, "search", Options()).verdict, number


def test_a_golf_position_and_a_won_one() -> None:
    deal = load_deal("pysol:2:golf")
    line = [card for card, _, _ in solve_deal(deal, "search", Options()).moves]
    from blackhole.model.positions import load_position

    for cut in (5, 20, len(line) - 1, len(line)):
        position = load_position("pysol:2:golf", " ".join(map(str, line[:cut])))
        found = solve_deal(position.deal, "sat", Options())
        assert found.verdict is Verdict.SOLVED and found.replay is not None, cut
        if cut == len(line):
            assert found.moves == ()  # won already: nothing to play


# ---------------------------------------------------------------- the encoding


def test_the_path_turns_the_whole_talon_and_decoding_drops_its_tail() -> None:
    """The CNF places every node (the talon turned to its end); the decoded line ends
    with a fan card, and the rules engine wins with it."""
    for seed in range(30):
        deal = small_golf(seed, "golf")
        problem = build_problem(deal, "sat", plays=RULES_HELD)
        encoding = build_cnf(problem, DIRECTED_DEFAULT_FEATURES)
        assert len(encoding.slots) == len(problem.moves)
        with Solver(name="glucose4", bootstrap_with=encoding.clauses) as sat:
            if not sat.solve():
                continue
            model = sat.get_model()
        line = encoding.decode(model)
        assert not line or line[-1] not in problem.talon
        assert set(problem.required) <= set(line)
        assert replay(deal, [problem.cards[v] for v in line]).won, seed


def test_the_symmetry_cut_pairs_fan_cards_only_and_keeps_a_line() -> None:
    for seed in range(40):
        deal = small_golf(seed, "relaxed-golf")
        problem = build_problem(deal, "sat", plays=RULES_HELD)
        assert all(problem.fan_of[v] >= 0 for pair in same_rank_pairs(problem)
                   for v in (pair.first, pair.second))
        encoding = build_cnf(problem, DIRECTED_DEFAULT_FEATURES | {"symmetry"})
        with Solver(name="glucose4", bootstrap_with=encoding.clauses) as sat:
            if sat.solve():
                full = [node for slot in encoding.slots for var, node in slot
                        if var in set(sat.get_model())]
                check_symmetry(problem, full)


def test_features_and_forms_golf_refuses() -> None:
    problem = build_problem(load_deal("pysol:3:golf"), "sat", plays=RULES_HELD)
    with pytest.raises(InputError) as raised:
        build_cnf(problem, DEFAULT_FEATURES | {"deadrank"})
    assert raised.value.token == "deadrank" and "Golf" in str(raised.value)
    prefixes = build_cnf(problem, DIRECTED_DEFAULT_FEATURES, optional=True)  # best scores
    assert prefixes.scored_literal(1) == prefixes.filled_literal(1 + len(problem.talon))
    assert default_features(problem) == DIRECTED_DEFAULT_FEATURES
    assert default_features(build_problem(load_deal("pysol:3"))) == DEFAULT_FEATURES


# ---------------------------------------------------------------- counts (encodings/golf.md)


def golf_specified(problem, features: frozenset[str]) -> tuple[dict[str, int], int]:
    """encodings/golf.md's counts: Black Hole's formulas of encodings/sat.md for every
    family it shares, the talon families, and the rank-level adjacency read from the fan
    cards' links."""
    counts, variables = specified(problem, features)
    moves, n, rank, start = problem.moves, len(problem.moves), problem.rank, problem.start
    fan_cards = [c for c in moves if c not in problem.talon]
    encoding = build_cnf(problem, features)  # only its slots: the domains it chose
    dom = {c: [q for q, slot in enumerate(encoding.slots, 1) if any(v == c for _, v in slot)]
           for c in moves}
    talon_positions = {q for t in problem.talon for q in dom[t]}
    if problem.talon:
        counts["talon-channel"] = sum(len(dom[t]) for t in problem.talon)
        counts["talon-support"] = len(talon_positions)
        variables += len(talon_positions)
    if "rank" in features and start is not None:
        ranks_1 = {rank[c] for c in moves if 1 in dom[c]}
        follow_start = {rank[c] for c in fan_cards if c in problem.neighbours[start]}
        r_total = sum(len({rank[c] for c in moves if q in dom[c]}) for q in range(1, n + 1))
        counts["adjacency"] = r_total - len(ranks_1) + len(ranks_1 - follow_start)
    return counts, variables


@pytest.mark.parametrize("features", [DIRECTED_DEFAULT_FEATURES, DEFAULT_FEATURES, SOUND,
                                      frozenset(), frozenset({"rank", "alo"})],
                         ids=lambda f: "+".join(sorted(f)) or "-")
def test_golf_counts_match_the_specification(features: frozenset[str]) -> None:
    deals = [load_deal(f"pysol:{n}:{game}") for n, game in ((1, "golf"), (2, "dead-king-golf"),
                                                            (3, "relaxed-golf"))]
    deals += [small_golf(seed, game) for seed in (1, 4, 9) for game in GOLF_GAMES]
    for deal in deals:
        problem = build_problem(deal, "sat", plays=RULES_HELD)
        encoding = build_cnf(problem, features)
        counts, variables = golf_specified(problem, features)
        order = [family for family in counts if family in encoding.counts()]
        assert {f: encoding.counts()[f] for f in order} == counts, deal.name
        assert encoding.num_vars == variables, deal.name
        assert len(encoding.clauses) == sum(counts.values())


# ---------------------------------------------------------------- CP-SAT


def cpsat_verdict(deal: Deal, model: str | None = None) -> Verdict:
    solution = solve_deal(deal, "cpsat", Options(timeout=60, model=model))
    assert solution.result.backend == "cpsat"
    if solution.verdict is Verdict.SOLVED:
        assert solution.replay is not None and solution.replay.won
    return solution.verdict


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_cpsat_models_agree_with_the_search_referee_on_small_golf_deals(game: str) -> None:
    for seed in range(40):
        deal = small_golf(seed, game)
        for model in ("inverse", "cnf"):
            assert cpsat_verdict(deal, model) is golf_referee(seed, game), (seed, model)


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_cpsat_agrees_with_black_hole_solve_on_pysol_golf(game: str) -> None:
    agree_with_black_hole_solve(cpsat_verdict, game, range(1, 4))


@pytest.mark.parametrize("model", ["boolean", "circuit"])
def test_cpsat_models_without_golf_refuse_it(model: str) -> None:
    with pytest.raises(InputError) as raised:
        solve_deal(load_deal("pysol:2:golf"), "cpsat", Options(model=model))
    assert raised.value.token == model and "Golf" in str(raised.value)


def test_inverse_model_counts_on_golf() -> None:
    from blackhole.encode.cpsat import build_model

    for spec in ("pysol:1:golf", "pysol:2:dead-king-golf", "pysol:3:relaxed-golf"):
        problem = build_problem(load_deal(spec), "cpsat", plays=RULES_HELD)
        built = build_model(problem, "inverse", frozenset())
        size = problem.size
        assert (size, len(problem.precedence)) == (52, 28 + 15)
        assert built.families == {"inverse": 1, "rank-of-seq": size, "rank-step": size - 1,
                                  "precedence": 43}, spec
        assert built.variables == {"pos": size, "seq": size, "rank_at": size}
