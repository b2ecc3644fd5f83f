"""Draw the scaling plot from a bench results file (JSON lines, plain or .gz).

    python benchmarks/scaling.py benchmarks/results/scaling.jsonl.gz docs/plots/scaling.png

The deal's deck size is 4 x R for `random:SEED:ranks=R` (R = 13 when no `ranks=` is
given).  Per size and backend: median and p90 of the backend seconds over every task,
an `unknown` counted at the seconds it ran (about the limit), so that a curve that
reaches the limit is a lower bound.  The lower panel gives the solvable fraction:
deals some backend solved over the deals of that size.  It also prints a Markdown
table of the figures (seconds, settled counts, vars, clauses, conflicts, peak MB).
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SETTLED = ("solved", "unsolvable")


def load(path: Path) -> list[dict]:
    """The results, the last line of each (deal, backend, task) only: `bench --resume
    --retry-unknown` appends a task's new result after its unknown one."""
    opener = gzip.open if path.suffix == ".gz" else open
    latest: dict[tuple, dict] = {}
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                latest[(row["deal"], row["backend"], row.get("task", "solve"))] = row
    return list(latest.values())


def ranks(deal: str) -> int:
    match = re.search(r"ranks=(\d+)", deal)
    return int(match.group(1)) if match else 13


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def median_of(rows: list[dict], key: str) -> float | None:
    values = [row["stats"][key] for row in rows if (row.get("stats") or {}).get(key) is not None]
    return statistics.median(values) if values else None


def summarise(records: list[dict]):
    by = defaultdict(list)
    for row in records:
        by[(4 * ranks(row["deal"]), row["backend"])].append(row)
    backends = sorted({backend for _, backend in by})
    sizes = sorted({size for size, _ in by})
    verdicts = defaultdict(dict)  # size -> deal -> solved?
    for row in records:
        if row["verdict"] in SETTLED:
            verdicts[4 * ranks(row["deal"])][row["deal"]] = row["verdict"] == "solved"
    deals = defaultdict(set)
    for row in records:
        deals[4 * ranks(row["deal"])].add(row["deal"])
    return by, backends, sizes, verdicts, deals


def table(by, backends, sizes, verdicts, deals) -> str:
    lines = ["| cards (R) | backend | tasks | settled | median s | p90 s | median vars "
             "| median clauses (CP-SAT: constraints) | median conflicts (search: states) "
             "| max peak MB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        for backend in backends:
            rows = by.get((size, backend))
            if not rows:
                continue
            seconds = [row["seconds"] for row in rows]
            settled = sum(row["verdict"] in SETTLED for row in rows)
            peaks = [row["peak_mb"] for row in rows if row.get("peak_mb") is not None]
            cells = [f"{size} ({size // 4})", backend, str(len(rows)), str(settled),
                     f"{statistics.median(seconds):.3f}", f"{quantile(seconds, 0.9):.3f}"]
            for keys in (("vars",), ("clauses", "constraints"), ("conflicts", "states")):
                found = [median_of(rows, key) for key in keys]
                value = next((v for v in found if v is not None), None)
                cells.append("" if value is None else f"{value:,.0f}")
            cells.append(f"{max(peaks):.0f}" if peaks else "")
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| cards (R) | deals | settled by some backend | solvable |")
    lines.append("|---|---|---|---|")
    for size in sizes:
        known = verdicts[size]
        solved = sum(known.values())
        fraction = f"{solved}/{len(known)} = {solved / len(known):.0%}" if known else "-"
        lines.append(f"| {size} ({size // 4}) | {len(deals[size])} | {len(known)} | {fraction} |")
    return "\n".join(lines)


def draw(by, backends, sizes, verdicts, out: Path) -> None:
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1]})
    limits = {row.get("timeout") for rows in by.values() for row in rows} - {None}
    for index, backend in enumerate(backends):
        colour = f"C{index}"
        xs = [size for size in sizes if (size, backend) in by]
        seconds = [[row["seconds"] for row in by[(size, backend)]] for size in xs]
        top.plot(xs, [statistics.median(s) for s in seconds], "o-", color=colour,
                 label=f"{backend} median")
        top.plot(xs, [quantile(s, 0.9) for s in seconds], "s--", color=colour,
                 label=f"{backend} p90")
    for limit in limits:
        top.axhline(limit, color="grey", linestyle=":", linewidth=1)
        top.annotate(f"limit {limit:g} s", (sizes[0], limit), textcoords="offset points",
                     xytext=(0, 3), fontsize=8, color="grey")
    top.set_yscale("log")
    top.set_ylabel("backend seconds per deal")
    top.set_title("Black Hole, random:1-20:ranks=R (deck of 4R cards)")
    top.legend(fontsize=8, ncol=2)
    top.grid(True, which="both", alpha=0.3)
    known = [size for size in sizes if verdicts[size]]
    fractions = [sum(verdicts[size].values()) / len(verdicts[size]) for size in known]
    bottom.plot(known, fractions, "o-", color="black")
    for size, fraction in zip(known, fractions, strict=True):
        bottom.annotate(f"{sum(verdicts[size].values())}/{len(verdicts[size])}",
                        (size, fraction), textcoords="offset points", xytext=(0, 5),
                        fontsize=8, ha="center")
    bottom.set_ylim(0, 1.15)
    bottom.set_ylabel("solvable\n(of settled)")
    bottom.set_xlabel("cards in the deck (4R)")
    bottom.set_xticks(sizes)
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    fig.savefig(out.with_suffix(".svg"))


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else Path("benchmarks/results/scaling.jsonl.gz")
    out = Path(argv[2]) if len(argv) > 2 else Path("docs/plots/scaling.png")
    summary = summarise(load(source))
    print(table(*summary))
    draw(*summary[:4], out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
