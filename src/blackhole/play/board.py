"""What the game screen draws, as Rich text: the pure part of the interface.

Fans are drawn as columns labelled a, b, c, ...: the bottom card first, the top card
last, every card visible. A top card that fits on the hole carries a marker and a
highlight, so the playable cards read at a glance even without colour (`--ascii`).
A game with a talon (Golf) shows a talon line: its next card and how many are left; a
game with a free cell (Worm Hole) a cell line under the hole (`cell_text`, which `show`
draws too).
A layout not made of fans (TriPeaks' peaks, Escalator's pyramid) is drawn card by card
at its slots' places by `blackhole.play.slots`; this module holds the geometry it shares
with the fans (how large the table is, whether it fits).

What the screen says about a game (its title, the talon, the rules) is read from the
deal's game (`blackhole.model.games.Variant`), never from its name.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from string import ascii_lowercase

from rich.text import Text

from blackhole.base.errors import InputError
from blackhole.model.cards import Card, rank_text
from blackhole.model.deal import Deal, Kind, dealt_sizes
from blackhole.model.games import Shape, Start, Variant, Won, on_king_rule
from blackhole.play.game import Game

FAN_LETTERS = ascii_lowercase[:17]  # a..q: the keys that play the fans
MAX_FAN_HEIGHT = 12  # rows a column may take and still fit 24 lines
CELL = 4  # columns per fan: a marker, then the card in three
PLAYABLE_STYLE = "bold black on bright_green"
PLAYABLE_MARK = {False: "▸", True: ">"}  # by ascii_only
LAST_SHOWN = 10  # cards listed after the hole's top card
HALF = 3  # characters a half-card column takes in a layout of slots: a card takes two
MAX_COLUMNS = 25  # half-card columns a layout of slots may take and still fit 80 columns
MAX_ROWS = 10  # rows of slots that still fit 24 lines


def check_fits(deal: Deal, source: str) -> None:
    """The game draws 17 fans (a..q) of at most MAX_FAN_HEIGHT cards, or a layout of
    slots in MAX_COLUMNS half-card columns and MAX_ROWS rows; a larger layout is an
    InputError naming the deal."""
    if not deal.tableau.chains:
        columns, rows = slot_extent(deal)
        if columns > MAX_COLUMNS or rows > MAX_ROWS:
            raise InputError(f"play draws layouts of at most {MAX_COLUMNS} half-card "
                             f"columns and {MAX_ROWS} rows; this one takes {columns} and "
                             f"{rows}", source)
        return
    if len(deal.fans) > len(FAN_LETTERS):
        raise InputError(f"play draws at most {len(FAN_LETTERS)} fans (a-q); this deal "
                         f"has {len(deal.fans)}", source)
    tallest = max((len(fan) for fan in deal.fans), default=0)
    if tallest > MAX_FAN_HEIGHT:
        raise InputError(f"play draws fans of at most {MAX_FAN_HEIGHT} cards; this deal "
                         f"has one of {tallest}", source)


# Rows of the table besides the fans: the title, the hole between two blank lines, a
# blank line, the status, two message lines, two coach lines and the keys; a game with a
# talon adds its line (under the hole, before the blank line) and a second line of keys,
# and needs TALON_WIDTH columns for them.
ROWS_BESIDE_FANS = 11
TALON_ROWS = 2
TALON_WIDTH = 56
# A game with a cell adds its line under the hole and a second line of keys.
CELL_ROWS = 2
PARK_KEY, UNPARK_KEY = "z", "0"  # z then a fan's letter parks its top card; 0 plays the cell


def slot_extent(deal: Deal) -> tuple[int, int]:
    """The half-card columns and the rows a layout of slots takes (`Tableau.places`:
    columns from 0, rows from the top; a card spans two half-card columns), counting
    those its cleared slots left."""
    places = deal.tableau.places
    return (deal.tableau.columns + 1,
            max((row for _, row in places), default=0) + 1)


def table_size(deal: Deal) -> tuple[int, int]:
    """The columns and rows the table needs to show every fan of `deal` and every line
    under them: a margin column, CELL columns a fan; a label row above the tallest fan;
    the talon's line when the game has one. A layout of slots takes HALF columns a
    half-card column, a line a row and one for the keys under its bottom row."""
    if deal.tableau.chains:
        tallest = max((len(fan) for fan in deal.fans), default=0)
        width, rows = 1 + CELL * len(deal.fans), ROWS_BESIDE_FANS + 1 + tallest
    else:
        columns, slot_rows = slot_extent(deal)
        width, rows = 2 + HALF * columns, ROWS_BESIDE_FANS + 1 + slot_rows
    if deal.game.rules.cells:
        rows += CELL_ROWS
    if deal.game.rules.talon:
        return max(width, TALON_WIDTH), rows + TALON_ROWS
    return width, rows


def pile_name(game: Variant) -> str:
    """What the screen calls the pile the cards go to: the hole, or the foundation in a
    game with a talon (whose first card starts it)."""
    return "foundation" if game.rules.talon else "hole"


def card_text(card: Card | None, ascii_only: bool) -> Text:
    """`K♥` in red or `K♠` in bold; `KH` with --ascii; `--` for no card."""
    if card is None:
        return Text("--")
    if ascii_only:
        return Text(str(card))
    return Text(card.unicode(), style="red" if card.is_red else "bold")


def cards_line(cards: tuple[Card, ...] | list[Card], ascii_only: bool) -> Text:
    """Cards separated by spaces."""
    return Text(" ").join(card_text(card, ascii_only) for card in cards)


def fan_text(game: Game, fan: int, ascii_only: bool, hinted: bool = False) -> Text:
    """One column: the fan's letter, then its cards bottom → top; the top card marked
    when it is playable (and when a hint names it)."""
    cards = game.position.deal.fans[fan]
    playable = any(move.fan == fan and move.kind is Kind.PLAY for move in game.legal())
    label = Text(f" {FAN_LETTERS[fan]}  ", style="bold reverse" if hinted else "bold")
    out = Text()
    out.append_text(label)
    if not cards:
        out.append("\n " + ("." if ascii_only else "·"), style="dim")
    for i, card in enumerate(cards):
        top = i == len(cards) - 1
        text = card_text(card, ascii_only)
        text.pad_right(CELL - 1 - text.cell_len)
        out.append("\n")
        if top and playable:
            out.append(PLAYABLE_MARK[ascii_only], style="bold green")
            text.stylize(PLAYABLE_STYLE)
        else:
            out.append(" ")
            if top:
                text.stylize("underline")
        out.append_text(text)
    return out


def hole_text(game: Game, ascii_only: bool) -> Text:
    """The hole's top card, then the last cards that went in, newest first."""
    out = Text(f"{pile_name(game.deal.game)}  ", style="bold")
    out.append_text(card_text(game.state.foundation, ascii_only) if game.state.foundation else
                    Text("empty (any card fits)"))
    history = tuple(card for card in game.start.history if isinstance(card, Card)) + \
        game.played  # the cards onto the hole (a history's parks are Moves)
    before = list(reversed(history[:-1]))[:LAST_SHOWN] if history else []
    if before:
        arrow = "<-" if ascii_only else "←"
        out.append(f"   {arrow} ", style="dim")
        shown = cards_line(before, ascii_only)
        shown.stylize("dim")
        out.append_text(shown)
        if len(history) - 1 > LAST_SHOWN:
            out.append(" ...", style="dim")
    return out


def cell_text(deal: Deal, draw: Callable[[Card], Text]) -> Text:
    """`cell: K♥` (`cell: empty`), and the uses made where the game's cell takes a
    limited number of cards: the cell's line of `show` and the game, each drawing the
    card its own way (`draw`)."""
    out = Text("cell: ")
    out.append_text(draw(deal.cell) if deal.cell else Text("empty"))
    uses = deal.game.rules.cell_uses
    if uses:
        out.append(f"   ({deal.parks} of {uses} use{'s' * (uses != 1)} made)")
    return out


def game_cell_text(game: Game, ascii_only: bool, hinted: bool = False) -> Text:
    """The game's cell line: `cell_text`, its card marked when it fits on the hole (0
    plays it), and its label reversed when a hint names the cell's card."""
    deal = game.position.deal
    fits = any(move.kind is Kind.UNPARK for move in game.legal())

    def draw(card: Card) -> Text:
        text = card_text(card, ascii_only)
        if fits:
            text.stylize(PLAYABLE_STYLE)
            return Text(PLAYABLE_MARK[ascii_only], style="bold green") + text
        return text

    out = cell_text(deal, draw)
    if hinted:
        out.stylize("bold reverse", 0, len("cell"))
    return out


def talon_text(game: Game, ascii_only: bool, hinted: bool = False) -> Text:
    """`talon ▸3♠ next, 16 left (t turns it)`, or that it is spent: the next card is
    always playable while there is one (any card goes on the foundation)."""
    out = Text("talon", style="bold reverse" if hinted else "bold")
    out.append(" ")
    card = game.next_talon()
    if card is None:
        out.append("spent: nothing left to turn", style="dim")
        return out
    left = len(game.deal.talon) - game.state.turned
    text = card_text(card, ascii_only)
    text.stylize(PLAYABLE_STYLE)
    out.append(PLAYABLE_MARK[ascii_only], style="bold green")
    out.append_text(text)
    out.append(f" next, {left} left", style="bold")
    out.append("   (t turns it)", style="dim")
    return out


def status_text(game: Game, undos: int, spec: str, coach: bool) -> Text:
    """`score 12/51   moves 12   undos 3   coach on   pysol:2`."""
    out = Text()
    out.append(f"score {game.score}/{game.start.of}", style="bold")
    out.append(f"   moves {len(game.moves)}   undos {undos}   coach "
               f"{'on' if coach else 'off'}   ")
    out.append(spec, style="italic")
    return out


def keys_text(fans: int, talon: bool = False, cell: bool = False) -> str:
    """The keys line; with a talon or a cell two lines, as their keys do not fit in one.
    `fans` 0 is a layout of slots, whose free cards are played by the letters shown
    under them."""
    last = FAN_LETTERS[fans - 1] if fans else "a"
    play = f"a-{last} play" if fans else "a b c.. play the card over it"
    if cell:
        return (f"{play}  {PARK_KEY} then a-{last} park  {UNPARK_KEY} play the cell  "
                "u undo  r redo\nH hint  w coach  s save  N new  ? rules  Q quit")
    if talon:
        return (f"{play}  t or Space turn the talon  u undo  r redo\n"
                "H hint  w coach  s save  N new  ? rules  Q quit")
    return (f"{play}  u undo  r redo  H hint  w coach  s save  N new  ? rules  "
            "Q quit")


KEYS = """\
{fans}  {play}{talon}{cell}
u r  undo (unlimited), redo    N  new deal    ?  these rules    Q  quit
H    hint: the best move, and whether the game can still be won
w    coach on/off: after each move, still winnable? if not, the best score
     still reachable
s    save the moves (blackhole check and --after @FILE read the file)
Commands also work as Shift+letter ({shifted}); {keyed}."""

RULES_WIDTH = 74  # the rules box's text columns
# What a layout of slots is called, by its shape (`blackhole.model.games.Shape`).
SHAPE_NAMES = {Shape.PEAKS: "three peaks", Shape.PYRAMID: "a pyramid"}


def card_word(game: Variant) -> str:
    """What the screen calls a card that may be played: a fan's top card, or a free
    card of a layout of slots."""
    return "top card" if game.chains else "free card"


def cleared_text(game: Variant) -> str:
    """When the tableau is cleared, in the layout's words."""
    return "every fan is empty" if game.chains else "the tableau is cleared"


def rules_text(deal: Deal) -> str:
    """The rules of the deal's game and the keys, written from its fields (the layout,
    the talon, what starts the pile, wrap, what goes on a King, when it is won)."""
    game, pile = deal.game, pile_name(deal.game)
    sizes = dealt_sizes(deal.ranks, game)
    start = {Start.CARD: f"One card starts in the {pile}; the others",
             Start.EMPTY: f"The {pile} starts empty, so the first card is free; the cards",
             Start.TALON: f"The talon's first card starts the {pile}; {game.rules.talon} more "
                          "stay in the talon, and the others"}[game.start]
    talon = " The next talon card may go onto the foundation at any time, on any " \
        "card; there is no redeal." if game.rules.talon else ""
    if game.chains:
        laid = f"{len(sizes)} fans of {game.fan_size}" if len(set(sizes)) == 1 else \
            f"{len(sizes)} fans of {game.fan_size} (the last of {sizes[-1]})"
        free, off = "The top card of a fan (the last in its column)", "off the fans"
    else:
        laid = (f"{SHAPE_NAMES.get(game.shape, 'rows')} of {sum(sizes)} cards, in rows that "
                "overlap: each card lies half over two cards of the row above it")
        free, off = "A free card (one no card lies on any more)", "off the tableau"
    text = [game.title, "", f"{start} lie face up in {laid}.{talon}"]
    top, neighbours = rank_text(deal.ranks), "neighbours" if game.rules.wrap else "not neighbours"
    king = on_king_rule(game, deal.ranks)
    on_king = f" {king[0].upper()}{king[1:]}." if king else ""
    text.append(f"{free} goes onto the {pile} when "
                "its rank is one above or one below the top card there. Suits never "
                f"matter, the direction may change at any move, and {top} and A are "
                f"{neighbours}.{on_king}")
    won = f"every card is in the {pile}" if game.rules.won is Won.ALL else \
        f"{cleared_text(game)} (talon cards may remain)"
    blocked = f"no {card_word(game)} fits" + \
        (" and the talon is spent" if game.rules.talon else "")
    if game.rules.cells:
        once = f" It takes {game.rules.cell_uses} card(s) a deal." if game.rules.cell_uses \
            else " It may be used again and again."
        text.append(f"One free cell: a {card_word(game)} may wait there, which frees the "
                    f"card under it. The cell holds one card at a time, and its card goes "
                    f"onto the {pile} when its rank fits, never back to a fan.{once}")
        won += " and the cell is empty"
        blocked += ", nor the cell's card, and the cell can take no card"
    text.append(f"You win when {won}, and you are blocked when {blocked}. Your score is "
                f"the cards moved {off}, out of {sum(sizes)}.")
    paragraphs = "\n".join(wrap(line, RULES_WIDTH) if line else "" for line in text)
    if game.chains:
        fans, play = f"a-{FAN_LETTERS[len(sizes) - 1]}", "play that fan's top card (or click it)"
    else:
        fans, play = "a b c", "play the free card over that letter"
    keyed = f"the fan keys are {fans}" if game.chains else "a click plays a card too"
    keys = KEYS.format(fans=fans, play=play, keyed=keyed,
                       talon="; t or Space turns the talon" if game.rules.talon else "",
                       cell=(f"\n{PARK_KEY} a-{FAN_LETTERS[len(sizes) - 1]}  park that fan's "
                             f"top card in the cell    {UNPARK_KEY}  play the cell's card "
                             "(or click it)") if game.rules.cells else "",
                       shifted="T U R W S" if game.rules.talon else "U R W S")
    return f"{paragraphs}\n\n{keys}"


def wrap(line: str, width: int) -> str:
    return "\n".join(textwrap.wrap(line, width))
