"""The layout model: a tableau is cards in slots and the pairs of slots that cover one
another.

A slot holds one card. `covers` lists (upper, lower) pairs: the card in `lower` is free,
and may be played, once every card covering it has been played. Fans, columns, peaks and
pyramids are shapes of this one model:

- a *chain* layout (Black Hole's fans, All in a Row's and Golf's columns) has each card
  covered by the one card on it in its column; `Tableau.of_fans` builds one;
- in a layout of peaks or a pyramid a card waits for the two cards overlapping it, so
  the cover relation is a graph, not a set of chains (`Tableau.peaks`, TriPeaks' three
  peaks; `Tableau.pyramid`, Escalator's).

A tableau lists the cards still there: a slot played is not in it, so a position's
tableau is smaller than its deal's. Each slot has a place (column, row) where it is
drawn and by which a player names it; in a chain layout the column is the fan (0-based)
and the row the height from the bottom (a fan's top card, drawn lowest, is free); in
peaks and pyramids, a half-card column and the row from the top (the bottom row is
free). `columns` counts the columns, empty ones too, so
a fan played out keeps its number.

Every layer reads a layout through this model: the rules engine (a card is free when
every card covering it is gone), the Problem's precedence pairs (a cover pair is one),
positions and the texts. The layers that rely on chains (the look's memo, which merges
interchangeable fans; the board text; the play screen's fans) ask `chains` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from blackhole.base.errors import InputError
from blackhole.model.cards import Card

Place = tuple[int, int]  # (column, row): row 0 is a chain's bottom card


@dataclass(frozen=True)
class Tableau:
    cards: tuple[Card, ...]  # slot → card
    covers: tuple[tuple[int, int], ...]  # (upper, lower): lower waits for upper
    places: tuple[Place, ...]  # slot → (column, row)
    columns: int  # the columns a player names, empty ones too

    @classmethod
    def of_fans(cls, fans: tuple[tuple[Card, ...], ...]) -> Tableau:
        """The chain layout of `fans` (each bottom → top): slots fan by fan, bottom first,
        each card covered by the one on it."""
        cards: list[Card] = []
        places: list[Place] = []
        covers: list[tuple[int, int]] = []
        for column, fan in enumerate(fans):
            for row, card in enumerate(fan):
                if row:
                    covers.append((len(cards), len(cards) - 1))
                cards.append(card)
                places.append((column, row))
        made = cls(tuple(cards), tuple(covers), tuple(places), len(fans))
        made.__dict__["fans"] = tuple(tuple(fan) for fan in fans)  # chains, as built
        return made

    @classmethod
    def pyramid(cls, cards: Sequence[Card], rows: int = 7) -> Tableau:
        """A pyramid of `rows` rows (Escalator's 1 to 7 cards), dealt row by row from the
        top, each left to right: card (r, i) lies on the two cards (r + 1, i) and
        (r + 1, i + 1) of the row below it and waits for both; the bottom row is free.
        Places are (half-card column, row from the top)."""
        starts = [r * (r + 1) // 2 for r in range(rows + 1)]
        covers = [(starts[r + 1] + i + j, starts[r] + i)
                  for r in range(rows - 1) for i in range(r + 1) for j in (0, 1)]
        places = [(rows - 1 - r + 2 * i, r) for r in range(rows) for i in range(r + 1)]
        return cls._shaped(cards, covers, places)

    @classmethod
    def peaks(cls, cards: Sequence[Card]) -> Tableau:
        """TriPeaks' three peaks: rows of 3, 6, 9 and 10 cards, dealt row by row from the
        top, each left to right (slots 0-2, 3-8, 9-17, 18-27). Peak p's apex (0, p)
        lies on (1, 2p) and (1, 2p + 1); (1, 2p + i) lies on (2, 3p + i) and
        (2, 3p + i + 1); (2, k) lies on the bottom row's (3, k) and (3, k + 1), which is
        free. Places are (half-card column, row from the top)."""
        apex, second, third, bottom = 0, 3, 9, 18
        covers = [(second + 2 * p + i, apex + p) for p in range(3) for i in (0, 1)]
        covers += [(third + 3 * p + i + j, second + 2 * p + i)
                   for p in range(3) for i in (0, 1) for j in (0, 1)]
        covers += [(bottom + k + j, third + k) for k in range(9) for j in (0, 1)]
        places = ([(6 * p + 3, 0) for p in range(3)]
                  + [(6 * p + 2 * i + 2, 1) for p in range(3) for i in (0, 1)]
                  + [(2 * k + 1, 2) for k in range(9)] + [(2 * k, 3) for k in range(10)])
        return cls._shaped(cards, covers, places)

    @classmethod
    def _shaped(cls, cards: Sequence[Card], covers: list[tuple[int, int]],
                places: list[Place]) -> Tableau:
        if len(cards) != len(places):
            raise InputError(f"the shape holds {len(places)} cards", "tableau",
                             token=f"{len(cards)} cards")
        return cls(tuple(cards), tuple(covers), tuple(places),
                   max(column for column, _ in places) + 1)

    def __len__(self) -> int:
        return len(self.cards)

    @cached_property
    def over(self) -> tuple[int, ...]:
        """Slot → the bitmask of the slots covering it (bit s for slot s)."""
        return self._shape.over

    @cached_property
    def under(self) -> tuple[tuple[int, ...], ...]:
        """Slot → the slots it covers."""
        return self._shape.under

    @cached_property
    def slot_of(self) -> dict[Card, int]:
        return {card: slot for slot, card in enumerate(self.cards)}

    @cached_property
    def fans(self) -> tuple[tuple[Card, ...], ...] | None:
        """The layout's chains, one a column, bottom → top, when it is made of chains
        (exactly the covers `of_fans` gives, rows numbered from 0); None otherwise."""
        lengths = self._shape.chains
        if lengths is None:
            return None
        chains, start = [], 0
        for length in lengths:
            chains.append(self.cards[start:start + length])
            start += length
        return tuple(chains)

    @property
    def _shape(self) -> _Shape:
        return _shape_of(self.covers, self.places, self.columns)

    @property
    def chains(self) -> bool:
        """True when the layout is made of chains (see `fans`)."""
        return self.fans is not None

    def free(self, gone: int = 0) -> list[int]:
        """The slots not in `gone` (a bitmask) whose every covering slot is, in slot
        order: the cards that may be played."""
        return [slot for slot, over in enumerate(self.over)
                if not gone >> slot & 1 and over & ~gone == 0]

    def is_free(self, slot: int, gone: int = 0) -> bool:
        return not gone >> slot & 1 and self.over[slot] & ~gone == 0

    def top_of(self, column: int, gone: int = 0) -> int | None:
        """The free slot of `column` drawn highest (a chain's top card), or None."""
        found = [slot for slot in self.free(gone) if self.places[slot][0] == column]
        return max(found, key=lambda slot: self.places[slot][1], default=None)

    def without(self, gone: int) -> Tableau:
        """The tableau left when the slots in `gone` are played: the others renumbered
        in order, with their places and the covers among them."""
        kept = [slot for slot in range(len(self.cards)) if not gone >> slot & 1]
        new = {slot: index for index, slot in enumerate(kept)}
        return Tableau(tuple(self.cards[slot] for slot in kept),
                       tuple((new[upper], new[lower]) for upper, lower in self.covers
                             if upper in new and lower in new),
                       tuple(self.places[slot] for slot in kept), self.columns)

    def depth(self) -> tuple[int, ...]:
        """Slot → the most cards lying on it along covers (0: free)."""
        fans = self.fans
        if fans is not None:  # a chain's: the cards above it in its fan
            return tuple(len(fans[column]) - 1 - row for column, row in self.places)
        depth = [0] * len(self.cards)
        for slot in self.topological():
            for lower in self.under[slot]:
                depth[lower] = max(depth[lower], depth[slot] + 1)
        return tuple(depth)

    def topological(self) -> list[int]:
        """The slots, each before every slot it covers; fewer than all of them when the
        covers run in a circle (then some card could never be played)."""
        return list(self._shape.order)


@dataclass(frozen=True)
class _Shape:
    """What a tableau's shape (its covers and places, not its cards) says, worked out once
    a shape: every deal of a game shares one (`_shape_of`)."""

    over: tuple[int, ...]  # Tableau.over
    under: tuple[tuple[int, ...], ...]  # Tableau.under
    order: tuple[int, ...]  # Tableau.topological
    chains: tuple[int, ...] | None  # each chain's length, when it is made of chains


@lru_cache(maxsize=64)
def _shape_of(covers: tuple[tuple[int, int], ...], places: tuple[Place, ...],
              columns: int) -> _Shape:
    size = len(places)
    masks = [0] * size
    below: list[list[int]] = [[] for _ in range(size)]
    for upper, lower in covers:
        masks[lower] |= 1 << upper
        below[upper].append(lower)
    under = tuple(tuple(slots) for slots in below)
    waiting = [mask.bit_count() for mask in masks]
    ready = [slot for slot, count in enumerate(waiting) if count == 0]
    order: list[int] = []
    while ready:
        slot = ready.pop()
        order.append(slot)
        for lower in under[slot]:
            waiting[lower] -= 1
            if not waiting[lower]:
                ready.append(lower)
    return _Shape(tuple(masks), under, tuple(order), _chain_lengths(covers, places, columns))


def _chain_lengths(covers: tuple[tuple[int, int], ...], places: tuple[Place, ...],
                   columns: int) -> tuple[int, ...] | None:
    """Each column's length when the shape is exactly what `Tableau.of_fans` lays out
    (slots fan by fan, bottom first, each covered by the one on it), else None."""
    rows: list[list[int]] = [[] for _ in range(columns)]
    for column, row in places:
        if not 0 <= column < columns:
            return None
        rows[column].append(row)
    if any(sorted(fan) != list(range(len(fan))) for fan in rows):
        return None
    lengths = tuple(len(fan) for fan in rows)
    laid = [(column, row) for column, length in enumerate(lengths) for row in range(length)]
    chained = [(slot, slot - 1) for slot, (_, row) in enumerate(laid) if row]
    return lengths if tuple(laid) == places and tuple(chained) == covers else None
