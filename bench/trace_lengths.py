"""How many of the explorer's typical traces are longer than the 150 steps a prompt sends (DR-005).

    python bench/trace_lengths.py [--queries 1000] [--seed 505]

Draws seeded uniform query points in the data's bounding box and runs, for
every point and every insertion order, a nearest search and radius searches
of 0.0005° and 0.003°. Prints, per order and kind, the share of traces longer
than ``MAX_STEPS``, the median and largest trace length, and the median prompt
size in characters. Deterministic: the same arguments print the same table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyapp.explanation.prompt import MAX_STEPS, build_prompt  # noqa: E402
from pyapp.kdtree.geodata import bounding_box  # noqa: E402
from pyapp.kdtree.search import search  # noqa: E402
from pyapp.kdtree.tree import ORDERS  # noqa: E402

KINDS = (("nearest", None), ("radius", 0.0005), ("radius", 0.003))


def queries(n: int, seed: int) -> list[tuple[float, float]]:
    box = bounding_box()
    rng = random.Random(seed)
    return [(rng.uniform(box.min_lon, box.max_lon), rng.uniform(box.min_lat, box.max_lat)) for _ in range(n)]


def label(kind: str, radius: float | None) -> str:
    return kind if radius is None else f"{kind} {radius:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=505)
    args = parser.parse_args()
    points = queries(args.queries, args.seed)
    print(f"{args.queries} queries (seed {args.seed}) x {len(ORDERS)} orders x {len(KINDS)} kinds; "
          f"a prompt sends at most {MAX_STEPS} steps")
    print(f"{'order':<13} {'kind':<14} {'> 150 steps':>12} {'median':>7} {'max':>6} {'prompt chars':>13}")
    totals = {label(k, r): [0, 0] for k, r in KINDS}
    for order in ORDERS:
        for kind, radius in KINDS:
            lengths, sizes = [], []
            for lon, lat in points:
                result = search(order, kind, lon, lat, radius)
                prompt = build_prompt(result)
                lengths.append(len(result.trace))
                sizes.append(len(prompt.system) + len(prompt.user))
            over = sum(1 for n in lengths if n > MAX_STEPS)
            totals[label(kind, radius)][0] += over
            totals[label(kind, radius)][1] += len(lengths)
            print(f"{order:<13} {label(kind, radius):<14} {over / len(lengths):>11.1%} "
                  f"{statistics.median(lengths):>7.0f} {max(lengths):>6} {statistics.median(sizes):>13.0f}")
    for name, (over, n) in totals.items():
        print(f"{'all orders':<13} {name:<14} {over / n:>11.1%}")
    over = sum(o for o, _ in totals.values())
    n = sum(n for _, n in totals.values())
    print(f"{'all orders':<13} {'all kinds':<14} {over / n:>11.1%}")


if __name__ == "__main__":
    main()
