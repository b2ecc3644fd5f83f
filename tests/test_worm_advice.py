"""hint and analyze play Worm Hole's cell (issue #51): a choice is a move as the rules
engine names it (a play, a park into the cell, the cell's card onto the hole), and the
best score each hint and each step of an analysis gives is held to a referee that shares
no code with the look: the `search` backend, or on small decks the helpers' plain count
(`most_fan_cards`), each run from the position the rules engine reaches after the move.
"""

from __future__ import annotations

import json
import random

import pytest

from blackhole.model.deal import Kind, Move, Position
from blackhole.model.positions import load_position
from blackhole.model.rules import advance, legal_moves, replay
from blackhole.model.sources import load_deal
from blackhole.questions.advice import analyze, hints
from blackhole.questions.best import best_score

from .helpers import cli, most_fan_cards, random_line

GAMES = ("worm-hole", "unstable-worm-hole")
# Lost deals in both games (docs/worm-hole.md: best 4 and 6 of 51), and positions part
# played: a card parked, a card in the cell that fits, the cell's use spent, and a won
# deal late in a line that parks
POSITIONS = [("pysol:105", ""), ("pysol:148", ""), ("pysol:148", "park:AH KC AC 2S"),
             ("pysol:148", "park:AH KC AC 2S AH"), ("pysol:105", "park:5C KC")]


def assert_every_legal_move(position: Position, found: list) -> None:
    """The hints name the rules engine's legal moves, each once, kinds included."""
    state = replay(position.deal, []).state
    assert sorted(hint.move for hint in found) == sorted(legal_moves(position.deal, state))


def referee_best(position: Position, move: Move) -> int:
    """The best score after `move` from `position`, by the `search` referee (counted from
    the start of the deal)."""
    found = best_score(advance(position, [move]), "search")
    assert found.proven
    return found.best


def won_line_position(game: str, made: int) -> Position:
    """pysol:1 of `game` after the first `made` moves of the referee's win (which parks)."""
    win = best_score(load_deal(f"pysol:1:{game}"), "search").moves
    assert any(move.kind is Kind.PARK for move in win[:made]), game
    return load_position(f"pysol:1:{game}", " ".join(map(str, win[:made])))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("spec", "after"), POSITIONS)
def test_each_hint_is_the_referees_best_after_its_move(game: str, spec: str,
                                                       after: str) -> None:
    position = load_position(f"{spec}:{game}", after)
    found = hints(position)
    assert_every_legal_move(position, found)
    for hint in found:
        assert hint.proven and hint.best == referee_best(position, hint.move), \
            (spec, after, str(hint.move))
    assert [h.best for h in found] == sorted((h.best for h in found), reverse=True)


@pytest.mark.parametrize("game", GAMES)
def test_hints_from_a_won_line_part_played_agree_with_the_referee(game: str) -> None:
    position = won_line_position(game, 30)
    found = hints(position)
    assert found[0].best == 51 and found[0].winnable
    assert_every_legal_move(position, found)
    for hint in found:
        assert hint.best == referee_best(position, hint.move), str(hint.move)
        assert hint.winnable == (hint.best == 51)


@pytest.mark.parametrize("game", GAMES)
def test_hints_on_small_decks_agree_with_the_plain_count(game: str) -> None:
    """Random positions of 4-rank decks: each hint's best is the helpers' count after
    its move, parks and the cell's card included."""
    rng = random.Random(51)
    seen = set()
    for seed in range(20):
        start = load_position(f"random:{seed}:ranks=4:{game}")
        position = advance(start, random_line(start.deal, rng, rng.randrange(4)))
        for hint in hints(position):
            after = advance(position, [hint.move])
            assert hint.proven and hint.best == after.moved + most_fan_cards(after.deal), \
                (seed, str(hint.move))
            seen.add(hint.move.kind)
    assert seen == {Kind.PLAY, Kind.PARK, Kind.UNPARK}


def referee_step(position: Position, step) -> tuple[int, int, bool]:
    """The referee's view of a step: the best before and after the move played, and
    whether it is the only one of several to keep the best."""
    state = replay(position.deal, []).state
    bests = [referee_best(position, move) for move in legal_moves(position.deal, state)]
    after = referee_best(position, step.move)
    keep = sum(best == max(bests) for best in bests)
    return max(bests), after, len(bests) > 1 and keep == 1 and after == max(bests)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("spec", "line"), [("pysol:148", None), ("pysol:105", None),
                                            ("pysol:148", "park:9H"),
                                            ("pysol:148", "park:AH KC AC 2S AH")])
def test_analyze_agrees_with_the_referee_move_by_move(game: str, spec: str,
                                                      line: str | None) -> None:
    """Each step's best before and after, its critical mark and its loss are the
    referee's; a best line scores the referee's best, parks and unparks named."""
    position = load_position(f"{spec}:{game}")
    found = analyze(position, line)
    assert found.proven and found.best == best_score(position, "search").best
    replayed = replay(position.deal, [step.move for step in found.steps])
    assert replayed.outcome.value != "illegal" and replayed.played == found.score
    if line is None:
        assert found.score == found.best and found.first_loss is None
        assert any(step.move.kind is Kind.PARK for step in found.steps)
    for step in found.steps:
        before, after, critical = referee_step(position, step)
        assert (step.best_before, step.best_after, step.critical) == \
            (before, after, critical), (spec, line, step.number)
        assert step.loses == (after < before)
        position = advance(position, [step.move])
    if line == "park:9H":  # 9H parked blocks every play: the game ends at 0
        assert found.first_loss.number == 1 and found.first_loss.move.kind is Kind.PARK


@pytest.mark.parametrize("game", GAMES)
def test_analyze_finds_where_a_won_deal_is_lost_by_a_park(game: str) -> None:
    """From a winnable deal, a park that leaves no win is the first loss of a line that
    makes it, as the referee says."""
    position = load_position(f"pysol:1:{game}")
    state = replay(position.deal, []).state
    parks = [move for move in legal_moves(position.deal, state) if move.kind is Kind.PARK]
    losing = next(move for move in parks if referee_best(position, move) < 51)
    found = analyze(position, [losing])
    assert found.first_loss is not None and found.first_loss.move == losing
    assert found.first_loss.best_before == 51
    assert found.first_loss.best_after == referee_best(position, losing)


# ---------------------------------------------------------------- the command line


def test_hint_and_analyze_name_the_cells_moves_in_text_and_json() -> None:
    done = cli("hint", "pysol:148:worm-hole", "--after", "park:AH KC AC 2S", "--ascii")
    assert done.exit_code == 0, done.output
    assert "cell:   AH  not winnable, best 6 of 51" in done.output
    document = json.loads(cli("hint", "pysol:148:worm-hole", "--json").output)
    assert {m["kind"] for m in document["moves"]} == {"park"}
    assert document["best"] == 6 and document["proven"] and not document["winnable"]
    shown = cli("hint", "pysol:148:worm-hole", "--ascii")
    assert "fan 10: AH into the cell  not winnable, best 6 of 51" in shown.output
    walked = cli("analyze", "pysol:148:worm-hole", "--ascii")
    assert walked.exit_code == 0, walked.output
    assert "into the cell, from fan" in walked.output and "AH from the cell" in walked.output
    steps = json.loads(cli("analyze", "pysol:148:worm-hole", "--json").output)["steps"]
    assert {"kind": "park", "fan": 9, "card": "AH"}.items() <= steps[0].items()
    assert any(step.get("kind") == "unpark" and step["fan"] is None for step in steps)
    lost = cli("analyze", "pysol:148:worm-hole", "--line", "park:9H", "--ascii")
    assert "first move that loses: move 1 (9H into the cell, from fan 1)" in lost.output


@pytest.mark.parametrize(("args", "message"), [
    (("analyze", "pysol:148:worm-hole", "--line", "park:AH park:KC"),
     "cannot park KC: the cell holds AH"),
    (("analyze", "pysol:148:unstable-worm-hole", "--line", "park:AH KC AC 2S AH park:7D"),
     "all taken"),
    (("hint", "pysol:148:worm-hole", "--after", "park:ZZ"), "park:ZZ"),
])
def test_a_bad_cell_move_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.exit_code == 2 and message in done.output, done.output
    assert len(done.output.strip().splitlines()) == 1


def test_at_the_limit_hint_and_analyze_say_unknown_with_exit_3() -> None:
    """A limit that comes at once leaves the answer unknown, never a wrong one: a move
    is proven only where its search ended (the compiled core looks at the clock between
    batches of moves, so a short search may end first), and then its line meets its
    bound."""
    for command in ("hint", "analyze"):
        done = cli(command, "pysol:1:worm-hole", "--timeout", "0.000001", "--json")
        assert done.exit_code == 3, (command, done.output)
        document = json.loads(done.output)
        assert document["proven"] is False
        for answer in document.get("moves", document.get("steps")):
            found, bound = answer.get("found", 0), answer.get("upper_bound", 51)
            assert found == bound if answer["proven"] and command == "hint" else found <= bound
