"""The check of each line of a bench results file: nothing in a results file is taken on
trust, whoever wrote it. A line's claims are checked against its deal (dealt again, or read
from the line's own board) before they count; a line whose claims fail becomes an error
line saying why. (Claims of no solution are checked across backends, in the report.)"""

from __future__ import annotations

import json
from functools import lru_cache

from blackhole.base.errors import InputError
from blackhole.bench.record import SETTLED, Record, parse_line, position_of_record
from blackhole.model.cards import parse_card
from blackhole.model.deal import Kind, Position
from blackhole.model.rules import Move, Outcome, replay


def checked(record: Record) -> Record:
    """The record when its claims hold, else the same line as an error saying why.

    A "solved" line must carry moves that win its deal. A best-score line must carry
    legal moves that score exactly its `best`, within its upper bound; its verdict must
    fit (solved: the best is a win; unsolvable: a proven best short of one).
    """
    if record.verdict not in SETTLED and record.best is None:
        return record
    if record.verdict == "unsolvable" and record.task == "solve":
        return record  # a claim of no solution is checked by comparing backends
    try:
        position = derived_position(record)
    except InputError as error:
        return record.with_error(f"its deal cannot be derived again: {error}")
    moves = []
    for card, fan, kind in record.moves:
        try:
            moves.append(Move(_card(card), fan, None if kind is None else Kind(kind)))
        except ValueError as error:
            return record.with_error(f"its moves cannot be replayed ({error}: {card[:12]!r})")
    judged = replay(position.deal, moves)
    if record.task == "solve":
        if judged.won:
            return record
        return record.with_error("solved, but its moves do not win: "
                                 + judged.describe(position.moved, position.of))
    return _checked_best(record, position, judged.outcome, position.moved + judged.played)


def judge_lines(source: str, lines: list[tuple[int, bytes]]
                ) -> list[tuple[str, str, str, int | None, bool | None, str | None]]:
    """Each line (its number, its bytes) of the results file `source`, read and checked:
    its deal, task, verdict, best score and proven flag, and why its claim fails its
    check (None when it holds; a line written as an error stands as it is). A bad line
    is an InputError naming the file, line and token, as `iter_results` raises it."""
    judged = []
    for number, raw in lines:
        record = parse_line(raw, source, number)
        verdict = checked(record)
        failure = None
        if verdict.verdict == "error" and record.verdict != "error":
            failure = f"{record.backend} fails its check ({verdict.reason})"
        judged.append((record.deal, record.task, record.verdict, record.best,
                       record.proven, failure))
    return judged


def _checked_best(record: Record, position: Position, outcome: Outcome, score: int) -> Record:
    if outcome is Outcome.ILLEGAL:
        return record.with_error("its best line is illegal")
    if record.best is None:
        return record.with_error(f"{record.verdict}, but it gives no best score")
    if score != record.best:
        return record.with_error(f"claims best {record.best}, but its moves score {score}")
    bound = record.upper_bound
    if bound is not None and (bound < record.best or bound > position.of):
        return record.with_error(f"upper bound {bound} outside {record.best}..{position.of}")
    if record.proven and bound is not None and bound != record.best:
        return record.with_error(f"proven, but its upper bound {bound} is not its best")
    won = record.best == position.of
    if record.verdict == "solved" and not won:
        return record.with_error(f"solved, but its best is {record.best} of {position.of}")
    if record.verdict == "unsolvable" and (won or not record.proven):
        return record.with_error(f"unsolvable, but its best {record.best} of {position.of} "
                                 + ("is a win" if won else "is not proven"))
    return record


# A card as a line names it: the 52 names of a deck come again on every line.
_card = lru_cache(maxsize=4096)(parse_card)


def derived_position(record: Record) -> Position:
    """The record's deal, derived once per (deal, board) however many lines name it."""
    board = None if record.board is None else json.dumps(record.board, sort_keys=True)
    return _derived(record.deal, board)


@lru_cache(maxsize=1024)  # a deal's lines come close together; a million would not fit
def _derived(deal: str, board: str | None) -> Position:
    return position_of_record(Record(deal, "", "unknown", 0.0,
                                     board=None if board is None else json.loads(board)))
