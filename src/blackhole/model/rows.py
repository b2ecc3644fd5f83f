"""The rows of a layout that is not fans (TriPeaks' peaks, Escalator's pyramid), as the
board and JSON texts write them.

A player copies such a deal from another app without counting slots: the rows run top
to bottom and each row's slots left to right, as the cards are drawn, with `-` (JSON:
null) for a slot already cleared. The game's shape (`blackhole.model.games.Shape`)
says how many rows there are and how many slots each holds, so the text need not say
which cards overlap which: that comes from the shape (`blackhole.model.deal.lay_out`).

`rows_of` writes a deal's rows and `tableau_of_rows` reads them back, checking the
count of rows and of slots in each, and that no card lies on a cleared slot (a card is
played only when every card covering it is gone).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from blackhole.base.errors import InputError
from blackhole.model.cards import Card, deck
from blackhole.model.deal import dealt_sizes, lay_out
from blackhole.model.games import Variant
from blackhole.model.tableau import Tableau

CLEARED = "-"  # how a board writes a cleared slot


def full_shape(game: Variant, ranks: int) -> Tableau:
    """The game's fresh tableau for a deck of `ranks`, with stand-in cards: its slots,
    covers and places, which are all a layout's text reads."""
    size = sum(dealt_sizes(ranks, game))
    return lay_out(game, deck(ranks)[:size], game.name)


def shape_rows(shape: Tableau) -> list[list[int]]:
    """The slots of a shape by rows, top to bottom, each row left to right."""
    rows: dict[int, list[int]] = {}
    for slot, (_, row) in enumerate(shape.places):
        rows.setdefault(row, []).append(slot)
    return [sorted(rows[row], key=lambda slot: shape.places[slot][0]) for row in sorted(rows)]


def rows_of(tableau: Tableau, game: Variant, ranks: int) -> list[list[Card | None]]:
    """The cards of `tableau` (a deal's or position's) by the rows of the game's shape;
    None where a slot is cleared."""
    return [[placed.card for placed in row] for row in placed_rows(tableau, game, ranks)]


class Placed(NamedTuple):
    """A slot as drawn: its half-card column, its card (None: cleared) and whether the
    card is free (every card on it gone)."""

    column: int
    card: Card | None
    free: bool


def placed_rows(tableau: Tableau, game: Variant, ranks: int) -> list[list[Placed]]:
    """The slots of the game's shape by rows, top to bottom, each left to right, holding
    `tableau`'s cards (a deal's or position's): what a board's rows and `show` draw."""
    shape = full_shape(game, ranks)
    at = dict(zip(tableau.places, range(len(tableau)), strict=True))
    free = set(tableau.free())
    rows = []
    for row in shape_rows(shape):
        placed = []
        for slot in row:
            place = shape.places[slot]
            held = at.get(place)
            placed.append(Placed(place[0], None if held is None else tableau.cards[held],
                                 held in free))
        rows.append(placed)
    return rows


def rows_text(tableau: Tableau, game: Variant, ranks: int) -> list[str]:
    """The board's lines of the rows: each card (or `-`) at its place, two characters a
    half-card column, so the lines draw the shape; a reader splits them at spaces."""
    lines = []
    for row in placed_rows(tableau, game, ranks):
        line = ""
        for column, card, _ in row:
            line = line.ljust(2 * column) + (CLEARED if card is None else str(card))
        lines.append(line.rstrip())
    return lines


def tableau_of_rows(rows: Sequence[Sequence[Card | None]], lines: Sequence[int | None],
                    tokens: Sequence[str], game: Variant, ranks: int,
                    source: str) -> Tableau:
    """The tableau the rows hold (None: a slot cleared), in the shape of `game`; `lines`
    (the line of each row, None when unknown) and `tokens` (each row as written) name
    an error's place. Too many or too few rows or slots, or a card lying on a cleared
    slot, is an InputError."""
    shape = full_shape(game, ranks)
    slots = shape_rows(shape)
    wanted = " ".join(str(len(row)) for row in slots)
    last = lines[-1] if lines else None
    if len(rows) != len(slots):
        raise InputError(f"{game.title} is laid out in {len(slots)} rows (of {wanted} "
                         f"cards, top to bottom), found {len(rows)}", source, last,
                         tokens[-1] if tokens else "rows")
    cards = list(shape.cards)
    gone = 0
    for row, want, line, token in zip(rows, slots, lines, tokens, strict=True):
        if len(row) != len(want):
            raise InputError(f"this row holds {len(want)} cards or '{CLEARED}' (rows of "
                             f"{wanted}), found {len(row)}", source, line, token)
        for slot, card in zip(want, row, strict=True):
            if card is None:
                gone |= 1 << slot
            else:
                cards[slot] = card
    for slot in range(len(cards)):
        if not gone >> slot & 1 and shape.under[slot] and any(
                gone >> lower & 1 for lower in shape.under[slot]):
            index = next(i for i, row in enumerate(slots) if slot in row)
            raise InputError(f"{cards[slot]} lies on a cleared slot: a card is played only "
                             "once every card on it is gone", source, lines[index],
                             str(cards[slot]))
    full = Tableau(tuple(cards), shape.covers, shape.places, shape.columns)
    return full.without(gone)
