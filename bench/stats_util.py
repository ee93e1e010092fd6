"""Timing helpers shared by the benchmarks: min / median / max over repeated runs."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable


def summary(values: list[float], digits: int = 1) -> str:
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / {max(values):.{digits}f}"


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """An interval for the median that assumes no distribution: the k-th smallest and k-th largest values
    miss the median only when fewer than k values fall on one side of it, a chance of 2 P(Binomial(n, 1/2) < k).
    k is the largest that keeps the coverage at ``confidence`` or above (1 when none does: the min and max).
    Returns (low, high, the interval's exact coverage)."""
    ordered, n = sorted(values), len(values)

    def coverage(k: int) -> float:
        return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n

    k = 1
    while k < (n + 1) // 2 and coverage(k + 1) >= confidence:
        k += 1
    return ordered[k - 1], ordered[n - k], coverage(k)


def time_ms(function: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    times = []
    for _ in range(repeat):
        start = clock()
        function()
        times.append((clock() - start) * 1000)
    return times
