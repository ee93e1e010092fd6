"""Tests for pyapp.evaluation.stats: scipy as the oracle, published worked examples, the values DR-006 reports."""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from pyapp.evaluation import stats
from pyapp.evaluation.stats import (
    bootstrap_median_ci,
    interval_and_test_disagree,
    mcnemar_exact,
    newcombe_paired,
    paired_disagreement_note,
    smallest_detectable_discordant,
    wilson,
)
from pyodide_harness import pyodide_available, run_in_node

REPO = Path(__file__).resolve().parents[2]
# Published figures are printed to four decimals: allow half a unit in the last place.
PRINTED_4DP = 0.5e-4 + 1e-12
PRINTED_3DP = 0.5e-3 + 1e-12

# Twenty latencies in seconds, the size of one run of the evaluation set.
LATENCIES = [
    2.314, 1.872, 3.905, 2.047, 2.611, 1.998, 4.732, 2.205, 2.489, 3.116,
    1.764, 2.950, 2.133, 5.281, 2.402, 2.768, 1.915, 3.447, 2.276, 2.583,
]  # fmt: skip


# ---------------------------------------------------------------- Wilson


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99], ids=lambda c: f"conf{c:g}")
def test_wilson_matches_scipy_for_every_k_up_to_n_50(confidence):
    worst = 0.0
    for n in range(1, 51):
        for k in range(n + 1):
            ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
            low, high = wilson(k, n, confidence)
            worst = max(worst, abs(low - ref.low), abs(high - ref.high))
    assert worst < 1e-12


@pytest.mark.parametrize(
    ("k", "n", "expected_low", "expected_high"),
    [
        pytest.param(20, 20, 0.8389, 1.0, id="20-of-20-lower-bound-83.9pct"),
        pytest.param(0, 20, 0.0, 0.1611, id="0-of-20-mirror"),
        # contingencytables, chapter 2 test: Ligarden 2010, 13 of 16
        pytest.param(13, 16, 0.5699, 0.9341, id="ligarden-13-of-16"),
    ],
)
def test_wilson_reference_values(k, n, expected_low, expected_high):
    low, high = wilson(k, n)
    assert abs(low - expected_low) <= PRINTED_4DP
    assert abs(high - expected_high) <= PRINTED_4DP


def test_wilson_with_no_trials_is_the_whole_range():
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 0, confidence=0.5) == (0.0, 1.0)


@pytest.mark.parametrize("n", [1, 2, 7, 20, 1000], ids=lambda n: f"n{n}")
def test_wilson_is_exactly_closed_at_the_ends(n):
    assert wilson(0, n)[0] == 0.0
    assert wilson(n, n)[1] == 1.0
    assert 0.0 < wilson(0, n)[1] < 1.0
    assert 0.0 < wilson(n, n)[0] < 1.0


def test_wilson_20_of_20_lower_bound_is_n_over_n_plus_z_squared():
    z = statistics.NormalDist().inv_cdf(0.975)
    assert wilson(20, 20)[0] == pytest.approx(20 / (20 + z * z), abs=1e-15)


@pytest.mark.parametrize(
    "args",
    [(-1, 5), (6, 5), (1, -1), (1.0, 5), (True, 5), (1, 5, 0.0), (1, 5, 1.0), (1, 5, 95)],
    ids=["negative-k", "k-above-n", "negative-n", "float-k", "bool-k", "conf-0", "conf-1", "conf-95"],
)
def test_wilson_rejects_bad_input(args):
    with pytest.raises(ValueError):
        wilson(*args)


@st.composite
def k_and_n(draw, max_n=200):
    n = draw(st.integers(0, max_n))
    return draw(st.integers(0, n)), n


confidences = st.floats(0.5, 0.999)


@settings(max_examples=300, deadline=None)
@given(k_and_n(), confidences, confidences)
def test_wilson_contains_estimate_stays_in_unit_range_and_widens_with_confidence(kn, c1, c2):
    k, n = kn
    lo_c, hi_c = sorted((c1, c2))
    low, high = wilson(k, n, lo_c)
    wide_low, wide_high = wilson(k, n, hi_c)
    estimate = k / n if n else 0.5
    assert 0.0 <= wide_low <= low <= estimate <= high <= wide_high <= 1.0


@settings(max_examples=200, deadline=None)
@given(k_and_n(), confidences)
def test_wilson_is_symmetric_under_swapping_successes_and_failures(kn, confidence):
    k, n = kn
    low, high = wilson(k, n, confidence)
    mirror_low, mirror_high = wilson(n - k, n, confidence)
    assert low == pytest.approx(1.0 - mirror_high, abs=1e-14)
    assert high == pytest.approx(1.0 - mirror_low, abs=1e-14)


# ---------------------------------------------------------------- McNemar


@pytest.mark.parametrize("b", range(0, 41, 4), ids=lambda b: f"b{b}")
def test_mcnemar_matches_scipy_binomtest(b):
    for c in range(41):
        if b + c == 0:
            continue
        expected = binomtest(min(b, c), b + c, 0.5).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("b", "c", "p", "printed", "tolerance"),
    [
        pytest.param(6, 0, 0.03125, 0.031, PRINTED_3DP, id="6-vs-0-smallest-significant"),
        pytest.param(8, 1, 0.0390625, 0.039, PRINTED_3DP, id="8-vs-1"),
        pytest.param(5, 0, 0.0625, 0.0625, 0.0, id="5-vs-0-not-enough"),
        pytest.param(6, 16, 0.052478790283203125, 0.052479, 0.5e-6, id="contingencytables-cavo-2012"),
    ],
)
def test_mcnemar_reference_values(b, c, p, printed, tolerance):
    assert mcnemar_exact(b, c) == p
    assert abs(mcnemar_exact(b, c) - printed) <= tolerance


@pytest.mark.parametrize(("b", "c"), [(0, 0), (1, 1), (7, 7), (3, 4), (0, 1)], ids=["none", "1-1", "7-7", "3-4", "0-1"])
def test_mcnemar_is_one_when_the_discordant_pairs_balance_or_are_absent(b, c):
    assert mcnemar_exact(b, c) == 1.0


def test_mcnemar_is_exact_for_large_counts():
    # 2 * 2**-100 would underflow nothing, but a float sum of 101 terms would drift.
    assert mcnemar_exact(100, 0) == 2.0**-99
    assert mcnemar_exact(0, 100) == 2.0**-99


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_is_a_symmetric_probability_that_falls_with_imbalance(b, c):
    p = mcnemar_exact(b, c)
    assert 0.0 < p <= 1.0
    assert p == mcnemar_exact(c, b)
    # One more pair on the side that is already ahead never raises p.
    if b >= c:
        assert mcnemar_exact(b + 1, c) <= p


# ---------------------------------------------------------------- Newcombe method 10

# Newcombe RG (1998), Statistics in Medicine 17:2635-2650, Table III, method 10 rows:
# (e, f, g, h) = (both, first only, second only, neither), 95% limits as printed.
# The lower limit of e1 f97 g1 h1 is printed 0.8736 for method 10 and 0.8737 for method 8;
# with eh < fg the two methods are the same number, so that limit is left out here.
NEWCOMBE_1998_TABLE_III = [
    (36, 12, 2, 0, 0.0569, 0.3404),
    (20, 12, 2, 16, 0.0562, 0.3292),
    (18, 12, 2, 18, 0.0562, 0.3290),
    (36, 14, 0, 0, 0.1528, 0.4167),
    (35, 14, 0, 1, 0.1461, 0.4175),
    (18, 14, 0, 18, 0.1441, 0.3963),
    (2, 97, 1, 0, 0.8721, 0.9854),
    (1, 97, 1, 1, None, 0.9850),
    (0, 29, 1, 0, 0.6666, 0.9882),
    (2, 98, 0, 0, 0.9178, 0.9945),
    (1, 98, 0, 1, 0.9171, 0.9916),
    (0, 30, 0, 0, 0.8395, 1.0000),
    (54, 0, 0, 0, -0.0664, 0.0664),
    (53, 0, 0, 1, -0.0729, 0.0729),
    (30, 0, 0, 24, -0.0358, 0.0358),
    (29, 0, 0, 25, -0.0354, 0.0354),
    (28, 0, 0, 26, -0.0352, 0.0352),
    (27, 0, 0, 27, -0.0351, 0.0351),
]


@pytest.mark.parametrize(
    ("a", "b", "c", "d", "low", "high"),
    NEWCOMBE_1998_TABLE_III,
    ids=[f"e{r[0]}-f{r[1]}-g{r[2]}-h{r[3]}" for r in NEWCOMBE_1998_TABLE_III],
)
def test_newcombe_reproduces_his_published_table(a, b, c, d, low, high):
    diff, got_low, got_high = newcombe_paired(a, b, c, d)
    assert diff == (b - c) / (a + b + c + d)
    if low is not None:
        assert abs(got_low - low) <= PRINTED_4DP
    assert abs(got_high - high) <= PRINTED_4DP


@pytest.mark.parametrize(
    ("table", "expected", "tolerance"),
    [
        # contingencytables (Fagerland, Lydersen & Laake), Cavo et al. 2012, chapter 8 test
        pytest.param((59, 6, 16, 80), (-0.0621, -0.1186, -0.0046), PRINTED_4DP, id="cavo-2012"),
        # DR-006: two runs grounding the same 18 of 20 cases
        pytest.param((18, 0, 0, 2), (0.0, -0.157, 0.157), PRINTED_3DP, id="same-18-of-20"),
        # DR-006: one of those shared successes becomes a one-way disagreement
        pytest.param((17, 1, 0, 2), (0.05, -0.117, 0.230), PRINTED_3DP, id="one-disagreement"),
        # DR-006: interval excludes zero while the exact test does not reject
        pytest.param((12, 5, 0, 3), (0.25, 0.029, 0.449), PRINTED_3DP, id="12-5-0-3"),
    ],
)
def test_newcombe_reference_values(table, expected, tolerance):
    got = newcombe_paired(*table)
    for value, want in zip(got, expected, strict=True):
        assert abs(value - want) <= tolerance, (got, expected)


def test_one_disagreement_pinned_for_both_readings_of_the_table():
    # The figures in DR-006 (+5, -11.7 to +23.0) belong to a=17, b=1, c=0, d=2 (first run 18/20,
    # second 17/20). The table a=18, b=1, c=0, d=1 (19/20 against 18/20) is a different one.
    diff, low, high = newcombe_paired(17, 1, 0, 2)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.05, -0.1172, 0.2302)
    diff, low, high = newcombe_paired(18, 1, 0, 1)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.05, -0.1279, 0.2425)


def _square_and_add_uncorrected(a, b, c, d):
    """Method 8 (plain phi), only to show where the reference DR-006 figures came from."""
    n = a + b + c + d
    l1, u1 = wilson(a + b, n)
    l2, u2 = wilson(a + c, n)
    p1, p2 = (a + b) / n, (a + c) / n
    phi = (a * d - b * c) / math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    x, y = p1 - l1, u2 - p2
    low = (b - c) / n - math.sqrt(max(0.0, x * x - 2 * phi * x * y + y * y))
    x, y = u1 - p1, p2 - l2
    high = (b - c) / n + math.sqrt(max(0.0, x * x - 2 * phi * x * y + y * y))
    return low, high


@pytest.mark.parametrize(
    ("table", "reference"),
    [
        pytest.param((18, 0, 0, 2), (-0.129, 0.129), id="same-18-of-20"),
        pytest.param((17, 1, 0, 2), (-0.087, 0.209), id="one-disagreement"),
    ],
)
def test_reference_record_figures_come_from_the_uncorrected_phi_not_method_10(table, reference):
    low, high = _square_and_add_uncorrected(*table)
    assert abs(low - reference[0]) <= PRINTED_3DP and abs(high - reference[1]) <= PRINTED_3DP
    _, m10_low, m10_high = newcombe_paired(*table)
    assert m10_low < low - 0.02 and m10_high > high + 0.02


def test_newcombe_with_no_pairs_knows_nothing():
    assert newcombe_paired(0, 0, 0, 0) == (0.0, -1.0, 1.0)


@pytest.mark.parametrize(
    ("table", "diff"),
    [
        pytest.param((20, 0, 0, 0), 0.0, id="all-agree-all-grounded"),
        pytest.param((0, 0, 0, 20), 0.0, id="all-agree-none-grounded"),
        pytest.param((0, 20, 0, 0), 1.0, id="all-disagree-first-better"),
        pytest.param((0, 0, 20, 0), -1.0, id="all-disagree-second-better"),
        pytest.param((0, 10, 10, 0), 0.0, id="all-disagree-balanced"),
        pytest.param((1, 0, 0, 0), 0.0, id="single-pair"),
    ],
)
def test_newcombe_edges_stay_inside_minus_one_to_one(table, diff):
    got_diff, low, high = newcombe_paired(*table)
    assert got_diff == diff
    assert -1.0 <= low <= got_diff <= high <= 1.0
    assert low < high


def test_newcombe_all_agree_is_symmetric_about_zero():
    _, low, high = newcombe_paired(20, 0, 0, 0)
    assert low == -high
    assert high == pytest.approx(1.0 - wilson(20, 20)[0])


def test_newcombe_clips_to_minus_one_and_one():
    assert newcombe_paired(0, 20, 0, 0)[2] == 1.0
    assert newcombe_paired(0, 0, 20, 0)[1] == -1.0


@pytest.mark.parametrize(
    "args",
    [(-1, 0, 0, 0), (0, 1.5, 0, 0), (0, 0, 0, True), (1, 1, 1, 1, 1.0)],
    ids=["negative", "float", "bool", "conf-1"],
)
def test_newcombe_rejects_bad_input(args):
    with pytest.raises(ValueError):
        newcombe_paired(*args)


paired_tables = st.tuples(*(st.integers(0, 25) for _ in range(4)))


@settings(max_examples=400, deadline=None)
@given(paired_tables, confidences, confidences)
def test_newcombe_contains_difference_stays_in_range_and_widens_with_confidence(table, c1, c2):
    lo_c, hi_c = sorted((c1, c2))
    diff, low, high = newcombe_paired(*table, confidence=lo_c)
    wide_diff, wide_low, wide_high = newcombe_paired(*table, confidence=hi_c)
    assert diff == wide_diff
    assert -1.0 <= wide_low <= low + 1e-15 and low <= diff <= high
    assert high <= wide_high + 1e-15 and wide_high <= 1.0


@settings(max_examples=300, deadline=None)
@given(paired_tables)
def test_newcombe_swapping_the_runs_mirrors_the_interval(table):
    a, b, c, d = table
    diff, low, high = newcombe_paired(a, b, c, d)
    m_diff, m_low, m_high = newcombe_paired(a, c, b, d)
    assert m_diff == -diff
    assert m_low == pytest.approx(-high, abs=1e-14)
    assert m_high == pytest.approx(-low, abs=1e-14)


@settings(max_examples=300, deadline=None)
@given(paired_tables)
def test_newcombe_phi_is_a_correlation(table):
    assert -1.0 <= stats._newcombe_phi(*table) <= 1.0


# ---------------------------------------------------------------- helpers for the page text


@pytest.mark.parametrize(
    ("n_pairs", "alpha", "expected"),
    [
        pytest.param(20, 0.05, 6, id="20-pairs-needs-6"),
        pytest.param(20, 0.01, 8, id="20-pairs-at-1pct-needs-8"),
        pytest.param(5, 0.05, None, id="5-pairs-never-enough"),
        pytest.param(6, 0.05, 6, id="6-pairs-all-one-way"),
        pytest.param(0, 0.05, None, id="no-pairs"),
    ],
)
def test_smallest_detectable_discordant(n_pairs, alpha, expected):
    assert smallest_detectable_discordant(n_pairs, alpha) == expected
    if expected is not None:
        assert mcnemar_exact(expected, 0) < alpha <= mcnemar_exact(expected - 1, 0)


@pytest.mark.parametrize(
    ("table", "disagree"),
    [
        pytest.param((12, 5, 0, 3), True, id="interval-excludes-zero-p-0.0625"),
        pytest.param((59, 6, 16, 80), True, id="cavo-2012-p-0.052"),
        pytest.param((18, 0, 0, 2), False, id="runs-agree-both-say-no-difference"),
        pytest.param((8, 6, 0, 6), False, id="6-vs-0-both-say-differs"),
        pytest.param((0, 0, 0, 0), False, id="no-data"),
    ],
)
def test_interval_and_test_disagree(table, disagree):
    assert interval_and_test_disagree(*table) is disagree
    note = paired_disagreement_note(*table)
    assert (note is not None) is disagree


def test_disagreement_note_names_the_numbers():
    note = paired_disagreement_note(12, 5, 0, 3)
    assert note is not None
    assert "p = 0.0625" in note and "+2.9 to +44.9 points" in note and "5 cases" in note


def test_disagreement_note_covers_a_rejecting_test_beside_an_interval_holding_zero(monkeypatch):
    # Not seen on any table up to n = 60, but the page must still say something sensible.
    monkeypatch.setattr(stats, "mcnemar_exact", lambda b, c: 0.01)
    note = paired_disagreement_note(18, 1, 0, 1)
    assert note is not None and "p = 0.01" in note and "includes zero" in note


# ---------------------------------------------------------------- bootstrap of the median


def test_bootstrap_pinned_output_for_twenty_latencies():
    # Computed once with this method; a change of sampler, seed use or percentile rule fails here.
    assert bootstrap_median_ci(LATENCIES) == (2.4455, 2.169, 2.859)
    assert bootstrap_median_ci(LATENCIES, confidence=0.9) == (2.4455, 2.205, 2.768)
    assert bootstrap_median_ci(LATENCIES, resamples=7, seed=1) == (2.4455, 2.174325, 2.661625)


def test_bootstrap_defaults_are_the_documented_ones():
    assert bootstrap_median_ci(LATENCIES) == bootstrap_median_ci(LATENCIES, 2000, 20003, 0.95)


def test_bootstrap_matches_choices_and_numpy_percentile():
    # Independent construction: Random.choices on the sorted values and numpy's linear percentile.
    data = sorted(LATENCIES)
    rng = random.Random(20003)
    medians = [statistics.median(rng.choices(data, k=len(data))) for _ in range(2000)]
    low, high = np.percentile(medians, [2.5, 97.5], method="linear")
    median, got_low, got_high = bootstrap_median_ci(LATENCIES)
    assert median == float(np.median(LATENCIES))
    assert got_low == pytest.approx(low, abs=1e-12)
    assert got_high == pytest.approx(high, abs=1e-12)


def test_bootstrap_is_reproducible_and_seed_dependent():
    rng = random.Random(5)
    values = [rng.lognormvariate(0.8, 0.5) for _ in range(20)]
    assert bootstrap_median_ci(values) == bootstrap_median_ci(list(values))
    results = {bootstrap_median_ci(values, seed=s)[1:] for s in range(5)}
    assert len(results) > 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 120.0, allow_nan=False), min_size=1, max_size=25),
    st.randoms(use_true_random=False),
)
def test_bootstrap_is_order_free_and_brackets_the_median(values, shuffler):
    shuffled = list(values)
    shuffler.shuffle(shuffled)
    result = bootstrap_median_ci(values, resamples=200)
    assert result == bootstrap_median_ci(shuffled, resamples=200)
    median, low, high = result
    assert min(values) <= low <= high <= max(values)
    assert low <= median <= high


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0.01, 120.0, allow_nan=False), min_size=1, max_size=41), st.integers(0, 2**32),
       st.integers(1, 300))
def test_bootstrap_median_equals_the_median_of_every_resample_bit_for_bit(values, seed, resamples):
    # The medians looked up by their order positions, against each resample's values through statistics.median.
    data = sorted(values)
    draw = random.Random(seed).random
    medians = sorted(statistics.median([data[min(len(data) - 1, int(draw() * len(data)))] for _ in data])
                     for _ in range(resamples))
    _, low, high = bootstrap_median_ci(values, resamples=resamples, seed=seed)
    tail = (1.0 - 0.95) / 2.0  # as the interval takes it
    assert (low, high) == (stats._percentile(medians, tail), stats._percentile(medians, 1.0 - tail))


def test_bootstrap_of_one_value_or_equal_values_has_no_width():
    assert bootstrap_median_ci([3.5]) == (3.5, 3.5, 3.5)
    assert bootstrap_median_ci([2.0] * 20) == (2.0, 2.0, 2.0)


@pytest.mark.parametrize(
    ("values", "kwargs"),
    [
        pytest.param([], {}, id="no-data"),
        pytest.param([1.0, math.nan], {}, id="nan"),
        pytest.param([1.0], {"resamples": 0}, id="zero-resamples"),
        pytest.param([1.0], {"confidence": 1.0}, id="conf-1"),
    ],
)
def test_bootstrap_rejects_bad_input(values, kwargs):
    with pytest.raises(ValueError):
        bootstrap_median_ci(values, **kwargs)


_HASH_ORDER_SCRIPT = """
import json, sys
sys.path.insert(0, {repo!r})
from pyapp.evaluation.stats import bootstrap_median_ci
latency = {latency!r}
order = list(set(latency))          # string-keyed set: order follows PYTHONHASHSEED
print(json.dumps([order, bootstrap_median_ci([latency[k] for k in order])]))
"""


def test_bootstrap_does_not_depend_on_hash_order():
    latency = {f"C{i:02d}": v for i, v in enumerate(LATENCIES, start=1)}
    script = _HASH_ORDER_SCRIPT.format(repo=str(REPO), latency=latency)
    orders, results = [], []
    for hash_seed in ("0", "1", "20003"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
        order, result = json.loads(out)
        orders.append(order)
        results.append(result)
    assert len({tuple(o) for o in orders}) > 1, "hash seeds did not change the iteration order"
    assert all(r == [2.4455, 2.169, 2.859] for r in results)


# ---------------------------------------------------------------- CPython and Pyodide agree

_CASES_SCRIPT = """
import json
from pyapp.evaluation.stats import (bootstrap_median_ci, mcnemar_exact, newcombe_paired, wilson,
                         smallest_detectable_discordant, z_value)
out = [z_value(), z_value(0.9)]
out += [wilson(k, 20, c) for k in range(21) for c in (0.9, 0.95)]
out += [newcombe_paired(a, b, c, 20 - a - b - c) for a in range(0, 21, 3) for b in range(0, 21 - a, 2)
        for c in range(0, 21 - a - b, 3)]
out += [mcnemar_exact(b, c) for b in range(21) for c in range(21)]
out += [bootstrap_median_ci(LATENCIES), bootstrap_median_ci(LATENCIES, 500, 7, 0.8),
        smallest_detectable_discordant()]
# DR-008: the paired bootstrap of per-case differences and the noise floor.
from fractions import Fraction
from pyapp.evaluation.repeats import noise_floor
from pyapp.evaluation.stats import bootstrap_mean_ci
thirds = [float(Fraction(i % 7 - 3, 3)) for i in range(20)]
sixths = [float(Fraction(2, 3) - Fraction(i % 3, 2)) for i in range(20)]
out += [bootstrap_mean_ci(thirds), bootstrap_mean_ci(sixths), bootstrap_mean_ci(LATENCIES, 700, 11, 0.9)]
out += [noise_floor([i % 4 for i in range(20)], 3), noise_floor([i % 6 for i in range(20)], 5)]
json.dumps(out)
"""


@pytest.mark.skipif(not pyodide_available(), reason="needs node and the Pyodide npm package")
def test_pyodide_prints_the_same_digits_as_cpython(tmp_path):
    script = f"LATENCIES = {LATENCIES!r}\n" + _CASES_SCRIPT
    in_pyodide = run_in_node(script, tmp_path, timeout=120)
    namespace: dict = {}
    exec(script, namespace)
    assert in_pyodide == json.dumps(namespace["out"])
