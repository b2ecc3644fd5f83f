"""The questions players ask about a position: the best score, hints, and the critical
moves of a line.

- `best_score(position, backend)`: the most cards any legal line from the position
  moves, counted from the start of the deal (51 is a win for a standard deal), with one
  line that reaches it. Each backend finds it its own way (`Backend.best`): `sat` climbs
  with one incremental solver, `cpsat` maximises, `maxsat` runs RC2, `search` is the
  exhaustive referee. The line is replayed by the rules engine before it is returned.
- `hints(position)`: every legal move, whether the game stays winnable after it and the
  best score still reachable, best first.
- `analyze(position, line)`: along a line (given, or the solver's best), how many legal
  moves keep the best score at each move, the critical moves (the only good choice among
  several) and the first move that loses.

Hints and analyses ask one incremental SAT solver (`backends.pysat_tools.LineSolver`) over the
optional-position CNF of the starting position: a move is the assumption "this card is
at that position", so every candidate move, at every step of a line, reuses one
encoding and everything the solver has learned. A game whose best score that CNF does
not count (a talon: Golf, scored by fan cards) is answered by the look's exhaustive
longest-line search instead (`look.longest`), once for each position a move leads to.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from blackhole.backends import Options, choose, make_backend
from blackhole.cards import Card
from blackhole.deal import Deal, Position
from blackhole.errors import InputError, InternalError
from blackhole.formats import moves_json
from blackhole.longest import Longest
from blackhole.look import longest, look, quick_budget
from blackhole.positions import as_position
from blackhole.problem import Problem, build_problem
from blackhole.rules import (
    Move,
    Outcome,
    Replay,
    as_moves,
    layout,
    legal_cards,
    move_text,
    replay,
)

# Hints and analyses: the SAT solver and the features of its optional-position CNF.
# No symmetry breaking: it keeps some longest line, not every one, and a hint asks for
# the longest line that starts with one given card.
HINT_SOLVER = "glucose3"
HINT_FEATURES = frozenset({"domain", "reach", "rank", "compact", "forward", "rankcount"})


# ---------------------------------------------------------------- the best score


@dataclass(frozen=True)
class Best:
    """The best score of a position: `best` cards moved from the start of the deal (out
    of `of`) by the line `moves` from the position; `upper_bound` is the most any line
    may reach as far as proven, and `proven` says the two meet. `moved` counts the cards
    moved before the position."""

    best: int
    of: int
    proven: bool
    upper_bound: int
    moves: tuple[Move, ...]  # (card, 0-based fan) from the position
    backend: str
    solver: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    moved: int = 0
    replay: Replay | None = None

    @property
    def won(self) -> bool:
        return self.best == self.of

    def to_json(self, spec: str, after: Sequence[tuple[Card, int]] = ()) -> dict[str, Any]:
        """The stable JSON schema documented in the README: `after` is the moves played
        on the position `spec` holds (`Position.after`), `moved` the cards moved from the
        start of the deal before this line."""
        return {"deal": spec, "after": moves_json(after), "moved": self.moved,
                "best": self.best, "of": self.of, "proven": self.proven,
                "upper_bound": self.upper_bound, "moves": moves_json(self.moves),
                "backend": self.backend, "solver": self.solver,
                "seconds": round(self.seconds, 6), "stats": self.stats}


def best_score(position: Position | Deal | str, backend: str = "auto", *,
               timeout: float | None = None, **options: Any) -> Best:
    """The best score of `position` (a Position, a Deal or a deal spec), counted from the
    start of the deal, with one line that reaches it, replayed by the rules engine.

    `backend` is "auto" (default), "sat", "cpsat", "maxsat" or "search", with an optional variant
    ("sat:glucose4"); keyword options are `Options` fields. At the limit the best line
    found comes back with `proven` False and the bound proven so far. Bad input, or a
    backend that finds no best score, raises InputError."""
    name, chosen = choose_best(backend, timeout, **options)
    return best_position(as_position(position), name, chosen)


def choose_best(backend: str, timeout: float | None = None,
                **options: Any) -> tuple[str, Options]:
    """`backends.choose` for the best score: also refused, before any work, a backend
    that finds no best score or cannot take these options for it."""
    name, chosen = choose(backend, timeout, **options)
    make_backend(name).check_best(chosen)
    return name, chosen


def best_position(position: Position, backend: str, options: Options) -> Best:
    """`best_score` with a registry name and Options (as bench runs it)."""
    began = time.perf_counter()
    engine = make_backend(backend)
    engine.check_best(options)
    deal = position.deal
    engine.check_size(deal.cards_in_fans, deal.name or "deal")
    problem = build_problem(deal, f"{engine.name} best-score", engine.best_reads_rules)
    if options.timeout is not None:  # the limit covers building the problem too
        left = options.timeout - (time.perf_counter() - began)
        if left <= 0:
            found = Longest((), len(problem.required), engine.name, "", options.timeout)
            return judged(position, problem, found)
        options = replace(options, timeout=left)
    return judged(position, problem, engine.best(problem, options))


def judged(position: Position, problem: Problem, found: Longest) -> Best:
    """A backend's longest line as moves, replayed by the rules engine; any claim the
    rules refute is an InternalError. The score counts fan cards (in a game with a talon
    the line turns talon cards too)."""
    who = f"{found.backend}/{found.solver}"
    n = len(problem.required)
    if not found.played <= found.upper_bound <= n:
        raise InternalError(f"{who}: a line of {found.played} cards with the bound "
                            f"{found.upper_bound} of {n}")
    moves = tuple(Move(problem.cards[v], problem.fan_of[v] if problem.fan_of[v] >= 0 else None)
                  for v in found.order)
    played = replay(position.deal, [card for card, _ in moves])
    if played.outcome is Outcome.ILLEGAL or played.played != found.played \
            or played.played + played.turned != len(moves):
        raise InternalError(f"{who}: best line fails replay: {played.describe()}")
    if found.proven and played.outcome is Outcome.UNFINISHED and played.state is not None \
            and any(move.fan is not None for move in legal_cards(position.deal, played.state)):
        raise InternalError(f"{who}: a line proven longest that a legal move extends")
    return Best(position.moved + found.played, position.of, found.proven,
                position.moved + found.upper_bound, moves, found.backend, found.solver,
                found.seconds, found.stats, position.moved, played)


# ---------------------------------------------------------------- the hint engine


def keeps(move: int, bounds: Sequence[tuple[int, int]]) -> bool | None:
    """Whether legal move `move` keeps the best score of a position whose legal moves'
    lines score within `bounds` (each (found, upper bound)): True when its line found
    reaches every other move's bound, False when its bound falls short of a line found
    through another move, None when the limit left it open."""
    low, high = bounds[move]
    others = [bound for i, bound in enumerate(bounds) if i != move]
    if low >= max((h for _, h in others), default=low):
        return True
    if high < max(lo for lo, _ in others):
        return False
    return None


def unknown_text(value: object) -> str:
    """A value as text, "?" when the limit left it unknown (None)."""
    return "?" if value is None else str(value)


class Bounded:
    """A best score known to lie between `found` (the longest line found) and
    `upper_bound` (the most any line may score, as far as proven), out of `of`; what the
    two leave open is unknown (None)."""

    found: int
    upper_bound: int
    of: int

    @property
    def best_proven(self) -> bool:
        return self.found == self.upper_bound

    @property
    def best(self) -> int | None:
        """The best score; None when not proven."""
        return self.found if self.best_proven else None

    @property
    def winnable(self) -> bool | None:
        """True when a win was found (a win is its own proof), False when no line can
        win, None when the limit came first."""
        if self.found == self.of:
            return True
        return False if self.upper_bound < self.of else None


@dataclass(frozen=True)
class Hint(Bounded):
    """A legal move from a position and the best score of the lines through it, counted
    from the start of the deal: `found` is the longest line found (a proven lower bound),
    `upper_bound` the most any line through it may score as far as proven, `of` a win.
    Without a time limit the two meet; at the limit whatever they leave open is unknown
    (None): `best`, `winnable`."""

    card: Card
    fan: int | None  # None: the talon's next card
    found: int
    upper_bound: int
    of: int

    @property
    def proven(self) -> bool:
        return self.best_proven

    @property
    def move(self) -> Move:
        return Move(self.card, self.fan)

    def to_json(self) -> dict[str, Any]:
        return {"card": str(self.card), "fan": self.fan, "winnable": self.winnable,
                "best": self.best, "found": self.found, "upper_bound": self.upper_bound,
                "proven": self.proven}


@dataclass(frozen=True)
class _Choice:
    """A legal move after some prefix: its node, fan, and the climb of its lines."""

    node: int
    fan: int | None
    line: tuple[int, ...]  # the longest line found through the move, from the start
    upper_bound: int  # no line through it plays more, from the start position


class _Engine:
    """One LineSolver over a start position, answering for positions along lines from it
    (each a prefix of cards played from the start)."""

    def __init__(self, position: Position, deadline: float | None) -> None:
        from blackhole.backends.pysat_tools import LineSolver

        self.position = position
        self.problem = build_problem(position.deal, f"sat:{HINT_SOLVER}")
        self.node = {card: v for v, card in enumerate(self.problem.cards)}
        self.lines = LineSolver(self.problem, HINT_SOLVER, HINT_FEATURES, deadline)
        self.deadline = deadline

    def played(self, line: Sequence[int]) -> int:
        """The cards a line plays: its score."""
        return len(line)

    def __enter__(self) -> _Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lines.__exit__(*exc)

    def root(self) -> _Choice:
        """The longest line from the start position. Is it winnable, first (most positions
        a player asks about are): a quick look, then the solver; if not, a climb from
        a short search's line."""
        from blackhole.backends.seeding import quick_line

        n = self.lines.n
        if n == 0:
            return _Choice(-1, -1, (), 0)
        line = look(self.problem, quick_budget()).line  # a greedy win in milliseconds, or not
        if line is not None:
            return _Choice(-1, -1, line, n)
        won = self.lines.ask([self.lines.filled_literal(n)])
        if won is None:
            return _Choice(-1, -1, (), n)
        if won is not False:
            return _Choice(-1, -1, won, n)
        climb = self.lines.longest(lower=quick_line(self.problem, self.deadline), upper=n - 1)
        return _Choice(-1, -1, climb.order, climb.upper_bound)

    def choices(self, prefix: tuple[int, ...], parent: _Choice) -> list[_Choice]:
        """Every legal move after `prefix`, each with its longest line; `parent` is the
        answer for the prefix itself (its line need not start with the prefix when the
        prefix is not on it, but its bound holds for every move after the prefix)."""
        deal = self.position.deal
        state = replay(deal, [self.problem.cards[v] for v in prefix]).state
        found = []
        for card, fan in legal_cards(deal, state):
            node = self.node[card]
            start = (*prefix, node)
            lower = parent.line if parent.line[:len(start)] == start else start
            may_win = parent.upper_bound == self.lines.n  # then ask "does it still win?" first
            climb = self.lines.longest(start, lower, parent.upper_bound, top_first=may_win)
            found.append(_Choice(node, fan, climb.order, climb.upper_bound))
        return found


class _LookEngine:
    """The hint engine of a game the best-score CNF does not score (a talon): the look's
    longest-line search (`look.longest`) from each position a move leads to, with the
    same interface as `_Engine`. Its answers rest on exhausting the search, as the
    look's best scores do."""

    def __init__(self, position: Position, deadline: float | None) -> None:
        self.position = position
        self.problem = build_problem(position.deal, "look", reads_rules=True)
        self.node = {card: v for v, card in enumerate(self.problem.cards)}
        self.talon = frozenset(self.problem.talon)
        self.n = len(self.problem.required)
        self.deadline = deadline

    def __enter__(self) -> _LookEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def played(self, line: Sequence[int]) -> int:
        """The fan cards a line plays (its score): talon cards turned do not count."""
        return sum(1 for node in line if node not in self.talon)

    def _longest(self, prefix: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
        """The longest line through `prefix` and the most any line through it scores
        (every fan card when the limit comes first)."""
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if left is not None and left <= 0:
            return prefix, self.n
        deal = self.position.deal
        after = layout(deal, replay(deal, [self.problem.cards[v] for v in prefix]).state)
        problem = build_problem(after, "look", reads_rules=True)
        found = longest(problem, seconds=left)
        line = prefix + tuple(self.node[problem.cards[v]] for v in found.order)
        return line, self.played(prefix) + found.upper_bound

    def root(self) -> _Choice:
        line, bound = self._longest(())
        return _Choice(-1, -1, line, bound)

    def choices(self, prefix: tuple[int, ...], parent: _Choice) -> list[_Choice]:
        deal = self.position.deal
        state = replay(deal, [self.problem.cards[v] for v in prefix]).state
        found = []
        for card, fan in legal_cards(deal, state):
            line, bound = self._longest((*prefix, self.node[card]))
            found.append(_Choice(self.node[card], fan, line, bound))
        return found


def _hint_engine(position: Position, deadline: float | None) -> _Engine | _LookEngine:
    """The SAT hint engine where its CNF scores the game (Black Hole's path), else the
    look's."""
    if position.deal.game.plain:
        return _Engine(position, deadline)
    return _LookEngine(position, deadline)



def hints(position: Position | Deal | str, *, timeout: float | None = None) -> list[Hint]:
    """Every legal move from `position`, best first (then in fan order): whether the game
    stays winnable after it, and the best score still reachable, counted from the start
    of the deal. One incremental SAT solver answers for every move. At the limit a hint
    keeps the bounds proven so far, and what they leave open is unknown."""
    position = as_position(position)
    Options(timeout=timeout)  # checks the limit
    deadline = None if timeout is None else time.perf_counter() + timeout
    with _hint_engine(position, deadline) as engine:
        found = engine.choices((), engine.root())
    moved, of = position.moved, position.of
    ranked = [Hint(engine.problem.cards[c.node], c.fan, moved + engine.played(c.line),
                   moved + c.upper_bound, of) for c in found]
    return sorted(ranked, key=lambda hint: (-hint.found, -hint.upper_bound))


@dataclass(frozen=True)
class HintSummary:
    """What the hints of a position say about the position itself: its best score and
    whether it is winnable (None where the limit left them open), and how many hints
    the limit left unproven."""

    best: int | None
    winnable: bool | None
    unknown: int

    @property
    def proven(self) -> bool:
        return self.unknown == 0


def summarise(position: Position, found: Sequence[Hint]) -> HintSummary:
    """The position's best and winnability, as far as its hints prove them: a move that
    wins proves a win; only when every move is proven lost is the position."""
    if not found:
        return HintSummary(position.moved, position.moved == position.of, 0)
    bounds = [(hint.found, hint.upper_bound) for hint in found]
    low, high = max(lo for lo, _ in bounds), max(hi for _, hi in bounds)
    answers = {hint.winnable for hint in found}
    winnable = True if True in answers else (False if answers == {False} else None)
    return HintSummary(low if low == high else None, winnable,
                       sum(not hint.proven for hint in found))


def hints_json(spec: str, position: Position, found: Sequence[Hint],
               seconds: float) -> dict[str, Any]:
    """The stable JSON schema of `hint --json`, documented in the README."""
    summary = summarise(position, found)
    return {"deal": spec, "after": moves_json(position.after), "moved": position.moved,
            "of": position.of, "best": summary.best, "winnable": summary.winnable,
            "proven": summary.proven, "unknown": summary.unknown,
            "moves": [hint.to_json() for hint in found], "seconds": round(seconds, 6)}


# ---------------------------------------------------------------- analysis


@dataclass(frozen=True)
class Step:
    """One move along an analysed line. `bounds` holds, for every legal move then (in fan
    order), the longest line found through it and the most any line through it may score
    (both counted from the start of the deal); `chosen` is the index of the move played.
    Without a time limit each pair meets. Every answer below is derived from the bounds,
    so it is proven, or None (unknown) when the limit left it open."""

    number: int  # 1-based, counted from the start of the deal (`Position.made`)
    card: Card
    fan: int | None  # None: the talon's next card
    bounds: tuple[tuple[int, int], ...]
    chosen: int

    @property
    def move(self) -> Move:
        return Move(self.card, self.fan)

    @property
    def legal(self) -> int:
        return len(self.bounds)

    @property
    def best_before(self) -> int | None:
        """The best score reachable before the move."""
        low, high = (max(side) for side in zip(*self.bounds, strict=True))
        return low if low == high else None

    @property
    def best_after(self) -> int | None:
        """The best score reachable after the move played."""
        low, high = self.bounds[self.chosen]
        return low if low == high else None

    def _keeps(self) -> list[bool | None]:
        return [keeps(i, self.bounds) for i in range(self.legal)]

    @property
    def good(self) -> int | None:
        """How many legal moves keep the best score before the move."""
        kept = self._keeps()
        return None if None in kept else sum(kept)

    @property
    def critical(self) -> bool | None:
        """The only good choice among several."""
        kept = self._keeps()
        if self.legal == 1 or kept.count(True) > 1:
            return False
        if kept.count(True) == 1 and None not in kept:
            return True
        return None

    @property
    def loses(self) -> bool | None:
        """The best score after the move is lower than before it."""
        kept = self._keeps()[self.chosen]
        return None if kept is None else not kept

    @property
    def proven(self) -> bool:
        """Every answer of the step is known."""
        return None not in (self.best_before, self.best_after, self.good, self.critical)

    def to_json(self) -> dict[str, Any]:
        return {"move": self.number, "card": str(self.card), "fan": self.fan,
                "legal": self.legal, "good": self.good, "critical": self.critical,
                "loses": self.loses, "best_before": self.best_before,
                "best_after": self.best_after, "proven": self.proven}


@dataclass(frozen=True)
class Analysis(Bounded):
    """A line from a position, move by move, against the best play. The best score of the
    position (from the start of the deal) lies between `found`, the longest line found,
    and `upper_bound`; `given` says the line was given rather than the solver's best
    line. What the limit left open is None (unknown), and the counts hold proven facts
    only, with the number left unknown beside them."""

    found: int
    upper_bound: int
    of: int
    moved: int
    given: bool
    steps: tuple[Step, ...]
    seconds: float

    @property
    def proven(self) -> bool:
        return self.best_proven and all(step.proven for step in self.steps)

    @property
    def critical(self) -> int:
        """The moves proven critical."""
        return sum(step.critical is True for step in self.steps)

    @property
    def critical_unknown(self) -> int:
        """The moves the limit left undecided: critical or not."""
        return sum(step.critical is None for step in self.steps)

    @property
    def first_loss(self) -> Step | None:
        """The first move after which the best score reachable is lower than before it
        (for a winnable position, the move that lost the game): the first move proven to
        lose, when every move before it is proven not to. None when there is none, or
        when the limit left it unknown (`first_loss_known`)."""
        for step in self.steps:
            if step.loses is not False:
                return step if step.loses else None
        return None

    @property
    def first_loss_known(self) -> bool:
        """Whether `first_loss` is proven: a move proven to lose with no undecided move
        before it, or every move proven not to lose."""
        return all(step.loses is not None for step in self.steps[:self._loss_end()])

    def _loss_end(self) -> int:
        """The steps up to and including the first proven loss (all of them without)."""
        return next((i + 1 for i, step in enumerate(self.steps) if step.loses), len(self.steps))

    @property
    def score(self) -> int:
        """Cards moved from the start of the deal at the end of the line (talon cards
        turned do not count)."""
        return self.moved + sum(1 for step in self.steps if step.fan is not None)

    def to_json(self, spec: str, after: Sequence[tuple[Card, int]] = ()) -> dict[str, Any]:
        """The stable JSON schema documented in the README (`after` as in `Best`)."""
        loss = self.first_loss
        return {"deal": spec, "after": moves_json(after), "moved": self.moved,
                "best": self.best, "found": self.found,
                "upper_bound": self.upper_bound, "of": self.of, "proven": self.proven,
                "winnable": self.winnable, "line": "given" if self.given else "best",
                "score": self.score, "steps": [step.to_json() for step in self.steps],
                "critical": self.critical, "critical_unknown": self.critical_unknown,
                "first_loss": None if loss is None else loss.to_json(),
                "first_loss_known": self.first_loss_known,
                "seconds": round(self.seconds, 6)}


def analyze(position: Position | Deal | str,
            line: Sequence[Card | Move | str] | str | None = None, *,
            timeout: float | None = None) -> Analysis:
    """Walk `line` (moves from `position`: a str of cards as `--after` reads them, or a
    sequence of Cards, Moves and card names, replayed by the rules engine; an illegal
    move, or a line that names no move, is an InputError), or the solver's best line
    when None, and weigh every legal move
    at every step with one incremental SAT solver. At the limit each step keeps the
    bounds proven so far (see `Step`)."""
    began = time.perf_counter()
    position = as_position(position)
    Options(timeout=timeout)  # checks the limit
    deadline = None if timeout is None else began + timeout
    given = line is not None
    if given:
        line = as_moves(line, "line")
        if not line:
            raise InputError("names no move (leave it out to walk a best line)", "line",
                             token="")
        played = replay(position.deal, line)
        if played.outcome is Outcome.ILLEGAL:
            raise InputError(f"move {played.index + 1} is illegal: {played.reason}", "line",
                             None, move_text(line[played.index]))
    moved = position.moved
    with _hint_engine(position, deadline) as engine:
        parent = root = engine.root()
        cards = played.order if given else [engine.problem.cards[v] for v in parent.line]
        walk = [engine.node[card] for card in cards]
        steps = []
        for i, node in enumerate(walk):
            found = engine.choices(tuple(walk[:i]), parent)
            chosen = next((k for k, c in enumerate(found) if c.node == node), None)
            if chosen is None:
                raise InternalError(f"analyze: move {i + 1} ({engine.problem.cards[node]}) "
                                    "is not among the legal moves")
            bounds = tuple((moved + engine.played(c.line), moved + c.upper_bound)
                           for c in found)
            steps.append(Step(position.made + i + 1, engine.problem.cards[node],
                              found[chosen].fan, bounds, chosen))
            parent = found[chosen]
    return Analysis(moved + engine.played(root.line), moved + root.upper_bound, position.of,
                    moved,
                    given, tuple(steps), time.perf_counter() - began)
