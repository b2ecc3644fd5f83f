"""The atlas: which PySolFC deals are won or lost, and each lost deal's best score.

One gzip file per game answers, for every deal of a range, won or lost, and for a lost
deal its best score where a `--task best` run proved it. This module holds the format
and reads it back in milliseconds (`lookup`, `read_atlas`); building a file from bench
results and writing it is `blackhole.atlas.build`. The files shipped with the package are
in `blackhole/atlas/data/` (`shipped_path`).

The format (version 1), UTF-8 text inside gzip:

- line 1: a JSON object, the header: `format` ("blackhole-atlas"), `version` (1),
  `game` (a game of `blackhole.model.games` that PySolFC deals), `first` and `last` (the deal
  numbers it covers, every one of them), `of` (the cards a deal moves when won: 51 or 52
  in Black Hole and All in a Row, 35 in the Golf family: the tableau's cards), the
  counts of what follows: `lost`, `unsettled`, `best` (lost deals with a best score),
  and `index`: every 4096th line as [the deal number before it, its offset in the text
  after the header], so a lookup parses a few thousand lines at most;
- then one line per deal of the range that is not won, in ascending order:
  `GAP BEST`, `GAP -` or `GAP ?`. GAP is the deal's number minus the previous such
  deal's (minus `first - 1` for the first line); BEST is the lost deal's best score
  (cards moved, out of `of`), `-` a lost deal whose best score the atlas holds none of,
  `?` a deal no run settled (the atlas answers "unknown" for it).

Every deal of the range that has no line is won. Gaps are small numbers, so a million
deals with 13% lost fit in a few hundred kB.
"""

from __future__ import annotations

import gzip
import json
import zlib
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from blackhole.base.errors import InputError
from blackhole.model.games import DEFAULT_GAME, VARIANTS

FORMAT = "blackhole-atlas"
VERSION = 1
# a pysol spec's game suffix → the game's name (`blackhole.model.games`; Black Hole: no suffix)
GAMES = {"" if game == DEFAULT_GAME else name: name
         for name, game in VARIANTS.items() if game.pysol}
DATA_PACKAGE = "blackhole.atlas"
DATA_FOLDER = "data"
UNSETTLED, UNKNOWN_BEST = "?", "-"
INDEX_STEP = 4096  # lines between two entries of the header's index
# The most text an atlas file may inflate to. A range of a million deals takes at most
# some 5 MB (every deal lost, each with a best score); the shipped files take 0.3 to
# 3.0 MB. A file that inflates to more (a gzip bomb) is refused having read this much.
MAX_TEXT = 16 * 2**20


@dataclass(frozen=True)
class Answer:
    """What the atlas says of one deal: `won` is None where no run settled it; `best` is
    the best score (cards moved out of `of`), None where the atlas holds none."""

    deal: str
    won: bool | None
    best: int | None
    of: int

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "won": self.won, "best": self.best, "of": self.of}


@dataclass(frozen=True)
class Atlas:
    """One game's atlas: the range it covers, and every deal of it that is not won."""

    game: str
    first: int
    last: int
    of: int
    lost: dict[int, int | None] = field(default_factory=dict)  # number → best score
    unsettled: frozenset[int] = frozenset()

    def answer(self, number: int) -> Answer:
        deal = spec_of(number, self.game)
        if not self.first <= number <= self.last:
            raise InputError(f"outside the atlas (it covers {spec_of(self.first, self.game)} "
                             f"to {spec_of(self.last, self.game)})", deal)
        if number in self.unsettled:
            return Answer(deal, None, None, self.of)
        if number in self.lost:
            return Answer(deal, False, self.lost[number], self.of)
        return Answer(deal, True, self.of, self.of)

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "game": self.game,
                "first": self.first, "last": self.last, "of": self.of,
                "lost": len(self.lost), "unsettled": len(self.unsettled),
                "best": sum(best is not None for best in self.lost.values())}

    def text(self) -> str:
        """The file's text: the header (with its index), then a line per deal not won."""
        lines, index = [], []
        previous, offset = self.first - 1, 0
        for count, number in enumerate(sorted([*self.lost, *self.unsettled])):
            if count % INDEX_STEP == 0:
                index.append([previous, offset])
            if number in self.unsettled:
                mark = UNSETTLED
            else:
                best = self.lost[number]
                mark = UNKNOWN_BEST if best is None else str(best)
            line = f"{number - previous} {mark}\n"
            lines.append(line)
            offset += len(line)
            previous = number
        return json.dumps({**self.header(), "index": index}) + "\n" + "".join(lines)


def spec_of(number: int, game: str) -> str:
    """The spec of PySolFC deal `number` of `game`."""
    suffix = next(suffix for suffix, name in GAMES.items() if name == game)
    return f"pysol:{number}:{suffix}" if suffix else f"pysol:{number}"


# ---------------------------------------------------------------- reading


def parse_deal(spec: str) -> tuple[int, str]:
    """(number, game) of a PySolFC deal spec; InputError for any other spec."""
    from blackhole.model.sources import generated_spec

    parts = generated_spec(spec.strip())
    if parts is None or parts[0] != "pysol":
        raise InputError("the atlas holds PySolFC deals only (pysol:N or pysol:N:GAME)",
                         spec)
    return parts[1], GAMES[parts[2]]


def shipped_path(game: str) -> Path:
    """The atlas file shipped with the package for `game`."""
    from importlib.resources import files

    return Path(str(files(DATA_PACKAGE).joinpath(DATA_FOLDER, f"{game}.atlas.gz")))


def shipped_games() -> tuple[str, ...]:
    """The games whose atlas ships with the package, in the order of the games table."""
    return tuple(game for game in VARIANTS if shipped_path(game).is_file())


def lookup(spec: str, path: Path | str | None = None) -> Answer:
    """What the atlas says of the deal `spec`: from the shipped file of its game, or from
    `path`. InputError (exit 2) for a deal outside the atlas or another game's file.
    Only the lines from the index entry before the deal on are read."""
    number, game = parse_deal(spec)
    source = Path(path) if path is not None else shipped_path(game)
    if path is None and not source.is_file():
        raise InputError(f"no atlas of {game} is shipped yet (give one with its file)", spec,
                         token=game)
    header, body = _load(source)
    if header["game"] != game:
        raise InputError(f"an atlas of {header['game']}, not of {game}", str(source))
    empty = Atlas(game, header["first"], header["last"], header["of"])
    empty.answer(number)  # outside the range: the error
    index = header["index"]
    at = bisect_left([previous for previous, _ in index], number) - 1
    if at >= 0:
        end = index[at + 1][1] if at + 1 < len(index) else len(body)
        for position, mark in _entries(body, source, header, *index[at], end):
            if position == number:
                won = None if mark == UNSETTLED else False
                best = None if mark == UNSETTLED else mark
                return Answer(spec_of(number, game), won, best, empty.of)  # type: ignore
            if position > number:
                break
    return empty.answer(number)


def read_atlas(path: Path | str) -> Atlas:
    """A whole atlas file, checked against its header's counts and index."""
    source = Path(path)
    header, body = _load(source)
    lost: dict[int, int | None] = {}
    unsettled = set()
    for number, mark in _entries(body, source, header, header["first"] - 1, 0):
        if mark == UNSETTLED:
            unsettled.add(number)
        else:
            lost[number] = mark
    atlas = Atlas(header["game"], header["first"], header["last"], header["of"], lost,
                  frozenset(unsettled))
    counts = atlas.header()
    for key in ("lost", "unsettled", "best"):
        if counts[key] != header[key]:
            raise InputError(f"the header counts {header[key]} {key} lines, the file holds "
                             f"{counts[key]}", str(source), 1)
    if json.loads(atlas.text().partition("\n")[0])["index"] != [
            list(entry) for entry in header["index"]]:
        raise InputError("the header's index does not match the lines", str(source), 1)
    return atlas


def _load(source: Path) -> tuple[Mapping[str, Any], str]:
    """The checked header and the text after it. The last files read are kept inflated
    while the same file (its inode, size and modification time) stays at the path, so a
    server answering lookups inflates each game's file once. Every caller gets the same
    header, so it is read-only: a mapping proxy, its index a tuple of pairs."""
    try:
        stat = source.stat()
    except FileNotFoundError:
        raise InputError("no such atlas file", str(source)) from None
    except OSError as error:
        raise InputError(f"cannot read the atlas file ({error.strerror})", str(source)) \
            from None
    return _inflate(source, stat.st_ino, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=len(GAMES) + 2)
def _inflate(source: Path, inode: int, size: int,
             modified: int) -> tuple[Mapping[str, Any], str]:
    """`_load` for one version of a file (the last three arguments only key the cache).
    At most MAX_TEXT bytes are inflated (one more to tell a larger file): memory stays
    bounded whatever the file holds."""
    try:
        with gzip.open(source) as stream:
            data = stream.read(MAX_TEXT + 1)
        if len(data) > MAX_TEXT:
            raise InputError(f"inflates to more than {MAX_TEXT // 2**20} MB, more than an "
                             "atlas file holds", str(source))
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise InputError("no such atlas file", str(source)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not an atlas file", str(source)) from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise InputError(f"not a whole gzip atlas file ({error})", str(source)) from None
    first, _, body = text.partition("\n")
    header = _header(first, source)
    header["index"] = tuple(tuple(entry) for entry in header["index"])
    return MappingProxyType(header), body


def _header(first: str, source: Path) -> dict[str, Any]:
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not (isinstance(header, dict) and header.get("format") == FORMAT):
        raise InputError("not an atlas file (no atlas header)", str(source), 1)
    if header.get("version") != VERSION:
        raise InputError(f"atlas format version {header.get('version')!r}; this blackhole "
                         f"reads version {VERSION}", str(source), 1)
    for key in ("first", "last", "of", "lost", "unsettled", "best"):
        if not _whole(header.get(key)):
            raise InputError(f"header field {key!r} must be a whole number", str(source), 1)
    if header.get("game") not in GAMES.values() or not 1 <= header["first"] <= header["last"]:
        raise InputError("header names no game or no range", str(source), 1)
    index = header.get("index")
    if not (isinstance(index, list) and all(
            isinstance(entry, list) and len(entry) == 2 and all(map(_whole, entry))
            for entry in index)):
        raise InputError("header field 'index' must be a list of [number, offset] pairs",
                         str(source), 1)
    return header


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entries(body: str, source: Path, header: Mapping[str, Any], previous: int,
             offset: int, end: int | None = None) -> Iterator[tuple[int, int | None | str]]:
    """(number, best or None or UNSETTLED) per line of `body` from `offset` to `end`,
    where the deal before is `previous`; checked."""
    number = previous
    for line in body[offset:end].splitlines():
        gap, _, mark = line.partition(" ")
        if not gap.isdigit() or int(gap) < 1:
            raise _bad_line(body, line, source, "a line must start with a gap >= 1", gap)
        number += int(gap)
        if number > header["last"]:
            raise _bad_line(body, line, source, "a deal past the header's last", str(number))
        if mark in (UNSETTLED, UNKNOWN_BEST):
            yield number, None if mark == UNKNOWN_BEST else UNSETTLED
        elif mark.isdigit() and int(mark) < header["of"]:
            yield number, int(mark)
        else:
            raise _bad_line(body, line, source, f"a best score must be 0 to "
                            f"{header['of'] - 1}, '-' or '?'", mark)


def _bad_line(body: str, line: str, source: Path, message: str, token: str) -> InputError:
    where = body.find(line + "\n")
    number = body.count("\n", 0, where) + 2 if where >= 0 else None
    return InputError(message, str(source), number, token)
