"""The statistics of a bench report: time quantiles, and the solvable fraction of each
source of deals with its 95% Wilson interval, beside the published figure for the first
million PySolFC deals."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from blackhole.base.errors import InputError
from blackhole.model.sources import generated_spec

PUBLISHED_SOLVABLE = 869_413  # of the first 1,000,000 PySolFC deals
PUBLISHED_DEALS = 1_000_000
Z95 = 1.959963984540054  # the normal quantile for a two-sided 95% interval
_STANDARD_SOURCES = ("pysol", "random")  # deals from the standard game's shuffles


def quantile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile by linear interpolation between order statistics (numpy's default,
    `statistics.quantiles(method="inclusive")`); None for no values."""
    return quantile_sorted(sorted(values), q)


def quantile_sorted(ordered: Sequence[float], q: float) -> float | None:
    """`quantile` of values already in order."""
    if not ordered:
        return None
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion; (0, 1) for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    scale = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / scale
    half = z / scale * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def deal_source(spec: str) -> str:
    """pysol, pysol:all-in-a-row (another game: not the published figure's), random,
    random:any, random:ranks=R, or file."""
    try:
        dealt = generated_spec(spec)
    except InputError:
        dealt = None  # a name a results file holds but no spec parses: counted as a file
    if dealt is None:
        return "file"
    kind, _, variant = dealt
    return f"{kind}:{variant}" if variant else kind


@dataclass(frozen=True)
class Solvability:
    source: str  # pysol, pysol:all-in-a-row, random, random:any, ..., or file
    deals: int
    solvable: int
    unsolvable: int
    unsettled: int  # unknown everywhere, errors, or disputed
    fraction: float | None  # solvable / (solvable + unsolvable)
    low: float  # 95% Wilson interval
    high: float
    published: float | None  # 869413 / 1e6, for the standard game's deals
    published_inside: bool | None


def solvability(groups: dict[str, Counter[str]]) -> list[Solvability]:
    """The solvable fraction of each source, from its deals per verdict."""
    out = []
    for source in sorted(groups):
        verdicts = groups[source]
        solvable, unsolvable = verdicts["solved"], verdicts["unsolvable"]
        settled = solvable + unsolvable
        low, high = wilson_interval(solvable, settled)
        standard = source in _STANDARD_SOURCES
        published = PUBLISHED_SOLVABLE / PUBLISHED_DEALS if standard else None
        inside = None if published is None or not settled else low <= published <= high
        deals = verdicts.total()
        out.append(Solvability(source, deals, solvable, unsolvable, deals - settled,
                               solvable / settled if settled else None, low, high,
                               published, inside))
    return out
