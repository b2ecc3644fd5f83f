"""Deal formats: the board and JSON texts of a deal or position, read and written.

- The board is black-hole-solve's format (`parse_board`, `board_text`): a generalised
  deck adds a `Ranks: R` line, a position writes an empty fan as `-`, and Golf adds its
  `Talon:` line (the next card first). The three Golf games share that board, so one is
  read only with its game named: a `Game: NAME` line of ours, or the caller's `game`.
- A game with a free cell (Worm Hole) adds a `Cell:` line after `Foundations:` (`-` when
  empty) and, when the cards parked differ from the cell's (one if it holds a card, else
  none), a `Parks: N` line.
- JSON is `{"foundation": "AS", "fans": [...], "ranks": 13}`, with `"game"` and
  `"talon"` for a game other than Black Hole, `"cell"` and `"parks"` for a game with a
  cell; a position may add its `"history"` (a park written `park:KH`)
  (`parse_json_position`, `position_json`), and answers write their moves with
  `moves_json`.
- `parse_position_text` tells the two apart by their first character.

Formats turn text into the model of `blackhole.model.deal` and back. They stand on that model
alone and read no files: `blackhole.model.sources`, the layer above, reads them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from blackhole.base.errors import InputError
from blackhole.model.cards import STANDARD_RANKS, Card, parse_card
from blackhole.model.deal import (
    Deal,
    Entry,
    HistoryEntry,
    Kind,
    Position,
    cell_refusal,
    check_deck,
    dealt_sizes,
    move_token,
    position_of,
    unreachable_top,
)
from blackhole.model.games import BLACK_HOLE, DEFAULT_GAME, VARIANTS, Start, Variant, game_named
from blackhole.model.rows import CLEARED, rows_of, rows_text, tableau_of_rows
from blackhole.model.tableau import Tableau

EMPTY_FAN = "-"  # how a board writes an empty fan, keeping its place
# Ranks per suit of every deck read or dealt: a board's `Ranks: R` line, JSON's "ranks" and
# `random:SEED:ranks=R`. One rank never moves, and 400 cards is far past any study.
DECK_RANKS = (2, 100)
# the games with a talon, one of which a file with a talon must name
_TALON_GAMES = [game.name for game in VARIANTS.values() if game.rules.talon]
GOLF_NAMES = ", ".join(_TALON_GAMES[:-1]) + " or " + _TALON_GAMES[-1]


def parse_position_text(text: str, source: str, game: Variant | None = None) -> Position:
    """A deal or position, as JSON or as a board (see `parse_deal_text`); `game`, when
    given, is the game the text is played by (a file that names another is refused)."""
    if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        return parse_json_position(text, source, game)
    try:
        value = json.loads(text.lstrip("\ufeff"))
    except ValueError:  # not JSON (every board): read as a board
        return position_of(parse_board(text, source, game))
    kind = {str: "string", type(None): "null", bool: "true or false"}.get(type(value),
                                                                        "number")
    raise InputError(f"a JSON {kind} is no deal: a deal is a JSON object with a \"fans\" "
                     "list", source, 1, json_shown(value))


def parse_deal_text(text: str, source: str) -> Deal:
    """JSON when the text starts with `{` or `[` (no board does), a board otherwise."""
    return parse_position_text(text, source).deal


def parse_board(text: str, source: str = "<board>", game: Variant | None = None) -> Deal:
    """black-hole-solve's board format: `Foundations: AS`, then one fan per line, bottom → top.

    Golf's board has a `Talon:` line first (the next card first); the three Golf games
    share it, so such a board is read only with its game named, by `game` or by a
    `Game: NAME` line (`blackhole.model.games.GAME_NAMES`) before the fans. A board that names
    no game is Black Hole (`DEFAULT_GAME`): no game is guessed from a layout's shape.

    `Foundations: -` (or no Foundations line) means an empty foundation, as in All in a Row.
    A position writes an empty fan as a line `-` (or `: -`), so every fan keeps its place.
    A generalised deck names its ranks per suit in a `Ranks: R` line (R in DECK_RANKS)
    before the fans; without one the deck has 13 ranks, as every black-hole-solve board does.
    Such a deck is checked as its JSON is: each card of the deck at most once, every card
    on the fans when the foundation is empty, and any layout.
    """
    text = text.lstrip("\ufeff")
    foundation: Card | None = None
    ranks: int | None = None
    named: Variant | None = None
    talon: tuple[Card, ...] | None = None
    cell: Card | None = None
    parks: int | None = None
    headers: HeaderLines = {}
    layout: list[tuple[int, list[str], str]] = []  # the lines after the headers
    entries: list[Entry] = []
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()  # no card holds a '#': the rest is a comment
        if not line:
            continue
        last_line = number
        header, colon, value = line.partition(":")
        if colon and header.strip().lower() in BOARD_HEADERS:
            name = BOARD_HEADERS[header.strip().lower()]
            if name in headers or layout:
                reason = f"a second {name} line" if name in headers else \
                    f"the {name} line must come before the fans"
                raise InputError(reason, source, number, line)
            headers[name] = number
            tokens = value.split()
            if name == "Ranks":
                ranks = _board_ranks(tokens, source, number, line)
                continue
            if name == "Game":
                named = game_named(" ".join(tokens), source, number)
                if game is not None and named != game:
                    raise InputError(f"the board is {named.name}, not {game.name} as "
                                     "asked", source, number, line)
                continue
            if name == "Cell":
                if len(tokens) != 1:
                    raise InputError("the Cell line holds one card, or - when empty", source,
                                     number, line)
                if tokens[0] != EMPTY_FAN:
                    cell = read_card(tokens[0], source, number)
                    entries.append((cell, number, tokens[0]))
                continue
            if name == "Parks":
                parks = _count(tokens, source, number, line)
                continue
            if name == "Talon":
                cards = [] if tokens == [EMPTY_FAN] else tokens
                talon = tuple(read_card(token, source, number) for token in cards)
                entries.extend((card, number, token) for card, token
                               in zip(talon, cards, strict=True))
                continue
            if len(tokens) > 1:
                raise InputError("the game has one foundation", source, number, tokens[1])
            if tokens and tokens[0] != "-":
                foundation = read_card(tokens[0], source, number)
                entries.append((foundation, number, tokens[0]))
            continue
        layout.append((number, line.lstrip(":").split(), line))
    if not layout:
        raise InputError("no fans found (empty deal file)", source, last_line or None)
    game = game or named
    if game is None and talon is not None:
        raise InputError(f"a board with a Talon line must name its game (a line 'Game: "
                         f"NAME': {GOLF_NAMES})", source, headers["Talon"], "Talon:")
    unnamed = game is None
    game = game or DEFAULT_GAME
    if talon is not None and not game.rules.talon:
        raise InputError(f"{game.title} has no talon", source, headers["Talon"], "Talon:")
    parks = _checked_cell(game, cell, parks, source, headers.get("Cell", headers.get("Parks")),
                          "Cell:" if "Cell" in headers else "Parks:")
    _check_headers(game, foundation, ranks or STANDARD_RANKS, talon or (), source,
                   {**headers, "Foundations": headers.get("Foundations", layout[0][0])},
                   unnamed=unnamed)
    cards_at = [_line_cards(tokens, game, source, number) for number, tokens, _ in layout]
    for (number, tokens, _), cards_read in zip(layout, cards_at, strict=True):
        entries.extend((card, number, token) for card, token
                       in zip(cards_read, tokens if cards_read else [], strict=True)
                       if card is not None)
    if ranks is None:
        beyond = next((entry for entry in entries if entry[0].rank > STANDARD_RANKS), None)
        if beyond is not None:
            raise InputError(f"card not in a {STANDARD_RANKS}-rank deck (a larger deck names "
                             "its ranks in a 'Ranks: R' line first)", source, *beyond[1:])
        ranks = STANDARD_RANKS
    check_deck(entries, ranks, source, foundation)
    if game.chains:
        fans = [tuple(card for card in cards_read if card) for cards_read in cards_at]
        _check_layout(fans, [number for number, _, _ in layout], foundation, ranks, source,
                      last_line, game=game, talon=talon or ())
        tableau: Tableau | tuple = tuple(fans)
    else:
        tableau = tableau_of_rows(cards_at, [number for number, _, _ in layout],
                                  [line for _, _, line in layout], game, ranks, source)
    deal = Deal(tableau, foundation, ranks, name=source, talon=talon or (), game=game,
                cell=cell, parks=parks)
    return _reached(deal, source, headers.get("Foundations"))


def _count(tokens: list[str], source: str, number: int | None, line: str) -> int:
    """A header's one whole number (`Parks: 2`)."""
    if len(tokens) != 1 or not (tokens[0].isascii() and tokens[0].isdigit()) or \
            len(tokens[0]) > 6:
        raise InputError("expected one whole number", source, number, line)
    return int(tokens[0])


def _checked_cell(game: Variant, cell: Card | None, parks: int | None, source: str,
                  line: int | None, token: str) -> int:
    """The parks a layout's cell shows (given, or one when the cell holds a card, else
    none), once `blackhole.model.deal.cell_refusal` lets them by; else an InputError naming
    the line."""
    parks = int(cell is not None) if parks is None else parks
    refused = cell_refusal(game, cell, parks)
    if refused:
        raise InputError(refused, source, line, token)
    return parks


def _line_cards(tokens: list[str], game: Variant, source: str,
                number: int) -> list[Card | None]:
    """The cards of a layout line: a fan (a lone `-` is an empty one) or a row of a
    layout that is not fans (`-` is a cleared slot, None)."""
    if game.chains:
        return [] if tokens == [EMPTY_FAN] else \
            [read_card(token, source, number) for token in tokens]
    return [None if token == CLEARED else read_card(token, source, number)
            for token in tokens]


# lines before the fans
BOARD_HEADERS = {"foundations": "Foundations", "ranks": "Ranks", "talon": "Talon",
                 "cell": "Cell", "parks": "Parks",
                 "game": "Game", "waste": "Foundations", "stock": "Talon"}


def _board_ranks(tokens: list[str], source: str, number: int, line: str) -> int:
    """The value of a `Ranks:` line: one count of ranks per suit, as `ranks=R` takes."""
    if len(tokens) > 1:
        raise InputError("Ranks takes one number", source, number, tokens[1])
    value = tokens[0] if tokens else line
    ranks = deck_ranks(value)
    if ranks is None:
        low, high = DECK_RANKS
        raise InputError(f"Ranks takes a whole number from {low} to {high} (ranks per suit)",
                         source, number, value)
    return ranks


def deck_ranks(text: str) -> int | None:
    """The ranks per suit `text` names, as `ranks=R` and a board's `Ranks: R` take them:
    ASCII digits, within DECK_RANKS; None for anything else."""
    low, high = DECK_RANKS
    if text.isascii() and text.isdigit() and len(text) <= len(str(high)) \
            and low <= int(text) <= high:
        return int(text)
    return None


def read_card(token: str, source: str, line: int | None) -> Card:
    """A card token of a file; InputError naming the source, line and token."""
    try:
        return parse_card(token)
    except ValueError as error:
        raise InputError(str(error), source, line, token) from None


# the line of each header a layout check may name: "Foundations", "Ranks", "Talon"
HeaderLines = dict[str, int | None]


def _check_headers(game: Variant, foundation: Card | None, ranks: int,
                   talon: tuple[Card, ...], source: str, at: HeaderLines,
                   json_keys: bool = False, unnamed: bool = False) -> None:
    """What the lines before the fans say, against the game, each error naming its own
    line (`at`) and token (the board's header, or the JSON key with `json_keys`): a
    foundation card unless the game starts with an empty one, a deck of 13 ranks unless
    the game is dealt from others, and a talon no longer than the game's. Runs before
    the deck check, so a Golf board's `Foundations: -` is named as such, not as cards
    missing. `unnamed`: the text named no game, so `game` is the default one, and an
    error says how another is named."""
    def token(header: str, board: str) -> str:
        return {"Foundations": "foundation", "Ranks": "ranks", "Talon": "talon"}[header] \
            if json_keys else board

    named = ("" if not unnamed else
             " (the text names no game, so it is read as Black Hole; "
             + ("\"game\": NAME" if json_keys else "a line 'Game: NAME'")
             + " or --game names another)")
    if foundation is None and game.start is not Start.EMPTY:
        raise InputError(f"{game.title}'s foundation always holds a card{named}", source,
                         at.get("Foundations"), token("Foundations", "Foundations: -"))
    if ranks != STANDARD_RANKS and not game.any_ranks:
        raise InputError(f"{game.title} is dealt with {STANDARD_RANKS} ranks only, not "
                         f"{ranks}",
                         source, at.get("Ranks"), token("Ranks", f"Ranks: {ranks}"))
    if len(talon) > game.rules.talon:
        raise InputError(f"{game.title}'s talon holds at most {game.rules.talon} cards, found "
                         f"{len(talon)}", source, at.get("Talon"), token("Talon", "Talon:"))


def _check_layout(fans: list[tuple[Card, ...]], fan_lines: list[int], foundation: Card | None,
                  ranks: int, source: str, last_line: int,
                  empty: str = f"'{EMPTY_FAN}'", game: Variant = BLACK_HOLE,
                  talon: tuple[Card, ...] = ()) -> None:
    """The fans of a position that play can reach from a deal the sources deal: the
    deal's fans, each in its place (`empty` says how the format writes an empty fan) and
    at most its dealt size, all of them full while nothing is played. Runs after the deck
    check, so each card lies once; the card on the hole is checked on the deal built
    (`blackhole.model.deal.unreachable_top`)."""
    sizes = dealt_sizes(ranks, game)
    on_fans = sum(len(fan) for fan in fans)
    fresh = foundation is None or (on_fans == sum(sizes) and len(talon) == game.rules.talon)
    if len(fans) != len(sizes):
        shape = f"{len(sizes)} fans of {max(sizes)}" + (
            f" (the last of {sizes[-1]})" if sizes[-1] != sizes[0] else "")
        message = f"expected {shape}, found {len(fans)} fans" if fresh else \
            f"a position keeps all {len(sizes)} fans (write an empty fan as {empty}), " \
            f"found {len(fans)}"
        raise InputError(message, source, last_line, _fan_text(fans[-1]))
    for fan, line, size in zip(fans, fan_lines, sizes, strict=True):
        if len(fan) > size or (fresh and len(fan) != size):
            message = f"expected {size} cards in this fan" if fresh else \
                f"a fan of this layout holds at most {size} cards"
            raise InputError(f"{message}, found {len(fan)}", source, line, _fan_text(fan))


def _reached(deal: Deal, source: str, line: int | None) -> Deal:
    """`deal`, when some line of its game leaves its foundation's card on top (see
    `blackhole.model.deal.unreachable_top`); else an InputError naming `line`."""
    reason = unreachable_top(deal)
    if reason:
        raise InputError(reason, source, line, str(deal.foundation))
    return deal


def _fan_text(fan: tuple[Card, ...]) -> str:
    return " ".join(map(str, fan)) if fan else EMPTY_FAN


def saved_board(deal: Deal) -> str:
    """The board of a deal or position as the tool saves it (`blackhole deal`): its
    `board_text`, with a `Game: NAME` line first for every game but Black Hole (the one
    a board naming none is read as), so that it reads back as the same game and
    position."""
    text = board_text(deal)
    if deal.game == DEFAULT_GAME:
        return text
    return f"Game: {deal.game.name}\n{text}"


def board_text(deal: Deal) -> str:
    """The board of a deal or position, as black-hole-solve reads it; a deck of other than
    13 ranks starts with its `Ranks: R` line, so a 13-rank board is black-hole-solve's,
    byte for byte. A game with a talon writes its `Talon:` line first (the next card
    first, `-` when it is spent), as black-hole-solve reads Golf; which Golf it is, the
    board does not say (`saved_board` adds the line that does). A layout that is not
    fans writes its `Stock:` (the talon) and `Waste:` (the foundation) lines, then its
    rows top to bottom, each left to right, `-` for a slot cleared
    (`blackhole.model.rows`)."""
    header = []
    if deal.ranks != STANDARD_RANKS:
        low, high = DECK_RANKS
        if not low <= deal.ranks <= high:  # it would not read back
            raise InputError(f"a board holds {low} to {high} ranks per suit (use --format "
                             "json)", deal.name or "deal", token=f"ranks {deal.ranks}")
        header = [f"Ranks: {deal.ranks}"]
    foundation = str(deal.foundation) if deal.foundation is not None else "-"
    if not deal.tableau.chains:  # rows, in a player's words: the stock and the waste
        lines = [*header, "Stock: " + _fan_text(deal.talon), f"Waste: {foundation}"]
        return "\n".join(lines + rows_text(deal.tableau, deal.game, deal.ranks)) + "\n"
    if deal.game.rules.talon:
        header.append("Talon: " + (_fan_text(deal.talon)))
    lines = [*header, f"Foundations: {foundation}"]
    if deal.game.rules.cells:
        lines.append(f"Cell: {deal.cell if deal.cell is not None else EMPTY_FAN}")
        if deal.parks != (deal.cell is not None):
            lines.append(f"Parks: {deal.parks}")
    lines += [_fan_text(fan) for fan in deal.fans]
    return "\n".join(lines) + "\n"


def parse_json(text: str, source: str = "<json>") -> Deal:
    """`{"foundation": "AS" | null, "fans": [["JD", "KS", "TH"], ...], "ranks": 13}`.

    Fans run bottom → top. `ranks` is optional (13) and allows generalised decks. A
    position may leave fans short or empty (`[]`) and may add `"history"`, the cards
    moved so far in order (see `parse_json_position`).
    """
    return parse_json_position(text, source).deal


def parse_json_position(text: str, source: str = "<json>",
                        game: Variant | None = None) -> Position:
    """A JSON deal or position; `"history"`, when given, must hold exactly the cards
    moved (in the hole and not its starting card; talon cards turned included), the
    last of them on the hole. `"game"` names the game (`game`, when given, must agree);
    without one it is Black Hole, and a `"talon"` is refused, as a board's is."""
    data = load_json(text, source)
    key = "rows" if isinstance(data, dict) and "rows" in data and "fans" not in data \
        else "fans"
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise InputError("JSON deal needs an object with a \"fans\" list (or \"rows\")",
                         source, 1, "fans")
    lines = json_token_lines(text)
    ranks = data.get("ranks", STANDARD_RANKS)
    low, high = DECK_RANKS
    if not isinstance(ranks, int) or isinstance(ranks, bool) or not low <= ranks <= high:
        raise InputError(f"\"ranks\" must be a whole number from {low} to {high} (ranks per "
                         "suit)", source, lines.get("ranks"), json_shown(ranks))

    def card_of(token: object) -> Entry:
        if not isinstance(token, str):
            raise InputError("cards are strings such as \"KH\"", source, None,
                             json_shown(token))
        line = lines.get(token)
        return read_card(token, source, line), line, token

    named = None
    if "game" in data:
        raw_game = data["game"]
        if not isinstance(raw_game, str):
            raise InputError("\"game\" is a game's name", source, lines.get("game"),
                             json_shown(raw_game))
        named = game_named(raw_game, source, lines.get(raw_game))
        if game is not None and named != game:
            raise InputError(f"the deal is {named.name}, not {game.name} as asked", source,
                             lines.get(raw_game), raw_game)
    raw_talon = data.get("talon")
    if raw_talon is not None and not isinstance(raw_talon, list):
        raise InputError("\"talon\" is a list of cards", source, lines.get("talon"),
                         json_shown(raw_talon))
    raw_cell, raw_parks = data.get("cell"), data.get("parks")
    if raw_parks is not None and (not isinstance(raw_parks, int) or isinstance(raw_parks, bool)
                                  or raw_parks < 0):
        raise InputError("\"parks\" is a whole number (the cards parked so far)", source,
                         lines.get("parks"), json_shown(raw_parks))
    cell_entry = None if raw_cell is None else card_of(raw_cell)
    raw_foundation = data.get("foundation", "AS")
    entries = [] if raw_foundation in (None, "-", "") else [card_of(raw_foundation)]
    foundation = entries[0][0] if entries else None
    fans: list[list[Card | None]] = []
    fan_lines: list[int] = []
    for fan in data[key]:
        if not isinstance(fan, list):
            raise InputError(f"each of \"{key}\" is a list of cards", source, None,
                             json_shown(fan))
        cards = [None if token is None and key == "rows" else card_of(token)
                 for token in fan]
        entries.extend(card for card in cards if card is not None)
        fans.append([None if card is None else card[0] for card in cards])
        fan_lines.append(next((card[1] or 0 for card in reversed(cards) if card), 0))
    if not fans:
        raise InputError(f"no {key} found", source, 1, key)
    talon_entries = [card_of(token) for token in raw_talon or []]
    entries.extend(talon_entries)
    if cell_entry is not None:
        entries.append(cell_entry)
    talon = tuple(card for card, _, _ in talon_entries)
    game = game or named
    if game is None and raw_talon is not None:
        raise InputError(f"a deal with a talon must name its game (\"game\": "
                         f"{GOLF_NAMES})", source, lines.get("talon"), "talon")
    unnamed = game is None
    game = game or DEFAULT_GAME
    if raw_talon is not None and not game.rules.talon:
        raise InputError(f"{game.title} has no talon", source, lines.get("talon"), "talon")
    cell = None if cell_entry is None else cell_entry[0]
    parks = _checked_cell(game, cell, raw_parks, source,
                          lines.get("cell", lines.get("parks")), "cell")
    _check_headers(game, foundation, ranks, talon, source,
                   {"Foundations": lines.get("foundation"), "Ranks": lines.get("ranks"),
                    "Talon": lines.get("talon")}, json_keys=True, unnamed=unnamed)
    check_deck(entries, ranks, source, foundation)
    raw_history = data.get("history", [])
    if not isinstance(raw_history, list):
        raise InputError("\"history\" is a list of cards", source, None,
                         json_shown(raw_history))
    if (key == "rows") == game.chains:
        raise InputError(f"{game.title} is laid out in " + ("fans" if game.chains else "rows"),
                         source, lines.get(key), key)
    if game.chains:
        chains = [tuple(card for card in fan if card is not None) for fan in fans]
        _check_layout(chains, fan_lines, foundation, ranks, source, text.count("\n") + 1,
                      empty="[]", game=game, talon=talon)
        tableau: Tableau | tuple = tuple(chains)
    else:
        tableau = tableau_of_rows(fans, [line or None for line in fan_lines],
                                  [key] * len(fans), game, ranks, source)
    deal = Deal(tableau, foundation, ranks, name=source, talon=talon, game=game, cell=cell,
                parks=parks)

    def entry_of(token: object) -> HistoryEntry:
        if not isinstance(token, str):
            card_of(token)  # refused, as a card is
        line = lines.get(token)
        return move_token(token, source, line), line, token

    if raw_history:  # replayed instead, card by card
        return position_of(deal, [entry_of(token) for token in raw_history], source)
    return position_of(_reached(deal, source, lines.get("foundation")))


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
    """The deal's JSON; every game but Black Hole (the one a text naming none is read
    as) adds `"game"`, and one with a talon its `"talon"` (the next card first). A
    layout that is not fans writes `"rows"` (top to bottom, each left to right, null
    for a slot cleared) where fans write `"fans"`."""
    data: dict = {
        "foundation": str(deal.foundation) if deal.foundation is not None else None}
    if deal.tableau.chains:
        data["fans"] = [[str(card) for card in fan] for fan in deal.fans]
    else:
        data["rows"] = [[None if card is None else str(card) for card in row]
                        for row in rows_of(deal.tableau, deal.game, deal.ranks)]
    data["ranks"] = deal.ranks
    if deal.game != DEFAULT_GAME:
        data["game"] = deal.game.name
    if deal.game.rules.talon:
        data["talon"] = [str(card) for card in deal.talon]
    if deal.game.rules.cells:
        data["cell"] = str(deal.cell) if deal.cell is not None else None
        data["parks"] = deal.parks
    return data


def position_json(position: Position) -> dict:
    """The deal's JSON, plus `"history"` when the position knows its moves."""
    data = deal_json(position.deal)
    if position.history and position.history_known:
        data["history"] = [str(card) for card in position.history]
    return data


def moves_json(moves: Iterable[tuple]) -> list[dict[str, object]]:
    """Moves as every JSON answer writes them: `[{"card": "KH", "fan": 12}, ...]`, a
    park or a move from the cell with its `"kind"` (`"park"`, `"unpark"`)."""
    return [{"card": str(move[0]), "fan": move[1]}
            | ({"kind": str(move[2])} if len(move) > 2 and move[2] in _CELL_KINDS else {})
            for move in moves]


_CELL_KINDS = (Kind.PARK, Kind.UNPARK)
