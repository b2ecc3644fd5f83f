"""Rules that fail closed: a game's rule features are derived from its Rules, every
engine, cut and encoding declares the ones it plays, and a game with a feature no one
declared (here throwaway games: Black Hole's rules plus a portal) is refused by
name, exit 2, by every engine of the registry, every model, every command; every current
game still plays where it played, with the same answers."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from blackhole.backends import REGISTRY, Options, make_backend
from blackhole.base.errors import InputError
from blackhole.bench.plan import plays_game
from blackhole.encode import cnf
from blackhole.encode.cpsat import build_model, build_optional
from blackhole.encode.cpsat_names import MODEL_PLAYS, MODELS
from blackhole.look import cuts as look_cuts
from blackhole.look import longest, look
from blackhole.model import games
from blackhole.model.games import (
    ALL_IN_A_ROW,
    BLACK_HOLE,
    GOLF,
    RELAXED_GOLF,
    VARIANTS,
    Rules,
    Start,
    Variant,
)
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.rules import replay
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score
from blackhole.questions.pipeline import solve_deal

from .helpers import cli


@dataclasses.dataclass(frozen=True)
class PortalRules(Rules):
    """Black Hole's rules and portals: a rule field no engine has declared."""

    portal: int = 0


PORTAL = Variant("portal-hole-test", "Portal Hole (test)", None, 3, Start.CARD,
                 PortalRules(portal=1), "", any_ranks=True)
GOLF_PORTAL = dataclasses.replace(GOLF, name="golf-portal-test",
                                  title="Golf with a portal (test)",
                                rules=PortalRules(*dataclasses.astuple(GOLF.rules), portal=1))
ODD_GAMES = (PORTAL, GOLF_PORTAL)
# the games of the table every engine's declaration is held to
CURRENT = list(VARIANTS.values())


def deal_of(game: Variant, spec: str):
    return dataclasses.replace(load_deal(spec), game=game)


def held_problem(game: Variant):
    """A Problem of `game`'s deal built as Golf's (or Black Hole's) would be, the game
    then swapped in: what a consumer would get if `build_problem` let the game by."""
    base = "pysol:3:golf" if game.rules.talon else "pysol:3"
    return dataclasses.replace(build_problem(load_deal(base), "test", RULES_HELD), game=game)


def refused_by_name(raised: pytest.ExceptionInfo[InputError], game: Variant) -> None:
    """The refusal names the game (its title in the message, or its name as the token)."""
    error = raised.value
    assert game.title in str(error) or error.token == game.name, str(error)


# ---------------------------------------------------------------- features, derived


def test_features_are_the_rule_fields_that_are_not_black_holes() -> None:
    assert Rules().features == frozenset() and BLACK_HOLE.plain and ALL_IN_A_ROW.plain
    assert GOLF.features == {"talon", "wrap", "on_king", "won"}
    assert RELAXED_GOLF.features == {"talon", "on_king", "won"}  # it wraps, as Black Hole
    assert PORTAL.features == {"portal"} and not PORTAL.plain
    assert GOLF_PORTAL.features == GOLF.features | {"portal"}
    assert PortalRules().features == frozenset()  # a field at Black Hole's value: no feature
    assert all(game.features <= RULES_HELD for game in CURRENT)


def test_every_rule_feature_a_problem_holds_is_played_by_auto() -> None:
    """build_problem's refusals say "--backend auto plays it" for these features: every
    one a Problem holds."""
    auto = make_backend("auto")
    assert RULES_HELD <= auto.plays and RULES_HELD <= auto.best_plays


def test_the_declarations_match_the_engines_that_played_each_game() -> None:
    """What each backend plays: every engine but maxsat solves every game, and maxsat
    Black Hole's and Worm Hole's; the look, auto and the search referee score a game with
    any feature (a talon, a cover graph), sat, cpsat and maxsat one whose only feature is
    a free cell."""
    cell = frozenset({"cells", "cell_uses"})
    for name in REGISTRY:
        backend = make_backend(name)
        for game in CURRENT:
            assert (game.features <= backend.plays) == (
                game.plain or name != "maxsat" or game.features <= cell), (name, game.name)
            assert (game.features <= backend.best_plays) == (
                game.plain or name in ("look", "auto", "search")
                or (name in ("sat", "cpsat", "maxsat") and game.features <= cell)), \
                (name, game.name)


# ---------------------------------------------------------------- refused by every engine


@pytest.mark.parametrize("game", ODD_GAMES, ids=lambda game: game.name)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_backend_refuses_a_rule_it_did_not_declare(name: str, game: Variant) -> None:
    deal = deal_of(game, "pysol:3:golf" if game.rules.talon else "pysol:3")
    with pytest.raises(InputError) as raised:
        solve_deal(deal, name, Options(timeout=30))
    refused_by_name(raised, game)
    if REGISTRY[name].finds_best:
        with pytest.raises(InputError) as raised:
            best_score(deal, name, timeout=30)
        refused_by_name(raised, game)


@pytest.mark.parametrize("game", ODD_GAMES, ids=lambda game: game.name)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_backend_refuses_such_a_problem_handed_to_it(name: str, game: Variant) -> None:
    """A Problem that got past `build_problem` is refused by the engine's own search or
    encoding, before any answer."""
    backend = make_backend(name)
    options = Options(timeout=30, solver_cmd=f"{sys.executable} -c pass") \
        if "solver_cmd" in backend.reads else Options(timeout=30)
    with pytest.raises(InputError) as raised:
        backend.solve(held_problem(game), options)
    refused_by_name(raised, game)
    if REGISTRY[name].finds_best:
        with pytest.raises(InputError) as raised:
            backend.best(held_problem(game), Options(timeout=30))
        refused_by_name(raised, game)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_bench_refuses_every_backend_before_any_task(name: str) -> None:
    """A bench of such a game is refused before any task, for solving and best scores
    alike, and names no engine as playing it (no engine does)."""
    for kind in ("solve", "best"):
        with pytest.raises(InputError) as raised:
            plays_game(make_backend(name), PORTAL, kind, "random:3")
        assert PORTAL.title in str(raised.value) and "auto does" not in str(raised.value)


@pytest.mark.parametrize("game", ODD_GAMES, ids=lambda game: game.name)
def test_every_encoding_and_search_refuses_it(game: Variant) -> None:
    problem = held_problem(game)
    with pytest.raises(InputError) as raised:
        build_problem(deal_of(game, "pysol:3"), "test", RULES_HELD | {"portal"})
    assert "portal" in str(raised.value)  # no engine may take what a Problem cannot hold
    for run in (look, longest, lambda p: cnf.build_cnf(p, cnf.default_features(p)),
                lambda p: cnf.build_cnf(p, cnf.PREFIX_FEATURES - {"symmetry"}, optional=True),
                build_optional, *(lambda p, m=model: build_model(p, m) for model in MODELS)):
        with pytest.raises(InputError) as raised:
            run(problem)
        refused_by_name(raised, game)
    with pytest.raises(InputError) as raised:
        replay(deal_of(game, "pysol:3"), [])
    refused_by_name(raised, game)


def test_the_cuts_run_only_on_the_rules_they_declared() -> None:
    """A cut is off for a game whose features it did not declare, whatever its table says
    (the Worm Hole's table is Black Hole's: only its feature tells them apart)."""
    bh = build_problem(load_deal("pysol:3"), "test")
    portal = dataclasses.replace(bh, game=PORTAL)
    onto = look_cuts.onto_table(bh)
    assert look_cuts.cut_flags(bh, onto) & look_cuts.CHAIN_CUT
    assert look_cuts.cut_flags(portal, onto) == 0
    assert not look_cuts.hall_applies(portal)
    golf = build_problem(load_deal("pysol:3:golf"), "test", RULES_HELD)
    assert look_cuts.cut_flags(golf, look_cuts.onto_table(golf)) == \
        look_cuts.PARITY_CUT | look_cuts.HALL_CUT


def test_each_model_names_the_models_that_play_golf() -> None:
    problem = build_problem(load_deal("pysol:3:golf"), "test", RULES_HELD)
    players = [model for model in MODELS if GOLF.features <= MODEL_PLAYS[model]]
    assert players == ["inverse", "cnf"]
    for model in set(MODELS) - set(players):
        with pytest.raises(InputError, match=r"\(choose from inverse, cnf\)"):
            build_model(problem, model)


# ---------------------------------------------------------------- refused by every command


@pytest.fixture
def portal_named(monkeypatch: pytest.MonkeyPatch) -> str:
    """The throwaway game, named in the one table of games for this test."""
    monkeypatch.setitem(games.VARIANTS, PORTAL.name, PORTAL)
    return f"random:3:{PORTAL.name}"


def commands(spec: str) -> list[tuple[str, ...]]:
    """Every command that answers about a deal, with every backend of the registry."""
    found = [("solve", spec, "--backend", name) for name in REGISTRY]
    found += [("best", spec, "--backend", name) for name, entry in REGISTRY.items()
              if entry.finds_best]
    found += [("encode", spec, "--format", form) for form in ("problem-json", "dimacs",
                                                               "cpsat")]
    found += [("hint", spec), ("analyze", spec), ("check", spec, "-")]
    return found


def test_every_command_refuses_the_game_with_one_line(portal_named: str, tmp_path) -> None:
    certify = ("certify", portal_named, "--out", str(tmp_path / "c"))
    for command in [*commands(portal_named), certify]:
        if "external" in command:
            command = (*command, "--solver-cmd", f"{sys.executable} -c pass")
        result = cli(*command, stdin="2H")  # check reads a one-card line from stdin
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, (command, result.output)
        assert PORTAL.title in lines[0] or PORTAL.name in lines[0], (command, lines[0])


# ---------------------------------------------------------------- unchanged for every game


# The engines whose verdict on these deals comes within a second (the look, the referee,
# auto's look first); the solvers take up to a minute on a lost Golf deal, so at a short
# limit they may say unknown, never the wrong verdict.
QUICK = ("auto", "look", "search")


@pytest.mark.slow  # the fast suite holds each engine to each game in test_game_contract
@pytest.mark.parametrize("game", [game.name for game in CURRENT])
def test_every_game_plays_on_every_engine_that_plays_it(game: str) -> None:
    """pysol:1..3 of each game on every backend that declares its rules (the external
    one is kissat's CNF run as a binary): the search referee's verdict, each win replayed
    by the rules engine (`solve_deal` does)."""
    for number in (1, 2, 3):
        deal = load_deal(f"pysol:{number}:{game}")
        referee = solve_deal(deal, "search", Options(timeout=60)).result.verdict
        for name in REGISTRY:
            if name == "external" or not deal.game.features <= make_backend(name).plays:
                continue
            found = solve_deal(deal, name, Options(timeout=60 if name in QUICK else 3))
            assert found.result.verdict in (referee, "unknown" * (name not in QUICK)), (
                name, game, number)
