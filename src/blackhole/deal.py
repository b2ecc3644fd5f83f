"""Deals: the layout, every input and output format, and the deal sources.

A deal spec is the one string every command takes:

- a path to a board file (black-hole-solve's format; a generalised deck adds a `Ranks: R`
  line) or a JSON file,
- `-` for standard input,
- `pysol:N`, PySolFC's Black Hole game number N (dealt by pysol-cards, as PySolFC deals it),
- `pysol:N:all-in-a-row`, PySolFC's All in a Row game N (13 fans of 4, empty foundation),
- `random:SEED`, a reproducible shuffle (see `random_deal`),
- `random:SEED:any`, the variant where the last dealt card becomes the black hole,
- `random:SEED:ranks=R` and `random:SEED:any:ranks=R`, a generalised deck of R ranks in
  each of the four suits, dealt the same way (the last fan holds what is left).

Ranges such as `pysol:1-1000` and `random:1-20:ranks=16`, and folders of deal files, are
expanded by `expand_specs`.

A file may hold a *position* (a deal part played) as well as a fresh deal, and
`load_position(spec, after)` plays moves on top of either; see `Deal` and `Position`.
Files are read through `read_input`: at most MAX_FILE_BYTES, named pipes included.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from blackhole.cards import STANDARD_RANKS, SUITS, Card, deck, parse_card, rank_adjacent
from blackhole.errors import InputError, shorten

if TYPE_CHECKING:
    from blackhole.rules import Move

FOUNDATION_SPADE_ACE = Card(1, "S")
BLACK_HOLE_LAYOUT = (17, 3)  # fans, cards per fan, with the A♠ in the hole
ALL_IN_A_ROW_LAYOUT = (13, 4)  # with an empty foundation
MAX_RANKS = 1000  # generalised decks for scaling studies stay far below this
PYSOL_LAST_GAME = 2**64 - 1  # PySolFC's largest game number (its 64-bit seed)
MAX_RANGE = 10_000_000  # deals in one range spec: more is a typo, not a benchmark
MAX_FILE_BYTES = 1_000_000  # deal, solution and spec-list files: a 1000-rank deck needs 40 kB
EMPTY_FAN = "-"  # how a board writes an empty fan, keeping its place
_PATH_SHOWN = 200  # characters of a path quoted in a message (one line, never 4 KB)
RANDOM_LAST_SEED = 10**20  # random:SEED takes 0 to 10^20, as the README says


@dataclass(frozen=True)
class Deal:
    """A layout: the foundation card (None for an empty foundation) and fans bottom → top.

    It may also hold a *position*, a deal part played: fans may be shorter or empty,
    `foundation` is the hole's top card, and cards of the deck that lie nowhere are
    already in the hole. Each card lies at most once, the hole's card on no fan; only an
    unplayed All in a Row has an empty foundation, so then every card is on the fans.
    """

    fans: tuple[tuple[Card, ...], ...]
    foundation: Card | None = FOUNDATION_SPADE_ACE
    ranks: int = STANDARD_RANKS
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if len(self.fans) > self.deck_size:  # every fan starts with a card
            raise InputError(f"more fans than the {self.deck_size} cards of the deck",
                             self.name or "deal", token=f"{len(self.fans)} fans")
        entries = [(card, None, str(card)) for fan in self.fans for card in fan]
        if self.foundation is not None:
            entries.insert(0, (self.foundation, None, str(self.foundation)))
        check_deck(entries, self.ranks, self.name or "deal", self.foundation)

    @property
    def cards_in_fans(self) -> int:
        return sum(len(fan) for fan in self.fans)

    @property
    def deck_size(self) -> int:
        return len(SUITS) * self.ranks

    def where(self) -> dict[Card, tuple[int, int]]:
        """Each fan card's (fan index, height index from the bottom)."""
        return {card: (f, h) for f, fan in enumerate(self.fans) for h, card in enumerate(fan)}


Entry = tuple[Card, int | None, str]  # card, line number, the token as written


def check_deck(entries: list[Entry], ranks: int, source: str, hole: Card | None) -> None:
    """Each card of the deck at most once, the hole's card (the first entry when `hole` is
    set) on no fan, and every card present when the foundation is empty; the first
    offence is reported with its line."""
    if ranks < 1:
        raise InputError("a deck needs at least one rank", source, token=str(ranks))
    seen: set[Card] = set()
    for card, line, token in entries:
        if not 1 <= card.rank <= ranks or card.suit not in SUITS:
            raise InputError(f"card not in a {ranks}-rank deck", source, line, token)
        if card in seen:
            reason = "the hole's card cannot also lie on a fan" if card == hole \
                else "duplicate card"
            raise InputError(reason, source, line, token)
        seen.add(card)
    if hole is None and len(seen) < len(SUITS) * ranks:
        missing = sorted(set(deck(ranks)) - seen, key=lambda c: (c.suit, c.rank))
        last_line = max((line for _, line, _ in entries if line is not None), default=None)
        names = " ".join(str(c) for c in missing[:6]) + (" ..." if len(missing) > 6 else "")
        raise InputError(f"{len(missing)} card(s) missing (with an empty foundation nothing "
                         "has been played, so every card lies on a fan)", source, last_line,
                         names)


# ---------------------------------------------------------------- board text


def parse_board(text: str, source: str = "<board>") -> Deal:
    """black-hole-solve's board format: `Foundations: AS`, then one fan per line, bottom → top.

    `Foundations: -` (or no Foundations line) means an empty foundation, as in All in a Row.
    A position writes an empty fan as a line `-` (or `: -`), so every fan keeps its place.
    A generalised deck names its ranks per suit in a `Ranks: R` line (R in RANDOM_RANKS)
    before the fans; without one the deck has 13 ranks, as every black-hole-solve board does.
    Such a deck is checked as its JSON is: each card of the deck at most once, every card
    on the fans when the foundation is empty, and any layout.
    """
    text = text.lstrip("\ufeff")
    foundation: Card | None = None
    ranks: int | None = None
    headers: set[str] = set()
    fans: list[tuple[Card, ...]] = []
    entries: list[Entry] = []
    fan_lines: list[int] = []
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()  # no card holds a '#': the rest is a comment
        if not line:
            continue
        last_line = number
        header, colon, value = line.partition(":")
        if colon and header.strip().lower() in BOARD_HEADERS:
            name = BOARD_HEADERS[header.strip().lower()]
            if name in headers or fans:
                reason = f"a second {name} line" if name in headers else \
                    f"the {name} line must come before the fans"
                raise InputError(reason, source, number, line)
            headers.add(name)
            tokens = value.split()
            if name == "Ranks":
                ranks = _board_ranks(tokens, source, number, line)
                continue
            if len(tokens) > 1:
                raise InputError("Black Hole has one foundation", source, number, tokens[1])
            if tokens and tokens[0] != "-":
                foundation = read_card(tokens[0], source, number)
                entries.append((foundation, number, tokens[0]))
            continue
        tokens = line.lstrip(":").split()
        if tokens == [EMPTY_FAN]:
            tokens = []
        fan = tuple(read_card(token, source, number) for token in tokens)
        entries.extend((card, number, token) for card, token in zip(fan, tokens, strict=True))
        fans.append(fan)
        fan_lines.append(number)
    if not fans:
        raise InputError("no fans found (empty deal file)", source, last_line or None)
    if ranks is None:
        beyond = next((entry for entry in entries if entry[0].rank > STANDARD_RANKS), None)
        if beyond is not None:
            raise InputError(f"card not in a {STANDARD_RANKS}-rank deck (a larger deck names "
                             "its ranks in a 'Ranks: R' line first)", source, *beyond[1:])
        ranks = STANDARD_RANKS
    check_deck(entries, ranks, source, foundation)
    if ranks == STANDARD_RANKS:
        _check_layout(fans, fan_lines, entries, foundation, source, last_line)
    return Deal(tuple(fans), foundation, ranks, name=source)


BOARD_HEADERS = {"foundations": "Foundations", "ranks": "Ranks"}  # lines before the fans


def _board_ranks(tokens: list[str], source: str, number: int, line: str) -> int:
    """The value of a `Ranks:` line: one count of ranks per suit, as `ranks=R` takes."""
    if len(tokens) > 1:
        raise InputError("Ranks takes one number", source, number, tokens[1])
    value = tokens[0] if tokens else line
    ranks = deck_ranks(value)
    if ranks is None:
        low, high = RANDOM_RANKS
        raise InputError(f"Ranks takes a whole number from {low} to {high} (ranks per suit)",
                         source, number, value)
    return ranks


def read_card(token: str, source: str, line: int | None) -> Card:
    """A card token of a file; InputError naming the source, line and token."""
    try:
        return parse_card(token)
    except ValueError as error:
        raise InputError(str(error), source, line, token) from None


def _check_layout(fans: list[tuple[Card, ...]], fan_lines: list[int], entries: list[Entry],
                  foundation: Card | None, source: str, last_line: int,
                  empty: str = f"'{EMPTY_FAN}'") -> None:
    """A standard deck lies as Black Hole (17 fans of 3 around a card in the hole) or All
    in a Row (13 fans of 4, an empty hole) when nothing is played; a position keeps every
    fan in its place, each at most that size (`empty` says how the format writes an
    empty fan). Runs after the deck check, so the entries hold each card once."""
    fresh = foundation is None or (len(entries) == len(SUITS) * STANDARD_RANKS
                                   and len(fans) != ALL_IN_A_ROW_LAYOUT[0])
    count, size = ALL_IN_A_ROW_LAYOUT if foundation is None or len(fans) == \
        ALL_IN_A_ROW_LAYOUT[0] else BLACK_HOLE_LAYOUT
    if len(fans) != count:
        message = f"expected {count} fans of {size}, found {len(fans)} fans" if fresh else \
            f"a position keeps all {count} fans (write an empty fan as {empty}), " \
            f"found {len(fans)}"
        raise InputError(message, source, last_line, _fan_text(fans[-1]))
    for fan, line in zip(fans, fan_lines, strict=True):
        if len(fan) > size or (fresh and len(fan) != size):
            message = f"expected {size} cards in this fan" if fresh else \
                f"a fan of this layout holds at most {size} cards"
            raise InputError(f"{message}, found {len(fan)}", source, line, _fan_text(fan))


def _fan_text(fan: tuple[Card, ...]) -> str:
    return " ".join(map(str, fan)) if fan else EMPTY_FAN


def board_text(deal: Deal) -> str:
    """The board of a deal or position; a deck of other than 13 ranks starts with its
    `Ranks: R` line, so a 13-rank board is black-hole-solve's, byte for byte."""
    header = []
    if deal.ranks != STANDARD_RANKS:
        low, high = RANDOM_RANKS
        if not low <= deal.ranks <= high:  # it would not read back
            raise InputError(f"a board holds {low} to {high} ranks per suit (use --format "
                             "json)", deal.name or "deal", token=f"ranks {deal.ranks}")
        header = [f"Ranks: {deal.ranks}"]
    foundation = str(deal.foundation) if deal.foundation is not None else "-"
    lines = [*header, f"Foundations: {foundation}"] + [_fan_text(fan) for fan in deal.fans]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- JSON


def parse_json(text: str, source: str = "<json>") -> Deal:
    """`{"foundation": "AS" | null, "fans": [["JD", "KS", "TH"], ...], "ranks": 13}`.

    Fans run bottom → top. `ranks` is optional (13) and allows generalised decks. A
    position may leave fans short or empty (`[]`) and may add `"history"`, the cards
    moved so far in order (see `parse_json_position`).
    """
    return parse_json_position(text, source).deal


def parse_json_position(text: str, source: str = "<json>") -> Position:
    """A JSON deal or position; `"history"`, when given, must hold exactly the cards
    moved (in the hole and not its starting card), the last of them on the hole."""
    data = load_json(text, source)
    if not isinstance(data, dict) or not isinstance(data.get("fans"), list):
        raise InputError("JSON deal needs an object with a \"fans\" list", source, 1, "fans")
    ranks = data.get("ranks", STANDARD_RANKS)
    if not isinstance(ranks, int) or isinstance(ranks, bool) or not 1 <= ranks <= MAX_RANKS:
        raise InputError(f"\"ranks\" must be a whole number from 1 to {MAX_RANKS}", source,
                         None, json_shown(ranks))
    lines = json_token_lines(text)

    def card_of(token: object) -> Entry:
        if not isinstance(token, str):
            raise InputError("cards are strings such as \"KH\"", source, None,
                             json_shown(token))
        line = lines.get(token)
        return read_card(token, source, line), line, token

    raw_foundation = data.get("foundation", "AS")
    entries = [] if raw_foundation in (None, "-", "") else [card_of(raw_foundation)]
    foundation = entries[0][0] if entries else None
    fans, fan_lines = [], []
    for fan in data["fans"]:
        if not isinstance(fan, list):
            raise InputError("each fan is a list of cards", source, None, json_shown(fan))
        cards = [card_of(token) for token in fan]
        entries.extend(cards)
        fans.append(tuple(card for card, _, _ in cards))
        fan_lines.append(cards[-1][1] or 0 if cards else 0)
    if not fans:
        raise InputError("no fans found", source, 1, "fans")
    check_deck(entries, ranks, source, foundation)
    if ranks == STANDARD_RANKS:
        _check_layout(fans, fan_lines, entries, foundation, source, text.count("\n") + 1,
                      empty="[]")
    deal = Deal(tuple(fans), foundation, ranks, name=source)
    raw_history = data.get("history", [])
    if not isinstance(raw_history, list):
        raise InputError("\"history\" is a list of cards", source, None,
                         json_shown(raw_history))
    return position_of(deal, [card_of(token) for token in raw_history], source)


def load_json(text: str, source: str) -> object:
    """Any JSON value; bad syntax, nesting too deep to read and numbers too long for Python
    are one-line InputErrors."""
    try:
        return json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as error:
        bad = error.doc[error.pos:error.pos + 12] or "end of file"
        raise InputError(f"invalid JSON ({error.msg})", source, error.lineno, bad) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source) from None
    except ValueError:  # an integer of more than 4300 digits
        raise InputError("JSON number too long", source) from None


def json_shown(value: object) -> str:
    """A JSON value as a message quotes it, without walking (or printing) a huge one."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[...]" if value else "[]"
    if isinstance(value, dict):
        return "{...}" if value else "{}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a very large number"
    return json.dumps(value)


def json_token_lines(text: str) -> dict[str, int]:
    """The line on which each quoted token first appears, for error messages."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for piece in line.split('"')[1::2]:
            found.setdefault(piece, number)
    return found


def deal_json(deal: Deal) -> dict:
    return {
        "foundation": str(deal.foundation) if deal.foundation is not None else None,
        "fans": [[str(card) for card in fan] for fan in deal.fans],
        "ranks": deal.ranks,
    }


def position_json(position: Position) -> dict:
    """The deal's JSON, plus `"history"` when the position knows its moves."""
    data = deal_json(position.deal)
    if position.moved and len(position.history) == position.moved:
        data["history"] = [str(card) for card in position.history]
    return data


# ---------------------------------------------------------------- positions


@dataclass(frozen=True)
class Position:
    """A deal part played. `deal` is the layout now; `moved` counts the cards moved onto
    the hole since the start and `of` the cards the whole deal moves (51 for a standard
    deal), so a line from here scores `moved` + the cards it plays. `history` holds the
    cards moved, in order, when they are known (all `moved` of them), else it is empty.
    `after` holds the moves (card, 0-based fan) that `--after` played on the position a
    spec holds to reach this one: an answer from here replays from the spec after them.
    It says how the position was reached, not what it is, so equality ignores it."""

    deal: Deal
    moved: int
    of: int
    history: tuple[Card, ...] = ()
    after: tuple[tuple[Card, int], ...] = field(default=(), compare=False)

    @property
    def progress(self) -> str:
        return f"{self.moved} of {self.of} moved"


def cards_to_move(deal: Deal) -> int:
    """The cards the whole deal moves: the deck less the hole's starting card. Only All
    in a Row starts with an empty hole; a standard deck on its 13 fans is All in a Row
    even after its first move has filled the hole."""
    all_in_a_row = deal.foundation is None or (
        deal.ranks == STANDARD_RANKS and len(deal.fans) == ALL_IN_A_ROW_LAYOUT[0])
    return deal.deck_size - (0 if all_in_a_row else 1)


def position_of(deal: Deal, history: list[Entry] | None = None,
                source: str = "") -> Position:
    """The position a layout shows: the cards on no fan and not on the hole were moved.
    A fresh deal is `Position(deal, 0, deal.cards_in_fans, ())`. `history` (card, line,
    token), when given, must name exactly the moved cards, the last on the hole."""
    of = cards_to_move(deal)
    moved = of - deal.cards_in_fans
    if not history:
        return Position(deal, moved, of, ())
    source = source or deal.name or "deal"
    if len(history) != moved:
        raise InputError(f"\"history\" holds {len(history)} moves but the layout shows "
                         f"{moved} cards moved", source, history[-1][1], "history")
    on_fans = set(deal.where())
    seen: set[Card] = set()
    for card, line, token in history:
        if not 1 <= card.rank <= deal.ranks:
            raise InputError(f"card not in a {deal.ranks}-rank deck", source, line, token)
        if card in on_fans or card in seen:
            where = "lies on a fan" if card in on_fans else "is moved twice"
            raise InputError(f"a card of \"history\" {where}", source, line, token)
        seen.add(card)
    last, line, token = history[-1]
    if last != deal.foundation:
        raise InputError("the last card of \"history\" must be the hole's card", source, line,
                         token)
    _check_history_plays(deal, history, seen | on_fans, source)
    return Position(deal, moved, of, tuple(card for card, _, _ in history))


def _check_history_plays(deal: Deal, history: list[Entry], placed: set[Card],
                         source: str) -> None:
    """The cards of "history", in order, form a legal line from the hole's starting card:
    each is rank-adjacent to the one before it (the first to the starting card, which is
    the one card of the deck on no fan and not in the history; All in a Row starts with
    an empty hole, so its first card is free).

    Nothing else can be illegal: the history's cards came off the tops of the fans, and
    putting them back in reverse order, each onto a fan with room, rebuilds a deal from
    which the history is a legal line (a card played later lay lower in its fan)."""
    start = next((card for card in deck(deal.ranks) if card not in placed), None)
    hole = start
    for number, (card, line, token) in enumerate(history, start=1):
        if hole is not None and not rank_adjacent(card.rank, hole.rank, deal.ranks):
            raise InputError(f"\"history\" move {number} is illegal: {card} is not "
                             f"rank-adjacent to {hole}", source, line, token)
        hole = card


# ---------------------------------------------------------------- sources


PYSOL_GAMES = {"": "black_hole", "all-in-a-row": "all_in_a_row"}


def pysol_deal(number: int, variant: str = "") -> Deal:
    """PySolFC's Black Hole game `number` (or All in a Row's), dealt as PySolFC deals it."""
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    game = Game(PYSOL_GAMES[variant], number, RandomBase.DEALS_PYSOL)
    text = game.calc_layout_string(CardRenderer(print_ts=True))
    suffix = f":{variant}" if variant else ""
    return parse_board(text, source=f"pysol:{number}{suffix}")


def random_deal(seed: int, any_card_hole: bool = False, ranks: int = STANDARD_RANKS) -> Deal:
    """A reproducible shuffle: `random.Random(seed).shuffle` of the deck in `deck(ranks)`
    order (clubs, diamonds, hearts, spades; ace up to the top rank in each suit).

    Standard game: the A♠ is taken out first, the other 4R-1 cards are shuffled and dealt
    in order, three to a fan (cards 0-2 to fan 0 bottom → top, and so on); the last fan
    holds what is left (with R=13, 17 fans of exactly 3).
    Variant `any`: all 4R are shuffled, the first 4R-1 are dealt the same way and the last
    card becomes the black hole.
    """
    cards = deck(ranks)
    if not any_card_hole:
        cards.remove(FOUNDATION_SPADE_ACE)
    random.Random(seed).shuffle(cards)
    hole = cards.pop() if any_card_hole else FOUNDATION_SPADE_ACE
    size = BLACK_HOLE_LAYOUT[1]
    fans = tuple(tuple(cards[i:i + size]) for i in range(0, len(cards), size))
    variant = (["any"] if any_card_hole else []) + \
        ([f"ranks={ranks}"] if ranks != STANDARD_RANKS else [])
    return Deal(fans, hole, ranks, name=":".join([f"random:{seed}", *variant]))


def generated_spec(spec: str) -> tuple[str, int, str] | None:
    """(`pysol` or `random`, number, variant) for a dealt spec, None for any other spec;
    a malformed pysol:/random: spec is an InputError. Nothing is dealt here. The variant
    is canonical: `""`, `all-in-a-row`; `""`, `any`, `ranks=R`, `any:ranks=R`."""
    kind, _, rest = spec.partition(":")
    if kind not in ("pysol", "random"):
        return None
    number, _, variant = rest.partition(":")
    return _generated(spec, kind, number, variant)


def _generated(spec: str, kind: str, number: str, variant: str) -> tuple[str, int, str]:
    """Check one generated spec's parts; `spec` names it in errors."""
    spec = shorten(spec)
    if kind == "pysol":
        if variant not in PYSOL_GAMES:
            raise InputError("unknown PySolFC game (use pysol:N or pysol:N:all-in-a-row)",
                             spec, None, variant)
        return "pysol", _number(spec, number, minimum=1, maximum=PYSOL_LAST_GAME), variant
    any_card, ranks = _random_variant(spec, variant)
    canonical = ["any"] if any_card else []
    if ranks != STANDARD_RANKS:
        canonical.append(f"ranks={ranks}")
    return "random", _number(spec, number, minimum=0, maximum=RANDOM_LAST_SEED), \
        ":".join(canonical)


RANDOM_RANKS = (2, 100)  # ranks=R: one rank never moves; 400 cards is far past any study


def _random_variant(spec: str, variant: str) -> tuple[bool, int]:
    """`any` and `ranks=R`, each at most once, in either order → (any card hole, ranks)."""
    any_card, ranks, seen = False, STANDARD_RANKS, set()
    for part in variant.split(":") if variant else []:
        key = "ranks" if part.startswith("ranks=") else part
        if key not in ("any", "ranks") or key in seen:
            raise InputError("unknown random variant (use random:SEED[:any][:ranks=R])",
                             spec, None, part)
        seen.add(key)
        if key == "any":
            any_card = True
            continue
        found = deck_ranks(part[len("ranks="):])
        if found is None:
            low, high = RANDOM_RANKS
            raise InputError(f"ranks=R takes {low} to {high} ranks per suit (4R cards)", spec,
                             None, part)
        ranks = found
    return any_card, ranks


def deck_ranks(text: str) -> int | None:
    """The ranks per suit `text` names, as `ranks=R` and a board's `Ranks: R` take them:
    ASCII digits, within RANDOM_RANKS; None for anything else."""
    low, high = RANDOM_RANKS
    if text.isascii() and text.isdigit() and len(text) <= len(str(high)) \
            and low <= int(text) <= high:
        return int(text)
    return None


def load_deal(spec: str) -> Deal:
    """Turn one deal spec into a Deal (the layout of a position file as it lies); every
    user error is an InputError."""
    return _load(spec).deal


def load_position(spec: str, after: str | None = None) -> Position:
    """The position `spec` holds, then `after` played through the rules engine.

    `after` is cards separated by spaces or commas (`#` starts a comment), or `@FILE`
    holding moves in any format `check` reads (`@-`: stdin). An illegal move is an
    InputError naming the move and why; its source is `after` (the option's field) or
    the file."""
    stdin_once(("the deal", spec == "-"), ("--after", after == "@-"))
    position = _load(spec)
    if after is None:
        return position
    moves, source = read_moves(after, "after")
    return play_after(position, moves, source)


def stdin_once(*uses: tuple[str, bool]) -> None:
    """Standard input can be read once: an InputError when more than one of the named
    inputs (name, read from stdin) would read it."""
    named = [name for name, used in uses if used]
    if len(named) > 1:
        raise InputError(f"standard input can feed only one input, but {' and '.join(named)} "
                         "both read it: save one to a file", "<stdin>", token="-")


def play_after(position: Position, moves: list[Move], source: str) -> Position:
    """The position after `moves` (replayed by the rules engine; an illegal move is an
    InputError naming `source`), which records them in its `after`."""
    from blackhole.rules import advance, replay

    later = advance(position, moves, source)
    where = position.deal.where()
    played = tuple((card, where[card][0]) for card in replay(position.deal, moves).order)
    return replace(later, after=position.after + played)


def moves_json(moves: Iterable[tuple[Card, int]]) -> list[dict[str, object]]:
    """Moves as every JSON answer writes them: `[{"card": "KH", "fan": 12}, ...]`."""
    return [{"card": str(card), "fan": fan} for card, fan in moves]


def read_moves(text: str, option: str) -> tuple[list[Move], str]:
    """The moves an option such as `--after` names, and the source their errors name.

    `text` is cards separated by spaces or commas (`#` starts a comment), whose source is
    `option`, or `@FILE` holding moves in any format `check` reads (`@-`: stdin), whose
    source is the file. A bad card is an InputError naming the source and the token (and
    the line, in a file: one option value has no lines worth naming)."""
    from blackhole.solutions import parse_cards, parse_solution

    if text.startswith("@"):
        source = source_name(text[1:])
        return parse_solution(read_input(text[1:], "moves"), source), source
    try:
        return parse_cards(text, option), option
    except InputError as error:
        raise InputError(error.detail, option, None, error.token) from None


def _load(spec: str) -> Position:
    dealt = generated_spec(spec)
    if dealt is not None:
        kind, number, variant = dealt
        if kind == "pysol":
            return position_of(pysol_deal(number, variant))
        any_card, ranks = _random_variant(spec, variant)
        return position_of(random_deal(number, any_card, ranks))
    return parse_position_text(read_input(spec, "deal"), source_name(spec))


def source_name(path: str) -> str:
    """How messages name a file: `<stdin>` for `-`, else the path on one line, cut."""
    return "<stdin>" if path == "-" else shorten(path, _PATH_SHOWN)


def read_input(path: str, what: str) -> str:
    """The text of a file, a named pipe or process substitution (`<(...)`), or stdin for
    `-`, as UTF-8. At most MAX_FILE_BYTES are read: a larger input is refused before it is
    parsed. Every failure is a one-line InputError naming the path."""
    source = source_name(path)
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(MAX_FILE_BYTES + 1) if stream is not None \
                else sys.stdin.read(MAX_FILE_BYTES + 1).encode("utf-8", "surrogateescape")
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        hint = " (or spec: pysol:N, random:SEED, -)" if what == "deal" else ""
        raise InputError(f"no such {what} file{hint}", source) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a {what} file", source) from None
    except PermissionError:
        raise InputError(f"cannot read {what} file (permission denied)", source) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = getattr(error, "strerror", None) or error.__class__.__name__
        raise InputError(f"cannot read {what} file ({reason})", source) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{what} file larger than the {MAX_FILE_BYTES // 1_000_000} MB cap",
                         source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{what} file is not UTF-8 text", source, line) from None


def parse_deal_text(text: str, source: str) -> Deal:
    """JSON when the text starts with `{` or `[` (no board does), a board otherwise."""
    return parse_position_text(text, source).deal


def parse_position_text(text: str, source: str) -> Position:
    """A deal or position, as JSON or as a board (see `parse_deal_text`)."""
    if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        return parse_json_position(text, source)
    return position_of(parse_board(text, source))


def _number(spec: str, text: str, minimum: int, maximum: int) -> int:
    """A spec's number: ASCII digits only (`²` is no number), from `minimum` to
    `maximum`; its length is checked before Python converts it (5,000 digits would raise
    ValueError there)."""
    if text.startswith("-") and text[1:].isascii() and text[1:].isdigit():
        raise InputError(f"expected a whole number >= {minimum}, not a negative one", spec,
                         None, text)
    if not (text.isascii() and text.isdigit()):
        first, dash, last = text.partition("-")
        if dash and first.isdigit() and last.isdigit():
            raise InputError("a range names several deals; this takes one", spec, None, text)
        raise InputError(f"expected a whole number >= {minimum}", spec, None, text)
    if len(text.lstrip("0")) > len(str(maximum)) or int(text) > maximum:
        raise InputError(f"expected a whole number <= {maximum}", spec, None, text)
    if int(text) < minimum:
        raise InputError(f"expected a whole number >= {minimum}", spec, None, text)
    return int(text)


def expand_specs(specs: str | Iterable[str], _reading: tuple[Path, ...] = ()) -> list[str]:
    """`pysol:1-1000,random:5`, folders, `@list.txt` and single specs → single specs.

    `@FILE` reads more specs from FILE, one or more per line (`#` starts a comment).
    """
    items = specs.split(",") if isinstance(specs, str) else list(specs)
    out: list[str] = []
    for item in (s.strip() for s in items):
        if not item:
            continue
        if item.startswith("@"):
            path = Path(item[1:]).resolve()
            if path in _reading:
                raise InputError("a spec list that includes itself", item[1:], None, item)
            out.extend(expand_specs(_spec_list(item[1:]), (*_reading, path)))
            continue
        prefix, _, rest = item.partition(":")
        span, _, variant = rest.partition(":")
        if prefix in ("pysol", "random") and "-" in span.lstrip("-"):
            out.extend(_range(item, prefix, span, variant))
        elif Path(item).is_dir():
            out.extend(_folder(item))
        else:
            out.append(item)
    return out


def _range(item: str, kind: str, span: str, variant: str) -> list[str]:
    """`pysol:1-1000`, `random:1-20:any:ranks=16`: both ends and the variant are checked
    before anything is listed."""
    first, _, last = span.partition("-")
    _, lo, canonical = _generated(item, kind, first, variant)
    _, hi, _ = _generated(item, kind, last, variant)
    if hi < lo:
        raise InputError("empty range", item, None, span)
    if hi - lo >= MAX_RANGE:
        raise InputError(f"a range holds at most {MAX_RANGE:,} deals", item, None, span)
    suffix = f":{canonical}" if canonical else ""
    return [f"{kind}:{n}{suffix}" for n in range(lo, hi + 1)]


def _folder(path: str) -> list[str]:
    """The deal files of a folder (.board, .json, .txt), sorted."""
    try:
        return sorted(str(p) for p in Path(path).iterdir()
                      if p.suffix in (".board", ".json", ".txt") and p.is_file())
    except OSError as error:
        raise InputError(f"cannot list folder ({error.strerror})", path) from None


def _spec_list(path: str) -> list[str]:
    """The specs listed in a file: whitespace or commas between them, `#` comments."""
    text = read_input(path, "spec list")
    specs = []
    for line in text.splitlines():
        specs.extend(line.split("#", 1)[0].replace(",", " ").split())
    return specs
