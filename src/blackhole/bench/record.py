"""One results line: the `Record` that bench writes and report reads, and the file of them.

A results file holds one JSON object per line (docs/bench.md lists every key). Reading it
checks each line like any other input: a line that is no object, or whose fields have the
wrong type, is an InputError naming the file, the line and the token. Whether a line's
claims hold (its moves win, backends agree) is the report's business, not the reader's.

A line names its deal by the spec it was run under (`deal`). A dealt spec (`pysol:N`,
`random:SEED...`) is dealt again wherever the file is read. A deal read from a file is
written into the line itself (`board`, the deal's JSON), so the line can be checked
anywhere: in another folder, on another machine, after the file was edited or removed.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from json.encoder import encode_basestring_ascii as _quoted
from pathlib import Path
from typing import IO, Any

from blackhole.base.errors import ArgumentError, InputError
from blackhole.model.deal import Kind, Move, Position
from blackhole.model.formats import json_shown, parse_json_position, position_json
from blackhole.model.positions import load_position
from blackhole.model.sources import generated_spec

VERDICTS = ("solved", "unsolvable", "unknown", "error")
SETTLED = ("solved", "unsolvable")
TASKS = ("solve", "best")  # what a line answers: can the deal be won; its best score


@dataclass(frozen=True)
class Record:
    """The outcome of one (task, deal, backend) run.

    For a `best` task, `best` is the highest score found (cards moved from the start of
    the deal), `upper_bound` the highest still possible and `proven` whether they meet;
    the verdict is then `solved` for a win, `unsolvable` for a proven best below a win,
    and `unknown` when the limit came first.
    """

    deal: str  # the deal spec as given
    backend: str  # the backend label as given, e.g. "sat:glucose4"
    verdict: str  # one of VERDICTS
    seconds: float  # the backend's own time; for a killed worker, the time until then
    task: str = "solve"  # one of TASKS
    wall: float | None = None  # the whole task inside the worker: load, solve, replay
    solver: str | None = None
    model: str | None = None  # the CP-SAT model asked for (cpsat:MODEL)
    timeout: float | None = None  # the backend's limit in seconds
    peak_mb: float | None = None  # peak resident memory of the worker during the task
    stats: dict[str, Any] = field(default_factory=dict)
    # (card, 0-based fan, kind) in play order; kind "park" or "unpark" (MOVE_KINDS), else
    # None (a play, or a talon turn: fan None)
    moves: tuple[tuple[str, int | None, str | None], ...] = ()
    reason: str | None = None  # why unknown or error
    host: str | None = None
    board: dict[str, Any] | None = None  # the deal itself, for a deal read from a file
    best: int | None = None
    upper_bound: int | None = None
    proven: bool | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ArgumentError(f"verdict {self.verdict!r} is not one of {VERDICTS}")
        if self.task not in TASKS:
            raise ArgumentError(f"task {self.task!r} is not one of {TASKS}")

    @property
    def key(self) -> tuple[str, str, str]:
        """What a line is about; a later line with the same key supersedes it."""
        return self.task, self.deal, self.backend

    def with_error(self, reason: str) -> Record:
        """This line judged wrong: an error, saying why."""
        return replace(self, verdict="error", reason=reason)

    def to_json(self) -> dict[str, Any]:
        """The line's object, keys in field order, built field by field (`asdict` would
        copy every move and value deeply)."""
        data = self._values()
        data["moves"] = [_move_object(*move) for move in self.moves]
        return data

    def line(self) -> bytes:
        """The line as written to a results file, newline included: the JSON of `to_json`,
        with the moves (most of a line) written as text rather than through a dict each."""
        data = self._values()
        head = json.dumps({name: data[name] for name in _BEFORE_MOVES}, default=str)
        tail = json.dumps({name: data[name] for name in _AFTER_MOVES}, default=str)
        return f'{head[:-1]}, "moves": {_moves_text(self.moves)}, {tail[1:]}\n'.encode()

    def _values(self) -> dict[str, Any]:
        """Every field by name, in field order, the times rounded as written."""
        data = {name: getattr(self, name) for name in _FIELD_NAMES}
        data["seconds"] = round(self.seconds, 6)
        if self.wall is not None:
            data["wall"] = round(self.wall, 6)
        return data

    @classmethod
    def from_json(cls, data: object, source: str = "", line: int | None = None) -> Record:
        """A record from one parsed line; InputError (source, line, token) when it is no
        object or a field has the wrong type. Keys it does not know are ignored."""
        if not isinstance(data, dict):
            raise InputError("each line must be a JSON object", source, line,
                             json_shown(data))

        def bad(key: str, what: str) -> InputError:
            return InputError(f"field {key!r} must be {what}", source, line,
                              json_shown(data.get(key)))

        values: dict[str, Any] = {}
        for key, kind in _FIELDS.items():
            value = data.get(key)
            if value is None:
                if key in _REQUIRED:
                    raise bad(key, _KIND_NAMES[kind])
                continue
            if not _fits(value, kind):
                raise bad(key, _KIND_NAMES[kind])
            values[key] = value
        if values["verdict"] not in VERDICTS:
            raise InputError("unknown verdict", source, line, values["verdict"])
        if values.get("task", "solve") not in TASKS:
            raise InputError("unknown task", source, line, values["task"])
        for key in ("seconds", "wall", "timeout", "peak_mb"):
            if key in values and not 0 <= values[key] < math.inf:  # NaN fails this too
                raise bad(key, "a finite number >= 0")
        for key in ("best", "upper_bound"):
            if key in values and values[key] < 0:
                raise bad(key, "a whole number >= 0")
        values["moves"] = _moves(data.get("moves"), bad)
        return cls(**values)


_FIELD_NAMES = tuple(f.name for f in fields(Record))
_BEFORE_MOVES = _FIELD_NAMES[:_FIELD_NAMES.index("moves")]
_AFTER_MOVES = _FIELD_NAMES[_FIELD_NAMES.index("moves") + 1:]


# The kinds a move of a results line names (a move without one is a play or a turn).
MOVE_KINDS = ("park", "unpark")
_KINDS_READ = (None, *MOVE_KINDS)


def record_moves(moves: Iterable[Move]) -> tuple[tuple[str, int | None, str | None], ...]:
    """The rules engine's moves as a results line holds them, a park's and an unpark's
    kind named."""
    return tuple((str(move.card), move.fan,
                  move.kind.value if move.kind in (Kind.PARK, Kind.UNPARK) else None)
                 for move in moves)


def _move_object(card: str, fan: int | None, kind: str | None) -> dict[str, Any]:
    return {"card": card, "fan": fan} | ({} if kind is None else {"kind": kind})


def _moves_text(moves: tuple[tuple[str, int | None, str | None], ...]) -> str:
    """The JSON that `json.dumps` writes for the moves as `to_json` holds them."""
    parts = []
    for card, fan, kind in moves:
        if type(card) is not str or not (fan is None or type(fan) is int) \
                or kind not in (None, *MOVE_KINDS):
            return json.dumps([_move_object(*move) for move in moves], default=str)
        tail = "" if kind is None else f', "kind": "{kind}"'
        parts.append(f'{{"card": {_quoted(card)}, "fan": {"null" if fan is None else fan}'
                     f'{tail}}}')
    return f"[{', '.join(parts)}]"


def _moves(raw: object, bad: Any) -> tuple[tuple[str, int | None, str | None], ...]:
    what = 'a list of {"card", "fan"} objects (and "kind": "park" or "unpark")'
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise bad("moves", what)
    moves = []
    for move in raw:
        if not isinstance(move, dict):
            raise bad("moves", what)
        card, fan, kind = move.get("card"), move.get("fan"), move.get("kind")
        if not (isinstance(card, str)
                and (fan is None or (isinstance(fan, int) and not isinstance(fan, bool)))
                and kind in _KINDS_READ):
            raise bad("moves", what)
        moves.append((card, fan, kind))
    return tuple(moves)


# field → the JSON kind it takes (moves are read on their own)
_FIELDS = {"deal": "str", "backend": "str", "verdict": "str", "seconds": "number",
           "task": "str", "wall": "number", "solver": "str", "model": "str",
           "timeout": "number", "peak_mb": "number", "stats": "object", "reason": "str",
           "host": "str", "board": "object", "best": "int", "upper_bound": "int",
           "proven": "bool"}
_REQUIRED = ("deal", "backend", "verdict", "seconds")
_KIND_NAMES = {"str": "a string", "number": "a number", "object": "an object",
               "int": "a whole number", "bool": "true or false"}


def _fits(value: object, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, {"str": str, "number": int | float, "object": dict,
                              "int": int}[kind])


# ---------------------------------------------------------------- the deal of a line


def deal_board(position: Position) -> dict[str, Any]:
    """What a line records of a deal read from a file: the deal (or position) itself."""
    return position_json(position)


def position_of_record(record: Record) -> Position:
    """The deal a line is about, derived again: a dealt spec is dealt, a file's deal is
    read from the line's `board`. InputError when it cannot be, or when the line's board
    is not the deal its spec deals."""
    if generated_spec(record.deal) is not None:
        position = load_position(record.deal)
        if record.board is not None and record.board != deal_board(position):
            raise InputError(f"its board is not the deal {record.deal} deals", record.deal)
        return position
    if record.board is None:
        raise InputError("a deal read from a file, and the line holds no board to replay it "
                         "on", record.deal)
    return parse_json_position(json.dumps(record.board), record.deal)


# ---------------------------------------------------------------- results files


def read_results(path: Path | str, repair_tail: bool = False) -> list[Record]:
    """Every record of a results file; InputError (file, line, token) for a bad line.

    With `repair_tail`, the end of a file that a run killed in mid-write could leave is
    repaired first (`repair_results_tail`); resume uses this.
    """
    return list(iter_results(path, repair_tail))


def iter_results(path: Path | str, repair_tail: bool = False,
                 end: int | None = None) -> Iterator[Record]:
    """The records of a results file one by one, never all in memory at once; a file
    whose name ends in `.gz` is read through gzip. InputError (file, line, token) for
    a bad line: a line that is cut short or corrupted anywhere but at the very end is
    refused, never skipped. With `end`, only the lines within its first `end` bytes."""
    source = str(path)
    for number, raw in iter_lines(path, repair_tail, end):
        yield parse_line(raw, source, number)


def iter_lines(path: Path | str, repair_tail: bool = False,
               end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of a results file as read, each with its number (from 1),
    unparsed (`parse_line` reads one); as `iter_results` reads the file."""
    source = str(path)
    if repair_tail:
        repair_results_tail(path)
    read = 0
    try:
        with _open_results(path) as handle:
            for number, raw in enumerate(handle, start=1):
                read += len(raw)
                if end is not None and read > end:
                    return
                if raw.strip():
                    yield number, raw
    except FileNotFoundError:
        raise InputError("no such results file", source) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a results file", source) from None
    except (OSError, EOFError, zlib.error) as error:  # gzip's errors are OSError too
        reason = getattr(error, "strerror", None) or str(error)
        raise InputError(f"cannot read results file ({reason})", source) from None


def _open_results(path: Path | str) -> IO[bytes]:
    if str(path).endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def repair_results_tail(path: Path | str) -> None:
    """Make a plain results file end with a whole line, as a run appending to it needs.

    A run killed in the middle of a write can leave a last line without its newline:
    one that is cut short (no JSON) is removed, to be run again; one that is whole
    gets its newline. Anything wrong before the last line is left for the reader to
    refuse."""
    source = str(path)
    try:
        with open(path, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            step = 1 << 16
            start = size
            tail = b""
            while start > 0 and b"\n" not in tail:
                start = max(0, start - step)
                handle.seek(start)
                tail = handle.read(size - start)
            cut = tail.rfind(b"\n") + 1  # 0 when the file holds one line
            last = tail[cut:]
            if not last:
                return
            if last.strip() and _is_json(last):
                handle.write(b"\n")
            else:
                handle.truncate(start + cut)
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise InputError("is a directory, not a results file", source) from None
    except OSError as error:
        raise InputError(f"cannot repair results file ({error.strerror})", source) from None


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return True


def parse_line(raw: bytes, source: str, number: int) -> Record:
    """One line of a results file as a Record; InputError (source, line, token) for a bad
    one."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("not UTF-8", source, number,
                         repr(raw[error.start:error.start + 8])) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        token = text[error.pos:error.pos + 16].strip() or "end of line"
        raise InputError(f"invalid JSON ({error.msg})", source, number, token) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source, number) from None
    except ValueError:  # an integer of more than 4300 digits
        raise InputError("JSON number too long", source, number) from None
    return Record.from_json(data, source, number)


def latest(records: Iterable[Record]) -> dict[tuple[str, str, str], Record]:
    """key → its last record, in first-seen order."""
    table: dict[tuple[str, str, str], Record] = {}
    for record in records:
        table[record.key] = record
    return table
