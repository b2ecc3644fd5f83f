"""certify and verify on the Golf family: lost deals of each variant get a DRUP
certificate that `verify` (and drat-trim, where it is on PATH) accepts, won deals their
replayed line; deal.board names the game on a `Game:` line, and a certificate tampered
with (its proof, its deal, its game) is refused, exit 1.

The verdicts are black-hole-solve's (tests/data/golf-1-1000.csv); the deals of the
default tests are the quick ones (each certified in well under a second), more are under
`-m slow`. The soundness of the certificate's features is checked against the search
referee on small Golf deals, where every refutation's proof is checked too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pysat.solvers import Solver

from blackhole import drat
from blackhole.backends import Verdict
from blackhole.backends import kissat as kissat_backend
from blackhole.base.errors import InputError
from blackhole.certificates import certify, verify
from blackhole.certificates.files import (
    DEAL_FILE,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    certificate_board,
    certify_features,
    sha256,
)
from blackhole.encode.cnf import CERTIFY_FEATURES, PLAIN_ONLY_FEATURES, build_cnf
from blackhole.model.formats import board_text
from blackhole.model.games import VARIANTS
from blackhole.model.problem import RULES_HELD, build_problem
from blackhole.model.sources import load_deal

from .helpers import GOLF_GAMES, cli, golf_referee, golf_reference, small_golf

# Lost deals certified in under a second each (proofs of 2,900 to 15,000 lines), and
# slower ones (1 to 2 s each; encodings/golf.md, "Certificates").
FAST = [("golf", 1), ("golf", 21), ("dead-king-golf", 1), ("dead-king-golf", 7),
        ("relaxed-golf", 30)]
SLOW = [("golf", 8), ("golf", 13), ("golf", 17), ("dead-king-golf", 8),
        ("dead-king-golf", 13), ("dead-king-golf", 9), ("relaxed-golf", 106),
        ("relaxed-golf", 111)]


def lost(game: str, number: int) -> str:
    assert golf_reference()[number, game]["verdict"] == "unsolvable", (game, number)
    return f"pysol:{number}:{game}"


def certified_and_verified(spec: str, folder: Path, **choices) -> None:
    """certify proves the deal lost with the game's certificate features, deal.board
    names the game, and verify deals the spec again and accepts the proof."""
    deal = load_deal(spec)
    cert = certify(spec, folder, **choices)
    assert cert.verdict is Verdict.UNSOLVABLE and cert.certified, cert.reason
    assert cert.proof.lines > 100  # a real refutation, not unit propagation
    board = (folder / DEAL_FILE).read_text()
    assert board == certificate_board(deal) == f"Game: {deal.game.name}\n{board_text(deal)}"
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    assert manifest["deal"]["game"] == deal.game.name and manifest["deal"]["spec"] == spec
    features = certify_features(build_problem(deal, plays=RULES_HELD))
    assert manifest["encoding"]["features"] == sorted(features)
    found = verify(folder)
    assert found.ok and found.claim == "unsolvable" and found.spec == spec and found.dealt


@pytest.mark.parametrize(("game", "number"), FAST)
def test_lost_golf_deals_are_certified_and_verified(game, number, tmp_path) -> None:
    certified_and_verified(lost(game, number), tmp_path / "c")


@pytest.mark.slow
@pytest.mark.parametrize(("game", "number"), SLOW)
def test_more_lost_golf_deals_are_certified_and_verified(game, number, tmp_path) -> None:
    certified_and_verified(lost(game, number), tmp_path / "c")


def test_the_certificate_features_are_the_games_default_less_symmetry() -> None:
    """Golf's certificate takes the Golf default (card-level adjacency), every feature of
    which keeps every winning line (encodings/golf.md); verify takes it; a Black Hole
    certificate keeps its features."""
    for game in GOLF_GAMES:
        problem = build_problem(load_deal(f"pysol:1:{game}"), plays=RULES_HELD)
        features = certify_features(problem)
        assert features == frozenset({"domain", "compact", "forward"})
        assert not features & (PLAIN_ONLY_FEATURES | {"symmetry"})
        assert features <= CERTIFY_FEATURES  # what verify accepts
    assert certify_features(build_problem(load_deal("pysol:1"))) == CERTIFY_FEATURES


@pytest.mark.parametrize("game", GOLF_GAMES)
def test_the_certificate_cnf_keeps_every_win_of_small_golf_deals(game) -> None:
    """On small Golf deals the certificate's CNF is satisfiable exactly when the search
    referee finds a win, and each refutation's proof passes the project's checker: no
    feature of it removes a winning line."""
    verdicts = set()
    for seed in range(40):
        problem = build_problem(small_golf(seed, game), plays=RULES_HELD)
        encoding = build_cnf(problem, certify_features(problem))
        with Solver(name="glucose4", bootstrap_with=encoding.clauses,
                    with_proof=True) as sat:
            won = sat.solve()
            proof = None if won else list(sat.get_proof())
        expected = golf_referee(seed, game)
        verdicts.add(expected)
        assert won == (expected is Verdict.SOLVED), seed
        if proof is not None:
            assert drat.check_proof(encoding.clauses, drat.parse_proof_lines(proof)).ok, seed
    assert verdicts == {Verdict.SOLVED, Verdict.UNSOLVABLE}


def test_a_won_golf_deal_gets_its_line_replayed(tmp_path) -> None:
    assert golf_reference()[2, "golf"]["verdict"] == "solved"
    made = cli("certify", "pysol:2:golf", "--out", str(tmp_path / "w"))
    assert made.exit_code == 0 and "pysol:2:golf: solvable" in made.output
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == [DEAL_FILE, SOLUTION_FILE]
    assert (tmp_path / "w" / DEAL_FILE).read_text().startswith("Game: golf\nTalon: ")
    checked = cli("verify", str(tmp_path / "w"))
    assert checked.exit_code == 0 and "VERIFIED pysol:2:golf" in checked.output
    assert "all 35 cards replayed" in checked.output


def test_cli_certify_and_verify_a_lost_golf_deal(tmp_path) -> None:
    """The command that once said a Golf board cannot be certified."""
    made = cli("certify", lost("dead-king-golf", 7), "--out", str(tmp_path / "c"))
    assert made.exit_code == 1 and "pysol:7:dead-king-golf: certified unsolvable" in made.output
    checked = cli("verify", str(tmp_path / "c"))
    assert checked.exit_code == 0 and "VERIFIED pysol:7:dead-king-golf" in checked.output


def test_a_golf_board_file_is_certified_with_its_game_named(tmp_path) -> None:
    """A Golf board names no game (black-hole-solve's board): certify reads it with
    --game, as solve does, and verify reads the file as deal.board's game."""
    board = tmp_path / "d7.board"
    board.write_text(board_text(load_deal("pysol:7:dead-king-golf")))
    unnamed = cli("certify", str(board), "--out", str(tmp_path / "c"))
    assert unnamed.exit_code == 2 and "Game: NAME" in unnamed.output
    assert not (tmp_path / "c").exists()
    made = cli("certify", str(board), "--game", "dead-king-golf", "--out", str(tmp_path / "c"))
    assert made.exit_code == 1 and "certified unsolvable" in made.output
    found = verify(tmp_path / "c")
    assert found.ok and found.label == "file" and found.label_file == str(board)
    wrong = cli("certify", "pysol:7:golf", "--game", "dead-king-golf", "--out",
                str(tmp_path / "x"))
    assert wrong.exit_code == 2 and "not dead-king-golf" in wrong.output
    with pytest.raises(InputError, match="not dead-king-golf"):
        certify(load_deal("pysol:7:golf"), tmp_path / "y", game="dead-king-golf")


def test_a_golf_position_after_talon_turns_is_certified(tmp_path) -> None:
    """Turning a talon card is a move: the certificate names the moves, and verify deals
    the spec and replays them."""
    made = cli("certify", "pysol:1:golf", "--after", "8H 2C", "--out", str(tmp_path / "c"))
    assert made.exit_code == 1 and "certified unsolvable" in made.output
    manifest = json.loads((tmp_path / "c" / MANIFEST_FILE).read_text())
    assert manifest["position"] == {"moved": 0, "moves": ["8H", "2C"]}
    found = verify(tmp_path / "c")
    assert found.ok and found.replayed == 2


# ---------------------------------------------------------------- tampering


@pytest.fixture(scope="module")
def golf_1(tmp_path_factory) -> Path:
    """pysol:1:golf's certificate (lost in golf and in dead-king-golf alike)."""
    folder = tmp_path_factory.mktemp("golf") / "1"
    cert = certify(lost("golf", 1), folder)
    assert cert.certified
    assert lost("dead-king-golf", 1)
    return folder


def _copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(folder, target)
    return target


def _restate(folder: Path, **deal_facts) -> None:
    """The manifest rewritten to agree with the files: the proof's hash, the board and
    its hash, and `deal_facts` (a forger's best effort)."""
    path = folder / MANIFEST_FILE
    manifest = json.loads(path.read_text())
    board = (folder / DEAL_FILE).read_bytes()
    manifest["proof"]["sha256"] = sha256((folder / PROOF_FILE).read_bytes())
    manifest["deal"].update(board=board.decode(), sha256=sha256(board), **deal_facts)
    path.write_text(json.dumps(manifest))


def refused(folder: Path, why: str) -> None:
    found = verify(folder)
    assert not found.ok and why in found.reason, found.reason
    result = cli("verify", str(folder))
    assert result.exit_code == 1 and "NOT VERIFIED" in result.output


def test_a_proof_with_a_line_removed_or_changed_is_refused(golf_1, tmp_path) -> None:
    assert verify(golf_1).check.stats["trivial"] == 0  # not refuted by propagation alone
    lines = (golf_1 / PROOF_FILE).read_text().splitlines(keepends=True)
    assert lines[-2:] == [lines[-2], "0\n"] and len(lines[-2].split()) == 2  # a unit, then 0
    (tmp_path / "a").mkdir()
    folder = _copy(golf_1, tmp_path / "a")
    (folder / PROOF_FILE).write_text("".join(lines[:-2] + lines[-1:]))  # the last unit
    refused(folder, "does not match the manifest's hash")
    _restate(folder)
    refused(folder, "is not RUP/RAT")
    (tmp_path / "b").mkdir()
    folder = _copy(golf_1, tmp_path / "b")
    first = next(i for i, line in enumerate(lines) if not line.startswith("d "))
    (folder / PROOF_FILE).write_text("".join(lines[:first] + ["0\n"] + lines[first + 1:]))
    _restate(folder)
    refused(folder, f"lemma 1 (line {first + 1}) is not RUP/RAT")


def test_a_board_changed_to_another_deal_is_refused(golf_1, tmp_path) -> None:
    folder = _copy(golf_1, tmp_path)
    other = certificate_board(load_deal(lost("golf", 21)))
    (folder / DEAL_FILE).write_text(other)
    refused(folder, "deal.board is not the board the manifest names")
    _restate(folder)
    refused(folder, "deal.board is not the deal pysol:1:golf")
    _restate(folder, spec="pysol:21:golf")  # labelled as the deal it now holds
    refused(folder, "CNF hash is not the hash of the CNF re-derived")


@pytest.mark.parametrize("game", ["dead-king-golf", "relaxed-golf"])
def test_a_game_line_changed_to_another_variant_is_refused(golf_1, tmp_path, game) -> None:
    """pysol:1 is lost in dead-king-golf too, but golf's proof is no proof of it: the CNF
    re-derived for the game deal.board names is another."""
    folder = _copy(golf_1, tmp_path)
    board = (folder / DEAL_FILE).read_text()
    (folder / DEAL_FILE).write_text(board.replace("Game: golf\n", f"Game: {game}\n"))
    _restate(folder)
    refused(folder, f"the manifest's game 'golf' is not the game deal.board names '{game}'")
    _restate(folder, game=game)
    refused(folder, "deal.board is not the deal pysol:1:golf")
    _restate(folder, game=game, spec=f"pysol:1:{game}")
    refused(folder, "CNF hash is not the hash of the CNF re-derived")


def test_a_board_without_its_game_line_is_refused(golf_1, tmp_path) -> None:
    folder = _copy(golf_1, tmp_path)
    board = (folder / DEAL_FILE).read_text()
    (folder / DEAL_FILE).write_text(board.removeprefix("Game: golf\n"))
    _restate(folder)
    refused(folder, "a board with a Talon line must name its game")


# ---------------------------------------------------------------- other checkers, kissat


@pytest.mark.skipif(shutil.which("drat-trim") is None, reason="drat-trim is not on PATH")
def test_drat_trim_accepts_golf_certificates(golf_1, tmp_path) -> None:
    checked = cli("verify", str(golf_1), "--checker", "drat-trim")
    assert checked.exit_code == 0 and "VERIFIED pysol:1:golf" in checked.output
    made = cli("certify", lost("relaxed-golf", 30), "--checker", "drat-trim", "--out",
               str(tmp_path / "c"))
    assert made.exit_code == 1 and "certified unsolvable" in made.output
    assert verify(tmp_path / "c", "drat-trim").ok and verify(tmp_path / "c").ok


@pytest.mark.skipif(not kissat_backend.installed(), reason="kissat not installed "
                    "(pip install 'blackhole-solitaire[kissat]')")
def test_kissat_certifies_a_lost_golf_deal(tmp_path) -> None:
    certified_and_verified(lost("golf", 21), tmp_path / "c", solver="kissat")
    manifest = json.loads((tmp_path / "c" / MANIFEST_FILE).read_text())
    assert manifest["proof"]["format"] == "drat" and manifest["solver"]["name"] == "kissat"


def test_every_golf_game_is_certified_with_its_own_name() -> None:
    """deal.board's Game line is the game's name from the table of games, and it reads
    back as that game."""
    from blackhole.model.formats import parse_board

    for game in GOLF_GAMES:
        deal = load_deal(f"pysol:5:{game}")
        board = certificate_board(deal)
        assert board.splitlines()[0] == f"Game: {game}"
        assert parse_board(board).game is VARIANTS[game]
    plain = load_deal("pysol:5")
    assert certificate_board(plain) == board_text(plain)
