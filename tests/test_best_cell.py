"""The best score of Worm Hole's games from SAT, CP-SAT and MaxSAT (encodings/worm-hole.md,
"The best score"): the optional-position CNF with the cell (`sat`, its clauses under
CP-SAT, `cpsat`'s model "optional-cnf", and under RC2 with a soft clause a position,
`maxsat`) agrees with the look's longest line (`look.longest`), with the search referee
and with the plain search of helpers.most_fan_cards, on the two lost PySolFC deals, on
positions part played and on small decks (and, slow, with the atlas on lost deals of the
first million whose best needs several parks); every line replays with its parks and scores
what is claimed (a card left in the cell does not score), found by each solver itself
(no seed) and, at the limit, the seed's line with its parks; the families are counted as
specified; `best --certify` writes a certificate that `verify` accepts, and refuses a
tampered one."""

from __future__ import annotations

import random
from functools import cache

import pytest
from pysat.solvers import Solver

from blackhole import best_score, solve
from blackhole.atlas import lookup
from blackhole.backends import Options, maxsat, seeding
from blackhole.backends.pysat_tools import LineSolver, best_features
from blackhole.base.errors import InputError
from blackhole.certificates import certify_best, verify
from blackhole.certificates.files import bound_encoding
from blackhole.encode.cnf import DEFAULT_FEATURES, build_cnf
from blackhole.encode.cpsat import build_best
from blackhole.encode.layout import make_domains, make_layout
from blackhole.look import longest
from blackhole.model.deal import Kind, Position
from blackhole.model.positions import load_position
from blackhole.model.problem import RULES_HELD, build_problem, line_moves
from blackhole.model.rules import Move, Outcome, legal_moves, replay
from blackhole.model.sources import load_deal

from .helpers import cli, most_fan_cards, random_line
from .test_look_cell import GAMES

BEST = {105: 4, 148: 6}  # both games: the look's best scores of the two lost deals
# the solvers of the optional-position CNF with the cell, each as its answers name it
SOLVERS = {"sat": "glucose3", "cpsat": "cp-sat:optional-cnf", "maxsat": "rc2/glucose3"}
FEATURE_SETS = [DEFAULT_FEATURES, frozenset(), frozenset({"domain"}),
                frozenset({"reach", "rank", "forward"}), frozenset({"domain", "compact"})]


def problem_of(position: Position):
    return build_problem(position.deal, "test", RULES_HELD)


def agrees(position: Position, backend: str, truth: int, line: str = "") -> None:
    """The backend's best score of `position` is proven and equals `truth` (counted from
    the start of the deal); its line, parks and all, replays from the position and puts
    that many cards in the hole, and no play onto the hole extends it."""
    found = best_score(position, backend, timeout=120)
    assert found.proven and found.best == found.upper_bound == truth, \
        (backend, line, found.best, truth)
    moves = [Move.park(move.card) if move.kind is Kind.PARK else move.card
             for move in found.moves]
    judged = replay(position.deal, moves)
    assert not judged.reason and judged.outcome is not Outcome.ILLEGAL, (backend, line)
    assert judged.played == found.best - position.moved
    assert judged.state is not None
    assert not any(move.kind in (Kind.PLAY, Kind.UNPARK)
                   for move in legal_moves(position.deal, judged.state))


def look_best(position: Position) -> int:
    found = longest(problem_of(position))
    assert found.proven
    return position.moved + found.played


@cache
def part_played(game: str, seed: int) -> tuple[str, str]:
    """A lost position of a PySolFC deal of `game`: the first 27 to 40 moves of the look's
    win, then legal moves drawn at random (parks among them) until play is lost but not
    over; few enough cards are left for the plain search of most_fan_cards."""
    rng = random.Random(seed)
    while True:
        spec = f"pysol:{rng.randint(1, 3000)}:{game}"
        won = solve(spec, "look").moves
        cut = rng.randint(27, min(40, len(won) - 1))
        start = load_position(spec, won[:cut])
        line = [*won[:cut], *random_line(start.deal, rng, rng.randint(1, 6))]
        position = load_position(spec, line)
        most = most_fan_cards(position.deal)
        if 0 < most < len(problem_of(position).required):
            return spec, " ".join(map(str, line))


@cache
def small(game: str, seed: int) -> tuple[str, str]:
    """A lost position of a small deck with a cell (never lost at its start): random
    legal moves until some line can no longer win."""
    rng = random.Random(seed)
    for _ in range(200):
        spec = f"random:{rng.randint(1, 10**6)}:any:ranks={rng.randint(3, 6)}:{game}"
        deal = load_deal(spec)
        line = random_line(deal, rng, rng.randint(3, 16))
        position = load_position(spec, line)
        if most_fan_cards(position.deal) < len(problem_of(position).required):
            return spec, " ".join(map(str, line))
    raise AssertionError("no lost position drawn")


# ---------------------------------------------------------------- PySolFC's lost deals


@pytest.mark.parametrize("backend", sorted(SOLVERS))
@pytest.mark.parametrize("number", sorted(BEST))
@pytest.mark.parametrize("game", GAMES)
def test_the_lost_pysol_deals_score_as_the_look_says(game, number, backend) -> None:
    position = load_position(f"pysol:{number}:{game}")
    truth = look_best(position)
    assert truth == BEST[number] == most_fan_cards(position.deal)
    agrees(position, backend, truth)
    found = best_score(position, backend)
    assert found.backend == backend
    assert found.solver == SOLVERS[backend]


# lost worm-hole deals of the first million whose best needs several parks
# (/work/atlas-runs/worm/worm-hole-lost.txt): the shipped atlas holds each one's best
LONGER_LOST = (424512, 86151, 21242, 996105)


@cache
def longer_lost_best(number: int) -> int:
    """The atlas's best score of pysol:NUMBER:worm-hole, which the look proves again
    (once a deal, for every backend held to it)."""
    truth = lookup(f"pysol:{number}:worm-hole").best
    assert truth is not None and truth > max(BEST.values())
    assert look_best(load_position(f"pysol:{number}:worm-hole")) == truth
    return truth


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(SOLVERS))
@pytest.mark.parametrize("number", LONGER_LOST)
def test_longer_lost_deals_score_as_the_atlas_and_the_look_say(number, backend) -> None:
    agrees(load_position(f"pysol:{number}:worm-hole"), backend, longer_lost_best(number))


@pytest.mark.parametrize("game", GAMES)
def test_the_solver_finds_the_parks_itself(game) -> None:
    """From no seed: the climb's own lines park (Black Hole scores 0 and 1 here), and they
    replay with their parks."""
    for number, best in BEST.items():
        problem = build_problem(load_deal(f"pysol:{number}:{game}"), "test", RULES_HELD)
        with LineSolver(problem, "glucose3", best_features(Options()), None) as lines:
            found = lines.longest()
        assert found.proven and found.played == best and found.parks
        judged = replay(load_deal(f"pysol:{number}:{game}"),
                        line_moves(problem, found.order, found.parks))
        assert not judged.reason and judged.played == best
        assert sum(move.kind is Kind.PARK for move in judged.moves) == len(found.parks)
    plain = best_score("pysol:148", "sat")
    assert plain.best < BEST[148]


def no_seed(problem, deadline):
    return (), ()


@pytest.mark.parametrize("backend", sorted(SOLVERS))
@pytest.mark.parametrize("game", GAMES)
def test_each_backend_finds_the_parks_without_a_seed(game, backend, monkeypatch) -> None:
    """With no line to start from, each backend's own optimum (RC2's model for maxsat)
    parks, scores the look's best, and its parks come back as moves of kind park that
    the rules engine replays; Black Hole's best of the same deal is lower."""
    monkeypatch.setattr(seeding, "starting_seed", no_seed)
    for number, best in BEST.items():
        position = load_position(f"pysol:{number}:{game}")
        found = best_score(position, backend, timeout=120)
        assert found.stats["lower_bound"] == 0 and found.backend == backend
        assert found.proven and found.best == best, (backend, number)
        parks = [move for move in found.moves if move.kind is Kind.PARK]
        assert parks and found.replay is not None and found.replay.played == best
        assert best_score(f"pysol:{number}", backend).best < best


@pytest.mark.parametrize("game", GAMES)
def test_maxsat_at_the_limit_shows_the_seed_with_its_parks(game, monkeypatch) -> None:
    """RC2 stopped (as at the deadline) before its optimum: the answer is the seed's line,
    parks and all, replayed by the rules engine and marked unproven."""
    def seed(problem, deadline):
        found = longest(problem)
        return found.order, found.parks

    monkeypatch.setattr(seeding, "starting_seed", seed)
    monkeypatch.setattr(maxsat, "_compute", lambda rc2, deadline: None)
    for number, best in BEST.items():
        found = best_score(f"pysol:{number}:{game}", "maxsat")
        assert found.best == best and not found.proven and found.upper_bound > best
        assert any(move.kind is Kind.PARK for move in found.moves)
        assert found.replay is not None and found.replay.played == best


# ---------------------------------------------------------------- positions part played


@pytest.mark.parametrize(("draw", "count"), [(part_played, 4), (small, 6)],
                         ids=["pysol-part-played", "small-decks"])
@pytest.mark.parametrize("game", GAMES)
def test_lost_positions_agree_with_the_look_and_the_referees(game, draw, count) -> None:
    """Positions part played of PySolFC deals, and of small decks (whose starts a cell
    never loses): sat, cpsat, maxsat and the search referee all score as the look and
    most_fan_cards do."""
    for seed in range(count):
        spec, line = draw(game, seed)
        position = load_position(spec, line)
        truth = position.moved + most_fan_cards(position.deal)
        assert look_best(position) == truth, (spec, line)
        for backend in (*SOLVERS, "search"):
            agrees(position, backend, truth, line)


@pytest.mark.parametrize("game", GAMES)
def test_every_sound_feature_set_keeps_the_best_score(game) -> None:
    """The CNF alone (no seed), under each feature set, on small lost positions: a line of
    the best score is found and one more card is refuted."""
    for seed in range(6):
        spec, line = small(game, seed)
        position = load_position(spec, line)
        most = most_fan_cards(position.deal)
        problem = problem_of(position)
        for features in FEATURE_SETS:
            with LineSolver(problem, "glucose3", features, None) as lines:
                found = lines.longest()
            assert found.proven and found.played == most, (spec, line, sorted(features))
            judged = replay(position.deal, line_moves(problem, found.order, found.parks))
            assert not judged.reason and judged.played == most


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_many_small_positions_agree(game) -> None:
    for seed in range(6, 60):
        spec, line = small(game, seed)
        position = load_position(spec, line)
        truth = position.moved + most_fan_cards(position.deal)
        assert look_best(position) == truth, (spec, line)
        for backend in SOLVERS:
            agrees(position, backend, truth, line)


# ---------------------------------------------------------------- the encoding


def optional_counts(problem, features: frozenset[str]) -> dict[str, int]:
    """The cell's families with optional positions, from encodings/worm-hole.md's
    formulas ("The best score")."""
    layout = make_layout(problem)
    domains = make_domains(layout, windows="domain" in features, reach="reach" in features,
                           optional=True)
    n, first, last = layout.n, domains.first, domains.last
    gaps = {}
    for c in layout.moves:
        if problem.fan_of[c] >= 0 and problem.parks_left != 0:
            low = 1 + len(layout.before[c]) if "domain" in features else 1
            if low <= n - 1:
                gaps[c] = (low, n - 1)
    size = {c: hi - lo + 1 for c, (lo, hi) in gaps.items()}
    held: dict[int, int] = {}
    for lo, hi in gaps.values():
        for g in range(lo, hi + 1):
            held[g] = held.get(g, 0) + 1
    if problem.cell is not None:
        for g in range(1, n):
            held[g] = held.get(g, 0) + 1
    compact = "compact" in features

    def amo(k: int) -> int:
        if k < 2:
            return 0
        return 3 * k - 4 if compact and k > 6 else k * (k - 1) // 2

    departure = sum(max(0, last[b] - first[b] + 1) + size.get(b, 0)
                    for _, b in problem.precedence)
    uses = amo(len(gaps)) if problem.parks_left is not None \
        and problem.parks_left < len(gaps) else 0
    return {"park-ladder": sum(4 * k - 2 for k in size.values()),
            "park-later": sum(1 for c, (lo, hi) in gaps.items() for g in range(lo, hi + 1)
                              if g >= first[c]),
            "park-filled": sum(size.values()), "departure": departure,
            "cell-occupancy": sum(held.values()), "cell-amo": sum(map(amo, held.values())),
            "cell-uses": uses}


@pytest.mark.parametrize("game", GAMES)
def test_clause_counts_follow_the_formulas(game) -> None:
    positions = [load_position(f"pysol:{number}:{game}") for number in (1, 105)]
    positions += [load_position(*part_played(game, seed)) for seed in range(2)]
    positions += [load_position(*small(game, seed)) for seed in range(2)]
    for position in positions:
        problem = problem_of(position)
        for features in FEATURE_SETS:
            counts = build_cnf(problem, features, optional=True).counts()
            expected = optional_counts(problem, features)
            assert {family: counts.get(family, 0) for family in expected} == expected


@pytest.mark.parametrize("game", GAMES)
def test_a_park_needs_the_hole_move_after_it(game) -> None:
    """No park trails the line: with every position empty, no park is possible."""
    problem = build_problem(load_deal(f"pysol:148:{game}"), "test", RULES_HELD)
    encoding = build_cnf(problem, DEFAULT_FEATURES, optional=True)
    with Solver(name="glucose3", bootstrap_with=encoding.clauses) as sat:
        for var, _, _ in encoding.parks[:40]:
            assert not sat.solve(assumptions=[-encoding.filled_literal(1), var])
        assert sat.solve(assumptions=[-encoding.filled_literal(1)])


def test_the_cell_model_of_cpsat_takes_no_features() -> None:
    problem = build_problem(load_deal("pysol:148:worm-hole"), "test", RULES_HELD)
    with pytest.raises(InputError, match="features"):
        build_best(problem, frozenset({"rankcount"}))
    assert build_best(problem).name == "optional-cnf"
    with pytest.raises(InputError, match="features"):
        best_score("pysol:148:worm-hole", "cpsat", features=["rankcount"])


# ---------------------------------------------------------------- certificates


def tamper(folder, name: str) -> None:
    """Drop one line (not the last) of a certificate's file."""
    path = folder / name
    lines = path.read_text().splitlines(keepends=True)
    del lines[len(lines) // 2]
    path.write_text("".join(lines))


@pytest.mark.parametrize("game", GAMES)
def test_best_certify_writes_what_verify_accepts(game, tmp_path) -> None:
    for number, best in BEST.items():
        spec = f"pysol:{number}:{game}"
        folder = tmp_path / f"{number}"
        result = cli("best", spec, "--backend", "sat", "--certify", str(folder))
        assert result.exit_code == 0, result.output
        assert f"no line scores {best + 1}" in " ".join(result.output.split())
        checked = cli("verify", str(folder))
        assert checked.exit_code == 0, checked.output
        assert f"scores more than {best}" in " ".join(checked.output.split())
        found = verify(folder)
        assert found.ok and found.claim == "best" and found.best == best and found.dealt
        for name in ("proof.drup", "formula.cnf"):
            copy = tmp_path / f"{number}-{name}"
            copy.mkdir()
            for path in folder.iterdir():
                (copy / path.name).write_bytes(path.read_bytes())
            tamper(copy, name)
            refused = cli("verify", str(copy))
            assert refused.exit_code == 1 and "NOT VERIFIED" in refused.output


@pytest.mark.parametrize("game", GAMES)
def test_a_position_part_played_is_certified_and_a_low_bound_refused(game, tmp_path) -> None:
    spec, line = part_played(game, 0)
    position = load_position(spec, line)
    best = position.moved + most_fan_cards(position.deal)
    cert = certify_best(position, best, tmp_path / "cert", spec=spec)
    assert cert.certified and cert.best == best
    found = verify(tmp_path / "cert")
    assert found.ok and found.claim == "best" and found.best == best and found.dealt
    if best > position.moved:
        with pytest.raises(InputError, match=f"scores {best}"):
            certify_best(position, best - 1, tmp_path / "low", spec=spec)
    result = cli("best", spec, "--after", line, "--backend", "cpsat", "--certify",
                 str(tmp_path / "cli"))
    assert result.exit_code == 0, result.output
    assert cli("verify", str(tmp_path / "cli")).exit_code == 0


@pytest.mark.parametrize("game", GAMES)
def test_the_bound_is_the_cards_in_the_hole(game) -> None:
    """On small lost positions the CNF "a line scores k" is satisfiable exactly up to the
    best score; its model is a legal line with its parks that puts k cards in the hole."""
    for seed in range(4):
        spec, line = small(game, seed)
        position = load_position(spec, line)
        most = most_fan_cards(position.deal)
        if most:
            encoding, _ = bound_encoding(position, position.moved + most - 1)
            with Solver(name="glucose4", bootstrap_with=encoding.clauses) as sat:
                assert sat.solve(), (spec, line)
                model = sat.get_model()
            order, parks = encoding.decode(model), encoding.decode_parks(model)
            judged = replay(position.deal, line_moves(encoding.problem, order, parks))
            assert not judged.reason and judged.played == len(order) >= most
        refuted, _ = bound_encoding(position, position.moved + most)
        with Solver(name="glucose4", bootstrap_with=refuted.clauses) as sat:
            assert not sat.solve(), (spec, line)
