"""The deal model: a layout of cards (`Deal`) and a deal part played (`Position`).

These are values, and the checks that keep them whole: each card of the deck lies at most
once, the hole's card on no fan, and a position's history is a line that plays. How a
deal is written, where it comes from and how moves reach a position live in the layers
above, each importing only the ones below it:

- `blackhole.model.deal` (this module): the model, on `cards` and `errors` alone;
- `blackhole.model.formats`: the board and JSON texts of a deal or position, read and written;
- `blackhole.model.sources`: the deal spec grammar (`pysol:N`, `random:SEED`, files, `-`,
  ranges, folders, `@FILE` lists) and reading the files it names;
- `blackhole.model.rules` and `blackhole.model.solutions`: the rules engine and solution files;
- `blackhole.model.positions`: a spec's position with `--after` played on it, and the moves an
  option or a solution file names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple

from blackhole.base.errors import InputError
from blackhole.model.cards import STANDARD_RANKS, SUITS, Card, deck, parse_card
from blackhole.model.games import (
    BLACK_HOLE,
    Shape,
    Start,
    Variant,
    Won,
    fitting,
    rank_fits,
)
from blackhole.model.tableau import Tableau

FOUNDATION_SPADE_ACE = Card(1, "S")


def dealt_sizes(ranks: int, game: Variant = BLACK_HOLE) -> tuple[int, ...]:
    """The sizes of the fans of a fresh deal of `game` with a deck of `ranks` ranks per
    suit, as every source deals it: the game's fans when it fixes their number (All in a
    Row 13 of 4, Golf 7 of 5), else the cards off the foundation and the talon in fans of
    the game's size, the last holding what is left (Black Hole: 17 of 3 at 13 ranks). A
    layout that is not fans (peaks, a pyramid) is one group of every such card (28 in
    TriPeaks and Escalator)."""
    cards = len(SUITS) * ranks - game.rules.talon - (0 if game.start is Start.EMPTY else 1)
    return dealt_sizes_for(cards, game) if game.chains else (cards,)


def lay_out(game: Variant, cards: Sequence[Card], source: str = "deal") -> Tableau:
    """The tableau of a fresh deal of `game` from its tableau cards in the order dealt:
    fans of the game's sizes (each bottom → top), TriPeaks' peaks or a pyramid row by row
    from the top, each row left to right. A count of cards the shape cannot hold is an
    InputError naming `source`."""
    if game.shape is Shape.PEAKS:
        return Tableau.peaks(cards)
    if game.shape is Shape.PYRAMID:
        rows = round(((8 * len(cards) + 1) ** 0.5 - 1) / 2)
        if rows * (rows + 1) // 2 != len(cards):
            raise InputError("a pyramid holds 1, 3, 6, 10, ... cards (rows of 1, 2, 3, ...)",
                             source, token=f"{len(cards)} cards")
        return Tableau.pyramid(cards, rows)
    fans, first = [], 0
    for size in dealt_sizes_for(len(cards), game):
        fans.append(tuple(cards[first:first + size]))
        first += size
    return Tableau.of_fans(tuple(fans))


def dealt_sizes_for(cards: int, game: Variant) -> tuple[int, ...]:
    """Fans of the game's size holding `cards` cards, the last holding what is left (or
    the game's fixed number of fans)."""
    if game.fans is not None:
        return (game.fan_size,) * game.fans
    return tuple(min(game.fan_size, cards - first) for first in range(0, cards, game.fan_size))


class Kind(StrEnum):
    """What a move does; every layer names a move's kind by these."""

    PLAY = "play"  # a free tableau card onto the foundation
    TURN = "turn"  # the talon's next card onto the foundation
    PARK = "park"  # a free tableau card into the free cell (Worm Hole)
    UNPARK = "unpark"  # the cell's card onto the foundation


class Move(NamedTuple):
    """A move: its card, its fan (0-based; the column of the card's slot, None for a talon
    card) and its kind. Every answer (`Solution.moves`, `Best.moves`, `Position.after`,
    the legal moves of a state) gives all three. A move as a user gives it (a solution
    file, `--after`) may give only the card, or only the fan, and no kind (None): the
    card then says which it is (the cell's card is an unpark, a talon card a turn, any
    other a play; a park is always named so). `card, fan, kind = move` reads it.
    `str(move)` is the move as a user writes it: its card (`park:KH` for a park), else
    its fan numbered from 1 (`fan 3`, `park:fan 3`), or `talon`."""

    card: Card | None = None
    fan: int | None = None
    kind: Kind | None = None

    @classmethod
    def turn(cls, card: Card | None = None) -> Move:
        """Turning the talon's next card (`card`, when known)."""
        return cls(card, None, Kind.TURN)

    @classmethod
    def park(cls, card: Card | None = None, fan: int | None = None) -> Move:
        """Moving a fan's top card (`card`, or `fan`'s) into the free cell."""
        return cls(card, fan, Kind.PARK)

    @classmethod
    def unpark(cls, card: Card | None = None) -> Move:
        """Playing the cell's card (`card`, when known) onto the foundation."""
        return cls(card, None, Kind.UNPARK)

    def __str__(self) -> str:
        if self.card is not None:
            named = str(self.card)
        elif self.kind is Kind.TURN:
            named = "talon"
        elif self.kind is Kind.UNPARK:
            named = "cell"
        else:
            named = "fan " + (str(self.fan + 1) if self.fan is not None and self.fan >= 0
                              else str(self.fan))
        return f"{PARK_PREFIX}{named}" if self.kind is Kind.PARK else named


# How a park is written where a move is a token (`--after`, a solution file, "history").
PARK_PREFIX = "park:"


@dataclass(frozen=True)
class Deal:
    """A layout: the tableau (`blackhole.model.tableau.Tableau`, the cards and what covers
    them; a tuple of fans, each bottom → top, is read as `Tableau.of_fans` of them), the
    foundation card (None for an empty foundation), the talon (next card first; empty
    but in Golf) and the game whose rules it is played by (`blackhole.model.games`).

    It may also hold a *position*, a deal part played: the tableau holds the cards still
    there, `foundation` is the hole's top card, and cards of the deck that lie nowhere
    are already in the hole. Each card lies at most once, the hole's card in no slot;
    only an unplayed All in a Row has an empty foundation, so then every card is in the
    tableau.

    In a game with a free cell (Worm Hole), `cell` is the card waiting in it (None: the
    cell is empty) and `parks` counts the cards put into it since the deal started, which
    a game whose cell takes a limited number (`Rules.cell_uses`) reads.
    """

    tableau: Tableau
    foundation: Card | None = FOUNDATION_SPADE_ACE
    ranks: int = STANDARD_RANKS
    name: str = field(default="", compare=False)
    talon: tuple[Card, ...] = ()
    game: Variant = BLACK_HOLE
    cell: Card | None = None
    parks: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.tableau, Tableau):
            object.__setattr__(self, "tableau",
                               Tableau.of_fans(tuple(tuple(fan) for fan in self.tableau)))
        if self.tableau.columns > self.deck_size:  # every fan starts with a card
            raise InputError(f"more fans than the {self.deck_size} cards of the deck",
                             self.name or "deal", token=f"{self.tableau.columns} fans")
        chains = self.tableau.chains
        if not chains and self.game.chains:
            raise InputError(f"{self.game.title} is played on fans, and this layout has "
                             "cards that wait for others than the one on them",
                             self.name or "deal", token="covers")
        if not chains and len(self.tableau.topological()) != len(self.tableau):
            raise InputError("the tableau's covers run in a circle", self.name or "deal",
                             token="covers")
        self._check_cell()
        entries: list[Entry] = [(card, None, None) for card in self.tableau.cards]
        entries.extend((card, None, None) for card in self.talon)
        if self.cell is not None:
            entries.append((self.cell, None, "cell"))
        if self.foundation is not None:
            entries.insert(0, (self.foundation, None, None))
        check_deck(entries, self.ranks, self.name or "deal", self.foundation)

    def _check_cell(self) -> None:
        refused = cell_refusal(self.game, self.cell, self.parks)
        if refused:
            raise InputError(refused, self.name or "deal",
                             token=str(self.cell) if self.cell is not None else "parks")

    @property
    def fans(self) -> tuple[tuple[Card, ...], ...]:
        """The fans (or columns), each bottom → top, of a layout made of chains; an
        InputError for any other layout, whose layers read `tableau`."""
        fans = self.tableau.fans
        if fans is None:
            raise InputError(f"{self.game.title}'s layout is not made of fans",
                             self.name or "deal", token="fans")
        return fans

    @cached_property
    def talon_at(self) -> dict[Card, int]:
        """Talon card → its place in the talon (0: the next one)."""
        return {card: index for index, card in enumerate(self.talon)}

    @cached_property
    def onto(self) -> tuple[tuple[int, ...], ...]:
        """onto[h]: the ranks a tableau card may have to go on the foundation's top rank
        h (0: an empty foundation), as the game says (`games.fitting`)."""
        return fitting(self.game, self.ranks)

    @property
    def cards_in_fans(self) -> int:
        """The cards in the tableau."""
        return len(self.tableau)

    @property
    def turned(self) -> int:
        """The talon cards turned onto the foundation since the deal started."""
        return self.game.rules.talon - len(self.talon)

    @property
    def deck_size(self) -> int:
        return len(SUITS) * self.ranks

    def where(self) -> dict[Card, tuple[int, int]]:
        """Each tableau card's place: (column, row), a fan's (fan index, height from
        the bottom)."""
        return dict(zip(self.tableau.cards, self.tableau.places, strict=True))


# card, line number, the token as written (None: the card as `str` writes it)
Entry = tuple[Card, int | None, str | None]


def cell_refusal(game: Variant, cell: Card | None, parks: int) -> str:
    """Why a layout may not hold `cell` in its free cell after `parks` parks ("" when it
    may): a cell card or parks only in a game with a cell, at least one park when a card
    is in the cell, and no more than the game's cell takes."""
    rules = game.rules
    if (cell is not None or parks) and not rules.cells:
        return f"{game.title} has no cell"
    least, most = int(cell is not None), rules.cell_uses or None
    if parks < least or (most is not None and parks > most):
        bound = f"{least} to {most}" if most is not None else f"at least {least}"
        return (f"the cards parked number {bound} here ({game.title}, "
                f"{'a card' if least else 'no card'} in the cell), not {parks}")
    return ""


def move_token(token: str, source: str, line: int | None = None) -> Card | Move:
    """A move as a token names it: a card name (`KH`), or `park:KH` for a park. Anything
    else is an InputError naming `source`, `line` and the token."""
    named = token[len(PARK_PREFIX):] if token.lower().startswith(PARK_PREFIX) else token
    try:
        card = parse_card(named)
    except ValueError as error:
        raise InputError(str(error), source, line, token) from None
    return card if named is token else Move.park(card)


def check_deck(entries: list[Entry], ranks: int, source: str, hole: Card | None) -> None:
    """Each card of the deck at most once, the hole's card (the first entry when `hole` is
    set) on no fan, and every card present when the foundation is empty; the first
    offence is reported with its line."""
    if ranks < 1:
        raise InputError("a deck needs at least one rank", source, token=str(ranks))
    seen: set[Card] = set()
    for card, line, token in entries:
        if not 1 <= card.rank <= ranks or card.suit not in SUITS:
            raise InputError(f"card not in a {ranks}-rank deck", source, line,
                             token or str(card))
        held = len(seen)
        seen.add(card)
        if len(seen) == held:  # it was there already (one hash a card, not two)
            reason = "the hole's card cannot also lie on a fan" if card == hole \
                else "duplicate card"
            raise InputError(reason, source, line, token or str(card))
    if hole is None and len(seen) < len(SUITS) * ranks:
        missing = sorted(set(deck(ranks)) - seen, key=lambda c: (c.suit, c.rank))
        last_line = max((line for _, line, _ in entries if line is not None), default=None)
        names = " ".join(str(c) for c in missing[:6]) + (" ..." if len(missing) > 6 else "")
        raise InputError(f"{len(missing)} card(s) missing (with an empty foundation nothing "
                         "has been played, so every card lies on a fan)", source, last_line,
                         names)


@dataclass(frozen=True)
class Position:
    """A deal part played. `deal` is the layout now; `moved` counts the cards moved onto
    the hole since the start and `of` the cards the whole deal moves (51 for a standard
    deal), so a line from here scores `moved` + the cards it plays. `history` holds the
    cards moved, in order, when they are known (all `moved` of them), else it is empty.
    `after` holds the moves (card, 0-based fan) that `--after` played on the position a
    spec holds to reach this one: an answer from here replays from the spec after them.
    It says how the position was reached, not what it is, so equality ignores it. In a
    game with a cell the history holds each park as its Move (`Move.park(card)`, no fan),
    where it was made, and the card again where it reached the hole."""

    deal: Deal
    moved: int
    of: int
    history: tuple[Card | Move, ...] = ()
    after: tuple[Move, ...] = field(default=(), compare=False)

    @property
    def made(self) -> int:
        """The moves made since the start of the deal: the `moved` cards onto the hole,
        the talon cards turned and the cards parked in the cell. Every count of moves
        reads it: `history` holds this many when known, and a line from here numbers its
        first move `made + 1`."""
        return self.moved + self.deal.turned + self.deal.parks

    @property
    def history_known(self) -> bool:
        """True when `history` holds every move made (`made`)."""
        return len(self.history) == self.made

    @property
    def progress(self) -> str:
        """Where the position stands: the cards moved of the deal's, and the talon cards
        turned when there are any (moves too, though they score nothing)."""
        turned = self.deal.turned
        talon = f", {turned} talon card{'s' * (turned != 1)} turned" if turned else ""
        return f"{self.moved} of {self.of} moved{talon}"


def cards_to_move(deal: Deal) -> int:
    """The cards the whole deal moves, as its game counts a win: the deck less the hole's
    starting card (All in a Row starts with an empty hole, so all of it), or the tableau
    cards only when talon cards may remain (Golf)."""
    game = deal.game
    if game.rules.won is Won.TABLEAU:
        return sum(dealt_sizes(deal.ranks, game))
    return deal.deck_size - (0 if game.start is Start.EMPTY else 1)


# An entry of a history as read: the card moved onto the hole or a park (a Move), its line
# number and its token as written
HistoryEntry = tuple[Card | Move, int | None, str | None]


def position_of(deal: Deal, history: list[HistoryEntry] | None = None,
                source: str = "") -> Position:
    """The position a layout shows: the cards on no fan, in no cell and not on the hole
    were moved. A fresh deal is `Position(deal, 0, deal.cards_in_fans, ())`. `history`
    (card or park, line, token), when given, must name exactly the moved cards, the last
    on the hole, and the parks made."""
    of = cards_to_move(deal)
    moved = of - deal.cards_in_fans - (deal.cell is not None)
    shown = Position(deal, moved, of, ())
    if not history:
        return shown
    source = source or deal.name or "deal"
    if len(history) != shown.made:
        turned = f" and {deal.turned} talon cards turned" if deal.turned else ""
        raise InputError(f"\"history\" holds {len(history)} moves but the layout shows "
                         f"{moved} cards moved{turned}", source, history[-1][1], "history")
    on_fans = set(deal.where()) | set(deal.talon)
    seen: set[Card] = set()
    parked: set[Card] = set()
    for entry, line, token in history:
        card = entry.card if isinstance(entry, Move) else entry
        if card is None or not 1 <= card.rank <= deal.ranks:
            raise InputError(f"card not in a {deal.ranks}-rank deck", source, line, token)
        went = parked if isinstance(entry, Move) else seen
        if card in on_fans or card in went:
            where = "lies on a fan" if card in on_fans else \
                "is parked twice" if went is parked else "is moved twice"
            raise InputError(f"a card of \"history\" {where}", source, line, token)
        went.add(card)
    last = next((entry for entry in reversed(history) if not isinstance(entry[0], Move)),
                None)
    if last is not None and last[0] != deal.foundation:
        raise InputError("the last card of \"history\" must be the hole's card", source,
                         last[1], last[2])
    _check_history_plays(deal, history, seen | parked | on_fans, source)
    return Position(deal, moved, of, tuple(entry for entry, _, _ in history))


# States the search of `unreachable_top` visits at most; past them it stops and the file
# is read: a question left open refuses nothing.
REACH_BUDGET = 20_000


def unreachable_top(deal: Deal) -> str:
    """Why no legal line of the deal's game leaves the foundation's card on top, or ""
    when some line may (or the search ran past REACH_BUDGET states). The cards on the
    foundation are those on no fan and in no talon; a line laid them there one by one,
    the first (the starting card) on nothing, each other one a talon card turned (on
    anything; as many as `deal.turned`) or a card off a fan that fits, by the game's
    `rank_fits`, on the card before it. So the question is whether they can be ordered
    so, ending with the foundation's card. Which fan each card came off does not matter:
    put back in reverse order, each onto a fan with room, they rebuild a deal from which
    the line plays. So Black Hole's A♠ shows with cards played only where "any card as
    the hole" played it last, after a 2 or a top rank, and a Golf layout with its talon
    untouched only when the cards off its columns played in a row from its start."""
    top, game = deal.foundation, deal.game
    if top is None:
        return ""
    placed = set(deal.tableau.cards) | set(deal.talon) | {top, deal.cell}
    counts = [0] * (deal.ranks + 1)
    for card in deck(deal.ranks):
        if card not in placed:
            counts[card.rank] += 1
    fits = fitting(game, deal.ranks)
    under = [tuple(h for h in range(1, deal.ranks + 1) if rank in fits[h])
             for rank in range(deal.ranks + 1)]
    try:
        if _fewest_runs(counts, top.rank, under, fits) <= deal.turned + 1 and \
                _ends_a_line(counts, top.rank, sum(counts), deal.turned, under, {}, [0]):
            return ""
    except _OutOfBudget:
        return ""
    turned = f" and {deal.turned} talon card(s) turned" if game.rules.talon else ""
    return (f"{position_of(deal).moved} card(s) are off the fans{turned}, yet the cards on "
            f"the foundation play in no order that ends with {top} by {game.title}'s rules, "
            "so no line leaves it on top")


class _OutOfBudget(Exception):
    pass


def _fewest_runs(counts: list[int], top: int, under: list[tuple[int, ...]],
                 fits: tuple[tuple[int, ...], ...]) -> int:
    """At least how many runs (cards each on one it fits on, as `under` says; `fits[h]`,
    the ranks that go on rank h, is its inverse) the cards `counts` holds and a last
    card of rank `top` fall into: every card but a run's first lies on a card of its
    own, so the cards that are not first are at most a largest matching of cards to
    distinct cards they go on (the last card goes under none), which augmenting paths
    from each rank's cards to the ranks they go on count."""
    ranks = len(counts) - 1
    cards = counts[:]  # the cards that may lie on one: all of them
    cards[top] += 1
    room = counts[:]  # the cards one may lie on: all but the last
    flow = [[0] * (ranks + 1) for _ in range(ranks + 1)]  # flow[r][h]: r's on h's
    used_from, used_on = [0] * (ranks + 1), [0] * (ranks + 1)

    def augment(rank: int, seen: set[int]) -> bool:
        """Place one more card of `rank` on a card, moving placed cards along."""
        for below in under[rank]:
            if below in seen:
                continue
            seen.add(below)
            if used_on[below] < room[below]:
                used_on[below] += 1
                flow[rank][below] += 1
                return True
            for other in fits[below]:  # move one of other's cards off `below`
                if flow[other][below] and augment(other, seen):
                    flow[other][below] -= 1
                    flow[rank][below] += 1
                    return True
        return False

    matched = 0
    for rank in range(1, ranks + 1):
        while used_from[rank] < cards[rank] and augment(rank, set()):
            used_from[rank] += 1
            matched += 1
    return sum(cards) - matched


def _ends_a_line(counts: list[int], rank: int, left: int, turns: int,
                 under: list[tuple[int, ...]], failed: dict[tuple, int],
                 visited: list[int]) -> bool:
    """Can the `left` cards `counts` holds (by rank) be laid in an order that a card of
    `rank` then follows, each on the one before it as `under` allows (`under[r]`: the
    ranks a card of rank r goes on), but for at most `turns` talon turns? A search from
    the end of the line back to its start, remembering the states that failed (with the
    most turns they failed with)."""
    if left <= turns:  # every step that is left may be a turn
        return True
    key = (tuple(counts), rank)
    if failed.get(key, -1) >= turns:
        return False
    visited[0] += 1
    if visited[0] > REACH_BUDGET:
        raise _OutOfBudget
    fitting_ranks = under[rank]
    tries = [(r, turns) for r in fitting_ranks if counts[r]]
    if turns:
        tries += [(r, turns - 1) for r in range(1, len(counts))
                  if counts[r] and r not in fitting_ranks]
    for below, left_turns in tries:
        counts[below] -= 1
        found = _ends_a_line(counts, below, left - 1, left_turns, under, failed, visited)
        counts[below] += 1
        if found:
            return True
    failed[key] = turns
    return False


def _check_history_plays(deal: Deal, history: list[HistoryEntry], placed: set[Card],
                         source: str) -> None:
    """The cards of "history", in order, form a legal line from the hole's starting card:
    each fits on the one before it as the game says (the first on the starting card,
    which is the one card of the deck on no fan, in no talon and not in the history; All
    in a Row starts with an empty hole, so its first card is free). In a game with a talon
    a card that does not fit may be a talon card turned: at most the talon cards turned
    may be such.

    Nothing else can be illegal: the history's cards came off the tops of the fans, and
    putting them back in reverse order, each onto a fan with room, rebuilds a deal from
    which the history is a legal line (a card played later lay lower in its fan).

    In a game with a cell, a park (a Move) puts its card into the cell, which must be
    empty; that card reaches the hole later in the history or is the cell's card now, and
    the parks count the deal's. A parked card also came off a fan's top, so putting the
    cards back rebuilds a deal as before."""
    start = next((card for card in deck(deal.ranks) if card not in placed), None)
    hole = start
    turns = deal.turned
    cell: Card | None = None
    parks, holed = 0, set()
    for number, (entry, line, token) in enumerate(history, start=1):
        if isinstance(entry, Move):
            if cell is not None or entry.card in holed:
                why = f"the cell holds {cell}" if cell is not None else \
                    f"{entry.card} is already in the hole"
                raise InputError(f"\"history\" move {number} is illegal: {why}", source,
                                 line, token)
            cell, parks = entry.card, parks + 1
            continue
        card = entry
        holed.add(card)
        if card == cell:
            cell = None
        fits = rank_fits(deal.game, card.rank, None if hole is None else hole.rank,
                         deal.ranks)
        if not fits and turns:
            turns -= 1
        elif not fits:
            raise InputError(f"\"history\" move {number} is illegal: {card} is not "
                             f"rank-adjacent to {hole}", source, line, token)
        hole = card
    last, line, token = next((entry for entry in reversed(history)
                              if not isinstance(entry[0], Move)), history[-1])
    if hole != deal.foundation:
        raise InputError("the last card of \"history\" must be the hole's card", source, line,
                         token)
    if cell != deal.cell or parks != deal.parks:
        last_line, last_token = history[-1][1:]
        raise InputError(f"\"history\" leaves {cell or 'nothing'} in the cell after {parks} "
                         f"park(s), and the layout shows {deal.cell or 'nothing'} after "
                         f"{deal.parks}", source, last_line, last_token)
