"""The hard-deal study's figures and tables, from bench results (plain or .gz).

    python benchmarks/hard.py FIGURE RESULTS... [--out docs/plots]

FIGURE is one of:
  transition  the solvable fraction per R with its 95% Wilson interval
  times       median, p90 and max seconds per engine per R (and unknowns)
  size        the CNF's variables and clauses (sat:glucose4's encoding) against R
  cactus      deals settled against seconds per engine, over the hard band
  hardest     the hardest deals: per engine its slowest, and the slowest for all
  agree       every deal where two engines that settled it disagree (exit 1 if any)
  all         every one of the above

Each prints its table in Markdown and, but for `hardest` and `agree`, draws
docs/plots/hard-FIGURE.png (and .svg). A deal's deck has R ranks x 4 suits
(`random:SEED:ranks=R`). The last line of each (deal, backend, task) counts, so runs
continued with `--resume --retry-unknown` read as their final state. A deal is
solvable when some engine won it (the line was replayed by bench), unsolvable when
some engine refuted it; unknown deals are left out of the fraction and counted.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from blackhole.bench.record import Record, iter_results, latest  # noqa: E402
from blackhole.bench.stats import quantile, wilson_interval  # noqa: E402

HARD_BAND = (22, 25, 28, 31, 34)
SETTLED = ("solved", "unsolvable")


def ranks_of(deal: str) -> int:
    found = re.search(r"ranks=(\d+)", deal)
    return int(found.group(1)) if found else 13


def load(paths: Iterable[Path]) -> list[Record]:
    rows: list[Record] = []
    for path in paths:
        rows.extend(latest(iter_results(path)).values())
    return [row for row in rows if row.task == "solve"]


def by_deal(rows: list[Record]) -> dict[str, dict[str, Record]]:
    table: dict[str, dict[str, Record]] = defaultdict(dict)
    for row in rows:
        table[row.deal][row.backend] = row
    return table


def truth(runs: dict[str, Record]) -> str:
    verdicts = {row.verdict for row in runs.values() if row.verdict in SETTLED}
    if len(verdicts) > 1:
        return "disputed"
    return verdicts.pop() if verdicts else "unknown"


def engines(rows: list[Record]) -> list[str]:
    order = ["look", "sat:glucose4", "sat:cadical195", "cpsat:inverse", "cpsat:boolean",
             "auto"]
    seen = {row.backend for row in rows}
    return [name for name in order if name in seen] + sorted(seen - set(order))


def save(figure, out: Path, name: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(out / f"hard-{name}.png", dpi=120)
    figure.savefig(out / f"hard-{name}.svg")
    plt.close(figure)


def transition(rows: list[Record], out: Path) -> None:
    deals = by_deal(rows)
    sizes = sorted({ranks_of(deal) for deal in deals})
    print("| R | cards | deals | settled | solvable | fraction | 95% Wilson interval |")
    print("|---|---|---|---|---|---|---|")
    xs, ps, lows, highs = [], [], [], []
    for size in sizes:
        verdicts = [truth(runs) for deal, runs in deals.items() if ranks_of(deal) == size]
        settled = sum(v in SETTLED for v in verdicts)
        won = verdicts.count("solved")
        low, high = wilson_interval(won, settled)
        fraction = won / settled if settled else float("nan")
        print(f"| {size} | {4 * size} | {len(verdicts)} | {settled} | {won} | "
              f"{fraction:.0%} | {low:.0%} – {high:.0%} |")
        if settled:
            xs.append(size)
            ps.append(fraction)
            lows.append(max(0.0, fraction - low))
            highs.append(max(0.0, high - fraction))
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.errorbar(xs, ps, yerr=[lows, highs], fmt="o-", color="black", capsize=3)
    axes.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    axes.set_xlabel("ranks R (deck of 4R cards, fans of 3)")
    axes.set_ylabel("solvable fraction")
    axes.set_ylim(-0.02, 1.02)
    axes.set_xticks(xs)
    axes.set_title("Black Hole, random:1-50:ranks=R: solvable fraction, 95% Wilson interval")
    axes.grid(True, alpha=0.3)
    save(figure, out, "transition")


def times(rows: list[Record], out: Path) -> None:
    names = engines(rows)
    sizes = sorted({ranks_of(row.deal) for row in rows})
    print("| R | engine | deals | unknown | median s | p90 s | max s | total s |")
    print("|---|---|---|---|---|---|---|---|")
    curves: dict[str, list[tuple[int, float, float, float]]] = defaultdict(list)
    for size in sizes:
        for name in names:
            mine = [row for row in rows if row.backend == name and ranks_of(row.deal) == size]
            if not mine:
                continue
            seconds = [row.seconds for row in mine]
            unknown = sum(row.verdict not in SETTLED for row in mine)
            median, p90 = quantile(seconds, 0.5), quantile(seconds, 0.9)
            print(f"| {size} | {name} | {len(mine)} | {unknown} | {median:.3f} | "
                  f"{p90:.3f} | {max(seconds):.2f} | {sum(seconds):.1f} |")
            curves[name].append((size, median, p90, max(seconds)))
    figure, axes = plt.subplots(figsize=(8, 5))
    for index, name in enumerate(names):
        points = curves[name]
        xs = [p[0] for p in points]
        axes.plot(xs, [p[1] for p in points], "o-", color=f"C{index}", label=f"{name} median")
        axes.plot(xs, [p[2] for p in points], "s--", color=f"C{index}", label=f"{name} p90")
    axes.set_yscale("log")
    axes.set_xlabel("ranks R")
    axes.set_ylabel("seconds per deal (an unknown counts at its limit)")
    axes.set_xticks(sizes)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, ncol=2)
    axes.set_title("Seconds per deal against deck size")
    save(figure, out, "times")


def size(rows: list[Record], out: Path) -> None:
    mine = [row for row in rows if row.backend == "sat:glucose4" and row.stats.get("vars")]
    sizes = sorted({ranks_of(row.deal) for row in mine})
    print("| R | cards | median variables | median clauses | max clauses |")
    print("|---|---|---|---|---|")
    xs, variables, clauses = [], [], []
    for size_ in sizes:
        these = [row for row in mine if ranks_of(row.deal) == size_]
        v = quantile([row.stats["vars"] for row in these], 0.5)
        c = quantile([row.stats["clauses"] for row in these], 0.5)
        top = max(row.stats["clauses"] for row in these)
        print(f"| {size_} | {4 * size_} | {v:,.0f} | {c:,.0f} | {top:,} |")
        xs.append(size_)
        variables.append(v)
        clauses.append(c)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(xs, variables, "o-", label="variables")
    axes.plot(xs, clauses, "s-", label="clauses")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xticks(xs, [str(x) for x in xs])
    axes.set_xlabel("ranks R (log)")
    axes.set_ylabel("median count (log)")
    axes.set_title("The CNF (default features) against deck size")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    save(figure, out, "size")


def cactus(rows: list[Record], out: Path) -> None:
    band = [row for row in rows if ranks_of(row.deal) in HARD_BAND]
    names = engines(band)
    deals = len({row.deal for row in band})
    print(f"| engine (hard band, {deals} deals) | settled | within 1 s | within 10 s |")
    print("|---|---|---|---|")
    figure, axes = plt.subplots(figsize=(7, 5))
    for index, name in enumerate(names):
        seconds = sorted(row.seconds for row in band
                         if row.backend == name and row.verdict in SETTLED)
        print(f"| {name} | {len(seconds)} | {sum(s <= 1 for s in seconds)} | "
              f"{sum(s <= 10 for s in seconds)} |")
        axes.plot(range(1, len(seconds) + 1), seconds, "-", color=f"C{index}", label=name)
    axes.set_yscale("log")
    axes.set_xlabel(f"deals settled (of {deals})")
    axes.set_ylabel("seconds per deal")
    axes.set_title(f"Cactus: R in {', '.join(map(str, HARD_BAND))}")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    save(figure, out, "cactus")


def hardest(rows: list[Record], out: Path) -> None:
    deals = by_deal(rows)
    names = engines(rows)
    print("| engine | its five slowest deals (seconds, verdict) |")
    print("|---|---|")
    for name in names:
        mine = sorted((row for row in rows if row.backend == name),
                      key=lambda row: -row.seconds)[:5]
        cells = ", ".join(f"{row.deal} ({row.seconds:.1f}, {row.verdict})" for row in mine)
        print(f"| {name} | {cells} |")
    print()
    print("| deal | verdict | fastest engine | its seconds | every engine's seconds |")
    print("|---|---|---|---|---|")
    fastest = []
    for deal, runs in deals.items():
        settled = [row for row in runs.values() if row.verdict in SETTLED]
        best = min(settled, key=lambda row: row.seconds) if settled else None
        fastest.append((best.seconds if best else float("inf"), deal, best, runs))
    for seconds, deal, best, runs in sorted(fastest, key=lambda item: -item[0])[:10]:
        every = ", ".join(f"{name} {runs[name].seconds:.1f}" for name in names if name in runs)
        who = best.backend if best else "none"
        print(f"| {deal} | {truth(runs)} | {who} | {seconds:.2f} | {every} |")


def agree(rows: list[Record], out: Path) -> int:
    disputed = [deal for deal, runs in by_deal(rows).items() if truth(runs) == "disputed"]
    for deal in disputed:
        print(deal, {name: row.verdict for name, row in by_deal(rows)[deal].items()})
    print(f"{len(disputed)} deals with engines in disagreement, of {len(by_deal(rows))}")
    return 1 if disputed else 0


FIGURES = {"transition": transition, "times": times, "size": size, "cactus": cactus,
           "hardest": hardest, "agree": agree}


def main(argv: list[str]) -> int:
    out = Path("docs/plots")
    if "--out" in argv:
        at = argv.index("--out")
        out = Path(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) < 3 or (argv[1] not in FIGURES and argv[1] != "all"):
        print(__doc__, file=sys.stderr)
        return 2
    rows = load(Path(path) for path in argv[2:])
    chosen = list(FIGURES) if argv[1] == "all" else [argv[1]]
    status = 0
    for name in chosen:
        print(f"\n## {name}\n")
        status = max(status, FIGURES[name](rows, out) or 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
