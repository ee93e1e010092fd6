"""Intervals and tests for the evaluation page (DR-006).

Every rate gets a Wilson score interval; two runs on the same cases are compared
with Newcombe's (1998) paired interval (his method 10) and an exact McNemar test;
the median latency gets a seeded percentile bootstrap interval, and the mean
per-case difference of two configurations a paired one (DR-008).

Standard library only and plain float arithmetic, so the browser (Pyodide) and
the command line (CPython) print the same digits. Nothing here iterates over a
set or a dict, and the bootstrap draws its indices from ``Random.random()``
alone, the one generator output Python promises to keep stable across versions.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache

from pyapp.core.jsontypes import is_int

__all__ = [
    "ALPHA",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "CONFIDENCE",
    "bootstrap_mean_ci",
    "bootstrap_median_ci",
    "interval_and_test_disagree",
    "mcnemar_exact",
    "newcombe_paired",
    "paired_disagreement_note",
    "sign_test",
    "smallest_detectable_discordant",
    "wilson",
    "z_value",
]

# The level of every interval the site shows, and the significance level of its tests (DR-006).
CONFIDENCE = 0.95
ALPHA = 1.0 - CONFIDENCE
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20003


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def _check_count(name: str, value: int) -> None:
    if not is_int(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided standard normal quantile for ``confidence`` (1.959963984540054 at 0.95)."""
    _check_confidence(confidence)
    return statistics.NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials, no continuity correction.

    With n = 0 there is no information, and the interval is the whole range (0.0, 1.0).
    The limits are exactly 0.0 when k = 0 and exactly 1.0 when k = n.
    """
    _check_count("k", k)
    _check_count("n", n)
    if k > n:
        raise ValueError(f"k ({k}) cannot exceed n ({n})")
    z = z_value(confidence)
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    denom = 2.0 * (n + z2)
    centre = (2.0 * n * p + z2) / denom
    half = z / denom * math.sqrt(4.0 * n * p * (1.0 - p) + z2)
    # At k = 0 or k = n the exact limit is 0 or 1; rounding would leave a 1e-17 residue.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def _newcombe_phi(a: int, b: int, c: int, d: int) -> float:
    """Newcombe's continuity-corrected estimate of the correlation between the two rates.

    A = ad - bc is pulled n/2 towards zero when positive (and set to 0 if that crosses
    zero); negative A is left as it is. Zero when any margin is empty.
    """
    n = a + b + c + d
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    # Compare in integers (2A against n) so the branch never depends on float rounding.
    if 2 * cross > n:
        numerator = cross - n / 2.0
    elif cross >= 0:
        numerator = 0.0
    else:
        numerator = float(cross)
    return numerator / math.sqrt(margins)


def newcombe_paired(a: int, b: int, c: int, d: int, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Paired difference in rates, second run subtracted from first, with Newcombe's method 10.

    a: both runs grounded, b: only the first, c: only the second, d: neither.
    Returns (difference, low, high) with difference = (b - c) / n, limits clipped to
    [-1, 1]. With n = 0 nothing is known: (0.0, -1.0, 1.0).
    Reproduces Fagerland, Lydersen & Laake's ``Newcombe_square_and_add_CI_paired_2x2``
    (R package contingencytables) and Newcombe's published Table III.
    """
    for name, value in (("a", a), ("b", b), ("c", c), ("d", d)):
        _check_count(name, value)
    _check_confidence(confidence)
    n = a + b + c + d
    if n == 0:
        return 0.0, -1.0, 1.0
    p1 = (a + b) / n
    p2 = (a + c) / n
    diff = (b - c) / n
    l1, u1 = wilson(a + b, n, confidence)
    l2, u2 = wilson(a + c, n, confidence)
    phi = _newcombe_phi(a, b, c, d)
    # How far each rate may fall (lower side) or rise (upper side) within its Wilson interval.
    down1, up1 = p1 - l1, u1 - p1
    down2, up2 = p2 - l2, u2 - p2
    # |phi| <= 1 keeps both sums >= 0 in exact arithmetic; max() absorbs rounding.
    below = math.sqrt(max(0.0, down1 * down1 - 2.0 * phi * down1 * up2 + up2 * up2))
    above = math.sqrt(max(0.0, up1 * up1 - 2.0 * phi * up1 * down2 + down2 * down2))
    return diff, max(-1.0, diff - below), min(1.0, diff + above)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value on the discordant pairs b and c.

    p = min(1, 2 P(X <= min(b, c))) with X ~ Binomial(b + c, 1/2), summed exactly in
    integers and rounded to float once. No discordant pairs: 1.0.
    """
    _check_count("b", b)
    _check_count("c", c)
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**m)))


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (R type 7, numpy's default).

    The q-th quantile sits at position h = (N - 1) q of the sorted values.
    """
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    frac = h - lo
    if frac == 0.0:
        return float(sorted_values[lo])
    below = sorted_values[lo]
    above = sorted_values[lo + 1]
    return below + (above - below) * frac


def _check_resamples(resamples: int) -> None:
    if not is_int(resamples) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")


@lru_cache(maxsize=2)
def resample_indices(n: int, resamples: int, seed: int) -> tuple[tuple[int, ...], ...]:
    """The bootstrap's index draws: ``resamples`` rows of ``n`` indices i = floor(rng.random() * n)
    from ``random.Random(seed)``, row after row.

    They depend only on (n, resamples, seed), so many intervals over samples of one size (the
    experiments page, DR-010) draw them once.
    """
    draw = random.Random(seed).random
    last = n - 1
    # min() guards the float product against ever reaching n.
    return tuple(tuple(min(last, int(draw() * n)) for _ in range(n)) for _ in range(resamples))


def _bootstrap_limits(
    data: list[float],
    statistic: Callable[[list[float]], float],
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[float, float]:
    """Percentile limits of ``statistic`` over ``resamples`` seeded resamples of the sorted ``data``.

    Each resample takes len(data) indices i = floor(rng.random() * n) from
    ``random.Random(seed)``, all indices of one resample before the next.
    """
    values = sorted(statistic([data[i] for i in indices]) for indices in resample_indices(len(data), resamples, seed))
    tail = (1.0 - confidence) / 2.0
    return _percentile(values, tail), _percentile(values, 1.0 - tail)


@lru_cache(maxsize=64)
def _median_pairs(n: int, resamples: int, seed: int) -> tuple[tuple[int, int, int], ...]:
    """The two positions in sorted data whose mean is a resample's median (one position twice when ``n`` is
    odd), each pair once with how many resamples of :func:`resample_indices` have it.

    Sorted data is non-decreasing in its index, so a resample's values sorted are its indices sorted, then
    looked up: the median is found once per sample size, not sorted again for every sample. Of the 2,000
    resamples of twenty values, about 200 pairs differ, so a sample's medians are computed and sorted once
    per pair.
    """
    half = n // 2
    pairs: Counter[tuple[int, int]] = Counter()
    for row in resample_indices(n, resamples, seed):
        ordered = sorted(row)
        pairs[(ordered[half], ordered[half]) if n % 2 else (ordered[half - 1], ordered[half])] += 1
    return tuple((a, b, count) for (a, b), count in pairs.items())


def _counted_percentile(counted: list[tuple[float, int]], q: float) -> float:
    """:func:`_percentile` of the sorted values that ``counted`` (value, how many times, in sorted order) holds."""
    h = (sum(count for _, count in counted) - 1) * q
    lo = math.floor(h)
    frac = h - lo
    below = _at_rank(counted, lo)
    if frac == 0.0:
        return float(below)
    above = _at_rank(counted, lo + 1)
    return below + (above - below) * frac


def _at_rank(counted: list[tuple[float, int]], rank: int) -> float:
    for value, count in counted:
        if rank < count:
            return value
        rank -= count
    raise IndexError(rank)


def _sorted_finite(values: Sequence[float]) -> list[float]:
    data = sorted(float(v) for v in values)
    if not data:
        raise ValueError("no values to bootstrap")
    if any(math.isnan(v) for v in data):
        raise ValueError("values contain NaN")
    return data


def bootstrap_median_ci(
    values: Sequence[float],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """Median of ``values`` with a percentile bootstrap interval: (median, low, high).

    The values are sorted first, so the result depends only on which values there are,
    never on the order they arrive in. Each of ``resamples`` resamples takes len(values)
    indices i = floor(rng.random() * n) from ``random.Random(seed)``, all indices of one
    resample before the next; its median is ``statistics.median``. The limits are the
    (1 - confidence)/2 and (1 + confidence)/2 quantiles of the sorted resample medians by
    linear interpolation (R type 7, numpy.percentile's default).
    Raises ValueError when ``values`` is empty (the page shows "no data").
    """
    _check_confidence(confidence)
    _check_resamples(resamples)
    data = _sorted_finite(values)
    pairs = _median_pairs(len(data), resamples, seed)
    if len(data) % 2:
        medians = sorted((data[a], count) for a, _, count in pairs)
    else:  # as statistics.median: the mean of the two middle values, (a + b) / 2
        medians = sorted(((data[a] + data[b]) / 2, count) for a, b, count in pairs)
    tail = (1.0 - confidence) / 2.0
    return statistics.median(data), _counted_percentile(medians, tail), _counted_percentile(medians, 1.0 - tail)


def _mean(values: list[float]) -> float:
    # fsum is correctly rounded, so the mean does not depend on the platform's summation order.
    return math.fsum(values) / len(values)


def bootstrap_mean_ci(
    values: Sequence[float],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """Mean of ``values`` with a percentile bootstrap interval: (mean, low, high).

    The same resampling as :func:`bootstrap_median_ci` (sorted values, the same seeded
    indices, the same percentile rule); each resample's statistic is its mean, summed
    with ``math.fsum``. Given the per-case differences of two configurations, this is
    the paired bootstrap over cases (DR-008). Raises ValueError when ``values`` is empty.
    """
    _check_confidence(confidence)
    _check_resamples(resamples)
    data = _sorted_finite(values)
    low, high = _bootstrap_limits(data, _mean, resamples, seed, confidence)
    return _mean(data), low, high


def sign_test(positive: int, negative: int) -> float:
    """Exact two-sided sign test on the cases that moved: ``positive`` up, ``negative`` down.

    Ties are left out before calling. Under no difference each moved case goes either way
    with probability 1/2, the same binomial tail as the exact McNemar test, so this is
    :func:`mcnemar_exact` under the name the per-case comparison of DR-008 uses.
    """
    return mcnemar_exact(positive, negative)


def smallest_detectable_discordant(n_pairs: int = 20, alpha: float = ALPHA) -> int | None:
    """Fewest one-way disagreements (k against 0) whose exact McNemar p is below ``alpha``.

    20 pairs at alpha 0.05 give 6 (p = 0.03125). None when even n_pairs against 0 is not enough.
    """
    _check_count("n_pairs", n_pairs)
    for k in range(1, n_pairs + 1):
        if mcnemar_exact(k, 0) < alpha:
            return k
    return None


def interval_and_test_disagree(a: int, b: int, c: int, d: int, confidence: float = CONFIDENCE) -> bool:
    """True when Newcombe's interval and the exact McNemar test reach different verdicts.

    The interval's verdict is "differs" when it leaves out zero; the test's is "differs"
    when p < 1 - confidence.
    """
    _, low, high = newcombe_paired(a, b, c, d, confidence)
    interval_says_differs = low > 0.0 or high < 0.0
    test_says_differs = mcnemar_exact(b, c) < 1.0 - confidence
    return interval_says_differs != test_says_differs


def paired_disagreement_note(a: int, b: int, c: int, d: int, confidence: float = CONFIDENCE) -> str | None:
    """One plain sentence for the page when the interval and the test disagree, else None."""
    if not interval_and_test_disagree(a, b, c, d, confidence):
        return None
    _, low, high = newcombe_paired(a, b, c, d, confidence)
    p = mcnemar_exact(b, c)
    level = f"{confidence * 100:g}%"
    alpha = f"{1.0 - confidence:.2g}"
    limits = f"{low * 100:+.1f} to {high * 100:+.1f} points"
    if low > 0.0 or high < 0.0:
        return (
            f"The {level} interval ({limits}) leaves out zero, yet the exact McNemar test gives "
            f"p = {p:.4g}, not below {alpha}: the interval is an approximation built from the two "
            f"Wilson intervals, while the exact test counts only the {b + c} cases where the runs "
            "differ and is cautious with so few, so read the gap as a hint, not as settled."
        )
    return (
        f"The exact McNemar test gives p = {p:.4g}, below {alpha}, yet the {level} interval "
        f"({limits}) still includes zero: the two methods weigh the {b + c} cases where the "
        "runs differ differently, so read the gap as a hint, not as settled."
    )
