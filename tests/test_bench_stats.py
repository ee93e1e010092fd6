"""The benchmarks' interval for a median (bench/stats_util.py): the order statistics and their coverage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from stats_util import median_interval  # noqa: E402


@pytest.mark.parametrize("n", range(1, 41))
def test_the_interval_is_the_narrowest_pair_of_order_statistics_that_keeps_the_coverage(n):
    low, high, coverage = median_interval([float(i) for i in range(1, n + 1)])
    k = int(low)  # the k-th smallest of 1..n is k
    assert high == n + 1 - k
    assert coverage == pytest.approx(1 - 2 * binom.cdf(k - 1, n, 0.5))
    assert k == 1 or coverage >= 0.95
    if k + 1 <= (n + 1) // 2:  # one step narrower would fall short
        assert 1 - 2 * binom.cdf(k, n, 0.5) < 0.95


def test_twenty_values_give_the_sixth_and_fifteenth_and_order_does_not_matter():
    values = [3.0, 1.0, 20.0, 7.0, 12.0, 5.0, 18.0, 9.0, 2.0, 15.0, 11.0, 4.0, 16.0, 8.0, 6.0, 19.0, 10.0, 13.0,
              17.0, 14.0]
    assert median_interval(values)[:2] == (6.0, 15.0)


def test_too_few_values_for_the_confidence_give_the_min_and_max_with_their_lower_coverage():
    assert median_interval([2.0, 9.0, 4.0, 1.0, 7.0]) == (1.0, 9.0, 1 - 2 / 32)
