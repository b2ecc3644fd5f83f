"""Deal sources: the deal spec grammar, and reading the files it names.

A deal spec is the one string every command takes:

- a path to a board file (black-hole-solve's format; a generalised deck adds a `Ranks: R`
  line) or a JSON file,
- `-` for standard input,
- `pysol:N`, PySolFC's Black Hole game number N (dealt by pysol-cards, as PySolFC deals it),
- `pysol:N:all-in-a-row`, PySolFC's All in a Row game N (13 fans of 4, empty foundation),
- `pysol:N:golf`, `pysol:N:dead-king-golf`, `pysol:N:relaxed-golf`: PySolFC's Golf deal
  N (7 columns of 5, a talon of 16, one card on the foundation), played by the rules of
  the game named (`blackhole.model.games`); the three share the deal,
- `pysol:N:tri-peaks`, `pysol:N:tri-peaks-strict`: PySolFC's Three Peaks deal N (three
  peaks of 28 cards, a waste card, a stock of 23), played with or without the wrap;
  `pysol:N:escalator`, PySolFC's Escalator deal N (a pyramid of 28),
- `random:SEED`, a reproducible shuffle (see `random_deal`),
- `random:SEED:any`, the variant where the last dealt card becomes the black hole,
- `random:SEED:ranks=R` and `random:SEED:any:ranks=R`, a generalised deck of R ranks in
  each of the four suits, dealt the same way (the last fan holds what is left),
- `random:SEED:GAME` for another game of `blackhole.model.games` (`random:SEED:golf`), a
  shuffle of its deck dealt in its layout.

Ranges such as `pysol:1-1000` and `random:1-20:ranks=16`, folders of deal files and
`@FILE` lists of specs are expanded by `expand_specs`. Files are read through
`read_input`: at most MAX_FILE_BYTES (spec lists MAX_LIST_BYTES), named pipes included.

Sources stand on the formats (`blackhole.model.formats`) and the model (`blackhole.model.deal`). A
file may hold a position as well as a fresh deal (`read_position`); playing moves on top
of it (`--after`) needs the rules engine, so that is `blackhole.model.positions`, layers above.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterable
from pathlib import Path

from blackhole.base.errors import InputError, shorten
from blackhole.model.cards import STANDARD_RANKS, Card, deck
from blackhole.model.deal import (
    FOUNDATION_SPADE_ACE,
    Deal,
    Position,
    dealt_sizes,
    lay_out,
    position_of,
)
from blackhole.model.formats import DECK_RANKS, deck_ranks, parse_position_text
from blackhole.model.games import DEFAULT_GAME, VARIANTS, Start, Variant

PYSOL_LAST_GAME = 10**20  # PySolFC's largest game number (its generators' MAX_SEED)
RANDOM_LAST_SEED = 10**20  # random:SEED takes 0 to 10^20, as the README says
MAX_RANGE = 10_000_000  # deals in one range spec: more is a typo, not a benchmark
MAX_FILE_BYTES = 1_000_000  # deal and solution files: a 1000-rank deck needs 40 kB
# Spec lists (`@list.txt`): MAX_RANGE specs of some 25 bytes each, such as the lost deals
# of a million that `atlas-build --lost-list` writes (1.7 MB for PySolFC's first million).
MAX_LIST_BYTES = 256_000_000
_PATH_SHOWN = 200  # characters of a path quoted in a message (one line, never 4 KB)


def load_deal(spec: str | os.PathLike[str], game: Variant | None = None) -> Deal:
    """Turn one deal spec (a str, or a file's path as `os.PathLike`) into a Deal (the
    layout of a position file as it lies); every user error is an InputError. `game`
    names the game a file is played by (see `read_position`)."""
    return read_position(spec, game).deal


def as_spec(spec: object) -> str:
    """A deal spec as a str: itself, or a path's name; anything else is an InputError."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        raise InputError("a deal spec is a str such as \"pysol:2\" or a file's path",
                         "deal", token=type(spec).__name__)
    return spec


def read_position(spec: str | os.PathLike[str], game: Variant | None = None) -> Position:
    """The position `spec` holds, as it lies: a fresh deal is a position with nothing
    moved, and a file may hold one part played. Every user error is an InputError;
    `blackhole.model.positions.load_position` plays `--after` on top. `game` (`--game`) names
    the game a file is played by, as its `Game:` line would (a Golf board names no game
    of its own); a dealt spec names its own, which must agree."""
    spec = as_spec(spec)
    if ("," in spec or spec.startswith("@")) and not Path(spec).exists():
        raise InputError("names several deals (a list); this takes one, and bench and "
                         "certify take lists", spec)
    dealt = generated_spec(spec)
    if dealt is not None:
        kind, number, variant = dealt
        if kind == "pysol":
            deal = pysol_deal(number, variant)
        else:
            any_card, ranks, named = _random_variant(spec, variant)
            deal = random_deal(number, any_card, ranks, named)
        if game is not None and deal.game != game:
            raise InputError(f"the spec deals {deal.game.name}, not {game.name} as --game "
                             "says", shorten(spec), None, game.name)
        return position_of(deal)
    return parse_position_text(read_input(spec, "deal"), source_name(spec), game)


# The games PySolFC deals, by the suffix a spec names them with (Black Hole: none).
PYSOL_GAMES: dict[str, Variant] = {
    "" if game == DEFAULT_GAME else name: game
    for name, game in VARIANTS.items() if game.pysol}
PYSOL_SUITS = "CSHD"  # pysol_cards' suit numbers 0-3
# pysol_cards' (rank, suit number) → the Card, made once rather than 51 times a deal
_PYSOL_CARDS = {(card.rank, PYSOL_SUITS.index(card.suit)): card for card in deck()}
_DECK = frozenset(_PYSOL_CARDS.values())
# PySolFC shuffles a game number below this with Microsoft's generator (LCRandom31, on
# the deck in Windows FreeCell's order) and any other with the Mersenne Twister.
PYSOL_MS_BELOW = 32_000


def pysol_deal(number: int, variant: str = "") -> Deal:
    """PySolFC's game `number` of the game `variant` names (a key of PYSOL_GAMES: "" for
    Black Hole), dealt as PySolFC deals it: shuffled by the generator PySolFC picks for
    the number (PYSOL_MS_BELOW), then laid out by pysol_cards. Black Hole's A♠ goes to
    the hole, All in a Row starts with an empty hole, and Golf's foundation takes the
    first card of the talon. pysol_cards has no dealer for TriPeaks and Escalator, so
    their shuffled deck is laid out here as PySolFC's `threepeaks.py` and `golf.py` deal
    it (`_laid_out`)."""
    from pysol_cards.cards import createCards
    from pysol_cards.deal_game import Game
    from pysol_cards.random import LCRandom31, MTRandom, ms_rearrange
    from pysol_cards.random_base import RandomBase

    if number < PYSOL_MS_BELOW:
        generator = LCRandom31()
        generator.setSeed(number)
        cards = generator.shuffle(ms_rearrange(createCards(1)))
    else:
        cards = MTRandom(number).shuffle(createCards(1))
    cards.reverse()  # pysol_cards deals from the end of the shuffled deck
    variant_game = PYSOL_GAMES[variant]
    suffix = f":{variant}" if variant else ""
    name = f"pysol:{number}{suffix}"
    if not variant_game.chains:  # PySolFC's peaks and pyramid: no pysol_cards dealer
        return _laid_out([_PYSOL_CARDS[card.rank, card.suit] for card in cards],
                         variant_game, STANDARD_RANKS, name)
    game = Game(variant_game.pysol, number, RandomBase.DEALS_PYSOLFC)
    game.new_cards(cards)
    getattr(game, game.game_class)()
    fans = tuple(tuple(_PYSOL_CARDS[card.rank, card.suit] for card in column)
                 for column in game.board.columns.cols)
    talon = tuple(_PYSOL_CARDS[card.rank, card.suit]
                  for card in (game.board.talon if variant_game.rules.talon else ()))
    foundation = {Start.CARD: FOUNDATION_SPADE_ACE, Start.EMPTY: None}.get(variant_game.start)
    if variant_game.start is Start.TALON:  # the one card dealt to neither fans nor talon
        foundation = next(iter(_DECK.difference(talon, *fans)))
    return Deal(fans, foundation, STANDARD_RANKS, name=name, talon=talon, game=variant_game)


def _laid_out(cards: list[Card], game: Variant, ranks: int, name: str) -> Deal:
    """A deal of `game` from the whole deck in the order dealt: its tableau first (as
    `lay_out` reads it), then the foundation's card when the game starts with one off
    the talon, then the talon, the next card first. So PySolFC deals TriPeaks and
    Escalator (rows from the top, then the waste's card, then the stock), and so
    `random_deal` deals every game but Black Hole."""
    size = sum(dealt_sizes(ranks, game))
    hole = cards[size] if game.start is Start.TALON else None
    first = size + (game.start is Start.TALON)
    talon = tuple(cards[first:first + game.rules.talon]) if game.rules.talon else ()
    return Deal(lay_out(game, cards[:size], name), hole, ranks, name=name, talon=talon,
                game=game)


def random_deal(seed: int, any_card_hole: bool = False, ranks: int = STANDARD_RANKS,
                game: Variant = DEFAULT_GAME) -> Deal:
    """A reproducible shuffle: `random.Random(seed).shuffle` of the deck in `deck(ranks)`
    order (clubs, diamonds, hearts, spades; ace up to the top rank in each suit).

    Standard game: the A♠ is taken out first, the other 4R-1 cards are shuffled and dealt
    in order, three to a fan (cards 0-2 to fan 0 bottom → top, and so on); the last fan
    holds what is left (with R=13, 17 fans of exactly 3).
    Variant `any`: all 4R are shuffled, the first 4R-1 are dealt the same way and the last
    card becomes the black hole.
    Another `game` deals all its deck, shuffled, in order to its tableau (Golf: cards 0-4
    to fan 0 bottom → top, and so on; TriPeaks and Escalator row by row from the top),
    then the foundation's card when the game starts with one off the talon, then its
    talon (the next card first).
    """
    if game.start is not Start.CARD:
        cards = deck(ranks)
        random.Random(seed).shuffle(cards)
        return _laid_out(cards, game, ranks, f"random:{seed}:{game.name}")
    cards = deck(ranks)
    if not any_card_hole:
        cards.remove(FOUNDATION_SPADE_ACE)
    random.Random(seed).shuffle(cards)
    hole = cards.pop() if any_card_hole else FOUNDATION_SPADE_ACE
    size = game.fan_size
    fans = tuple(tuple(cards[i:i + size]) for i in range(0, len(cards), size))
    variant = (["any"] if any_card_hole else []) + \
        ([f"ranks={ranks}"] if ranks != STANDARD_RANKS else []) + \
        ([game.name] if game != DEFAULT_GAME else [])
    return Deal(fans, hole, ranks, name=":".join([f"random:{seed}", *variant]), game=game)


def generated_spec(spec: str) -> tuple[str, int, str] | None:
    """(`pysol` or `random`, number, variant) for a dealt spec, None for any other spec;
    a malformed pysol:/random: spec is an InputError. Nothing is dealt here. The variant
    is canonical: `""` or a game's name (`all-in-a-row`, `golf`, ...); `""`, `any`,
    `ranks=R`, `any:ranks=R` or a game's name."""
    kind, _, rest = spec.partition(":")
    if kind.lower() not in ("pysol", "random"):
        return None
    number, _, variant = rest.partition(":")
    return _generated(spec, kind, number, variant)


def _generated(spec: str, kind: str, number: str, variant: str) -> tuple[str, int, str]:
    """Check one generated spec's parts; `spec` names it in errors. Words are read
    without regard to case, as everywhere a game is named (`games.game_named`):
    `PySol:1:GOLF` is `pysol:1:golf`, and Black Hole may be named (`random:1:black-hole`
    is `random:1`)."""
    spec = shorten(spec)
    kind, variant = kind.lower(), variant.lower()
    if kind == "pysol":
        variant = "" if variant == DEFAULT_GAME.name else variant
        if variant not in PYSOL_GAMES:
            raise InputError("unknown PySolFC game (use pysol:N or pysol:N:GAME, GAME one of "
                             f"{', '.join(name for name in PYSOL_GAMES if name)})",
                             spec, None, variant)
        return "pysol", _number(spec, number, minimum=1, maximum=PYSOL_LAST_GAME), variant
    any_card, ranks, game = _random_variant(spec, variant)
    canonical = ["any"] if any_card else []
    if ranks != STANDARD_RANKS:
        canonical.append(f"ranks={ranks}")
    if game != DEFAULT_GAME:
        canonical.append(game.name)
    return "random", _number(spec, number, minimum=0, maximum=RANDOM_LAST_SEED), \
        ":".join(canonical)


def _random_variant(spec: str, variant: str) -> tuple[bool, int, Variant]:
    """`any`, `ranks=R` and a game's name, each at most once, in any order → (any card
    hole, ranks, game). `any` and `ranks=R` are for the games that take
    any deck (`Variant.any_ranks`: Black Hole and Worm Hole); a game of a fixed deck, such
    as Golf, is dealt from 13 ranks."""
    any_card, ranks, game, seen = False, STANDARD_RANKS, DEFAULT_GAME, set()
    deck_word = None  # the first `any` or `ranks=R`, which only some games take
    for part in variant.split(":") if variant else []:
        key = "ranks" if part.startswith("ranks=") else "game" if part in VARIANTS else part
        if key not in ("any", "ranks", "game") or key in seen:
            raise InputError("unknown random variant (use random:SEED[:any][:ranks=R] or "
                             "random:SEED:GAME)", spec, None, part)
        seen.add(key)
        if key == "game":
            game = VARIANTS[part]
            continue
        deck_word = deck_word or part
        if key == "any":
            any_card = True
            continue
        found = deck_ranks(part[len("ranks="):])
        if found is None:
            low, high = DECK_RANKS
            raise InputError(f"ranks=R takes {low} to {high} ranks per suit (4R cards)", spec,
                             None, part)
        ranks = found
    if deck_word is not None and not game.any_ranks:
        raise InputError(f"{game.name} is dealt from a standard deck: any and ranks=R are "
                         "for the games dealt as Black Hole is", spec, None, deck_word)
    return any_card, ranks, game


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
        if prefix.lower() in ("pysol", "random") and "-" in span.lstrip("-"):
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
    return [f"{kind.lower()}:{n}{suffix}" for n in range(lo, hi + 1)]


def _folder(path: str) -> list[str]:
    """The deal files of a folder (.board, .json, .txt), sorted."""
    try:
        return sorted(str(p) for p in Path(path).iterdir()
                      if p.suffix in (".board", ".json", ".txt") and p.is_file())
    except OSError as error:
        raise InputError(f"cannot list folder ({error.strerror})", path) from None


def _spec_list(path: str) -> list[str]:
    """The specs listed in a file: whitespace or commas between them, `#` comments."""
    text = read_input(path, "spec list", MAX_LIST_BYTES)
    specs = []
    for line in text.splitlines():
        specs.extend(line.split("#", 1)[0].replace(",", " ").split())
    return specs


def stdin_once(*uses: tuple[str, bool]) -> None:
    """Standard input can be read once: an InputError when more than one of the named
    inputs (name, read from stdin) would read it."""
    named = [name for name, used in uses if used]
    if len(named) > 1:
        raise InputError(f"standard input can feed only one input, but {' and '.join(named)} "
                         "both read it: save one to a file", "<stdin>", token="-")


def source_name(path: str) -> str:
    """How messages name a file: `<stdin>` for `-`, else the path on one line, cut."""
    return "<stdin>" if path == "-" else shorten(path, _PATH_SHOWN)


def read_input(path: str, what: str, cap: int = MAX_FILE_BYTES) -> str:
    """The text of a file, a named pipe or process substitution (`<(...)`), or stdin for
    `-`, as UTF-8. At most `cap` bytes are read: a larger input is refused before it is
    parsed. Every failure is a one-line InputError naming the path."""
    source = source_name(path)
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(cap + 1) if stream is not None \
                else sys.stdin.read(cap + 1).encode("utf-8", "surrogateescape")
        else:
            with open(path, "rb") as handle:
                data = handle.read(cap + 1)
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
    if len(data) > cap:
        raise InputError(f"{what} file larger than the {cap // 1_000_000} MB cap", source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{what} file is not UTF-8 text", source, line) from None
