"""Time the statistics of one run comparison on CPython.

One comparison is what the evaluation page computes when two runs are shown side by
side: a Wilson interval for each run's grounded rate, Newcombe's paired interval, the
exact McNemar test, and the bootstrap interval of one run's median latency (twenty
latencies, 2,000 resamples). Usage: python3 bench/bench_stats.py [--runs N]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyapp.evaluation.stats import bootstrap_median_ci, mcnemar_exact, newcombe_paired, wilson  # noqa: E402

# A plausible pair of runs over the twenty cases: first 17/20 grounded, second 14/20.
TABLE = (13, 4, 1, 2)
_RNG = random.Random(2026)
LATENCIES = [round(_RNG.lognormvariate(1.0, 0.4), 3) for _ in range(20)]


def closed_forms() -> None:
    a, b, c, d = TABLE
    n = a + b + c + d
    wilson(a + b, n)
    wilson(a + c, n)
    newcombe_paired(a, b, c, d)
    mcnemar_exact(b, c)


def bootstrap() -> None:
    bootstrap_median_ci(LATENCIES)


def comparison() -> None:
    closed_forms()
    bootstrap()


def timed(fn: Callable[[], None], runs: int, inner: int) -> list[float]:
    """Milliseconds per call, one figure per run, each the mean of ``inner`` calls."""
    fn()  # warm up imports and caches
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        out.append((time.perf_counter() - start) * 1000.0 / inner)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), {platform.machine()}")
    print(f"table a,b,c,d = {TABLE}; {len(LATENCIES)} latencies; {args.runs} runs")
    print(f"{'what':<34}{'min ms':>10}{'median ms':>12}{'max ms':>10}")
    for name, fn, inner in (
        ("wilson x2 + newcombe + mcnemar", closed_forms, 1000),
        ("bootstrap median (2000 resamples)", bootstrap, 1),
        ("one whole comparison", comparison, 1),
    ):
        ms = timed(fn, args.runs, inner)
        print(f"{name:<34}{min(ms):>10.4f}{statistics.median(ms):>12.4f}{max(ms):>10.4f}")


if __name__ == "__main__":
    main()
