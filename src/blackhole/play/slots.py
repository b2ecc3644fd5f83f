"""What the game screen draws of a layout not made of fans (TriPeaks' three peaks,
Escalator's pyramid), as Rich text, and which card a key or a click names.

Every card lies at its slot's place (`blackhole.model.tableau.Tableau.places`: a
half-card column, and the row from the top). A row is a line, drawn top to bottom, and
a card takes two half-card columns of `board.HALF` characters, so each card lies half a
card to the side of the cards of the row above it, as they overlap on a table. A free
card that fits on the foundation carries the marker and highlight of a fan's playable
top card; a free card that does not fit is underlined; a covered card is dimmed; a
cleared slot is blank.

A player names a free card by a letter: the free cards, left to right, are a, b, c, ...
(`free_cards`), and each one's letter is drawn under it, in the line its covering cards
left blank when they went. The letters follow the layout as it clears, so a player reads
the key off the screen rather than counting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from blackhole.model.cards import Card
from blackhole.model.games import misfit
from blackhole.play.board import (
    FAN_LETTERS,
    HALF,
    PLAYABLE_MARK,
    PLAYABLE_STYLE,
    card_text,
    slot_extent,
)
from blackhole.play.game import Game

CARD_WIDTH = 2 * HALF  # characters a card's place takes: its marker, its name, a gap


@dataclass(frozen=True)
class Spot:
    """A card still on the table, where the screen draws it."""

    card: Card
    column: int  # half-card column
    row: int  # from the top
    free: bool


def spots(game: Game) -> list[Spot]:
    """The cards still on the table, in slot order."""
    tableau, gone = game.deal.tableau, game.state.gone
    return [Spot(card, column, row, tableau.is_free(slot, gone))
            for slot, (card, (column, row)) in enumerate(zip(tableau.cards, tableau.places,
                                                             strict=True))
            if not gone >> slot & 1]


def free_cards(game: Game) -> list[Card]:
    """The free cards, left to right (by half-card column, then from the top): the card
    the letter a plays first, then b, ..."""
    free = sorted((spot for spot in spots(game) if spot.free),
                  key=lambda spot: (spot.column, spot.row))
    return [spot.card for spot in free][:len(FAN_LETTERS)]


def slots_text(game: Game, ascii_only: bool, hinted: Card | None = None) -> Text:
    """The layout: each row a line, each card at its half-card column, and each free
    card's letter in the line under it (reversed for the card a hint names)."""
    columns, rows = slot_extent(game.deal)
    lines: list[list[tuple[int, Text]]] = [[] for _ in range(rows + 1)]
    playable = {move.card for move in game.legal()}
    letters = {card: FAN_LETTERS[i] for i, card in enumerate(free_cards(game))}
    for spot in spots(game):
        x = HALF * spot.column
        text = card_text(spot.card, ascii_only)
        text.pad_right(CARD_WIDTH - 1 - text.cell_len)
        out = Text()
        if spot.card in playable:
            out.append(PLAYABLE_MARK[ascii_only], style="bold green")
            text.stylize(PLAYABLE_STYLE)
        else:
            out.append(" ")
            text.stylize("underline" if spot.free else "dim")
        out.append_text(text)
        lines[spot.row].append((x, out))
        if spot.card in letters:
            style = "bold reverse" if spot.card == hinted else "bold"
            lines[spot.row + 1].append((x + 1, Text(letters[spot.card], style=style)))
    drawn = []
    for pieces in lines:
        line, at = Text(), 0
        for x, piece in sorted(pieces, key=lambda item: item[0]):
            line.append(" " * max(0, x - at))
            line.append_text(piece)
            at = max(at, x) + piece.cell_len
        line.append(" " * max(0, HALF * columns - at))
        drawn.append(line)
    return Text("\n").join(drawn)


def card_at(game: Game, x: int, y: int) -> Card | None:
    """The card drawn at character `x` of line `y` of `slots_text`, or the free card
    whose letter is there; None for a blank."""
    for spot in spots(game):
        if HALF * spot.column <= x < HALF * spot.column + CARD_WIDTH and (
                y == spot.row or (spot.free and y == spot.row + 1)):
            return spot.card
    return None


def refusal(game: Game, card: Card, shown: Callable[[Card | None], str]) -> str:
    """Why `card` does not play now, in the screen's names (`shown`): covered, or not
    fitting on the foundation as the deal's game says."""
    spot = next((spot for spot in spots(game) if spot.card == card), None)
    if spot is None:
        return f"{shown(card)} is not on the table"
    if not spot.free:
        return f"{shown(card)} is covered: the cards lying on it must go first"
    hole, deal = game.state.foundation, game.deal
    why = misfit(deal.game, card.rank, hole and hole.rank, deal.ranks)
    return f"{shown(card)} does not fit on {shown(hole)}: {why}"
