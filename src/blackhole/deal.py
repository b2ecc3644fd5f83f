"""Deals: the layout, every input and output format, and the deal sources.

A deal spec is the one string every command takes:

- a path to a board file (black-hole-solve's format) or a JSON file,
- `-` for standard input,
- `pysol:N`, PySolFC's Black Hole game number N (dealt by pysol-cards, as PySolFC deals it),
- `pysol:N:all-in-a-row`, PySolFC's All in a Row game N (13 fans of 4, empty foundation),
- `random:SEED`, a reproducible shuffle (see `random_deal`),
- `random:SEED:any`, the variant where the last dealt card becomes the black hole.

Ranges such as `pysol:1-1000` and folders of deal files are expanded by `expand_specs`.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from blackhole.cards import STANDARD_RANKS, Card, deck, parse_card
from blackhole.errors import InputError

FOUNDATION_SPADE_ACE = Card(1, "S")
BLACK_HOLE_LAYOUT = (17, 3)  # fans, cards per fan, with the A♠ in the hole
ALL_IN_A_ROW_LAYOUT = (13, 4)  # with an empty foundation
MAX_RANKS = 1000  # generalised decks for scaling studies stay far below this
PYSOL_LAST_GAME = 2**64 - 1  # PySolFC's largest game number (its 64-bit seed)
MAX_RANGE = 10_000_000  # deals in one range spec: more is a typo, not a benchmark


@dataclass(frozen=True)
class Deal:
    """A layout: the foundation card (None for an empty foundation) and fans bottom → top."""

    fans: tuple[tuple[Card, ...], ...]
    foundation: Card | None = FOUNDATION_SPADE_ACE
    ranks: int = STANDARD_RANKS
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        entries = [(card, None, str(card)) for fan in self.fans for card in fan]
        if self.foundation is not None:
            entries.insert(0, (self.foundation, None, str(self.foundation)))
        check_deck(entries, self.ranks, self.name or "deal")

    @property
    def cards_in_fans(self) -> int:
        return sum(len(fan) for fan in self.fans)

    def where(self) -> dict[Card, tuple[int, int]]:
        """Each fan card's (fan index, height index from the bottom)."""
        return {card: (f, h) for f, fan in enumerate(self.fans) for h, card in enumerate(fan)}


Entry = tuple[Card, int | None, str]  # card, line number, the token as written


def check_deck(entries: list[Entry], ranks: int, source: str) -> None:
    """Every card of the deck exactly once; the first offence is reported with its line."""
    if ranks < 1:
        raise InputError("a deck needs at least one rank", source, token=str(ranks))
    full = set(deck(ranks))
    seen: set[Card] = set()
    for card, line, token in entries:
        if card not in full:
            raise InputError(f"card not in a {ranks}-rank deck", source, line, token)
        if card in seen:
            raise InputError("duplicate card", source, line, token)
        seen.add(card)
    missing = sorted(full - seen, key=lambda c: (c.suit, c.rank))
    if missing:
        last_line = max((line for _, line, _ in entries if line is not None), default=None)
        names = " ".join(str(c) for c in missing[:6]) + (" ..." if len(missing) > 6 else "")
        raise InputError(f"{len(missing)} card(s) missing", source, last_line, names)


# ---------------------------------------------------------------- board text


def parse_board(text: str, source: str = "<board>") -> Deal:
    """black-hole-solve's board format: `Foundations: AS`, then one fan per line, bottom → top.

    `Foundations: -` (or no Foundations line) means an empty foundation, as in All in a Row.
    """
    text = text.lstrip("\ufeff")
    foundation: Card | None = None
    fans: list[tuple[Card, ...]] = []
    entries: list[Entry] = []
    fan_lines: list[int] = []
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        last_line = number
        if line.lower().startswith("foundations:"):
            if fans or foundation is not None:
                raise InputError("Foundations line must come first, once", source, number, line)
            tokens = line.split(":", 1)[1].split()
            if len(tokens) > 1:
                raise InputError("Black Hole has one foundation", source, number, tokens[1])
            if tokens and tokens[0] != "-":
                foundation = read_card(tokens[0], source, number)
                entries.append((foundation, number, tokens[0]))
            continue
        tokens = line.lstrip(":").split()
        fan = tuple(read_card(token, source, number) for token in tokens)
        entries.extend((card, number, token) for card, token in zip(fan, tokens, strict=True))
        fans.append(fan)
        fan_lines.append(number)
    if not fans:
        raise InputError("no fans found (empty deal file)", source, last_line or None)
    _check_layout(fans, fan_lines, entries, foundation, source, last_line)
    check_deck(entries, STANDARD_RANKS, source)
    return Deal(tuple(fans), foundation, STANDARD_RANKS, name=source)


def read_card(token: str, source: str, line: int | None) -> Card:
    """A card token of a file; InputError naming the source, line and token."""
    try:
        return parse_card(token)
    except ValueError as error:
        raise InputError(str(error), source, line, token) from None


def _check_layout(fans: list[tuple[Card, ...]], fan_lines: list[int], entries: list[Entry],
                  foundation: Card | None, source: str, last_line: int) -> None:
    """A standard 52-card board must be Black Hole (17×3) or All in a Row (13×4)."""
    if len(entries) != 52:
        return  # the deck check names the missing or extra card more precisely
    count, size = BLACK_HOLE_LAYOUT if foundation is not None else ALL_IN_A_ROW_LAYOUT
    if len(fans) != count:
        raise InputError(f"expected {count} fans of {size}, found {len(fans)} fans",
                         source, last_line, " ".join(map(str, fans[-1])))
    for fan, line in zip(fans, fan_lines, strict=True):
        if len(fan) != size:
            raise InputError(f"expected {size} cards in this fan, found {len(fan)}",
                             source, line, " ".join(map(str, fan)))


def board_text(deal: Deal) -> str:
    if deal.ranks != STANDARD_RANKS:  # the format has no field for it; it would not read back
        raise InputError(f"a board holds only {STANDARD_RANKS}-rank decks (use --format json)",
                         deal.name or "deal", token=f"ranks {deal.ranks}")
    foundation = str(deal.foundation) if deal.foundation is not None else "-"
    lines = [f"Foundations: {foundation}"] + [" ".join(map(str, fan)) for fan in deal.fans]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- JSON


def parse_json(text: str, source: str = "<json>") -> Deal:
    """`{"foundation": "AS" | null, "fans": [["JD", "KS", "TH"], ...], "ranks": 13}`.

    Fans run bottom → top. `ranks` is optional (13) and allows generalised decks.
    """
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as error:
        bad = error.doc[error.pos:error.pos + 12] or "end of file"
        raise InputError(f"invalid JSON ({error.msg})", source, error.lineno, bad) from None
    if not isinstance(data, dict) or not isinstance(data.get("fans"), list):
        raise InputError("JSON deal needs an object with a \"fans\" list", source, 1, "fans")
    ranks = data.get("ranks", STANDARD_RANKS)
    if not isinstance(ranks, int) or isinstance(ranks, bool) or not 1 <= ranks <= MAX_RANKS:
        raise InputError(f"\"ranks\" must be a whole number from 1 to {MAX_RANKS}", source,
                         None, str(ranks))
    lines = _json_token_lines(text)
    entries: list[Entry] = []

    def card_of(token: object) -> Card:
        line = lines.get(str(token))
        if not isinstance(token, str):
            raise InputError("cards are strings such as \"KH\"", source, line, str(token))
        card = read_card(token, source, line)
        entries.append((card, line, token))
        return card

    raw_foundation = data.get("foundation", "AS")
    foundation = None if raw_foundation in (None, "-", "") else card_of(raw_foundation)
    fans = []
    for fan in data["fans"]:
        if not isinstance(fan, list):
            raise InputError("each fan is a list of cards", source, None, str(fan))
        fans.append(tuple(card_of(token) for token in fan))
    if not fans:
        raise InputError("no fans found", source, 1, "fans")
    if ranks == STANDARD_RANKS:
        _check_layout(fans, [lines.get(str(f[-1]), 0) if f else 0 for f in fans], entries,
                      foundation, source, text.count("\n") + 1)
    check_deck(entries, ranks, source)
    return Deal(tuple(fans), foundation, ranks, name=source)


def _json_token_lines(text: str) -> dict[str, int]:
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


def random_deal(seed: int, any_card_hole: bool = False) -> Deal:
    """A reproducible shuffle: `random.Random(seed).shuffle` of the deck in `deck()` order.

    Standard game: the A♠ is taken out first, the other 51 cards are shuffled and dealt
    in order, three to a fan (cards 0-2 to fan 0 bottom → top, and so on).
    Variant `any`: all 52 are shuffled, the first 51 are dealt the same way and the last
    card becomes the black hole.
    """
    cards = deck()
    if not any_card_hole:
        cards.remove(FOUNDATION_SPADE_ACE)
    random.Random(seed).shuffle(cards)
    hole = cards.pop() if any_card_hole else FOUNDATION_SPADE_ACE
    count, size = BLACK_HOLE_LAYOUT
    fans = tuple(tuple(cards[i:i + size]) for i in range(0, count * size, size))
    suffix = ":any" if any_card_hole else ""
    return Deal(fans, hole, name=f"random:{seed}{suffix}")


def generated_spec(spec: str) -> tuple[str, int, str] | None:
    """(`pysol` or `random`, number, variant) for a dealt spec, None for any other spec;
    a malformed pysol:/random: spec is an InputError. Nothing is dealt here."""
    if spec.startswith("pysol:"):
        number, _, variant = spec[6:].partition(":")
        if variant not in PYSOL_GAMES:
            raise InputError("unknown PySolFC game (use pysol:N or pysol:N:all-in-a-row)",
                             spec, None, variant)
        return "pysol", _number(spec, number, minimum=1, maximum=PYSOL_LAST_GAME), variant
    if spec.startswith("random:"):
        seed, _, variant = spec[7:].partition(":")
        if variant not in ("", "any"):
            raise InputError("unknown random variant (use random:SEED or random:SEED:any)",
                             spec, None, variant)
        return "random", _number(spec, seed, minimum=0), variant
    return None


def load_deal(spec: str) -> Deal:
    """Turn one deal spec into a Deal; every user error is an InputError."""
    dealt = generated_spec(spec)
    if dealt is not None:
        kind, number, variant = dealt
        if kind == "pysol":
            return pysol_deal(number, variant)
        return random_deal(number, any_card_hole=variant == "any")
    if spec == "-":
        return parse_deal_text(sys.stdin.read(), "<stdin>")
    path = Path(spec)
    if not path.is_file():
        raise InputError("no such deal file (or spec: pysol:N, random:SEED, -)", spec)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read deal file ({error.__class__.__name__})", spec) from None
    return parse_deal_text(text, spec)


def parse_deal_text(text: str, source: str) -> Deal:
    """JSON when the text starts with `{`, a board otherwise."""
    if text.lstrip("\ufeff \t\r\n").startswith("{"):
        return parse_json(text, source)
    return parse_board(text, source)


def _number(spec: str, text: str, minimum: int, maximum: int | None = None) -> int:
    if not text.isdigit() or int(text) < minimum:
        raise InputError(f"expected a whole number >= {minimum}", spec, None, text)
    if maximum is not None and int(text) > maximum:
        raise InputError(f"expected a whole number <= {maximum}", spec, None, text)
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
        if prefix in ("pysol", "random") and "-" in rest.split(":")[0]:
            span, _, variant = rest.partition(":")
            first, _, last = span.partition("-")
            lo, hi = _number(item, first, 0), _number(item, last, 0)
            if hi < lo:
                raise InputError("empty range", item, None, span)
            if hi - lo >= MAX_RANGE:
                raise InputError(f"a range holds at most {MAX_RANGE:,} deals", item, None, span)
            suffix = f":{variant}" if variant else ""
            out.extend(f"{prefix}:{n}{suffix}" for n in range(lo, hi + 1))
        elif Path(item).is_dir():
            files = sorted(p for p in Path(item).iterdir()
                           if p.suffix in (".board", ".json", ".txt") and p.is_file())
            out.extend(str(p) for p in files)
        else:
            out.append(item)
    return out


def _spec_list(path: str) -> list[str]:
    """The specs listed in a file: whitespace or commas between them, `#` comments."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise InputError("cannot read spec list file", path) from None
    specs = []
    for line in text.splitlines():
        specs.extend(line.split("#", 1)[0].replace(",", " ").split())
    return specs
