"""The look on a cover graph (encodings/look.md, "On a cover graph"): TriPeaks, its strict
form and Escalator, where a card waits for the two cards on it.

Its verdicts against the search referee's and sat's on PySolFC's deals, both engines
(the compiled core and the Python search) move for move alike, every win replayed by
the rules engine, its best scores, hints and analyses against an exhaustive search
over the rules engine's legal moves, `auto` answering with the look, and each cut
held, state by state, to that search on small pyramids of every rule the games use.
"""

from __future__ import annotations

import csv
import random
import sys
from functools import cache

import pytest

from blackhole import _look_core
from blackhole.backends import Options, Verdict
from blackhole.look import Look, c_engine_built, cuts, longest, look
from blackhole.look.covers import CORE_SLOTS, CoverSetup, core_layout, cover_graph
from blackhole.model.cards import Card, deck
from blackhole.model.deal import Deal, Kind
from blackhole.model.games import OnKing, Rules, Shape, Start, Variant, Won
from blackhole.model.longest import Longest
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, Problem, build_problem
from blackhole.model.rules import State, initial_state, legal_moves, play, replay
from blackhole.model.sources import load_deal
from blackhole.model.tableau import Tableau
from blackhole.questions.advice import analyze, hints
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve_deal

from .helpers import ROOT, random_line

GAMES = ("tri-peaks", "tri-peaks-strict", "escalator")
BUDGET = 10**9  # moves: far beyond what any deal here needs (a few hundred thousand)
ENGINES = ("python", "auto") if c_engine_built() else ("python",)
needs_core = pytest.mark.skipif(not c_engine_built(), reason="the compiled core is not built")


def both(problem: Problem, budget: int = BUDGET) -> Look:
    """The Look of every engine here, which must be one (line, refutation, moves tried)."""
    found = [look(problem, budget, engine=engine) for engine in ENGINES]
    assert all(one == found[0] for one in found), [one.nodes for one in found]
    return found[0]


def longest_of_both(problem: Problem) -> Longest:
    found = [longest(problem, engine=engine) for engine in ENGINES]
    assert all(one == found[0] for one in found)
    assert found[0].proven
    return found[0]


def won(deal: Deal, problem: Problem, line: tuple[int, ...]) -> bool:
    return replay(deal, [problem.cards[v] for v in line]).won


# ---------------------------------------------------------------- the referee


class Referee:
    """An exhaustive search over the rules engine's legal moves from a deal or position:
    the most tableau cards any line plays from a state (`most`), with its memo over
    (slots gone, talon cards turned, the foundation's rank). It shares nothing with the
    look but the rules engine."""

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.memo: dict[tuple[int, int, int], int] = {}
        self.cards = len(deal.tableau)

    def most(self, state: State) -> int:
        key = (state.gone, state.turned, hole_rank(state))
        if key not in self.memo:
            left = self.cards - state.gone.bit_count()
            best = 0
            for move in legal_moves(self.deal, state):
                best = max(best, (move.kind is Kind.PLAY)
                           + self.most(play(self.deal, state, move)))
                if best == left:
                    break
            self.memo[key] = best
        return self.memo[key]

    def wins(self, state: State) -> bool:
        return self.most(state) == self.cards - state.gone.bit_count()

    def states(self) -> list[State]:
        """Every state a line reaches from the deal (one per memo key)."""
        seen: dict[tuple[int, int, int], State] = {}
        todo = [initial_state(self.deal)]
        while todo:
            state = todo.pop()
            key = (state.gone, state.turned, hole_rank(state))
            if key not in seen:
                seen[key] = state
                todo.extend(play(self.deal, state, move)
                            for move in legal_moves(self.deal, state))
        return list(seen.values())


def hole_rank(state: State) -> int:
    """The foundation's rank; 0 for an empty foundation (the first card is free)."""
    return 0 if state.foundation is None else state.foundation.rank


@pytest.fixture(autouse=True)
def _deep_recursion():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    yield
    sys.setrecursionlimit(limit)


# ---------------------------------------------------------------- PySolFC's deals


@cache
def referee_verdicts(game: str) -> dict[int, Verdict]:
    """The search referee's verdicts of pysol:1-1000 (tests/data/tri-peaks-1-1000.csv,
    each checked against sat when it was written)."""
    with (ROOT / "tests" / "data" / "tri-peaks-1-1000.csv").open(newline="") as handle:
        return {int(row["deal"]): Verdict(row["verdict"]) for row in csv.DictReader(handle)
                if row["game"] == game}


def agree(game: str, numbers: range, engines: tuple[str, ...] = ENGINES,
          sat: bool = False) -> set[Verdict]:
    """The look's verdicts (each engine's, alike) are the referee's, and sat's where
    `sat`; every win replays."""
    said = set()
    for n in numbers:
        deal = load_deal(f"pysol:{n}:{game}")
        problem = build_problem(deal, "look", RULES_HELD)
        found = [look(problem, BUDGET, engine=engine) for engine in engines]
        assert all(one == found[0] for one in found), n
        assert found[0].line is not None or found[0].refuted, n
        if found[0].line is not None:
            assert won(deal, problem, found[0].line), n
        verdict = Verdict.SOLVED if found[0].line is not None else Verdict.UNSOLVABLE
        assert referee_verdicts(game)[n] is verdict, (game, n)
        if sat:
            assert solve_deal(deal, "sat", Options()).verdict is verdict, (game, n)
        said.add(verdict)
    return said


@pytest.mark.parametrize("game", GAMES)
def test_the_look_agrees_with_the_referee_on_pysol_1_100_and_sat_on_1_10(game: str) -> None:
    """Both engines on 1-30 (the Python search is the slower by far), the compiled one
    beyond."""
    agree(game, range(1, 11), sat=True)
    agree(game, range(11, 31))
    agree(game, range(31, 101), ENGINES[-1:])


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_look_agrees_with_the_referee_on_pysol_1_1000(game: str) -> None:
    if not c_engine_built():
        pytest.skip("the compiled core is not built")
    assert agree(game, range(1, 1001), ("auto",)) == {Verdict.SOLVED, Verdict.UNSOLVABLE}


@pytest.mark.parametrize("game", GAMES)
def test_auto_answers_with_the_look(game: str) -> None:
    for n in (1, 2, 3):
        solved = solve_deal(load_deal(f"pysol:{n}:{game}"), "auto", Options())
        assert solved.result.solver == "look" and solved.result.backend == "auto"
        assert solved.verdict is not Verdict.UNKNOWN
        if solved.verdict is Verdict.SOLVED:
            assert solved.replay.won


@pytest.mark.parametrize("game", GAMES)
def test_the_engines_agree_at_every_budget(game: str) -> None:
    """Cut short anywhere (a budget in the first passes or the last), both engines stop at
    the same move with the same answer."""
    for n in range(1, 9):
        problem = build_problem(load_deal(f"pysol:{n}:{game}"), "look", RULES_HELD)
        for budget in (0, 1, 30, 500, 5000):
            found = both(problem, budget)
            assert found.nodes <= max(budget, 0)


# ---------------------------------------------------------------- best scores


def positions(game: str, count: int, moves: int) -> list[tuple[str, str]]:
    """(spec, moves) of part-played deals: `moves` random legal moves from deals 1, 2..."""
    return [(f"pysol:{n}:{game}", " ".join(map(str, random_line(
        load_deal(f"pysol:{n}:{game}"), random.Random(n), moves))))
        for n in range(1, count + 1)]


@pytest.mark.parametrize("spec,moves", positions("tri-peaks", 4, 14)
                         + positions("tri-peaks-strict", 4, 12)
                         + [(f"pysol:{n}:escalator", "") for n in range(1, 5)])
def test_best_scores_are_the_referee_s(spec: str, moves: str) -> None:
    position = load_position(spec, moves)
    deal = position.deal
    problem = build_problem(deal, "look", RULES_HELD)
    most = Referee(deal).most(initial_state(deal))
    found = longest_of_both(problem)
    assert found.played == found.upper_bound == most
    assert replay(deal, [problem.cards[v] for v in found.order]).played == most
    for backend in ("look", "auto"):
        best = best_score(position, backend)
        assert best.proven and best.best == position.moved + most
        assert best.solver == "look"


def test_hints_and_the_analysis_weigh_every_move_as_the_referee_does() -> None:
    spec, moves = positions("tri-peaks-strict", 3, 16)[2]
    position = load_position(spec, moves)
    deal = position.deal
    referee = Referee(deal)
    start = initial_state(deal)
    found = hints(position)
    assert {hint.move for hint in found} == set(legal_moves(deal, start))
    for hint in found:
        after = play(deal, start, hint.move)
        expected = position.moved + (hint.move.kind is Kind.PLAY) + referee.most(after)
        assert hint.proven and hint.best == expected, hint
    walked = analyze(position)
    assert walked.proven and walked.best == position.moved + referee.most(start)


# ---------------------------------------------------------------- small pyramids


def pyramid_game(name: str, rules: Rules) -> Variant:
    return Variant(name, name.replace("-", " ").title(), None, 3,
                   Start.TALON if rules.talon else Start.CARD, rules, "", any_ranks=True,
                   shape=Shape.PYRAMID)


TALON = 5
SMALL_GAMES = (
    pyramid_game("test-pyramid", Rules()),  # Black Hole's rules: the rank counts run
    pyramid_game("test-wrap", Rules(TALON, True, OnKing.ADJACENT, Won.TABLEAU)),
    pyramid_game("test-strict", Rules(TALON, False, OnKing.QUEEN, Won.TABLEAU)),
    pyramid_game("test-relaxed", Rules(TALON, True, OnKing.QUEEN_OR_ACE, Won.TABLEAU)),
    pyramid_game("test-dead-king", Rules(TALON, False, OnKing.NOTHING, Won.TABLEAU)),
)


def small_pyramid(seed: int, game: Variant) -> Deal:
    """A pyramid of 3 to 5 rows from a deck of 4 to 6 ranks shuffled by `seed`, the next
    card on the foundation and, in a game with a talon, up to TALON talon cards; the rest
    of the deck lies nowhere (as if played)."""
    rng = random.Random(seed)
    ranks, rows = rng.randint(4, 6), rng.randint(3, 5)
    cards = deck(ranks)
    rng.shuffle(cards)
    slots = rows * (rows + 1) // 2
    talon = tuple(cards[slots + 1:slots + 1 + rng.randint(0, TALON)]) if game.rules.talon \
        else ()
    return Deal(Tableau.pyramid(cards[:slots], rows), cards[slots], ranks,
                name=f"pyramid:{seed}:{game.name}", talon=talon, game=game)


@pytest.mark.parametrize("game", SMALL_GAMES, ids=lambda game: game.name)
def test_the_look_is_the_referee_on_small_pyramids(game: Variant) -> None:
    verdicts = set()
    for seed in range(120):
        deal = small_pyramid(seed, game)
        problem = build_problem(deal, "look", RULES_HELD)
        referee = Referee(deal)
        wins = referee.wins(initial_state(deal))
        found = both(problem)
        assert (found.line is not None) is wins and found.refuted is not wins, seed
        if wins:
            assert won(deal, problem, found.line)
        best = longest_of_both(problem)
        assert best.played == referee.most(initial_state(deal)), seed
        verdicts.add(wins)
    assert verdicts == {True, False}


def test_an_empty_foundation_takes_any_first_card() -> None:
    """Black Hole's rules on a whole pyramid of 7 ranks with nothing on the foundation:
    both engines agree, with sat's verdict and the referee's best score."""
    game = Variant("test-open-pyramid", "Test Open Pyramid", None, 3, Start.EMPTY, Rules(),
                   "", any_ranks=True, shape=Shape.PYRAMID)
    for seed in range(6):
        cards = deck(7)
        random.Random(seed).shuffle(cards)
        deal = Deal(Tableau.pyramid(cards, 7), None, 7, name=f"open:{seed}", game=game)
        problem = build_problem(deal, "look", RULES_HELD)
        found = both(problem)
        assert (Verdict.SOLVED if found.line is not None else Verdict.UNSOLVABLE) is \
            solve_deal(deal, "sat", Options()).verdict
        best = longest_of_both(problem)
        assert best.played == Referee(deal).most(initial_state(deal)), seed


def beaten_pairs(deal: Deal, state: State) -> list[tuple[Card, Card]]:
    """(x, y): free cards of one rank, both legal here, where the same-rank cut keeps y
    and drops x."""
    problem = build_problem(deal, "look", RULES_HELD)
    graph = cover_graph(problem)
    slot = {problem.cards[v]: s for s, v in enumerate(graph.nodes)}
    legal = [move.card for move in legal_moves(deal, state) if move.kind is Kind.PLAY]
    return [(x, y) for x in legal for y in legal
            if graph.beaten[slot[x]] >> slot[y] & 1]


@pytest.mark.parametrize("game", SMALL_GAMES, ids=lambda game: game.name)
def test_the_same_rank_cut_keeps_a_win_and_a_longest_line(game: Variant) -> None:
    """Where the cut plays y before x, every line after x is matched by one as long after
    y: in every state a line reaches."""
    checked = 0
    for seed in range(60):
        deal = small_pyramid(seed, game)
        referee = Referee(deal)
        for state in referee.states():
            moves = {move.card: move for move in legal_moves(deal, state)}
            for x, y in beaten_pairs(deal, state):
                assert referee.most(play(deal, state, moves[y])) >= \
                    referee.most(play(deal, state, moves[x])), (seed, x, y)
                checked += 1
    assert checked


@pytest.mark.parametrize("game", SMALL_GAMES, ids=lambda game: game.name)
def test_the_counting_cuts_end_only_states_they_may(game: Variant) -> None:
    """The rank counts, the parity of the runs and the predecessors, where each runs on
    the game (`cut_flags`), cut only states with no win; the predecessors' shortfall never
    falls below what the referee plays."""
    ended = 0
    for seed in range(60):
        deal = small_pyramid(seed, game)
        problem = build_problem(deal, "look", RULES_HELD)
        onto = cuts.onto_table(problem)
        flags = cuts.cut_flags(problem, onto)
        talon_ranks = [card.rank for card in deal.talon]
        odd, even = cuts.parity_room(talon_ranks)
        links, talon_left = cuts.hall_room(onto, talon_ranks)
        referee = Referee(deal)
        for state in referee.states():
            left = [0] * (deal.ranks + 1)
            for s, card in enumerate(deal.tableau.cards):
                if not state.gone >> s & 1:
                    left[card.rank] += 1
            cards, hole, turned = sum(left), state.foundation.rank, state.turned
            if not cards:  # won: the search asks no cut
                continue
            excess = sum(n if r % 2 else -n for r, n in enumerate(left))
            cut = (flags & 1 and not cuts.ranks_can_chain(left, hole, cards, deal.ranks)) or (
                flags & 2 and not -odd[turned] - (hole % 2) <= excess
                <= even[turned] + (hole % 2 == 0)) or (
                flags & 4 and not cuts.hall_ok(left, hole, talon_left[turned], links))
            if cut:
                assert not referee.wins(state), (seed, state)
                ended += 1
            if flags & 4:
                assert referee.most(state) <= cards - cuts.hall_shortfall(
                    left, hole, talon_left[turned], links)
    assert ended


@pytest.mark.parametrize("game", SMALL_GAMES, ids=lambda game: game.name)
def test_no_line_plays_a_stranded_card(game: Variant) -> None:
    """In every state a line reaches, the referee's longest line plays no more than the
    cards left less the stranded ones (`CoverSetup.stranded`), so the cut keeps a win and
    a longest line; and the cut strands cards that a card over them through another card
    cannot lead to, which reading only the cards under a card would not."""
    checked = beyond = 0
    for seed in range(60):
        deal = small_pyramid(seed, game)
        problem = build_problem(deal, "look", RULES_HELD)
        graph = cover_graph(problem)
        setup = CoverSetup(problem, (0, 0), graph)
        slot = {problem.cards[v]: s for s, v in enumerate(graph.nodes)}
        # the leads without the cards over a slot through another card
        plain = [setup.leads[s] | graph.above(s) & ~graph.over[s] & sum(
            1 << t for t, r in enumerate(graph.ranks) if graph.ranks[s] in setup.onto[r])
            for s in range(len(graph.nodes))]
        referee = Referee(deal)
        for state in referee.states():
            present = sum(1 << slot[card] for s, card in enumerate(deal.tableau.cards)
                          if not state.gone >> s & 1)
            if not present:
                continue
            setup.present[0], setup.free[0] = present, graph.free(present)
            hole = hole_rank(state)
            out = setup.stranded(hole, state.turned)
            assert referee.most(state) <= present.bit_count() - out.bit_count(), (seed, state)
            checked += 1
            if out:
                kept = setup.leads
                setup.leads = plain
                beyond += setup.stranded(hole, state.turned) != out
                setup.leads = kept
    assert checked
    if game.rules.talon:
        assert beyond


@pytest.mark.parametrize("game", SMALL_GAMES[1:], ids=lambda game: game.name)
def test_a_state_dead_with_some_talon_cards_turned_is_dead_with_more(game: Variant) -> None:
    """The memo's talon rule: of two states a line reaches with the same slots gone and
    the same foundation rank, the one with fewer talon cards turned plays at least as
    many cards."""
    compared = 0
    for seed in range(60):
        deal = small_pyramid(seed, game)
        referee = Referee(deal)
        by_key: dict[tuple[int, int], list[State]] = {}
        for state in referee.states():
            by_key.setdefault((state.gone, state.foundation.rank), []).append(state)
        for states in by_key.values():
            states.sort(key=lambda state: state.turned)
            for fewer, more in zip(states, states[1:], strict=False):
                assert referee.most(fewer) >= referee.most(more), (seed, fewer, more)
                compared += 1
    assert compared


def test_the_same_rank_cut_on_fans_is_the_cut_over_fans() -> None:
    """On chains each card lies on the one under it: a card beats another of its rank
    only when the other lies on nothing (a fan's last card), or both do and it is the
    lower slot, as `look._canonical` plays them."""
    ranks = (3, 3, 3, 5)
    under = ((), (), (4,), ())  # slot 2 lies on a card, slots 0, 1 and 3 on none
    assert cuts.same_rank_beaten(ranks, under) == (1 << 2, 1 << 0 | 1 << 2, 0, 0)


@needs_core
def test_the_core_leaves_a_graph_of_more_than_64_slots_to_python() -> None:
    """A pyramid of 11 rows (66 slots) is searched in Python; both engines answer alike."""
    cards = deck(17)
    random.Random(5).shuffle(cards)
    deal = Deal(Tableau.pyramid(cards[:66], 11), cards[66], 17, name="big", game=SMALL_GAMES[0])
    problem = build_problem(deal, "look", RULES_HELD)
    graph = cover_graph(problem)
    assert len(graph.nodes) > CORE_SLOTS and core_layout(graph) is None
    fans = [[v] for v in graph.nodes]
    ranks = [[r] for r in graph.ranks]
    tables = ([*graph.over], [*graph.beaten], [*graph.below])
    assert _look_core.look(fans, ranks, 17, problem.rank[0], 100, 3, 0.0, None,
                           cuts.onto_table(problem), (), (), 1, tables)[0] == -2
    both(problem, 2000)
