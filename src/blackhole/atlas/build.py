"""Building an atlas file from bench results, and writing it (the format and reading it
back are `blackhole.atlas`)."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from blackhole.atlas import Atlas, parse_deal, spec_of
from blackhole.base.errors import InputError, InternalError

# What the check of one line gives: its deal, task, verdict, best score and proven flag,
# and why it fails its check (None when it holds): bench.checks.judge_lines.
Judged = tuple[str, str, str, int | None, bool | None, str | None]


def write_atlas(atlas: Atlas, path: Path | str) -> None:
    """Write `atlas` to `path` as gzip (reproducible: no name or time in the gzip
    header, so the same results give the same bytes)."""
    data = gzip.compress(atlas.text().encode(), compresslevel=9, mtime=0)
    _write_aside(Path(path), data, "the atlas file")


def write_lost_list(atlas: Atlas, path: Path | str) -> None:
    """The specs of the atlas's lost deals, one a line (a spec list: `bench @FILE`)."""
    text = "".join(f"{spec_of(number, atlas.game)}\n" for number in sorted(atlas.lost))
    _write_aside(Path(path), text.encode(), "the list")


def _write_aside(target: Path, data: bytes, what: str) -> None:
    """Write `data` to a hidden file beside `target`, then rename it into place: a file
    already there is replaced whole or not at all."""
    aside = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, aside = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        mode = target.stat().st_mode & 0o777 if target.is_file() else 0o644
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), mode)  # as a plain write leaves it, not 0600
            stream.write(data)
        os.replace(aside, target)
    except OSError as error:
        if aside is not None and os.path.exists(aside):
            os.unlink(aside)
        raise InputError(f"cannot write {what} ({error.strerror})", str(target)) from None


_WON, _LOST = 1, 2  # votes, as bits


@dataclass
class _Tally:
    """What the results say of each deal number, kept small for a million deals."""

    game: str | None = None
    votes: dict[int, int] = field(default_factory=dict)  # number → _WON | _LOST bits
    best: dict[int, int] = field(default_factory=dict)  # number → proven best score
    seen: set[int] = field(default_factory=set)

    def add(self, deal: str, task: str, verdict: str, best: int | None,
            proven: bool | None, source: str) -> None:
        number, game = parse_deal(deal)
        if self.game is None:
            self.game = game
        elif game != self.game:
            raise InputError(f"results of two games ({self.game} and {game}); build one "
                             "atlas per game", source, token=deal)
        self.seen.add(number)
        if verdict == "solved":
            self.votes[number] = self.votes.get(number, 0) | _WON
        elif verdict == "unsolvable":
            self.votes[number] = self.votes.get(number, 0) | _LOST
            if task == "best" and proven and best is not None:
                if self.best.get(number, best) != best:
                    raise InternalError(f"{deal}: two proven best scores, "
                                        f"{self.best[number]} and {best}")
                self.best[number] = best


# Lines a worker checks at a time: a chunk of a million-line build costs one message out
# and one back (a few hundred kB each way).
CHUNK = 2000


def build_atlas(results: Iterable[Path | str], first: int | None = None,
                last: int | None = None, jobs: int | None = None,
                chunk: int = CHUNK) -> Atlas:
    """The atlas of the deals in bench results files (`.jsonl` or `.jsonl.gz`, `solve`
    and `best` tasks alike, any backends). A deal is won when some line wins it (bench
    replays every win), lost when some line proves it unsolvable; both at once is an
    InternalError naming the deal. The range is `first`..`last` (default: the smallest
    and largest deal in the results); a deal of it that no line settles is unsettled.
    Each line is checked as the bench report checks it (`bench.checks.checked`: a win's
    moves replayed to a win, a best line's moves to its score); a line whose claim fails
    its check is an InternalError naming the deal and why, as two lines that contradict
    each other are (the report exits 4 on it too).

    The checks run in `jobs` processes (default: one per core), `chunk` lines at a time;
    a file of one chunk or less, or `jobs` 1, is checked in this process. Lines are taken
    in file order whoever checked them, so the line that stops the build (a bad line, a
    failed check) is the first one, as one process would find it."""
    from blackhole.bench.checks import judge_lines

    tally = _Tally()
    for path in results:
        source = str(path)
        for judged in _judged(source, chunk, jobs or os.cpu_count() or 1, judge_lines):
            for deal, task, verdict, best, proven, failure in judged:
                if failure is not None:
                    raise InternalError(f"{deal}: a {task} line of {failure}")
                tally.add(deal, task, verdict, best, proven, source)
    if tally.game is None:
        raise InputError("no results to build an atlas from", "results")
    low = min(tally.seen) if first is None else first
    high = max(tally.seen) if last is None else last
    if not 1 <= low <= high:
        raise InputError("an empty range of deals", "deals", token=f"{low}-{high}")
    outside = [n for n in tally.seen if not low <= n <= high]
    if outside:
        raise InputError("results of deals outside the range", "deals",
                         token=spec_of(min(outside), tally.game))
    lost: dict[int, int | None] = {}
    unsettled = set()
    for number in range(low, high + 1):
        vote = tally.votes.get(number, 0)
        if vote == _WON | _LOST:
            raise InternalError(f"{spec_of(number, tally.game)}: one line wins it and another "
                                "proves it unsolvable")
        if vote == _LOST:
            lost[number] = tally.best.get(number)
        elif vote == 0:
            unsettled.add(number)
    return Atlas(tally.game, low, high, _cards_to_move(tally.game), lost,
                 frozenset(unsettled))


def _cards_to_move(game: str) -> int:
    """The score of a won deal of `game`: the cards dealt into its fans."""
    from blackhole.model.positions import load_position

    return load_position(spec_of(1, game)).deal.cards_in_fans


def _judged(source: str, chunk: int, jobs: int,
            judge: Callable[[str, list[tuple[int, bytes]]], list[Judged]]
            ) -> Iterator[list[Judged]]:
    """What `judge` says of each chunk of the file's lines, chunk by chunk in file order:
    in this process for a single chunk or a single job, else in a pool of `jobs`
    processes holding at most two chunks each in flight."""
    from blackhole.bench.record import iter_lines

    lines = iter_lines(source)
    chunks = iter(lambda: list(islice(lines, chunk)), [])
    head = next(chunks, [])
    if not head:
        return
    second = next(chunks, []) if jobs > 1 else []
    if not second:
        yield judge(source, head)
        for rest in chunks:
            yield judge(source, rest)
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["blackhole.bench.checks"])
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        pending = deque([pool.submit(judge, source, head), pool.submit(judge, source, second)])
        for part in chunks:
            if len(pending) >= 2 * jobs:
                yield pending.popleft().result()
            pending.append(pool.submit(judge, source, part))
        while pending:
            yield pending.popleft().result()
