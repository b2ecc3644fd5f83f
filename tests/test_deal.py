"""Cards, deal formats, deal sources and the malformed-input errors."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole.base.errors import InputError
from blackhole.model.cards import Card, adjacent_ranks, deck, parse_card, rank_adjacent
from blackhole.model.deal import Deal
from blackhole.model.formats import board_text, deal_json, parse_board, parse_json, saved_board
from blackhole.model.games import VARIANTS
from blackhole.model.sources import expand_specs, load_deal, random_deal

from .helpers import EXAMPLES, blackhole, small_deal


@pytest.mark.parametrize("token,card", [
    ("AS", Card(1, "S")), ("TH", Card(10, "H")), ("10H", Card(10, "H")),
    ("K♥", Card(13, "H")), ("qd", Card(12, "D")), ("2c", Card(2, "C")), ("J♣", Card(11, "C")),
])
def test_parse_card_forms(token: str, card: Card) -> None:
    assert parse_card(token) == card


@pytest.mark.parametrize("token", ["", "X", "1S", "0S", "11", "KX", "ZZ", "010H", "A"])
def test_parse_card_rejects(token: str) -> None:
    with pytest.raises(ValueError):
        parse_card(token)


@given(st.sampled_from(deck()))
def test_card_text_round_trips(card: Card) -> None:
    assert parse_card(str(card)) == card
    assert parse_card(card.unicode()) == card
    assert parse_card(str(card).lower()) == card


def test_rank_adjacency_wraps_and_refuses_equal() -> None:
    assert rank_adjacent(13, 1) and rank_adjacent(1, 13) and rank_adjacent(1, 2)
    assert not rank_adjacent(5, 5) and not rank_adjacent(1, 3) and not rank_adjacent(12, 1)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 13, 31])
def test_adjacent_ranks_are_the_ranks_rank_adjacent_accepts(ranks: int) -> None:
    for rank in range(1, ranks + 1):
        assert adjacent_ranks(rank, ranks) == tuple(
            other for other in range(1, ranks + 1) if rank_adjacent(rank, other, ranks))


def test_pysol_deals_match_pysolfc() -> None:
    one, two = load_deal("pysol:1"), load_deal("pysol:2")
    assert [list(map(str, f)) for f in one.fans[:2]] == [["JD", "KS", "TH"], ["2D", "9D", "8H"]]
    assert [list(map(str, f)) for f in two.fans[:2]] == [["QD", "JC", "TC"], ["QC", "8C", "2S"]]
    assert one.foundation == Card(1, "S") and len(one.fans) == 17


@pytest.mark.parametrize("variant, game", [("", "black_hole"), ("all-in-a-row", "all_in_a_row")])
def test_pysol_deals_equal_pysol_cards_own_layout_text(variant: str, game: str) -> None:
    """PySolFC's deals (pysol_cards' DEALS_PYSOLFC: Microsoft's generator below 32000,
    the Mersenne Twister above), as its printed board says them."""
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    suffix = f":{variant}" if variant else ""
    for number in (1, 2, 24, 31_999, 32_001, 1_000_000, 10**20,
                   *random.Random(7).sample(range(10**6), 40)):
        text = Game(game, number, RandomBase.DEALS_PYSOLFC).calc_layout_string(
            CardRenderer(print_ts=True))
        # a board names no game but Black Hole: All in a Row's is read as that game
        read = parse_board(text, game=VARIANTS[variant] if variant else None)
        assert load_deal(f"pysol:{number}{suffix}") == read, number


def test_pysol_deal_32000_takes_the_mersenne_twister_as_pysolfc_does() -> None:
    """PySolFC shuffles game numbers below 32000 with Microsoft's generator and 32000 up
    with the Mersenne Twister (pysol_cards alone would give 32000 Microsoft's). The
    shuffle PySolFC runs: from the last card down, swap card n with card
    int(random() * (n + 1)); the deck is clubs, spades, hearts, diamonds, ace to king,
    and the fans are dealt from the end of the shuffled deck."""
    rng = random.Random(32000)
    cards = [Card(rank, suit) for suit in "CSHD" for rank in range(1, 14)]
    for n in range(51, 0, -1):
        j = int(rng.random() * (n + 1))
        cards[n], cards[j] = cards[j], cards[n]
    cards.reverse()
    ace = cards.index(Card(1, "S"))
    rest = cards[:ace] + cards[ace + 1:]
    fans = [[] for _ in range(17)]
    for i, card in enumerate(rest):
        fans[i % 17].append(card)
    assert [list(fan) for fan in load_deal("pysol:32000").fans] == fans


@given(st.integers(min_value=0, max_value=10**9))
def test_random_deals_are_valid_and_reproducible(seed: int) -> None:
    deal = random_deal(seed)
    assert deal == random_deal(seed)
    assert len(deal.fans) == 17 and all(len(f) == 3 for f in deal.fans)
    variant = random_deal(seed, any_card_hole=True)
    assert variant.foundation is not None and variant == load_deal(f"random:{seed}:any")


@given(st.integers(min_value=1, max_value=5000))
def test_board_and_json_round_trip(number: int) -> None:
    deal = random_deal(number)
    assert parse_board(board_text(deal)) == deal
    assert parse_json(json.dumps(deal_json(deal))) == deal


def test_board_tolerates_crlf_bom_blank_lines_and_no_final_newline() -> None:
    text = board_text(load_deal("pysol:2"))
    messy = "\ufeff" + text.replace("\n", "\r\n\r\n").rstrip()
    assert parse_board(messy) == load_deal("pysol:2")


def test_black_hole_solve_colon_prefixed_fans() -> None:
    text = board_text(load_deal("pysol:5"))
    lines = text.splitlines()
    colons = "\n".join([lines[0]] + [": " + line for line in lines[1:]])
    assert parse_board(colons) == load_deal("pysol:5")


def _bad_board(replace: tuple[str, str] | None = None, drop_line: int | None = None) -> str:
    lines = board_text(load_deal("pysol:2")).splitlines()
    if drop_line is not None:
        del lines[drop_line]
    text = "\n".join(lines) + "\n"
    if replace:
        text = text.replace(*replace, 1)
    return text


def _without_first_card(spec: str) -> str:
    """The board as saved (naming its game, on a first line, unless Black Hole), less the
    first card of its first fan."""
    lines = saved_board(load_deal(spec)).splitlines()
    first = next(i for i, line in enumerate(lines) if ":" not in line)
    lines[first] = lines[first].split(" ", 1)[1]
    return "\n".join(lines)


@pytest.mark.parametrize("text,line,token,words", [
    (_bad_board(("QC 8C 2S", "QC 8C QD")), 3, "QD", "duplicate"),
    (_bad_board(("QC 8C 2S", "QC 8C 2X")), 3, "2X", "unknown suit"),
    (_bad_board(("QC 8C 2S", "QC 8C 2S 3S")), 4, "3S", "duplicate"),  # 3S is in fan 3 too
    (_bad_board(("QC 8C 2S", "QC 8C AS")), 3, "AS", "cannot also lie on a fan"),
    (_bad_board(("QC 8C 2S", "QC 8C 2S 5H")).replace("JS 7C 5H", "JS"), 3, "QC 8C 2S 5H",
     "at most 3 cards"),  # a position (7C, 5H played) cannot hold a fan of 4
    (_bad_board(drop_line=17), 17, "9C AH TH", "a position keeps all 17 fans"),
    (_without_first_card("pysol:1:all-in-a-row"), 15, "JD",
     "with an empty foundation nothing has been played"),
    ("\n\n", None, None, "empty"),
])
def test_malformed_boards_name_line_and_token(text, line, token, words) -> None:
    with pytest.raises(InputError) as caught:
        parse_board(text, "bad.board")
    error = caught.value
    assert error.source == "bad.board" and words in str(error)
    if line is not None:
        assert error.line == line
    if token is not None:
        assert token in error.token
    assert "\n" not in str(error)


def test_wrong_number_of_fans() -> None:
    lines = board_text(load_deal("pysol:2")).splitlines()
    # 16 fans holding all 51 cards: the deck is complete but the layout is not Black Hole.
    merged = lines[:16] + [lines[16] + " " + lines[17]]
    with pytest.raises(InputError, match="expected 17 fans"):
        parse_board("\n".join(merged), "bad.board")


def test_bad_json_deal() -> None:
    with pytest.raises(InputError) as caught:
        parse_json('{"fans": [["JD", "KS", "TH"],\n ["2D", "9D", "ZZ"]]}', "d.json")
    assert caught.value.line == 2 and caught.value.token == "ZZ"
    with pytest.raises(InputError, match="invalid JSON"):
        parse_json('{"fans": [', "d.json")


def test_missing_file_and_bad_specs() -> None:
    for spec in ["does-not-exist.board", "pysol:x", "pysol:0", "random:1:other", "random:-1"]:
        with pytest.raises(InputError):
            load_deal(spec)


def test_examples_load_in_every_format() -> None:
    assert load_deal(str(EXAMPLES / "pysol-2.board")) == load_deal("pysol:2")
    assert load_deal(str(EXAMPLES / "pysol-2.json")) == load_deal("pysol:2")


def test_expand_specs_ranges_and_folders() -> None:
    assert expand_specs("pysol:3-5,random:7") == ["pysol:3", "pysol:4", "pysol:5", "random:7"]
    assert expand_specs("random:1-2:any") == ["random:1:any", "random:2:any"]
    assert str(EXAMPLES / "pysol-2.board") in expand_specs(str(EXAMPLES))


@given(st.text(alphabet="ASHDC23456789TJQK10♥♠♦♣:-# \n\r{}[]\",x", max_size=300))
def test_any_text_parses_or_fails_with_an_input_error(text: str) -> None:
    from blackhole.model.formats import parse_deal_text

    try:
        parse_deal_text(text, "fuzz")
    except InputError as error:
        assert "\n" not in str(error) and str(error).startswith("fuzz")


@given(st.integers(1, 2000), st.data())
def test_one_corrupted_token_is_named(seed: int, data) -> None:
    lines = board_text(random_deal(seed)).splitlines()
    row = data.draw(st.integers(1, len(lines) - 1))
    col = data.draw(st.integers(0, 2))
    tokens = lines[row].split()
    tokens[col] = data.draw(st.sampled_from(["ZZ", "1S", "QX", "0H"]))
    lines[row] = " ".join(tokens)
    with pytest.raises(InputError) as caught:
        parse_board("\n".join(lines), "c.board")
    assert caught.value.line == row + 1 and caught.value.token == tokens[col]


def test_all_in_a_row_from_pysol() -> None:
    deal = load_deal("pysol:24:all-in-a-row")
    assert deal.foundation is None and len(deal.fans) == 13
    assert all(len(fan) == 4 for fan in deal.fans)
    assert parse_board(saved_board(deal)) == deal  # its board names its game
    assert expand_specs("pysol:1-2:all-in-a-row") == ["pysol:1:all-in-a-row",
                                                      "pysol:2:all-in-a-row"]


def test_spec_limits_are_one_line_errors(tmp_path) -> None:
    assert load_deal(f"pysol:{10**20}").fans  # PySolFC's largest game number
    with pytest.raises(InputError, match="<= 100000000000000000000"):
        load_deal(f"pysol:{10**20 + 1}")
    with pytest.raises(InputError, match="at most 10,000,000 deals"):
        expand_specs("pysol:1-100000000000")
    loop = tmp_path / "loop.txt"
    loop.write_text(f"pysol:1\n@{loop}\n")
    with pytest.raises(InputError, match="includes itself"):
        expand_specs(f"@{loop}")
    nested = tmp_path / "outer.txt"
    nested.write_text(f"pysol:2 @{tmp_path / 'inner.txt'}\n")
    (tmp_path / "inner.txt").write_text("pysol:3\n")
    assert expand_specs(f"@{nested},@{nested}") == ["pysol:2", "pysol:3"] * 2


# ------------------------------------------------------------ input edges (issue 9)


def _one_line(error: InputError) -> str:
    text = str(error)
    assert "\n" not in text and len(text) < 300
    return text


def test_a_file_over_the_cap_is_refused_before_it_is_read_whole(tmp_path) -> None:
    import tracemalloc

    from blackhole.model.sources import MAX_FILE_BYTES

    big = tmp_path / "big.board"
    with big.open("wb") as handle:  # 30 MB, sparse: cheap to make, costly to read whole
        handle.truncate(30_000_000)
    tracemalloc.start()
    with pytest.raises(InputError, match="larger than the 1 MB cap") as caught:
        load_deal(str(big))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * MAX_FILE_BYTES and caught.value.source == str(big)
    just = tmp_path / "just.board"
    just.write_text(board_text(load_deal("pysol:2")) + "#" * (MAX_FILE_BYTES - 200) + "\n")
    assert load_deal(str(just)) == load_deal("pysol:2")  # under the cap: read as usual


def test_a_spec_list_of_a_millions_lost_deals_is_read(tmp_path) -> None:
    """`atlas-build --lost-list` writes PySolFC's first million's 130,587 lost deals in
    1.7 MB, over the 1 MB cap of deal files; `bench @list` must read it."""
    from blackhole.model.sources import MAX_FILE_BYTES

    numbers = range(1, 1_000_001, 7)
    listed = tmp_path / "lost.txt"
    listed.write_text("".join(f"pysol:{n}\n" for n in numbers))
    assert listed.stat().st_size > MAX_FILE_BYTES
    specs = expand_specs([f"@{listed}"])
    assert specs == [f"pysol:{n}" for n in numbers]


def test_named_pipes_are_read_and_folders_named(tmp_path) -> None:
    import os
    import threading

    pipe = tmp_path / "deal.fifo"
    os.mkfifo(pipe)
    text = board_text(load_deal("pysol:3"))
    writer = threading.Thread(target=pipe.write_text, args=(text,))
    writer.start()
    assert load_deal(str(pipe)) == load_deal("pysol:3")
    writer.join()
    with pytest.raises(InputError, match="is a directory") as caught:
        load_deal(str(tmp_path))
    assert _one_line(caught.value) == f"{tmp_path}: is a directory, not a deal file"


def test_unreadable_and_non_utf8_files(tmp_path) -> None:
    latin = tmp_path / "latin.board"
    latin.write_bytes(board_text(load_deal("pysol:2")).encode() + b"# caf\xe9\n")
    with pytest.raises(InputError, match="not UTF-8") as caught:
        load_deal(str(latin))
    assert caught.value.line == 19
    with pytest.raises(InputError, match="cannot read"):
        load_deal("a\x00b")


def test_a_comment_after_the_cards_is_a_comment() -> None:
    lines = board_text(load_deal("pysol:2")).splitlines()
    lines[0] += "   # the black hole"
    lines[3] += "#no space needed"
    assert parse_board("\n".join(lines)) == load_deal("pysol:2")


@pytest.mark.parametrize("spec,words", [
    ("pysol:²", "whole number"),
    ("pysol:١٢", "whole number"),
    ("random:٣", "whole number"),
    ("pysol:" + "9" * 5000, "<= 100000000000000000000"),
    ("random:" + "9" * 5000, "<= 100000000000000000000"),
    ("random:100000000000000000001", "<= 100000000000000000000"),
    ("random:-1", "not a negative one"),
    ("pysol:-5", "not a negative one"),
    ("pysol:", "whole number"),
    ("random:1:ranks=1", "2 to 100 ranks"),
    ("random:1:ranks=101", "2 to 100 ranks"),
    ("random:1:ranks=" + "9" * 5000, "2 to 100 ranks"),
    ("random:1:ranks=x", "2 to 100 ranks"),
    ("random:1:any:any", "unknown random variant"),
    ("random:1:ranks=5:ranks=6", "unknown random variant"),
    ("pysol:1:any", "unknown PySolFC game"),
    ("random:1-3", "a range names several deals"),
])
def test_bad_generated_specs_are_one_line_errors(spec: str, words: str) -> None:
    with pytest.raises(InputError, match=words) as caught:
        load_deal(spec)
    assert len(_one_line(caught.value)) < 240  # the 5,000 digits are not echoed


@pytest.mark.parametrize("spec,words", [
    ("pysol:1-" + "9" * 5000, "<= 100000000000000000000"),
    ("random:0-99999999999", "at most 10,000,000 deals"),
    ("pysol:5-3", "empty range"),
    ("pysol:0-3", ">= 1"),
    ("random:-5-3", "whole number"),
    ("random:1-5:other", "unknown random variant"),
    ("random:1-5:ranks=500", "2 to 100 ranks"),
    ("pysol:1-²", "whole number"),
])
def test_bad_ranges_fail_before_anything_is_listed(spec: str, words: str) -> None:
    with pytest.raises(InputError, match=words) as caught:
        expand_specs(spec)
    _one_line(caught.value)


@pytest.mark.parametrize("text,words", [
    ('{"fans": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"fans": ' + "[" * 500 + "]" * 500 + "}", "cards are strings"),
    ('{"fans": [["AS"], 5]}', "each of \"fans\" is a list"),
    ('{"fans": [["2S"]], "foundation": {"a": 1}}', "cards are strings"),
    ('{"fans": [["2S", 7]]}', "cards are strings"),
    ('{"fans": [], "ranks": 1e999}', '"ranks" must be'),
    ('{"fans": [], "ranks": ' + "9" * 5000 + "}", "number too long"),
    ('{"fans": [], "ranks": ' + "9" * 4000 + "}", '"ranks" must be'),
    ('{"fans": [], "ranks": true}', '"ranks" must be'),
    ('{"fans": {"a": 1}}', 'a "fans" list'),
    ("[1, 2]", 'a "fans" list'),
    ('"AS"', "a JSON string is no deal"),  # names what it is, not its first card
    ('{"fans": [["\\ud800S"]]}', "unknown"),
    ('{"fans": [' + ", ".join(["[]"] * 21) + '], "ranks": 5}', "keeps all 7 fans"),
])
def test_json_of_any_shape_is_a_one_line_error(text: str, words: str) -> None:
    from blackhole.model.formats import parse_deal_text

    with pytest.raises(InputError, match=words) as caught:
        parse_deal_text(text, "d.json")
    assert len(_one_line(caught.value)) < 160


@pytest.mark.parametrize("token", ["²S", "١S", "9" * 5000 + "S", "\ud800S", "AS\x00", "1000000H"])
def test_odd_card_tokens_are_unknown_cards(token: str) -> None:
    with pytest.raises(ValueError, match="unknown"):
        parse_card(token)


# ------------------------------------------------------------ fuzzing every reader

_SPEC_TEXT = st.text(alphabet="0123456789-:,anyrksl=²١ \t" + "pysolrandom", max_size=40)


@given(st.sampled_from(["pysol:", "random:", ""]), _SPEC_TEXT)
def test_any_generated_spec_parses_or_fails_with_one_line(prefix: str, rest: str) -> None:
    from blackhole.model.sources import generated_spec

    spec = prefix + rest
    for parse in (generated_spec, lambda s: expand_specs(s)[:3]):
        try:
            parse(spec)
        except InputError as error:
            _one_line(error)


@given(st.sampled_from(["random:"]), st.integers(0, 10**6),
       st.sampled_from(["", ":any", ":ranks=2", ":any:ranks=5", ":ranks=7:any", ":ranks=x"]))
def test_random_specs_deal_or_fail_with_one_line(prefix: str, seed: int, variant: str) -> None:
    try:
        deal = load_deal(f"{prefix}{seed}{variant}")
    except InputError as error:
        _one_line(error)
        assert "x" in variant
    else:
        assert deal.cards_in_fans + 1 == 4 * deal.ranks


@given(st.text(max_size=60))
def test_any_card_token_parses_or_raises_value_error(token: str) -> None:
    try:
        card = parse_card(token)
    except ValueError as error:
        assert "\n" not in str(error)
    else:
        assert parse_card(str(card)) == card


@given(st.one_of(
    st.text(max_size=200),
    st.text(alphabet='{}[]",:0123456789 \nAKSHfanscrdoutiml-.e', max_size=200),
    st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(
        max_size=4)), lambda inner: st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["fans", "foundation", "ranks", "x"]), inner,
                          max_size=3), max_leaves=20).map(json.dumps)))
def test_any_deal_text_parses_or_fails_with_one_line(text: str) -> None:
    from blackhole.model.formats import parse_deal_text

    try:
        parse_deal_text(text, "fuzz")
    except InputError as error:
        assert _one_line(error).startswith("fuzz")


# ---------------------------------------------------------------- generalised decks on a board


_RANKS = st.integers(2, 100)
_SEEDS = st.integers(0, 10**9)


@settings(max_examples=60, deadline=None)
@given(_SEEDS, _RANKS, st.booleans())
def test_generalised_boards_round_trip_with_json_and_the_spec(seed: int, ranks: int,
                                                              any_card: bool) -> None:
    spec = f"random:{seed}{':any' if any_card else ''}:ranks={ranks}"
    deal = load_deal(spec)
    board = board_text(deal)
    assert (board.splitlines()[0] == f"Ranks: {ranks}") == (ranks != 13)
    assert parse_board(board) == deal and parse_board(board).ranks == ranks
    from_json = parse_json(json.dumps(deal_json(deal)))
    assert from_json == deal and board_text(from_json) == board


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_only_the_dealt_layouts_are_read_and_they_round_trip(seed: int) -> None:
    """A board with a Ranks line reads what the JSON reads; a layout no source deals
    (fans of other sizes, or an empty hole beside a deck of other than 13 ranks) is
    refused by both, as no play reaches it."""
    deal = small_deal(seed, ranks=(2, 4, 9, 14, 20), fan_sizes=(1, 2, 4, 5), start=0.5)
    for read, text in ((parse_board, saved_board(deal)),
                       (parse_json, json.dumps(deal_json(deal)))):
        with pytest.raises(InputError, match="expected|All in a Row"):
            read(text)
    dealt = load_deal(f"random:{seed}:ranks={2 + seed % 30}")
    assert parse_board(board_text(dealt)) == dealt
    assert parse_json(json.dumps(deal_json(dealt))) == dealt


@given(st.integers(1, 5000))
def test_a_thirteen_rank_board_has_no_ranks_line_and_reads_one(number: int) -> None:
    deal = random_deal(number)
    board = board_text(deal)
    assert board == board_text(load_deal(f"random:{number}:ranks=13"))
    assert not board.lower().startswith("ranks") and board.startswith("Foundations: AS\n")
    assert parse_board("Ranks: 13\n" + board) == deal
    assert parse_board(board.replace("\n", "\n# a comment\nRanks: 13 # the standard\n", 1)) \
        == deal


def test_the_examples_are_written_back_byte_for_byte() -> None:
    for name in ("pysol-1", "pysol-2", "pysol-3", "pysol-25", "pysol-837"):
        text = (EXAMPLES / f"{name}.board").read_text()
        assert board_text(parse_board(text)) == text
        assert board_text(load_deal(name.replace("-", ":"))) == text


def test_cards_beyond_the_king_are_named_by_number_in_every_format() -> None:
    deal = load_deal("random:3:ranks=16")
    names = {str(card) for fan in deal.fans for card in fan}
    assert {"TC", "KC", "14C", "15D", "16S"} <= names
    assert {name for fan in deal_json(deal)["fans"] for name in fan} == names
    assert parse_card("14S") == Card(14, "S") and str(Card(16, "H")) == "16H"


def test_a_board_holds_two_to_a_hundred_ranks() -> None:
    for ranks in (1, 101, 1000):
        deal = Deal(((Card(1, "H"),),), Card(1, "S"), ranks, name="big.json")
        with pytest.raises(InputError, match="2 to 100 ranks per suit .use --format json"):
            board_text(deal)


def _sixteen() -> str:
    return board_text(load_deal("random:3:ranks=16"))


def _aiar_as(ranks: str) -> str:
    return f"Ranks: {ranks}\nGame: all-in-a-row\n" + board_text(load_deal("pysol:1:all-in-a-row"))


@pytest.mark.parametrize("text,line,token,words", [
    (_sixteen().replace("Ranks: 16", "Ranks: 0"), 1, "0", "from 2 to 100"),
    (_sixteen().replace("Ranks: 16", "Ranks: x"), 1, "x", "from 2 to 100"),
    (_sixteen().replace("Ranks: 16", "Ranks: 101"), 1, "101", "from 2 to 100"),
    (_sixteen().replace("Ranks: 16", "Ranks: ١٦"), 1, "١٦", "from 2 to 100"),
    (_sixteen().replace("Ranks: 16", "Ranks:"), 1, "Ranks:", "from 2 to 100"),
    (_sixteen().replace("Ranks: 16", "Ranks: 16 16"), 1, "16", "one number"),
    (_sixteen().replace("Ranks: 16", "Ranks: 15"), 7, "16D", "not in a 15-rank deck"),
    (_sixteen().replace("Foundations", "Ranks: 16\nFoundations"), 2, "Ranks: 16",
     "a second Ranks line"),
    (_sixteen() + "ranks: 16\n", 24, "ranks: 16", "a second Ranks line"),
    ("Foundations: AS\n2S 3S\nRanks: 4\n", 3, "Ranks: 4", "must come before the fans"),
    ("Foundations: AS\nFoundations: -\n2S\n", 2, "Foundations: -", "a second Foundations"),
    ("\n".join(_sixteen().splitlines()[1:]), 2, "14D", "'Ranks: R' line"),
    (_aiar_as("16"), 1, "Ranks: 16", "All in a Row is dealt with 13 ranks only"),
    (_aiar_as("12"), 1, "Ranks: 12", "All in a Row is dealt with 13 ranks only"),
])
def test_malformed_ranks_name_line_and_token(text, line, token, words) -> None:
    with pytest.raises(InputError) as caught:
        parse_board(text, "bad.board")
    error = caught.value
    assert error.source == "bad.board" and words in str(error) and "\n" not in str(error)
    if line is not None:
        assert error.line == line
    if token is not None:
        assert token in error.token


@pytest.mark.parametrize("first,message", [
    ("Ranks: 0", "bad.board:1: Ranks takes a whole number from 2 to 100 (ranks per suit): '0'"),
    ("Ranks: x", "bad.board:1: Ranks takes a whole number from 2 to 100 (ranks per suit): 'x'"),
    ("Ranks: 101",
     "bad.board:1: Ranks takes a whole number from 2 to 100 (ranks per suit): '101'"),
    ("Ranks: 15", "bad.board:7: card not in a 15-rank deck: '16D'"),
    ("Ranks: 16\nRanks: 16", "bad.board:2: a second Ranks line: 'Ranks: 16'"),
    ("", "bad.board:3: card not in a 13-rank deck (a larger deck names its ranks in a "
         "'Ranks: R' line first): '14D'"),
])
def test_malformed_ranks_are_one_line_errors_of_the_command(tmp_path, first: str,
                                                            message: str) -> None:
    lines = _sixteen().splitlines()
    lines[0] = first  # "Ranks: 16"; line 3 is "14D 2C 6C", line 7 "8C 16D KD"
    (tmp_path / "bad.board").write_text("\n".join(lines) + "\n")
    for command in ("deal", "solve"):
        done = blackhole(command, "bad.board", cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr == f"error: {message}\n"


def test_a_deck_outside_the_dealt_ranks_is_one_line_of_the_command(tmp_path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"foundation": "AS", "fans": [["101H"]], "ranks": 101}))
    done = blackhole("deal", str(path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: {path}:1: \"ranks\" must be a whole number from 2 to 100 " \
                          "(ranks per suit): '101'\n"


def test_a_board_refuses_a_deck_it_cannot_hold() -> None:
    """A Deal made in Python may hold more ranks than any file reads: its board is
    refused, not written unreadable."""
    deal = Deal(((Card(101, "H"),),), Card(1, "S"), 101)
    with pytest.raises(InputError, match="a board holds 2 to 100 ranks per suit"):
        board_text(deal)


@pytest.mark.parametrize("spec,code", [("random:8:ranks=4", 1), ("random:1:ranks=4", 0)])
def test_a_generalised_deal_is_certified_and_verified(tmp_path, spec: str, code: int) -> None:
    """random:8:ranks=4 has no solution (a DRUP proof), random:1:ranks=4 has one."""
    made = blackhole("certify", spec, "--out", "cert", cwd=tmp_path)
    assert made.returncode == code, made.stderr
    board = (tmp_path / "cert" / "deal.board").read_text()
    assert board.startswith("Ranks: 4\nFoundations: AS\n") and parse_board(board) == \
        load_deal(spec)
    checked = blackhole("verify", "cert", cwd=tmp_path)
    assert checked.returncode == 0 and "VERIFIED" in checked.stdout, checked.stderr
    assert "dealt again, equal to deal.board" in checked.stdout
    (tmp_path / "cert" / "deal.board").write_text(board.replace("Ranks: 4", "Ranks: 5"))
    assert blackhole("verify", "cert", cwd=tmp_path).returncode == 1
