"""What the tests share: paths and the reference verdicts, the command line run in this
process or as its own process, results lines, deals, and checkers of decoded orders that
evaluate the ORIGINAL Problem constraints (never an encoding's)."""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from blackhole.backends import Options, Verdict, available_backends, kissat
from blackhole.base.errors import InputError
from blackhole.model.cards import Card, deck
from blackhole.model.deal import Deal, Kind, Move
from blackhole.model.formats import moves_json
from blackhole.model.games import VARIANTS, rank_fits
from blackhole.model.positions import load_position
from blackhole.model.problem import Problem, same_rank_pairs
from blackhole.model.rules import initial_state, legal_moves, play
from blackhole.model.sources import load_deal
from blackhole.questions.pipeline import solve_deal

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
REFERENCE_CSV = ROOT / "tests" / "data" / "pysol-1-1000.csv"


# ---------------------------------------------------------------- the reference verdicts


GOLF_CSV = ROOT / "tests" / "data" / "golf-1-1000.csv"
# The games with a talon (the Golf family), from the one table of games.
# Golf's family: a talon and columns (the games of black-hole-solve's Golf reference);
# TriPeaks' family: a stock and a layout that is not fans
GOLF_GAMES = tuple(name for name, game in VARIANTS.items() if game.rules.talon and game.chains)
PEAK_GAMES = tuple(name for name, game in VARIANTS.items() if not game.chains)


@cache
def golf_reference() -> dict[tuple[int, str], dict[str, str]]:
    """(deal, game) → black-hole-solve 1.14's row for PySolFC Golf deals 1-1000
    ({"verdict", "states_checked", "seconds"})."""
    with GOLF_CSV.open(newline="") as handle:
        return {(int(row["deal"]), row["game"]): row for row in csv.DictReader(handle)}


def small_golf(seed: int, game: str) -> Deal:
    """A small Golf deal of `game`: a deck of 5 to 8 ranks shuffled by `seed`, its first
    card on the foundation, 0 to 6 talon cards, 2 to 5 fans of 1 to 4 cards (the rest of
    the deck is left out, as if played)."""
    rng = random.Random(seed)
    ranks = rng.randint(5, 8)
    cards = deck(ranks)
    rng.shuffle(cards)
    foundation, cards = cards[0], cards[1:]
    talon = tuple(cards[:rng.randint(0, 6)])
    cards = cards[len(talon):]
    size, count = rng.randint(1, 4), rng.randint(2, 5)
    fans = tuple(tuple(cards[i * size:(i + 1) * size]) for i in range(count))
    return Deal(fans, foundation, ranks, name=f"small-golf:{seed}:{game}", talon=talon,
                game=VARIANTS[game])


@cache
def golf_referee(seed: int, game: str) -> Verdict:
    """The `search` referee's verdict on `small_golf(seed, game)`."""
    return solve_deal(small_golf(seed, game), "search", Options()).verdict


def refereed_golf_deals(game: str, count: int = 40) -> list[tuple[int, Deal, Verdict]]:
    """(seed, small_golf(seed, game), the search referee's verdict) for the first `count`
    seeds; both verdicts occur among them, so a test over them meets won and lost deals."""
    cases = [(seed, small_golf(seed, game), golf_referee(seed, game)) for seed in range(count)]
    assert {expected for _, _, expected in cases} == {Verdict.SOLVED, Verdict.UNSOLVABLE}
    return cases


def most_fan_cards(deal) -> int:
    """The referee of the best score: the most fan cards any legal line plays, by a plain
    memoised search over (fan heights, talon cards turned, the foundation's rank) that
    shares nothing with the look but the rules engine's `rank_fits`. A layout that is
    not fans is searched over the slots played (a bitmask) instead of fan heights. In a
    game with a free cell the state adds the cell's card and the parks made, and a line
    may park a fan's top card while the cell is empty (and may take one) and play the
    cell's card onto the hole; the cards counted are those onto the hole."""
    if not deal.tableau.chains:
        return _most_cover_cards(deal)
    fans, talon, game, ranks = deal.fans, deal.talon, deal.game, deal.ranks
    # no limit: each card left may be parked once more, after the parks already made
    uses = game.rules.cell_uses or deal.parks + len(deal.tableau) + 1 if game.rules.cells \
        else 0

    @cache
    def most(heights: tuple[int, ...], turned: int, hole: int, cell: Card | None = None,
             parks: int = 0) -> int:
        best = most(heights, turned + 1, talon[turned].rank, cell, parks) \
            if turned < len(talon) else 0
        every = sum(heights) + (cell is not None)  # no line moves more: stop there
        if cell is not None and rank_fits(game, cell.rank, hole, ranks):
            best = max(best, 1 + most(heights, turned, cell.rank, None, parks))
        for f, h in enumerate(heights):
            if not h or best == every:
                continue
            lower = heights[:f] + (h - 1,) + heights[f + 1:]
            if rank_fits(game, fans[f][h - 1].rank, hole, ranks):
                best = max(best, 1 + most(lower, turned, fans[f][h - 1].rank, cell, parks))
            if cell is None and parks < uses and best < every:
                best = max(best, most(lower, turned, hole, fans[f][h - 1], parks + 1))
        return best

    return most(tuple(len(fan) for fan in fans), 0, deal.foundation.rank, deal.cell,
                deal.parks)


def _most_cover_cards(deal) -> int:
    """`most_fan_cards` of a cover graph: a slot plays once every slot covering it has."""
    tableau, talon, game, ranks = deal.tableau, deal.talon, deal.game, deal.ranks
    over = [0] * len(tableau.cards)
    for upper, lower in tableau.covers:
        over[lower] |= 1 << upper
    ranks_of = [card.rank for card in tableau.cards]

    @cache
    def most(gone: int, turned: int, hole: int) -> int:
        best = most(gone, turned + 1, talon[turned].rank) if turned < len(talon) else 0
        for slot, needs in enumerate(over):
            if not gone >> slot & 1 and needs & gone == needs \
                    and rank_fits(game, ranks_of[slot], hole, ranks):
                best = max(best, 1 + most(gone | 1 << slot, turned, ranks_of[slot]))
        return best

    return most(0, 0, deal.foundation.rank)


@cache
def reference() -> dict[int, dict[str, str]]:
    """deal number → {"verdict", "states_checked", "seconds"} from black-hole-solve 1.14.0."""
    with REFERENCE_CSV.open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


def easy_for_search(limit: int = 20000) -> list[int]:
    """Deals the pure-Python referee settles quickly: few states for the C solver too."""
    return [n for n, row in reference().items() if int(row["states_checked"]) < limit]


# ---------------------------------------------------------------- the command line

# What a child process must not inherit from the shell that started the tests: the
# debug switch (tracebacks instead of one-line errors) and terminal size or colour.
_NOT_INHERITED = ("BLACKHOLE_DEBUG", "COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE")


def child_env(**settings: str) -> dict[str, str]:
    """The environment of a child Python that imports this checkout's blackhole, as a pipe
    runs it (no debug switch, no terminal size or colour), with `settings` added."""
    env = {key: value for key, value in os.environ.items() if key not in _NOT_INHERITED}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    return {**env, **settings}


def command(*args: str) -> list[str]:
    """The argument vector of `blackhole ARGS` run by this Python (for `subprocess.Popen`,
    with `env=child_env()`)."""
    return [sys.executable, "-m", "blackhole", *args]


def blackhole(*args: str, stdin: str | None = None, cwd: Path | None = None,
              env: dict[str, str] | None = None, timeout: float = 300,
              text: bool = True) -> subprocess.CompletedProcess:
    """The command as a user runs it: its own process, its output captured; `env` adds
    settings to `child_env()`."""
    return subprocess.run(command(*args), input=stdin, cwd=cwd, env=child_env(**(env or {})),
                          capture_output=True, text=text, timeout=timeout)


def cli(*args: str, stdin: str | None = None):
    """The command in this process, through Typer's runner (the same exit codes, no
    start-up cost): a click `Result`."""
    from typer.testing import CliRunner

    from blackhole.cli import app

    return CliRunner().invoke(app, list(args), input=stdin)


def default_sigint() -> None:
    """For a child process (`preexec_fn`): Ctrl-C as a terminal delivers it, even when the
    tests run in the background, where the shell has them, and so their children, ignore
    SIGINT (and a Python started so keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found.append(int(stat.parent.name))
    return found


# ---------------------------------------------------------------- results lines


def results_line(deal: str, backend: str, verdict: str, seconds: float,
                 solver: str | None = None) -> str:
    """A results line, naming the engine that answered when `solver` is given; a solved
    one carries real winning moves, as report replays them."""
    moves = winning_moves(deal) if verdict == "solved" else []
    line = {"deal": deal, "backend": backend, "verdict": verdict, "seconds": seconds,
            "moves": moves}
    if solver is not None:
        line["solver"] = solver
    return json.dumps(line) + "\n"


@cache
def winning_moves(deal: str) -> list[dict[str, Any]]:
    solution = solve_deal(load_deal(deal), "look", Options())
    assert solution.verdict is Verdict.SOLVED, f"{deal} is no solvable deal for a fixture"
    return moves_json(solution.moves)


# ---------------------------------------------------------------- orders and deals


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
    game = VARIANTS["all-in-a-row"] if foundation is None else VARIANTS["black-hole"]
    return Deal(fans, foundation, size_of_deck, name=f"small:{seed}", game=game)


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


def big_deal(seed: int, ranks: int = 40) -> Deal:
    """A generalised Black Hole deal (A♠ in the hole, fans of 3) far beyond 52 cards."""
    return ranked_deal(ranks, 3, seed)


def random_position(rng: random.Random, variant: str = "", fewest: int = 5) -> Deal:
    """A pysol deal (`variant` ":all-in-a-row": that game) after fewest to 29 random
    legal moves, as a position."""
    spec = f"pysol:{rng.randrange(1, 1001)}{variant}"
    line = random_line(load_deal(spec), rng, rng.randrange(fewest, 30))
    return load_position(spec, " ".join(map(str, line))).deal


def random_line(deal: Deal, rng: random.Random, most: int) -> list[Card | Move]:
    """A line of up to `most` legal moves from the deal's start, each drawn at random
    from the rules engine's legal moves (a talon turn or a park among them: a park as
    its Move, whose `str` is its token `park:KH`); shorter when play stops."""
    state, line = initial_state(deal), []
    for _ in range(most):
        moves = legal_moves(deal, state)
        if not moves:
            break
        move = rng.choice(moves)
        state = play(deal, state, move)
        line.append(Move.park(move.card) if move.kind is Kind.PARK else move.card)
    return line


# ---------------------------------------------------------------- SAT encoding counts


def _closure(pairs: list[tuple[int, int]], nodes: tuple[int, ...]) -> dict[int, set[int]]:
    reach = {v: {b for a, b in pairs if a == v} for v in nodes}
    changed = True
    while changed:
        changed = False
        for v in nodes:
            grown = reach[v].union(*(reach[w] for w in reach[v]))
            if grown != reach[v]:
                reach[v], changed = grown, True
    return reach


def specified(problem: Problem, features: frozenset[str],
              optional: bool = False) -> tuple[dict[str, int], int]:
    """Clauses per family and the number of variables, by the formulas of encodings/sat.md
    (with `optional`, its section "Optional positions")."""
    moves, n, m, rank = problem.moves, len(problem.moves), problem.modulus, problem.rank
    start = problem.start
    use = features.__contains__
    ranked = use("rank")
    # domains
    after = _closure(list(problem.precedence), moves)  # a → the cards after a
    before = _closure([(b, a) for a, b in problem.precedence], moves)
    lo = {c: 1 + len(before[c]) if use("domain") else 1 for c in moves}
    hi = {c: n - len(after[c]) if use("domain") else n for c in moves}
    near: dict[int, set[int]] = {}
    for v in range(problem.size):
        for d in problem.neighbours[v]:
            near.setdefault(rank[v], set()).add(rank[d])
    present = {rank[c] for c in moves}
    walks = [present] * (n + 1)
    if use("reach") and start is not None:
        walks = [{rank[start]}]
        for _ in range(n):
            walks.append(set().union(*(near.get(j, set()) for j in walks[-1])) & present)
    dom = {c: [q for q in range(lo[c], hi[c] + 1) if rank[c] in walks[q]] for c in moves}
    d = {c: len(dom[c]) for c in moves}
    f = {c: min(dom[c], default=n + 1) for c in moves}
    last = {c: max(dom[c], default=0) for c in moves}
    s = {c: max(0, last[c] - f[c] + 1) for c in moves}
    cards_at = {q: [c for c in moves if q in dom[c]] for q in range(1, n + 1)}
    ranks_at = {q: {rank[c] for c in cards_at[q]} for q in range(1, n + 1)}
    x_total = sum(d.values())
    r_total = sum(len(ks) for ks in ranks_at.values())
    counts: dict[str, int] = {}
    if optional:
        variables = x_total + sum(s.values()) + n
        counts["card"] = sum(s[c] + 2 * d[c] - 1 for c in moves if d[c])
        counts["order"] = sum(s[c] - 1 for c in moves if d[c])
    else:
        variables = x_total + sum(max(0, s[c] - 1) for c in moves)
        counts["card"] = sum(s[c] + 2 * d[c] - 2 if d[c] else 1 for c in moves)
        counts["order"] = sum(max(0, s[c] - 2) for c in moves)

    def amo(g: int) -> int:
        if g < 2:
            return 0
        return 3 * g - 4 if use("compact") and g > 6 else g * (g - 1) // 2

    groups = []
    for q in range(1, n + 1):
        if ranked:
            groups.append(len(ranks_at[q]))
            groups += [sum(rank[c] == k for c in cards_at[q]) for k in ranks_at[q]]
        else:
            groups.append(len(cards_at[q]))
    counts["position-amo"] = sum(amo(g) for g in groups)
    variables += sum(g - 1 for g in groups if use("compact") and g > 6)
    if optional:
        counts["filled-prefix"] = n - 1
        counts["filled-holds"] = n
        counts["filled-by"] = r_total if ranked else x_total
        counts["filled-all"] = n
    else:
        counts["position-alo"] = n if use("alo") else sum(not cards_at[q] for q in cards_at)
    if ranked:
        variables += r_total
        counts["rank-channel"] = x_total
        counts["rank-support"] = r_total
        first_bad = len(ranks_at[1] - near.get(rank[start], set())) if start is not None else 0
        counts["adjacency"] = r_total - len(ranks_at[1]) + first_bad
        if use("forward"):
            counts["forward"] = r_total - len(ranks_at[n])
    else:
        first_bad = (len([c for c in cards_at[1] if c not in problem.neighbours[start]])
                     if start is not None else 0)
        counts["adjacency"] = x_total - len(cards_at[1]) + first_bad
        if use("forward"):
            counts["forward"] = x_total - len(cards_at[n])
    counts["precedence"] = sum(max(0, (last[b] if optional else last[a]) - f[b] + 1)
                               for a, b in problem.precedence)
    if use("rankcount") and ranked:
        total = 0
        for k in sorted(present):
            cards_k = sum(rank[c] == k for c in moves)
            places = sum(k in ranks_at[q] for q in range(1, n + 1))
            widths = [0] + [min(i, cards_k + 1) for i in range(1, places + 1)]
            total += sum(3 * widths[i] - 1 + widths[i - 1] for i in range(1, places + 1))
            total += 1 + (places > cards_k)
            variables += sum(widths)
        counts["rank-count"] = total
    if use("deadrank"):
        variables += 2 * m * (n - 1)
        counts["deadrank-walk"] = sum(
            2 + 2 * (not any(rank[c] == k and q < f[c] for c in moves))
            for q in range(1, n) for k in range(1, m + 1))
        counts["deadrank-need"] = sum(q < last[c] for q in range(1, n) for c in moves)
    if use("symmetry"):
        # by(c, q) is TRUE from l(c) on for complete lines, never for prefixes
        top = {c: n if optional else last[c] for c in moves}
        total = 0
        for pair in same_rank_pairs(problem):
            c1, c2, a1, b2 = pair.first, pair.second, pair.above_first, pair.below_second
            if a1 is None and b2 is None:
                total += max(0, top[c1] - f[c2] + 1)
            elif a1 is None:
                total += sum(f[c2] + 1 <= q <= top[b2] for q in dom[c1])
            else:
                total += sum(f[a1] + 1 <= q <= top[c1] for q in dom[c2])
                if b2 is not None:
                    total += sum(q <= top[b2] for q in dom[c1])
                    variables += 1
        counts["symmetry"] = total
    return counts, variables


# Deals whose clause counts are checked against `specified`.
COUNT_DEALS = ([load_deal(f"pysol:{n}") for n in (1, 2, 837)]
               + [small_deal(s) for s in (0, 1, 5, 7, 11)])


def runnable_backends() -> list[str]:
    """The backends this machine can run: external needs its default solver (cadical) on
    PATH, kissat its binary (the [kissat] extra's, or one on PATH)."""
    def kissat_found() -> bool:
        try:
            kissat.binary()
        except InputError:
            return False
        return True

    binaries = {"external": shutil.which("cadical") is not None, "kissat": kissat_found()}
    return [name for name in available_backends() if binaries.get(name, True)]
