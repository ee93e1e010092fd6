"""Timing helpers shared by the benchmarks: min / median / max over repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def summary(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def time_ms(function: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    times = []
    for _ in range(repeat):
        start = clock()
        function()
        times.append((clock() - start) * 1000)
    return times
