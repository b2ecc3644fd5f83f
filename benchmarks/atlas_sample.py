"""Certify a random sample of an atlas's lost deals: the loss and the best score.

    python benchmarks/atlas_sample.py ATLAS OUT [--count 1000] [--seed 2026] [--jobs 2]
                                          [--timeout 600] [--loss-only]
    python benchmarks/atlas_sample.py --table OUT

Draws `--count` lost deals at random (seeded) from ATLAS (a `.atlas.gz` file, such as
src/blackhole/atlas/data/black-hole.atlas.gz) among those with a best score (among all
its lost deals with `--loss-only`), and for each deal N writes two certificate folders
under OUT (the first only, with `--loss-only`), each checked when it is made and
verified again from its files:

- OUT/N/lost: `certify`'s proof that the deal has no winning line;
- OUT/N/best: `certify_best`'s proof that no line moves more cards than the atlas's
  best score, beside a line that reaches that score, replayed by the rules engine.

One JSON line per deal goes to OUT/sample.jsonl (times, proof sizes, both verdicts of
`verify`); a second run with the same arguments skips the deals that file holds, so
the run resumes after a kill. `--table OUT` prints the summary of a run. Exit 0 when
every sampled deal's two certificates were made and verified, 1 when one was refuted
or failed its check, 3 when one is unknown (the limit came first).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from blackhole.atlas import read_atlas, spec_of
from blackhole.backends import Verdict
from blackhole.certificates import certify, certify_found, verify
from blackhole.model.deal import position_of
from blackhole.model.sources import load_deal
from blackhole.questions.best import best_score


def sample(atlas_path: str, count: int, seed: int, scored_only: bool = True) -> list[str]:
    atlas = read_atlas(atlas_path)
    scored = sorted(n for n, best in atlas.lost.items() if best is not None or not scored_only)
    picked = random.Random(seed).sample(scored, min(count, len(scored)))
    return [spec_of(n, atlas.game) for n in sorted(picked)]


def one(job: tuple[str, int | None, str, float, tuple[str, ...]]) -> dict:
    spec, best, out, timeout, kinds = job
    folder = Path(out) / spec.split(":")[1]
    row: dict = {"deal": spec, "atlas_best": best, "kinds": list(kinds)}
    began = time.perf_counter()
    lost = certify(spec, folder / "lost", timeout=timeout)
    row["lost"] = {"verdict": lost.verdict.value, "seconds": time.perf_counter() - began,
                   "proof_bytes": lost.proof.bytes if lost.proof else 0}
    if lost.verdict is not Verdict.UNSOLVABLE:
        return row
    if "best" not in kinds:
        checked = verify(folder / "lost")
        row["lost"].update(verified=checked.ok, verify_seconds=checked.seconds)
        return row
    start = position_of(load_deal(spec))
    began = time.perf_counter()
    found = best_score(start, timeout=timeout)  # its line is replayed by the rules engine
    if found.best != best or not found.proven:
        row["best"] = {"verdict": "differs", "found": found.best, "proven": found.proven}
        return row
    cert = certify_found(found, start, folder / "best", spec=spec, timeout=timeout)
    if not cert.certified:
        row["best"] = {"verdict": "unknown" if cert.verdict is Verdict.UNKNOWN
                       else "not certified", "reason": cert.reason}
        return row
    row["best"] = {"verdict": "certified", "seconds": time.perf_counter() - began,
                   "proof_bytes": cert.proof.bytes if cert and cert.proof else 0}
    for kind in ("lost", "best"):
        checked = verify(folder / kind)
        row[kind]["verified"] = checked.ok
        row[kind]["verify_seconds"] = checked.seconds
    return row


def done(path: Path) -> set[str]:
    if not path.exists():
        return set()
    with path.open() as handle:
        return {json.loads(line)["deal"] for line in handle if line.endswith("\n")}


def good(row: dict) -> bool:
    return all(row.get(kind, {}).get("verified") is True
               for kind in row.get("kinds", ("lost", "best")))


def outcome(row: dict) -> int:
    """0: every certificate asked for was made and verified; 1: the atlas contradicted (a
    win, or another proven best score) or a proof that failed its check; 3: a limit came
    first, and nothing was contradicted."""
    lost, best = row["lost"]["verdict"], row.get("best", {})
    if lost == Verdict.SOLVED.value:
        return 1
    if lost != Verdict.UNSOLVABLE.value:
        return 3
    if best.get("verdict") == "differs":
        return 1 if best["proven"] else 3
    if best.get("verdict") == "unknown":
        return 3
    return 0 if good(row) else 1


def table(out: Path) -> int:
    rows = [json.loads(line) for line in (out / "sample.jsonl").open()]
    print(f"{len(rows)} deals; {sum(map(good, rows))} with every certificate verified")
    for kind in ("lost", "best"):
        for key in ("seconds", "verify_seconds", "proof_bytes"):
            values = sorted(r[kind][key] for r in rows if key in r.get(kind, {}))
            if values:
                p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
                print(f"{kind:4} {key:14} median {statistics.median(values):10.3f} "
                      f"p90 {p90:10.3f} max {values[-1]:10.3f} total {sum(values):12.1f}")
    codes = {r["deal"]: outcome(r) for r in rows}
    for code, what in ((3, "unknown (a limit came first)"), (1, "contradicted or failed")):
        deals = [deal for deal, c in codes.items() if c == code]
        print(f"{what}: {len(deals)}{': ' if deals else ''}{' '.join(deals)}")
    return 1 if 1 in codes.values() else 3 if 3 in codes.values() else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("atlas", nargs="?")
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--loss-only", action="store_true",
                        help="certify the loss only (a Golf best score's proof is slow)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.table:
        return table(out)
    out.mkdir(parents=True, exist_ok=True)
    atlas = read_atlas(args.atlas)
    results = out / "sample.jsonl"
    skip = done(results)
    kinds = ("lost",) if args.loss_only else ("lost", "best")
    jobs = [(spec, atlas.lost[int(spec.split(":")[1])], str(out), args.timeout, kinds)
            for spec in sample(args.atlas, args.count, args.seed, not args.loss_only)
            if spec not in skip]
    with ProcessPoolExecutor(args.jobs) as pool, results.open("a") as handle:
        for row in pool.map(one, jobs):
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    return table(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
