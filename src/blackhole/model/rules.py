"""The reference rules engine: the only place the rules of the games are written.

A state is the tableau's slots played, the card on top of the hole (the foundation) and
the talon cards turned. Only a free card plays (one no card covers any more: a fan's top
card, as `blackhole.model.tableau` says), and it goes onto the hole when its rank fits the
hole's top card as the deal's game says (`blackhole.model.games.rank_fits`: one rank above or
below, wrapping K–A in Black Hole, not in Golf; on a King only what the game allows).
With an empty foundation (All in a Row) the first card is free. A game with a talon
(Golf) may also turn the next talon card onto the hole at any time, whatever lies there;
that move is a turn (`Kind.TURN`). A game with a free cell (Worm Hole) may also park a
free card in the empty cell (`Kind.PARK`), leaving its fan, and later play it from the
cell onto the hole (`Kind.UNPARK`) when its rank fits; nothing goes from the cell back to
a fan, and a cell of limited uses (`Rules.cell_uses`) takes that many cards a deal. The
game is won when its tableau (and its cell) are empty (in Golf talon cards may remain).
Every answer from every backend is replayed here before anyone sees it.

It also holds what a player needs: the legal moves from a state, playing one, the
outcome, and the position a state stands for (`layout`, `advance`); a game in play, with
undo and redo, is `blackhole.play.game.Game`, built on these. Messages number fans from 1, as
`show` draws them; moves and JSON keep 0-based fan indexes, as black-hole-solve numbers
its stacks.

The engine stands on the deal model (`blackhole.model.deal`) alone. Reading a position with
moves played on it (`--after`) uses the engine, so it sits above, in `blackhole.model.positions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from blackhole.base.errors import IllegalMove, InputError
from blackhole.model.cards import SUITS, Card
from blackhole.model.deal import Deal, Kind, Move, Position, move_token
from blackhole.model.games import refusal

# The rule features (`blackhole.model.games.Rules.features`) this engine plays: a deal of a
# game with any other is refused by `replay`, `initial_state` and `legal_moves`, never
# judged by Black Hole's rules.
PLAYS: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", "covers", "cells",
                                   "cell_uses"})


class State(NamedTuple):
    """Where a deal stands: the tableau's slots played (`gone`, a bitmask over the
    deal's `tableau` slots), the foundation's top card (the hole's, in Black Hole; as
    `Deal.foundation` names it) and the talon cards turned. A value (a tuple, so cheap
    to make at every move). In a game with a cell, `cell` is its card (None: empty) and
    `parks` the cards put into it since the deal started."""

    gone: int
    foundation: Card | None
    turned: int = 0  # talon cards turned onto the hole (of the deal's talon)
    cell: Card | None = None
    parks: int = 0


_MOVE_TYPES = (Card, Move)


def check_game(deal: Deal) -> None:
    """An InputError when the deal's game holds a rule feature this engine does not play
    (PLAYS)."""
    refused = refusal(deal.game, PLAYS, "the rules engine", deal.name or "deal")
    if refused is not None:
        raise refused


def initial_state(deal: Deal) -> State:
    check_game(deal)
    return State(0, deal.foundation, 0, deal.cell, deal.parks)


def cards_left(deal: Deal, state: State) -> int:
    """The tableau cards not yet played."""
    return len(deal.tableau) - state.gone.bit_count()


def next_talon(deal: Deal, state: State) -> Card | None:
    """The talon card a turn would play, or None when the talon is spent."""
    return deal.talon[state.turned] if state.turned < len(deal.talon) else None


def top_card(deal: Deal, state: State, fan: int) -> Card | None:
    """The card a player takes from `fan` (a column of the tableau): its free card drawn
    highest, a fan's top card; None when it has none."""
    slot = deal.tableau.top_of(fan, state.gone)
    return None if slot is None else deal.tableau.cards[slot]


def fits(deal: Deal, card: Card, hole: Card | None) -> bool:
    """May `card`, a free tableau card, go onto the hole's top card `hole`? As
    `games.rank_fits` says, read from its table (`Deal.onto`)."""
    return card.rank in deal.onto[0 if hole is None else hole.rank]


def legal_moves(deal: Deal, state: State) -> list[Move]:
    """The legal moves now: each free tableau card that fits on the hole, in slot order
    (a chain layout's: fan order); the cell's card when it fits; parking each free card
    while the cell is empty and may take one; then turning the talon while it has a
    card."""
    check_game(deal)
    tableau = deal.tableau
    free = tableau.free(state.gone)
    moves = [Move(tableau.cards[slot], tableau.places[slot][0], Kind.PLAY)
             for slot in free if fits(deal, tableau.cards[slot], state.foundation)]
    if state.cell is not None and fits(deal, state.cell, state.foundation):
        moves.append(Move.unpark(state.cell))
    if not _cell_refuses(deal, state):
        moves.extend(Move.park(tableau.cards[slot], tableau.places[slot][0]) for slot in free)
    talon = next_talon(deal, state)
    return moves + [Move.turn(talon)] if talon is not None else moves


def _cell_refuses(deal: Deal, state: State) -> str:
    """Why the cell takes no card now ("" when it takes one)."""
    rules = deal.game.rules
    if not rules.cells:
        return f"{deal.game.title} has no cell"
    if state.cell is not None:
        return f"the cell holds {state.cell}"
    if rules.cell_uses and state.parks >= rules.cell_uses:
        return f"{deal.game.title}'s cell takes {rules.cell_uses} card(s) a deal, all taken"
    return ""


def play(deal: Deal, state: State, move: Move) -> State:
    """The state after `move`: its card (or, given no card, its fan's top card) onto the
    hole, or the talon's next card for a turn (a talon card given with no kind is one).
    Raises IllegalMove (a ValueError) naming why when it is illegal."""
    stepped = step(deal, state, move)
    if isinstance(stepped, str):
        raise IllegalMove(stepped)
    return stepped[0]


def fan_name(fan: int | None, fans: int) -> str:
    """A 0-based fan index as messages number fans: from 1, as `show` draws them."""
    if fan is None:
        return "none given"
    return str(fan + 1) if 0 <= fan < fans else f"index {fan}, outside 0..{fans - 1}"


class Outcome(StrEnum):
    WON = "won"
    BLOCKED = "blocked"  # cards remain and no top card fits
    UNFINISHED = "unfinished"  # the moves ran out while a legal move remained
    ILLEGAL = "illegal"


@dataclass(frozen=True)
class Replay:
    outcome: Outcome
    played: int  # cards moved onto the hole off the fans and the cell (talon: `turned`)
    total: int  # cards in the fans at the start
    index: int | None = None  # 0-based index of the illegal move
    reason: str = ""
    moves: tuple[Move, ...] = ()  # the legal moves made, as `legal_moves` names them
    state: State | None = None  # the state after the legal moves
    turned: int = 0  # talon cards turned
    parks: int = 0  # cards put into the cell

    @property
    def order(self) -> tuple[Card, ...]:
        """The cards moved onto the hole, talon turns included, in order."""
        return tuple(move.card for move in self.moves if move.kind is not Kind.PARK)

    @property
    def history(self) -> tuple[Card | Move, ...]:
        """The moves as a position's history holds them: each card moved onto the hole,
        and each park as its Move (`Move.park(card)`, as a history names it)."""
        return tuple(Move.park(move.card) if move.kind is Kind.PARK else move.card
                     for move in self.moves)

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WON

    def describe(self, before: int = 0, of: int | None = None) -> str:
        """One line; `before` cards were moved before these moves, out of `of` in the
        whole deal (a replay from a position counts from the start of the deal)."""
        of = self.total + before if of is None else of
        moved = before + self.played
        if self.outcome is Outcome.WON:
            return f"won: all {of} cards moved"
        if self.outcome is Outcome.ILLEGAL:
            return f"illegal at move {self.index + 1}: {self.reason}"
        if self.outcome is Outcome.BLOCKED:
            return f"blocked after {moved} of {of} cards"
        return f"unfinished: {moved} of {of} cards moved, a legal move remains"


_SEPARATORS = re.compile(r"[\s,;]+")


def as_moves(given: object, source: str = "moves") -> list[Card | Move]:
    """Moves as a caller gives them: a str of card names separated by spaces or commas
    (as `--after` reads them; `park:KH` parks a card), or a sequence of Cards, Moves and
    such names. Anything else is an InputError naming `source`."""
    if isinstance(given, str):
        given = [token for token in _SEPARATORS.split(given) if token]
    if not isinstance(given, Sequence):
        raise InputError("moves are a str of cards or a list of Cards, Moves or card names",
                         source, token=type(given).__name__)
    moves: list[Card | Move] = []
    for move in given:
        if isinstance(move, str):
            move = move_token(move, source)
        elif not isinstance(move, Card | Move):
            raise InputError("a move is a Card, a Move or a card name such as \"2S\"", source,
                             token=repr(move)[:40])
        moves.append(move)
    return moves


def replay(deal: Deal | Position, moves: Sequence[Card | Move | str] | str) -> Replay:
    """Play `moves` (see `as_moves`) from the start of `deal` (or from a Position as it
    lies) and judge the result. A `deal` that is neither is an InputError: a spec is
    read by `blackhole.load_deal` first."""
    if isinstance(deal, Position):
        deal = deal.deal
    if not isinstance(deal, Deal):
        raise InputError("replay takes a Deal or a Position (load_deal reads a spec)", "deal",
                         token=type(deal).__name__)
    check_game(deal)
    if not (isinstance(moves, list | tuple)
            and all(isinstance(move, _MOVE_TYPES) for move in moves)):
        moves = as_moves(moves)
    state = initial_state(deal)  # as it changes
    total = len(deal.tableau) + (deal.cell is not None)
    played: list[Move] = []

    def judged(outcome: Outcome, i: int | None = None, reason: str = "") -> Replay:
        parks = state.parks - deal.parks
        return Replay(outcome, len(played) - state.turned - parks, total, i, reason,
                      tuple(played), state, state.turned, parks)

    for i, move in enumerate(moves):
        stepped = step(deal, state, Move(move) if isinstance(move, Card) else move)
        if isinstance(stepped, str):
            return judged(Outcome.ILLEGAL, i, stepped)
        state, made = stepped
        played.append(made)
    return judged(outcome(deal, state))


def step(deal: Deal, state: State, move: Move) -> tuple[State, Move] | str:
    """The one judgement of a move: the state after it and the move as `legal_moves`
    names it (card, fan, kind), or why it is illegal."""
    card = move.card
    if move.kind is Kind.TURN or (deal.talon and card in deal.talon_at):
        return _turn(deal, state, move)
    if move.kind is Kind.UNPARK or (state.cell is not None and card == state.cell):
        return _unpark(deal, state, move)
    found = _free_card(deal, state, move)
    if isinstance(found, str):
        return found
    slot, card, home = found
    if move.kind is Kind.PARK:
        refused = _cell_refuses(deal, state)
        if refused:
            return f"cannot park {card}: {refused}"
        return (State(state.gone | 1 << slot, state.foundation, state.turned, card,
                      state.parks + 1), Move(card, home, Kind.PARK))
    if not fits(deal, card, state.foundation):
        return f"{card} is not rank-adjacent to {state.foundation}"
    # States and moves are made directly (not `_replace`, `Move.park`): every answer is
    # replayed, so this is the engine's hot path.
    return State(state.gone | 1 << slot, card, state.turned, state.cell, state.parks), \
        Move(card, home, Kind.PLAY)


def _unpark(deal: Deal, state: State, move: Move) -> tuple[State, Move] | str:
    """The cell's card onto the hole."""
    card = state.cell
    if card is None:
        return "the cell is empty" if deal.game.rules.cells else \
            f"{deal.game.title} has no cell"
    if move.card is not None and move.card != card:
        return f"{move.card} is not in the cell ({card} is)"
    if move.fan is not None or move.kind is Kind.PARK:
        return f"{card} is in the cell: it goes only onto the hole, never back to a fan"
    if not fits(deal, card, state.foundation):
        return f"{card} (in the cell) is not rank-adjacent to {state.foundation}"
    return State(state.gone, card, state.turned, None, state.parks), Move(card, None, Kind.UNPARK)


def _free_card(deal: Deal, state: State, move: Move) -> tuple[int, Card, int] | str:
    """The free tableau card a play or a park moves (its slot, card and column), or why
    there is none."""
    card, fan, columns = move.card, move.fan, deal.tableau.columns
    tableau = deal.tableau
    if card is None:
        if fan is None or not 0 <= fan < columns:
            return f"no such fan ({fan_name(fan, columns)})"
        slot = tableau.top_of(fan, state.gone)
        if slot is None:
            return f"fan {fan + 1} is empty"
        card = tableau.cards[slot]
    slot = tableau.slot_of.get(card)
    if slot is None:
        if card == deal.foundation:
            return f"{card} is the hole's top card, not on a fan"
        in_deck = 1 <= card.rank <= deal.ranks and card.suit in SUITS
        return f"{card} is already in the hole" if in_deck else f"unknown card {card}"
    if state.gone >> slot & 1:
        return f"{card} already played"
    home = tableau.places[slot][0]
    if fan is not None and fan != home:
        return f"{card} is in fan {home + 1}, not fan {fan_name(fan, columns)}"
    if not tableau.is_free(slot, state.gone):
        if deal.tableau.chains:
            return f"{card} is not a top card"
        over = " ".join(str(tableau.cards[upper]) for upper in range(len(tableau))
                        if tableau.over[slot] >> upper & 1 and not state.gone >> upper & 1)
        return f"{card} is not free ({over} on it)"
    return slot, card, home


def _turn(deal: Deal, state: State, move: Move) -> tuple[State, Move] | str:
    """A turn, or a talon card named: the talon's next card goes onto anything."""
    card, talon = move.card, deal.talon
    at = deal.talon_at.get(card) if card is not None else state.turned
    if card is None:
        if state.turned >= len(talon):
            return "the talon is spent"
        card = talon[state.turned]
    elif at is None:
        return f"{card} is not in the talon"
    elif move.fan is not None:
        return f"{card} is in the talon, not fan {fan_name(move.fan, deal.tableau.columns)}"
    elif at < state.turned:
        return f"{card} already played"
    elif at != state.turned:
        return f"{card} is not the next talon card ({talon[state.turned]} is)"
    return State(state.gone, card, state.turned + 1, state.cell, state.parks), \
        Move(card, None, Kind.TURN)


def outcome(deal: Deal, state: State) -> Outcome:
    """WON, BLOCKED, or UNFINISHED while a legal move remains."""
    if cards_left(deal, state) == 0 and state.cell is None:
        return Outcome.WON
    return Outcome.UNFINISHED if legal_moves(deal, state) else Outcome.BLOCKED


def layout(deal: Deal, state: State) -> Deal:
    """The deal as it lies in `state`: the tableau without the slots played, the hole's
    card as the foundation; a position, as `blackhole.model.deal.Deal` holds one."""
    return Deal(deal.tableau.without(state.gone), state.foundation, deal.ranks, name=deal.name,
                talon=deal.talon[state.turned:], game=deal.game, cell=state.cell,
                parks=state.parks)


def advance(position: Position, moves: Sequence[Card | Move],
            source: str = "after") -> Position:
    """The position after `moves`, replayed by the rules; an illegal move is an
    InputError naming it (1-based) and why. The history grows when it was known."""
    judged = replay(position.deal, moves)
    if judged.outcome is Outcome.ILLEGAL:
        raise InputError(f"move {judged.index + 1} is illegal: {judged.reason}", source,
                         None, move_text(moves[judged.index]))
    known = position.history_known
    return Position(layout(position.deal, judged.state), position.moved + judged.played,
                    position.of, position.history + judged.history if known else ())


def move_text(move: Card | Move) -> str:
    """A move as a user wrote it: its card (`park:KH` for a park), or the fan it names
    (numbered from 1); `str(move)` says it."""
    return str(move)
