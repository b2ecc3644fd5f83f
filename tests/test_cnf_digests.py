"""The SAT encoder builds exactly the CNF it built before it was made fast: the same
clauses in the same order, the same variable keys, family counts, slots and filled
literals, for many deals, positions, generalised decks and feature sets, complete and
with optional positions.

tests/data/cnf-digests.json holds a sha256 (its first 20 hex digits) of each of those
encodings, written by the straightforward encoder of encoding version position-5 (main
before the fast build).
A change of clauses bumps ENCODING_VERSION and rewrites the file:

    PYTHONPATH=src python -m tests.test_cnf_digests
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from pysat.card import CardEnc, EncType

from blackhole.base.errors import InternalError
from blackhole.encode import cnf_clauses, cnf_variables
from blackhole.encode.cnf import (
    CERTIFY_FEATURES,
    DEFAULT_FEATURES,
    ENCODING_VERSION,
    FEATURES,
    NEEDS,
    PREFIX_FEATURES,
    Encoding,
    build_cnf,
)
from blackhole.model.cards import Card
from blackhole.model.deal import Deal, position_of
from blackhole.model.positions import load_position
from blackhole.model.problem import build_problem
from blackhole.model.rules import advance, initial_state, legal_moves, play
from blackhole.model.solutions import parse_cards

from .helpers import feature_sets, small_deal

DIGESTS = Path(__file__).resolve().parent / "data" / "cnf-digests.json"

# (spec, moves played greedily first, feature sets: "every" valid one, "some" (see
# `some_feature_sets`) or the "default" and certificate ones); small:N is
# tests.helpers.small_deal(N), and "empty" a position with nothing left to play
DEALS = [("pysol:1", 0, "some"), ("pysol:2", 0, "default"), ("pysol:837", 0, "default"),
         ("pysol:400", 0, "default"), ("pysol:3:all-in-a-row", 0, "some"),
         ("random:11:any", 0, "some"), ("random:12", 0, "default"), ("pysol:1", 7, "default"),
         ("pysol:5", 19, "some"), ("random:13:ranks=19", 0, "default"),
         ("random:3:ranks=8", 0, "some"), ("random:1:ranks=3", 0, "some"),
         ("random:2:ranks=4", 0, "every"), ("random:3:ranks=5", 0, "some"),
         ("random:4:any:ranks=5", 0, "some"), ("random:5:ranks=6", 4, "some"),
         ("small:3", 0, "some"), ("small:8", 0, "some"), ("small:21", 2, "every"),
         ("empty", 0, "some")]


def valid(features: frozenset[str], optional: bool) -> bool:
    return (all(needed in features for feature, needed in NEEDS.items()
                if feature in features)
            and (not optional or features <= PREFIX_FEATURES))


def some_feature_sets(optional: bool) -> list[frozenset[str]]:
    """The default and certificate sets, all, none, and the default with each feature
    added or taken away."""
    base = [DEFAULT_FEATURES, CERTIFY_FEATURES, FEATURES, PREFIX_FEATURES, frozenset(),
            frozenset({"domain", "symmetry"}), frozenset({"deadrank", "alo"})]
    base += [DEFAULT_FEATURES ^ {feature} for feature in sorted(FEATURES)]
    return list(dict.fromkeys(s for s in base if valid(s, optional)))


def greedy(deal: Deal, moves: int) -> str | None:
    """Up to `moves` legal moves, each time the first legal card in fan order."""
    if not moves:
        return None
    state, played = initial_state(deal), []
    for _ in range(moves):
        if not (legal := legal_moves(deal, state)):
            break
        played.append(str(legal[0].card))
        state = play(deal, state, legal[0])
    return " ".join(played)


@cache
def deal_of(spec: str, moves: int) -> tuple[Deal, str | None]:
    if spec == "empty":
        return Deal(((), ()), Card(1, "S"), 13, name="empty"), None
    if spec.startswith("small:"):
        deal = small_deal(int(spec.partition(":")[2]))
        after = greedy(deal, moves)
        if after is None:
            return deal, None
        return advance(position_of(deal), parse_cards(after, "after"), "after").deal, after
    after = greedy(load_position(spec).deal, moves)
    return load_position(spec, after=after).deal, after


def cases() -> Iterator[tuple[str, str, int, frozenset[str], bool]]:
    """(case name, spec, moves played first, features, optional)"""
    for spec, moves, which in DEALS:
        for optional in (False, True):
            if which == "every":
                sets = [s for s in feature_sets(FEATURES) if valid(s, optional)]
            elif which == "some":
                sets = some_feature_sets(optional)
            else:
                sets = list(dict.fromkeys([DEFAULT_FEATURES, CERTIFY_FEATURES]))
            for features in sets:
                name = (f"{spec}+{moves}|{'opt' if optional else 'full'}|"
                        f"{','.join(sorted(features)) or '-'}")
                yield name, spec, moves, features, optional


def digest(encoding: Encoding) -> str:
    """sha256 of everything a solver, decoder or checker reads from the encoding."""
    text = repr((encoding.clauses, encoding.keys, encoding.counts(), encoding.slots,
                 encoding.filled, encoding.num_vars, sorted(encoding.features),
                 encoding.optional))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def compute() -> dict[str, str]:
    found = {}
    for name, spec, moves, features, optional in cases():
        deal, _ = deal_of(spec, moves)
        found[name] = digest(build_cnf(build_problem(deal), features, optional=optional))
    return found


@cache
def stored() -> dict:
    return json.loads(DIGESTS.read_text())


def test_digests_are_of_this_encoding_version() -> None:
    assert stored()["version"] == ENCODING_VERSION, \
        "clauses changed: regenerate with python -m tests.test_cnf_digests"


def test_the_cases_are_the_stored_ones() -> None:
    assert [name for name, *_ in cases()] == list(stored()["digests"])


@pytest.mark.parametrize("group", list(dict.fromkeys(spec for spec, _, _ in DEALS)))
def test_same_cnf_as_the_straightforward_encoder(group: str) -> None:
    want = stored()["digests"]
    checked = 0
    for name, spec, moves, features, optional in cases():
        if spec != group:
            continue
        deal, _ = deal_of(spec, moves)
        encoding = build_cnf(build_problem(deal), features, optional=optional)
        assert digest(encoding) == want[name], name
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("size", [3, 4, 7, 8, 13, 40])
def test_the_sequential_counter_is_cardencs(size: int) -> None:
    """`sequential_counter` writes out pysat's seqcounter at-most-one, in its order."""
    lits = [(-1) ** i * (2 * i + 5) for i in range(size)]
    top = 2 * size + 10
    want = CardEnc.atmost(lits, 1, top_id=top, encoding=EncType.seqcounter)
    assert want.nv == top + size - 1
    assert cnf_clauses.sequential_counter(lits, top + 1) == want.clauses


def test_a_pool_names_reserved_blocks_when_asked() -> None:
    pool = cnf_variables.Pool()
    assert pool.extend([("a", 1), ("a", 2)]) == range(1, 3)
    assert pool.reserve(3, lambda: [("b", i) for i in range(3)]) == range(3, 6)
    assert pool.top == 5 and pool.obj(4) == ("b", 1) and pool.id(("a", 2)) == 2
    assert pool.reserve(1, lambda: [("c",)]) == range(6, 7)
    assert pool.id(("c",)) == 6 and pool.obj(7) is None and len(pool.keys) == 6
    pool.reserve(2, lambda: [("d",)])
    with pytest.raises(InternalError, match="a block of 2 variables named 1"):
        pool.obj(1)


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps({"version": ENCODING_VERSION, "digests": compute()},
                                  indent=0) + "\n")
    sys.exit(0)
