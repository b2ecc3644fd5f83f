"""Building an atlas file from bench results, and writing it (the format and reading it
back are `blackhole.atlas`)."""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from blackhole.atlas import Atlas, parse_deal, spec_of
from blackhole.base.errors import InputError, InternalError


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


def build_atlas(results: Iterable[Path | str], first: int | None = None,
                last: int | None = None) -> Atlas:
    """The atlas of the deals in bench results files (`.jsonl` or `.jsonl.gz`, `solve`
    and `best` tasks alike, any backends). A deal is won when some line wins it (bench
    replays every win), lost when some line proves it unsolvable; both at once is an
    InternalError naming the deal. The range is `first`..`last` (default: the smallest
    and largest deal in the results); a deal of it that no line settles is unsettled.
    Each line is checked as the bench report checks it (`bench.checks.checked`: a win's
    moves replayed to a win, a best line's moves to its score); a line whose claim fails
    its check is an InternalError naming the deal and why, as two lines that contradict
    each other are (the report exits 4 on it too)."""
    from blackhole.bench.checks import checked
    from blackhole.bench.record import iter_results

    tally = _Tally()
    for path in results:
        for record in iter_results(path):
            judged = checked(record)
            if judged.verdict == "error" and record.verdict != "error":
                raise InternalError(f"{record.deal}: a {record.task} line of "
                                    f"{record.backend} fails its check ({judged.reason})")
            tally.add(record.deal, record.task, record.verdict, record.best, record.proven,
                      str(path))
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
