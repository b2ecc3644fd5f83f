"""Cards: ranks, suits, parsing and writing.

Ranks are integers 1..R (A=1, J=11, Q=12, K=13 in the standard deck) and wrap around,
so with R=13 the king and the ace are adjacent. Suits never matter to the rules; they
only make each card unique.
"""

from __future__ import annotations

from dataclasses import dataclass

from blackhole.base.errors import ArgumentError

SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = frozenset("DH")
RANK_LETTERS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}
_LETTER_RANKS = {letter: rank for rank, letter in RANK_LETTERS.items()}
_SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
STANDARD_RANKS = 13
_RANK_DIGITS = 4  # a rank written with more digits is beyond every deck the tool takes


@dataclass(frozen=True, order=True)
class Card:
    rank: int
    suit: str

    def __str__(self) -> str:
        return rank_text(self.rank) + self.suit

    def unicode(self) -> str:
        """`K♥`, `10♠`: the form people read."""
        text = "10" if self.rank == 10 else rank_text(self.rank)
        return text + SUIT_SYMBOLS[self.suit]

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS


def rank_text(rank: int) -> str:
    return RANK_LETTERS.get(rank, str(rank))


def parse_card(token: str) -> Card:
    """Parse `AS`, `TH`, `10H`, `K♥`, `qd`. Raises ArgumentError (a ValueError) with a
    short reason."""
    text = token.strip()
    if len(text) < 2:
        raise ArgumentError("unknown card")
    rank_part, suit_part = text[:-1].upper(), text[-1]
    suit = _SYMBOL_SUITS.get(suit_part, suit_part.upper())
    if suit not in SUITS:
        raise ArgumentError("unknown suit in card")
    if rank_part in _LETTER_RANKS:
        rank = _LETTER_RANKS[rank_part]
    elif _is_number(rank_part) and not rank_part.startswith("0"):
        rank = int(rank_part)
        if rank == 1:
            raise ArgumentError("unknown rank in card (write the ace as A)")
    else:
        raise ArgumentError("unknown rank in card")
    return Card(rank, suit)


def _is_number(text: str) -> bool:
    """ASCII digits, few enough for any deck a file may hold (`²` and `١` are not ranks)."""
    return text.isascii() and text.isdigit() and len(text) <= _RANK_DIGITS


def deck(ranks: int = STANDARD_RANKS) -> list[Card]:
    """Every card of a deck with `ranks` ranks in each of the four suits, in a fixed order."""
    return [Card(rank, suit) for suit in SUITS for rank in range(1, ranks + 1)]


def rank_adjacent(a: int, b: int, ranks: int = STANDARD_RANKS) -> bool:
    """True when ranks a and b differ by one, with the top rank wrapping to the ace."""
    return (a - b) % ranks in (1, ranks - 1) and a != b


def adjacent_ranks(rank: int, ranks: int = STANDARD_RANKS) -> tuple[int, ...]:
    """The ranks adjacent to `rank` (those `rank_adjacent` accepts), ascending: the rank
    one below and the rank one above, wrapping."""
    return tuple(sorted({other for other in ((rank - 2) % ranks + 1, rank % ranks + 1)
                         if rank_adjacent(rank, other, ranks)}))
