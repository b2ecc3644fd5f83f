"""What the backend and encoding tests share: one checker of decoded orders, which
evaluates the ORIGINAL Problem constraints (never an encoding's), and one generator of
small deals.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from blackhole.cards import Card, deck
from blackhole.deal import Deal
from blackhole.problem import Problem, same_rank_pairs


def check_order(problem: Problem, order: Sequence[int], *, complete: bool = True) -> None:
    """A legal line on `problem`: each card at most once (every card once when `complete`),
    the first card rank-adjacent to the start card (any card without one), each next card
    rank-adjacent to the one before, and a card only after every card lying on it."""
    order = list(order)
    moves = [v for v in range(problem.size) if v != problem.start]
    assert len(set(order)) == len(order), "a card played twice"
    assert set(order) <= set(moves), "a card that is not to be played"
    if complete:
        assert sorted(order) == moves, "not every card played"
    path = ([] if problem.start is None else [problem.start]) + order
    m = problem.modulus
    for a, b in zip(path, path[1:], strict=False):
        step = (problem.rank[a] - problem.rank[b]) % m
        assert step in (1, m - 1) and problem.rank[a] != problem.rank[b], (a, b)
    place = {v: i for i, v in enumerate(order)}
    for fan in problem.fans:  # bottom → top: a card needs every card above it played first
        for depth, card in enumerate(fan):
            if card in place:
                assert all(place.get(above, len(order)) < place[card]
                           for above in fan[depth + 1:]), card


def check_symmetry(problem: Problem, order: Sequence[int]) -> None:
    """A line that obeys every same-rank pair (encodings/sat.md, `symmetry`): where c1 and
    c2 could trade places, c1 comes first; an unplayed card counts as played after all."""
    end = len(order)
    place = {v: i for i, v in enumerate(order)}
    for pair in same_rank_pairs(problem):
        at = {v: place.get(v, end) for v in (pair.first, pair.second, pair.above_first,
                                             pair.below_second) if v is not None}
        if pair.second not in place:
            continue
        swappable = ((pair.above_first is None or at[pair.above_first] < at[pair.second])
                     and (pair.below_second is None
                          or at[pair.first] < at[pair.below_second]))
        if swappable:
            assert at[pair.first] < at[pair.second], pair


def small_deal(seed: int, *, ranks: Sequence[int] = (4, 5, 6, 7),
               fan_sizes: Sequence[int] = (1, 2, 3, 4), start: float = 0.75) -> Deal:
    """A small generalised deal: a deck of one of `ranks` ranks shuffled by `seed`, dealt
    in fans of one of `fan_sizes`; with probability `start` its last card is the hole's
    start card, else the first card is free (as in All in a Row)."""
    rng = random.Random(seed)
    size_of_deck, size = rng.choice(list(ranks)), rng.choice(list(fan_sizes))
    cards = deck(size_of_deck)
    rng.shuffle(cards)
    foundation = cards.pop() if rng.random() < start else None
    fans = tuple(tuple(cards[i:i + size]) for i in range(0, len(cards), size))
    return Deal(fans, foundation, size_of_deck, name=f"small:{seed}")


def ranked_deal(ranks: int, size: int, seed: int) -> Deal:
    """A generalised Black Hole deal: A♠ on the hole, the other 4·ranks − 1 cards shuffled
    by `seed` and dealt in fans of `size` (the last fan holds what is left)."""
    cards = deck(ranks)
    cards.remove(Card(1, "S"))
    random.Random(seed).shuffle(cards)
    fans = tuple(tuple(cards[i:i + size]) for i in range(0, len(cards), size))
    return Deal(fans, Card(1, "S"), ranks, name=f"ranks{ranks}:{size}:{seed}")


def feature_sets(features: frozenset[str]) -> list[frozenset[str]]:
    """Every subset of `features`."""
    sets = [frozenset()]
    for feature in sorted(features):
        sets += [chosen | {feature} for chosen in sets]
    return sets


def nearly_sorted_deal(ranks: int, seed: int) -> Deal:
    """A generalised Black Hole deal that no engine settles in seconds: A♠ on the hole, the
    other 4·ranks − 1 cards in deck order (clubs, diamonds, hearts, spades; A..R each), dealt
    in threes, each fan's three cards shuffled by `seed` among themselves. Every fan holds
    three neighbouring ranks, so lines run long before they end, and each engine's search
    and model grow with the deck."""
    cards = deck(ranks)
    cards.remove(Card(1, "S"))
    rng = random.Random(seed)
    fans = []
    for i in range(0, len(cards), 3):
        fan = cards[i:i + 3]
        rng.shuffle(fan)
        fans.append(tuple(fan))
    return Deal(tuple(fans), Card(1, "S"), ranks, name=f"nearly-sorted:{ranks}:{seed}")
