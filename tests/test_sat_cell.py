"""The SAT encoding of Worm Hole's cell (encodings/worm-hole.md) and the `sat` backend on
both cell games: verdicts against the look and the helpers' own search
(`most_fan_cards`, which shares nothing with either) on PySolFC deals and on positions
part played, where both verdicts occur; every win replays through the rules engine
(`solve_deal` replays it, parks included); the features it refuses; the clause counts of
the cell's families recomputed from the formulas of encodings/worm-hole.md; models the
cell's rules forbid are refused; the outside solvers read the parks back; and a lost deal
is certified and verified."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from blackhole.backends import Options, Verdict
from blackhole.base.errors import InputError
from blackhole.encode.cnf import DEFAULT_FEATURES, FEATURES, build_cnf, default_features
from blackhole.encode.layout import make_domains, make_layout
from blackhole.look import look
from blackhole.model.deal import Kind
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

from .helpers import most_fan_cards, runnable_backends
from .test_look_cell import GAMES, positions

LOST = (105, 148)  # the deals of pysol:1-1000 lost in both games
DEALS = (*range(1, 31), *LOST)
SOUND = FEATURES - {"deadrank", "symmetry"}  # every feature declared for a cell
FEATURE_SETS = [DEFAULT_FEATURES, SOUND, frozenset(), frozenset({"domain"}),
                frozenset({"reach", "compact", "alo"})]


def sat_verdict(deal, features: frozenset[str] | None = None) -> Verdict:
    """The sat backend's verdict; a win has replayed (solve_deal) and is checked again."""
    solution = solve_deal(deal, "sat", Options(timeout=120, features=features))
    assert solution.result.backend == "sat"
    return checked_verdict(deal, solution)


def checked_verdict(deal, solution) -> Verdict:
    """A solution's verdict, its win (if any) replayed to a win with every park it
    claims, and no more parks than the cell allows."""
    if solution.verdict is Verdict.SOLVED:
        assert solution.replay is not None and solution.replay.won
        parks = [move for move in solution.moves if move.kind is Kind.PARK]
        assert len(parks) == len(solution.result.parks)
        if deal.game.rules.cell_uses:
            assert deal.parks + len(parks) <= deal.game.rules.cell_uses
    return solution.verdict


def look_won(deal) -> bool:
    found = look(build_problem(deal, "test", RULES_HELD), 10**9)
    assert found.line is not None or found.refuted
    return found.line is not None


# ---------------------------------------------------------------- verdicts


@pytest.mark.parametrize("game", GAMES)
def test_pysol_deals_agree_with_the_look(game: str) -> None:
    assert lost_agreeing_with_the_look(game, DEALS, sat_verdict) == list(LOST)


def lost_agreeing_with_the_look(game: str, numbers, verdict_of) -> list[int]:
    """The deals of `numbers` (pysol:N:GAME) that `verdict_of(deal)` says are lost, each
    verdict settled and the look's."""
    lost = []
    for number in numbers:
        deal = load_deal(f"pysol:{number}:{game}")
        verdict = verdict_of(deal)
        assert verdict is not Verdict.UNKNOWN, number
        assert (verdict is Verdict.SOLVED) == look_won(deal), number
        if verdict is Verdict.UNSOLVABLE:
            lost.append(number)
    return lost


@pytest.mark.parametrize("game", GAMES)
def test_lost_deals_are_lost_by_the_helpers_search(game: str) -> None:
    for number in LOST:
        deal = load_deal(f"pysol:{number}:{game}")
        assert most_fan_cards(deal) < len(deal.tableau.cards)
        assert sat_verdict(deal) is Verdict.UNSOLVABLE


@pytest.mark.parametrize("game", GAMES)
def test_positions_agree_with_the_referee_and_the_look(game: str) -> None:
    verdicts = set()
    parked = spent = 0
    for spec, line, position in positions(game, 40):
        deal = position.deal
        problem = build_problem(deal, "test", RULES_HELD)
        won = most_fan_cards(deal) == len(problem.required)
        assert look_won(deal) == won, (spec, line)
        assert (sat_verdict(deal) is Verdict.SOLVED) == won, (spec, line)
        verdicts.add(won)
        parked += problem.cell is not None
        spent += problem.parks_left == 0
    assert verdicts == {True, False}
    assert parked  # some position starts with a card in the cell
    if game == "unstable-worm-hole":
        assert spent  # and some with the one use spent


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("features", FEATURE_SETS, ids=lambda f: ",".join(sorted(f)) or "-")
def test_every_sound_feature_set_keeps_the_verdicts(game: str, features: frozenset[str]) -> None:
    for spec, line, position in positions(game, 8, seed=7):
        problem = build_problem(position.deal, "test", RULES_HELD)
        won = most_fan_cards(position.deal) == len(problem.required)
        assert (sat_verdict(position.deal, features) is Verdict.SOLVED) == won, (spec, line)
    for number in (1, 2, 105):
        deal = load_deal(f"pysol:{number}:{game}")
        assert (sat_verdict(deal, features) is Verdict.SOLVED) == (number != 105)


# ---------------------------------------------------------------- features


@pytest.mark.parametrize("game", GAMES)
def test_symmetry_and_deadrank_are_refused_for_a_cell(game: str) -> None:
    problem = build_problem(load_deal(f"pysol:1:{game}"), "test", RULES_HELD)
    assert default_features(problem) == DEFAULT_FEATURES
    for feature in ("symmetry", "deadrank"):
        with pytest.raises(InputError, match=feature):
            build_cnf(problem, DEFAULT_FEATURES | {feature})
        with pytest.raises(InputError, match=feature):  # the best score's CNF too
            build_cnf(problem, frozenset({feature}), optional=True)


def test_a_game_without_a_cell_gets_no_cell_family() -> None:
    problem = build_problem(load_deal("pysol:1"), "test", RULES_HELD)
    counts = build_cnf(problem).counts()
    assert "precedence" in counts and "departure" not in counts
    assert not build_cnf(problem).parks


# ---------------------------------------------------------------- counts


def cell_counts(problem, features: frozenset[str]) -> dict[str, int]:
    """The cell's families, counted from encodings/worm-hole.md's formulas."""
    layout = make_layout(problem)
    domains = make_domains(layout, windows="domain" in features, reach="reach" in features)
    n, first, last = layout.n, domains.first, domains.last
    gaps = {}
    for c in layout.moves:
        if problem.fan_of[c] >= 0 and problem.parks_left != 0:
            low = 1 + len(layout.before[c]) if "domain" in features else 1
            if low <= last[c] - 1:
                gaps[c] = (low, last[c] - 1)
    ladder = sum(4 * (hi - lo + 1) - 2 for lo, hi in gaps.values())
    # park(c, g) -> not by(c, g): dropped where by(c, g) is surely false (g < first(c))
    later = sum(1 for c, (lo, hi) in gaps.items() for g in range(lo, hi + 1) if g >= first[c])

    def by_true(c: int, q: int) -> bool:
        return q >= last[c]

    def by_false(c: int, q: int) -> bool:
        return q < first[c]

    def parked_false(c: int, g: int) -> bool:
        return c not in gaps or g < gaps[c][0]

    departure = 0
    for a, b in problem.precedence:
        departure += sum(1 for q in range(1, n + 1)
                         if not by_false(b, q) and not by_true(a, q - 1))
        if b in gaps:
            lo, hi = gaps[b]
            departure += sum(1 for g in range(lo, hi + 1) if not by_true(a, g - 1))
    held: dict[int, int] = {}
    occupancy = 0
    for c, (lo, _) in gaps.items():
        for g in range(lo, last[c] + 1):
            held[g] = held.get(g, 0) + 1
            occupancy += 1
    if problem.cell is not None:
        for g in range(1, last[problem.cell] + 1):
            held[g] = held.get(g, 0) + 1
            occupancy += 1
    compact = "compact" in features

    def amo(size: int) -> int:
        if size < 2:
            return 0
        return 3 * size - 4 if compact and size > 6 else size * (size - 1) // 2

    uses = 0
    if problem.parks_left is not None and problem.parks_left < len(gaps):
        assert problem.parks_left == 1
        uses = amo(len(gaps))
    return {"park-ladder": ladder, "park-later": later, "departure": departure,
            "cell-occupancy": occupancy, "cell-amo": sum(map(amo, held.values())),
            "cell-uses": uses}


@pytest.mark.parametrize("game", GAMES)
def test_clause_counts_follow_the_formulas(game: str) -> None:
    problems = [build_problem(load_deal(f"pysol:{n}:{game}"), "test", RULES_HELD)
                for n in (1, 105)]
    problems += [build_problem(position.deal, "test", RULES_HELD)
                 for _, _, position in positions(game, 6, seed=3)]
    for problem in problems:
        for features in FEATURE_SETS:
            counts = build_cnf(problem, features).counts()
            expected = cell_counts(problem, features)
            assert {family: counts[family] for family in expected} == expected


# ---------------------------------------------------------------- forbidden models


@pytest.mark.parametrize("game", GAMES)
def test_two_cards_in_the_cell_at_once_are_refused(game: str) -> None:
    problem = build_problem(load_deal(f"pysol:1:{game}"), "test", RULES_HELD)
    encoding = build_cnf(problem)
    park = {(node, gap): var for var, node, gap in encoding.parks}
    at = {(node, q): var for q, slot in enumerate(encoding.slots, start=1)
          for var, node in slot}
    gap = 20
    c, d = sorted({node for node, g in park if g == gap + 1
                   and (node, gap) in park and (node, gap + 2) in at})[:2]
    with Solver(name="glucose4", bootstrap_with=encoding.clauses) as sat:
        assert sat.solve()
        # two parks in one gap
        assert not sat.solve(assumptions=[park[c, gap], park[d, gap]])
        # c parked, then d parked in the next gap while c waits until hole move gap + 2
        assert not sat.solve(assumptions=[park[c, gap], park[d, gap + 1], at[c, gap + 2]])
        # a card parked and unparked at the next hole move: not a line of the encoding
        assert not sat.solve(assumptions=[park[c, gap], at[c, gap]])
        if game == "unstable-worm-hole":  # one use: no two parks, even far apart
            e = next(node for node, g in park if g == gap + 10 and node != c)
            assert not sat.solve(assumptions=[park[c, gap], park[e, gap + 10]])
        else:
            assert sat.solve(assumptions=[park[c, gap]]) is not None


# ---------------------------------------------------------------- the other CNF engines


@pytest.mark.parametrize("backend", ("external", "kissat"))
@pytest.mark.parametrize("game", GAMES)
def test_the_outside_solvers_read_the_parks_back(game: str, backend: str) -> None:
    if backend not in runnable_backends():
        pytest.skip(f"{backend}: its binary is not on this machine")
    for number in (2, 27, 105):
        deal = load_deal(f"pysol:{number}:{game}")
        solution = solve_deal(deal, backend, Options(timeout=120))
        assert (solution.verdict is Verdict.SOLVED) == (number != 105), number
        if solution.verdict is Verdict.SOLVED:  # replayed by solve_deal, parks included
            assert solution.replay is not None and solution.replay.won
            assert len(solution.result.parks) == sum(
                move.kind is Kind.PARK for move in solution.moves)


# ---------------------------------------------------------------- certificates


@pytest.mark.parametrize("game", GAMES)
def test_a_lost_deal_is_certified_and_a_won_one_replays(game: str, tmp_path) -> None:
    from blackhole.certificates import certify, verify

    lost = certify(f"pysol:105:{game}", tmp_path / "lost")
    assert lost.verdict is Verdict.UNSOLVABLE and lost.certified
    assert "position-5+cell-1" in (tmp_path / "lost" / "formula.cnf").read_text()[:200]
    assert verify(tmp_path / "lost").ok
    won = certify(f"pysol:2:{game}", tmp_path / "won")  # its winning moves, parks included
    assert won.verdict is Verdict.SOLVED
    assert verify(tmp_path / "won").ok
