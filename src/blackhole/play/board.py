"""What the game screen draws, as Rich text: the pure part of the interface.

Fans are drawn as columns labelled a, b, c, ...: the bottom card first, the top card
last, every card visible. A top card that fits on the hole carries a marker and a
highlight, so the playable cards read at a glance even without colour (`--ascii`).
"""

from __future__ import annotations

from string import ascii_lowercase

from rich.text import Text

from blackhole.cards import Card
from blackhole.deal import Deal
from blackhole.errors import InputError
from blackhole.game import Game

FAN_LETTERS = ascii_lowercase[:17]  # a..q: the keys that play the fans
MAX_FAN_HEIGHT = 12  # rows a column may take and still fit 24 lines
CELL = 4  # columns per fan: a marker, then the card in three
PLAYABLE_STYLE = "bold black on bright_green"
PLAYABLE_MARK = {False: "▸", True: ">"}  # by ascii_only
LAST_SHOWN = 10  # cards listed after the hole's top card


def check_fits(deal: Deal, source: str) -> None:
    """The game draws 17 fans (a..q) of at most MAX_FAN_HEIGHT cards; a larger layout
    is an InputError naming the deal."""
    if len(deal.fans) > len(FAN_LETTERS):
        raise InputError(f"play draws at most {len(FAN_LETTERS)} fans (a-q); this deal "
                         f"has {len(deal.fans)}", source)
    tallest = max((len(fan) for fan in deal.fans), default=0)
    if tallest > MAX_FAN_HEIGHT:
        raise InputError(f"play draws fans of at most {MAX_FAN_HEIGHT} cards; this deal "
                         f"has one of {tallest}", source)


# Rows of the table besides the fans: the title, the hole between two blank lines, a
# blank line, the status, two message lines, two coach lines and the keys.
ROWS_BESIDE_FANS = 11


def table_size(deal: Deal) -> tuple[int, int]:
    """The columns and rows the table needs to show every fan of `deal` and every line
    under them: a margin column, CELL columns a fan; a label row above the tallest fan."""
    tallest = max((len(fan) for fan in deal.fans), default=0)
    return 1 + CELL * len(deal.fans), ROWS_BESIDE_FANS + 1 + tallest


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
    cards = game.deal.fans[fan][:game.state.heights[fan]]
    playable = any(f == fan for _, f in game.legal())
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
    out = Text("hole  ", style="bold")
    out.append_text(card_text(game.state.hole, ascii_only) if game.state.hole else
                    Text("empty (any card fits)"))
    history = game.start.history + game.played
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


def status_text(game: Game, undos: int, spec: str, coach: bool) -> Text:
    """`score 12/51   moves 12   undos 3   coach on   pysol:2`."""
    out = Text()
    out.append(f"score {game.score}/{game.start.of}", style="bold")
    out.append(f"   moves {len(game.moves)}   undos {undos}   coach "
               f"{'on' if coach else 'off'}   ")
    out.append(spec, style="italic")
    return out


def keys_text(fans: int) -> str:
    last = FAN_LETTERS[fans - 1] if fans else "a"
    return (f"a-{last} play  u undo  r redo  H hint  w coach  s save  N new  ? rules  "
            "Q quit")


RULES = """\
Black Hole (David Parlett)

The ace of spades starts in the hole; the other 51 cards lie face up in
17 fans of 3. The top card of a fan (the last in its column) goes onto
the hole when its rank is one above or one below the hole's top card.
Suits never matter, K and A are neighbours, and the direction may change
at any move. Nothing else moves; an empty fan stays empty. You win when
every card is in the hole, and you are blocked when no top card fits.
Your score is the cards moved, out of 51.

a-q  play the top card of that fan (or click the fan)
u r  undo (unlimited), redo
H    hint: the best move, and whether the game can still be won
w    coach on/off: after each move, still winnable? if not, the best
     score still reachable
s    save the moves (blackhole check and --after @FILE read the file)
N    a new random deal    ?  these rules    Q  quit
Commands also work as Shift+letter (U R W S); the fan keys are a-q.
"""
