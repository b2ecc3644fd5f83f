"""The deal as a Hamiltonian path with precedence: the one input of every backend.

Nodes are cards. When the foundation holds a card, that card is node 0 and the path
starts there; otherwise (All in a Row) the path may start at any card. An arc joins two
rank-adjacent cards. A card must be played before every card it covers (the tableau's
cover pairs, `blackhole.model.tableau`): within a fan, top → middle → bottom. A solution
visits every node once, moving only along arcs, and respects every precedence pair. No
backend re-derives game rules: they all read this structure.

A game of other rules (`blackhole.model.games`: Golf) is held the same way, with its game: arcs
run from a card to each card that may follow it (directed where a King takes less than
its neighbours), the talon's cards are nodes after the fans' (`talon`, the next first)
chained by precedence, any card may precede a talon card, and a solution visits every
fan card and a prefix of the talon (`required` are the nodes it must visit). A Problem
holds the rule features in RULES_HELD; an engine takes the Problem of a game whose rule
features it declared it plays (`build_problem`'s `plays`), and every other is refused
before any work.

A game with a free cell (Worm Hole, `cells`) is held the same way, but a card may leave
its fan before it reaches the hole: it waits in the cell, one card at a time. So there
`precedence` orders the cards' *departures* from their fans (a card leaves before the
one under it), not their places on the path; a card already in the cell (`cell`) is a
node with no fan, and `parks_left` bounds the parks still allowed (None: any number).
An engine that has not declared `cells` never reads such a Problem: it is refused.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from blackhole.base.errors import InputError, InternalError
from blackhole.model.cards import Card, adjacent_ranks
from blackhole.model.deal import Deal, Move
from blackhole.model.games import BLACK_HOLE, Variant, fitting, refusal

# The rule features (`blackhole.model.games.Rules.features`) a Problem holds: in its arcs (what
# may follow a card: `wrap`, `on_king`), its talon nodes (`talon`) and its `required`
# nodes (`won`). A game with any other is refused by `build_problem`, for every engine.
RULES_HELD: frozenset[str] = frozenset({"talon", "wrap", "on_king", "won", "covers", "cells",
                                        "cell_uses"})


@dataclass(frozen=True)
class Problem:
    cards: tuple[Card, ...]  # node → card
    start: int | None  # the foundation's node, or None when the first card is free
    rank: tuple[int, ...]  # node → rank, 1..modulus
    modulus: int  # number of ranks; ranks wrap modulo this
    fans: tuple[tuple[int, ...], ...]  # node ids of each fan, bottom → top (chains only)
    fan_of: tuple[int, ...]  # node → fan index, the column of its slot (-1: start, talon)
    depth: tuple[int, ...]  # node → most cards lying on it (0 = free card; 0 for the start)
    neighbours: tuple[tuple[int, ...], ...]  # node → rank-adjacent nodes, start excluded
    precedence: tuple[tuple[int, int], ...]  # (before, after): a card before the one under it
    talon: tuple[int, ...] = ()  # the talon's nodes, the next card first
    game: Variant = BLACK_HOLE  # the rules the arcs were built from
    chains: bool = True  # the layout is made of chains: `fans` holds them (else it is empty)
    cells: int = 0  # free cells (Worm Hole: 1); `precedence` then orders departures
    cell: int | None = None  # the node of the card in the cell now, if any
    parks_left: int | None = None  # parks a line may still make (None: any number)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def required(self) -> tuple[int, ...]:
        """The nodes every solution plays: all but the start and the talon's."""
        talon = set(self.talon)
        return tuple(v for v in self.moves if v not in talon)

    @property
    def moves(self) -> tuple[int, ...]:
        """The nodes a solution plays, in node order (all but the start)."""
        return tuple(v for v in range(self.size) if v != self.start)

    def above(self, node: int) -> int | None:
        """The card lying directly on `node` in its fan, which must be played first
        (chain layouts)."""
        return self._fan_neighbour(node, +1)

    def below(self, node: int) -> int | None:
        """The card directly under `node` in its fan, freed when it is played (chain
        layouts)."""
        return self._fan_neighbour(node, -1)

    def _fan_neighbour(self, node: int, step: int) -> int | None:
        if self.fan_of[node] < 0:
            return None
        fan = self.fans[self.fan_of[node]]
        index = fan.index(node) + step
        return fan[index] if 0 <= index < len(fan) else None

    def to_json(self) -> dict:
        return {
            "nodes": [{"card": str(card), "rank": self.rank[v], "fan": self.fan_of[v],
                       "depth": self.depth[v]} for v, card in enumerate(self.cards)],
            "start": self.start,
            "modulus": self.modulus,
            "arcs": [[a, b] for a in range(self.size) for b in self.neighbours[a]
                     if a != b and (self.start is None or a == self.start
                                    or b != self.start)],
            "precedence": [list(pair) for pair in self.precedence],
            "talon": list(self.talon),
            "cells": self.cells,
            "cell": self.cell,
            "parks_left": self.parks_left,
            "game": self.game.name,
        }


def build_problem(deal: Deal, engine: str = "", plays: Collection[str] = ()) -> Problem:
    """The deal (or position's layout) as a Hamiltonian path with precedence; anything
    but a Deal is an InputError (`blackhole.load_deal` reads a spec). `plays` names the
    rule features the engine (or command) asking declared it plays: a deal of a game
    with a rule feature outside them, or outside RULES_HELD, is an InputError naming the
    game and `engine`."""
    if not isinstance(deal, Deal):
        raise InputError("build_problem takes a Deal (load_deal reads a spec)", "deal",
                         token=type(deal).__name__)
    game = deal.game
    who = f"the {engine} engine" if engine else "this command"
    # every rule feature held is played by `--backend auto` (tests/test_rule_features.py)
    refused = refusal(game, RULES_HELD & frozenset(plays), who, deal.name or "deal",
                      "--backend auto plays it" if game.features <= RULES_HELD else "")
    if refused is not None:
        raise refused
    tableau = deal.tableau
    cards: list[Card] = []
    fan_of: list[int] = []
    start = None
    if deal.foundation is not None:
        start = 0
        cards.append(deal.foundation)
        fan_of.append(-1)
    first = len(cards)  # node of the tableau's slot 0: slots are nodes in slot order
    cards.extend(tableau.cards)
    fan_of.extend(column for column, _ in tableau.places)
    depth = [0] * first + list(tableau.depth())
    fans: list[tuple[int, ...]] = []
    if tableau.fans is not None:  # a chain layout: its slots run fan by fan, bottom first
        node = first
        for fan in tableau.fans:
            fans.append(tuple(range(node, node + len(fan))))
            node += len(fan)
    if deal.cell is not None:  # the card waiting in the cell: a node on no fan
        cards.append(deal.cell)
        fan_of.append(-1)
        depth.append(0)
    talon = tuple(range(len(cards), len(cards) + len(deal.talon)))
    for card in deal.talon:
        cards.append(card)
        fan_of.append(-1)
        depth.append(0)
    rank = tuple(card.rank for card in cards)
    precedence = tuple((first + upper, first + lower) for upper, lower in tableau.covers)
    if not game.plain:
        return _ruled_problem(deal, cards, start, rank, fans, fan_of, depth, talon,
                              precedence)
    # A node's neighbours depend on its rank alone: work them out once a rank (in node
    # order), not once a pair of nodes, which cost half a millisecond a deal.
    nodes_of: dict[int, list[int]] = {}
    for node, r in enumerate(rank):
        if node != start:
            nodes_of.setdefault(r, []).append(node)
    by_rank = {r: tuple(sorted(node for other in adjacent_ranks(r, deal.ranks)
                               for node in nodes_of.get(other, ())))
               for r in set(rank)}
    neighbours = tuple(by_rank[r] for r in rank)
    return Problem(tuple(cards), start, rank, deal.ranks, tuple(fans), tuple(fan_of),
                   tuple(depth), neighbours, precedence, chains=tableau.chains)


def _ruled_problem(deal: Deal, cards: list[Card], start: int | None, rank: tuple[int, ...],
                   fans: list[tuple[int, ...]], fan_of: list[int], depth: list[int],
                   talon: tuple[int, ...],
                   precedence: tuple[tuple[int, int], ...]) -> Problem:
    """The Problem of a game with other rules: arcs from each card to the fan cards that
    may follow it as the game says (`games.fitting`) and to every talon card; the talon
    chained, its next card first."""
    nodes_of: dict[int, list[int]] = {}  # rank → its tableau (and cell) cards, node order
    cell = len(deal.tableau) + (start is not None) if deal.cell is not None else None
    for v, column in enumerate(fan_of):
        if column >= 0 or v == cell:  # the start and the talon lie on no column
            nodes_of.setdefault(rank[v], []).append(v)
    # what may follow a card depends on its rank alone: worked out once a rank
    onto = fitting(deal.game, deal.ranks)
    follows = {r: tuple(sorted([v for other in onto[r] for v in nodes_of.get(other, ())]
                               + list(talon)))
               for r in set(rank)}
    on_talon = set(talon)
    neighbours = tuple(follows[rank[v]] if v not in on_talon
                       else tuple(w for w in follows[rank[v]] if w != v)
                       for v in range(len(cards)))
    chain = tuple(zip(talon, talon[1:], strict=False))
    rules = deal.game.rules
    parks_left = rules.cell_uses - deal.parks if rules.cells and rules.cell_uses else None
    return Problem(tuple(cards), start, rank, deal.ranks, tuple(fans), tuple(fan_of),
                   tuple(depth), neighbours, precedence + chain, talon, deal.game,
                   deal.tableau.chains, rules.cells, cell, parks_left)


def line_moves(problem: Problem, order: Sequence[int],
               parks: Sequence[tuple[int, int]] = ()) -> list[Card | Move]:
    """The moves of an engine's line, for the rules engine to replay: each node of
    `order` as its card (the cell's card when it was parked: the rules engine plays it
    from the cell), each park `(node, made)` as `Move.park` of its card before hole move
    `made` (0-based; `made == len(order)`: after the last). The one place a line of
    nodes becomes moves."""
    before: dict[int, list[int]] = {}
    for node, made in parks:
        before.setdefault(made, []).append(node)
    line: list[Card | Move] = []
    for made in range(len(order) + 1):
        line.extend(Move.park(problem.cards[node]) for node in before.pop(made, ()))
        if made < len(order):
            line.append(problem.cards[order[made]])
    if before:
        raise InternalError(f"a park after the line's end: {sorted(before)}")
    return line


def rank_links(problem: Problem) -> dict[int, tuple[int, ...]]:
    """Rank → the ranks one move away (ascending), read from the arcs; the start's rank is
    included, so the first move is covered too."""
    links: dict[int, set[int]] = {}
    for a in range(problem.size):
        links.setdefault(problem.rank[a], set()).update(problem.rank[b]
                                                        for b in problem.neighbours[a])
    return {k: tuple(sorted(ranks)) for k, ranks in links.items()}


def must_precede(problem: Problem) -> dict[int, frozenset[int]]:
    """For each card to play, every card that must be played before it (precedence,
    transitively: the cards lying above it in its fan)."""
    return _reachable(problem.moves, tuple((c, a) for a, c in problem.precedence))


def must_follow(problem: Problem) -> dict[int, frozenset[int]]:
    """For each card to play, every card that must be played after it."""
    return _reachable(problem.moves, problem.precedence)


@lru_cache(maxsize=32)
def _reachable(nodes: tuple[int, ...],
               pairs: tuple[tuple[int, int], ...]) -> dict[int, frozenset[int]]:
    """Each node → the nodes it reaches along `pairs`. It depends only on the shape of the
    layout (the fans' heights), so one per shape is kept: the dict is shared, read only."""
    step: dict[int, list[int]] = {v: [] for v in nodes}
    for a, b in pairs:
        step[a].append(b)
    reach: dict[int, frozenset[int]] = {}
    for v in nodes:
        seen: set[int] = set()
        stack = list(step[v])
        while stack:
            w = stack.pop()
            if w not in seen:
                seen.add(w)
                stack.extend(step[w])
        reach[v] = frozenset(seen)
    return reach


@dataclass(frozen=True)
class SameRankPair:
    """Two cards of one rank in different fans, `first` earlier in the fixed order.

    Some solution keeps `first` before `second` whenever one exists and
    `above_first` (if any) is played before `second` and `first` before `below_second`
    (if any): under that condition the two cards can trade places in any solution.
    """

    first: int
    second: int
    above_first: int | None
    below_second: int | None


def same_rank_pairs(problem: Problem) -> list[SameRankPair]:
    """The same-rank symmetry (Gent et al. 2007) over one fixed total order per rank.

    Cards of each rank are ordered by (depth, fan); ordering every pair the same way
    cannot form a cycle, so at least one solution survives: swapping an inverted pair
    lowers the number of inversions, so repeated swaps end in a solution that obeys
    every pair. Only fan cards are paired: a talon card (on no fan) may follow any card
    and waits for the talon cards before it, so it cannot trade places with a fan card
    of its rank. The argument reads one card above and one below each card, so a
    layout that is not made of chains gets no pairs.
    """
    if not problem.chains or problem.cells:  # a cell: the argument reads the hole order
        return []
    by_rank: dict[int, list[int]] = {}
    for node in problem.moves:
        if problem.fan_of[node] >= 0:
            by_rank.setdefault(problem.rank[node], []).append(node)
    pairs = []
    for nodes in by_rank.values():
        nodes.sort(key=lambda v: (problem.depth[v], problem.fan_of[v]))
        for i, first in enumerate(nodes):
            for second in nodes[i + 1:]:
                if problem.fan_of[first] != problem.fan_of[second]:
                    pairs.append(SameRankPair(first, second, problem.above(first),
                                              problem.below(second)))
    return pairs
