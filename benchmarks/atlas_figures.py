"""The atlas's figures and tables, from the shipped atlas files and from bench results.

    python benchmarks/atlas_figures.py counts [ATLAS...]
    python benchmarks/atlas_figures.py best [ATLAS] [--out docs/plots]
    python benchmarks/atlas_figures.py hardest RESULTS... [--top 10]

counts   per game: deals, won, lost, unsettled, the solvable fraction, and the
         published figure beside it (ATLAS defaults to every shipped file)
best     the best scores of an atlas's lost deals (ATLAS defaults to Black Hole's): a
         table by band and a histogram, docs/plots/atlas-best-GAME.png (and .svg),
         one bar per score
hardest  the slowest deals of bench results (plain or .gz), per backend and task,
         read one line at a time (a million lines take a few hundred MB at most)

Tables print in Markdown. The atlas files are `blackhole.atlas` files
(src/blackhole/atlas/data/, read by `blackhole.atlas.read_atlas`).
"""

from __future__ import annotations

import heapq
import sys
from collections import Counter, defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from blackhole.atlas import Atlas, read_atlas, shipped_games, shipped_path  # noqa: E402
from blackhole.bench.record import iter_results  # noqa: E402
from blackhole.model.games import VARIANTS  # noqa: E402

# The published solvable figures for PySolFC's first million deals.
PUBLISHED_TEXT = {"black-hole": "869,413 (86.94%)", "all-in-a-row": "67.1%",
                  "golf": "45.109% ± 0.032 (Solvitaire, random deals); 45.077% (Wolter)"}


def bands(of: int) -> tuple[tuple[int, int, str], ...]:
    """The best-score bands of a game whose won deals move `of` cards: the same low bands
    for every game, then the top ones counted down from `of` (Black Hole's 30-46, 47-49,
    50 of 51)."""
    low = ((0, 0, "0 (no first move)"), (1, 4, "1-4"), (5, 9, "5-9"), (10, 14, "10-14"),
           (15, 19, "15-19"), (20, 29, "20-29"))
    top = ((30, of - 5), (of - 4, of - 2))
    return (*low, *((a, b, f"{a}-{b}" if a < b else str(a)) for a, b in top if a <= b),
            (of - 1, of - 1, f"{of - 1} of {of}"))


def atlases(paths: list[str]) -> list[Atlas]:
    if paths:
        return [read_atlas(path) for path in paths]
    return [read_atlas(shipped_path(game)) for game in shipped_games()]


def counts(paths: list[str]) -> None:
    print("| game | deals | won | lost | unsettled | won % | published |")
    print("|---|---|---|---|---|---|---|")
    for atlas in atlases(paths):
        deals = atlas.last - atlas.first + 1
        won = deals - len(atlas.lost) - len(atlas.unsettled)
        print(f"| {atlas.game} | pysol:{atlas.first}-{atlas.last} | {won:,} | "
              f"{len(atlas.lost):,} | {len(atlas.unsettled):,} | {100 * won / deals:.2f} | "
              f"{PUBLISHED_TEXT.get(atlas.game, '')} |")


def best(paths: list[str], out: Path) -> None:
    atlas = atlases(paths or [str(shipped_path("black-hole"))])[0]
    scores = Counter(score for score in atlas.lost.values() if score is not None)
    held = sum(scores.values())
    print(f"{atlas.game} pysol:{atlas.first}-{atlas.last}: {len(atlas.lost):,} lost, "
          f"{held:,} with a proven best score\n")
    print("| best score | deals | share |")
    print("|---|---|---|")
    for low, high, label in bands(atlas.of):
        count = sum(scores[s] for s in range(low, high + 1))
        print(f"| {label} | {count:,} | {100 * count / held:.2f}% |")
    early = sum(scores[s] for s in range(5))
    print(f"\nblocked before 5 cards: {early:,}; reached {atlas.of - 1} of {atlas.of}: "
          f"{scores[atlas.of - 1]:,}")
    figure, axis = plt.subplots(figsize=(8, 4))
    xs = range(atlas.of)
    axis.bar(xs, [scores[x] for x in xs], color="#4060a0")
    axis.set_yscale("log")
    axis.set_xlabel(f"best score (tableau cards played, of {atlas.of})")
    axis.set_ylabel("lost deals (log scale)")
    axis.set_title(f"Best scores of the {held:,} lost {VARIANTS[atlas.game].title} deals of "
                   f"pysol:{atlas.first}-{atlas.last}")
    out.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(out / f"atlas-best-{atlas.game}.png", dpi=120)
    figure.savefig(out / f"atlas-best-{atlas.game}.svg")
    plt.close(figure)


def hardest(paths: list[str], top: int) -> None:
    slowest: dict[tuple[str, str], list[tuple[float, str, str, str]]] = defaultdict(list)
    for path in paths:
        for record in iter_results(path):
            heap = slowest[(record.backend, record.task)]
            item = (record.seconds, record.deal, record.verdict, record.solver or "")
            if len(heap) < top:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)
    for (backend, task), heap in sorted(slowest.items()):
        print(f"\n{backend}, {task}:\n")
        print("| deal | seconds | verdict | answered by |")
        print("|---|---|---|---|")
        for seconds, deal, verdict, solver in sorted(heap, reverse=True):
            print(f"| {deal} | {seconds:.2f} | {verdict} | {solver} |")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("counts", "best", "hardest"):
        print(__doc__, file=sys.stderr)
        return 2
    figure, rest = argv[0], argv[1:]
    out, top = Path("docs/plots"), 10
    if "--out" in rest:
        at = rest.index("--out")
        out, rest = Path(rest[at + 1]), rest[:at] + rest[at + 2:]
    if "--top" in rest:
        at = rest.index("--top")
        top, rest = int(rest[at + 1]), rest[:at] + rest[at + 2:]
    if figure == "counts":
        counts(rest)
    elif figure == "best":
        best(rest, out)
    else:
        hardest(rest, top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
