"""One rule for case: a game's name and the words of a dealt spec are read in any case,
as a board's `Game:` line is, and written back in lower case; Black Hole may be named."""

from __future__ import annotations

import pytest

from blackhole.base.errors import InputError
from blackhole.model.formats import board_text
from blackhole.model.sources import expand_specs, load_deal

from .helpers import blackhole


@pytest.mark.parametrize(("spec", "same_as"), [
    ("pysol:1:GOLF", "pysol:1:golf"),
    ("PySol:2:Relaxed-Golf", "pysol:2:relaxed-golf"),
    ("pysol:3:black-hole", "pysol:3"),
    ("random:7:black-hole", "random:7"),
    ("RANDOM:7:Black-Hole:RANKS=8", "random:7:ranks=8"),
    ("random:9:ANY", "random:9:any"),
    ("random:4:All-In-A-Row", "random:4:all-in-a-row"),
])
def test_a_spec_is_read_in_any_case(spec: str, same_as: str) -> None:
    deal, expected = load_deal(spec), load_deal(same_as)
    assert deal == expected and deal.name == expected.name == same_as
    assert board_text(deal) == board_text(expected)


def test_a_range_is_read_in_any_case_and_listed_in_lower_case() -> None:
    assert expand_specs("PYSOL:1-3:GOLF") == ["pysol:1:golf", "pysol:2:golf", "pysol:3:golf"]
    assert expand_specs("random:5-6:Black-Hole") == ["random:5", "random:6"]


@pytest.mark.parametrize("spec", ["random:2:golf:any", "random:2:ANY:Golf",
                                  "random:2:golf:ranks=8"])
def test_a_standard_deck_game_still_refuses_any_and_ranks(spec: str) -> None:
    with pytest.raises(InputError, match="dealt from a standard deck"):
        load_deal(spec)


def test_the_cli_and_the_game_line_agree_on_case(tmp_path) -> None:
    """`pysol:1:GOLF` on the command line is what `Game: GOLF` in a board is."""
    board = blackhole("deal", "pysol:1:golf").stdout
    (tmp_path / "upper.board").write_text(board.replace("Game: golf", "Game: GOLF"))
    by_spec = blackhole("solve", "pysol:1:GOLF", "--json")
    by_file = blackhole("solve", str(tmp_path / "upper.board"), "--json")
    assert by_spec.returncode == by_file.returncode == 1, by_spec.stderr + by_file.stderr
