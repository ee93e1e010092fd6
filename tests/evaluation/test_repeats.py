"""Repeated runs and configuration comparisons (DR-008): each figure against an independent computation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from pyapp.evaluation.repeats import VerdictTable, compare_tables, noise_floor, repeat_figures, sum_case_variances
from pyapp.evaluation.stats import bootstrap_mean_ci, mcnemar_exact, newcombe_paired, sign_test

CELL = st.sampled_from([True, False, None])


def table_of(rows: list[list[bool | None]]) -> VerdictTable:
    n = len(rows[0])
    return VerdictTable(tuple(f"r{i}" for i in range(len(rows))), tuple(f"C{j + 1:02d}" for j in range(n)),
                        tuple(tuple(r) for r in rows))


tables = st.integers(1, 12).flatmap(
    lambda n: st.lists(st.lists(CELL, min_size=n, max_size=n), min_size=1, max_size=6).map(table_of))


# ---------------------------------------------------------------- one configuration


@settings(max_examples=300, deadline=None)
@given(tables)
def test_repeat_figures_match_numpy(table):
    figures = repeat_figures(table)
    m = np.array([[np.nan if v is None else float(v) for v in row] for row in table.grounded])
    k = m.shape[0]
    run_shares = [np.nanmean(row) for row in m if not np.all(np.isnan(row))]
    if run_shares:
        assert figures["mean_share"] == pytest.approx(np.mean(run_shares), abs=1e-12)
        assert (figures["min_share"], figures["max_share"]) == (min(run_shares), max(run_shares))
    else:
        assert figures["mean_share"] is None
    complete = ~np.isnan(m).any(axis=0)
    full = m[:, complete]
    n = full.shape[1]
    assert figures["cases_in_every_run"] == n
    assert figures["not_in_every_run"] == [c for c, ok in zip(table.case_ids, complete, strict=True) if not ok]
    if n == 0:
        assert figures["pass_k"] is None and figures["flip_rate"] is None
        return
    assert figures["pass_k"] == pytest.approx(np.mean(full.min(axis=0) == 1.0), abs=1e-12)
    flips = full.max(axis=0) != full.min(axis=0)
    assert figures["flipping"] == [c for c, f in zip(np.array(table.case_ids)[complete], flips, strict=True) if f]
    assert figures["flip_rate"] == pytest.approx(np.mean(flips), abs=1e-12)
    if k >= 2:
        # sᵢ² is the sample variance (ddof 1) of case i's 0/1 verdicts over the k runs.
        s2 = full.var(axis=0, ddof=1)
        sd = math.sqrt(2 * s2.sum()) / n
        floor = figures["floor"]
        assert floor["sd_single"] == pytest.approx(sd, abs=1e-12)
        assert floor["floor_single"] == pytest.approx(1.959963984540054 * sd, abs=1e-12)
        assert floor["floor_mean"] == pytest.approx(1.959963984540054 * sd / math.sqrt(k), abs=1e-12)
    else:
        assert figures["floor"] is None


def test_repeat_figures_worked_example():
    # Three runs on four cases: C01 always, C02 twice, C03 once, C04 never grounded.
    t = table_of([[True, True, False, False], [True, False, True, False], [True, True, False, False]])
    f = repeat_figures(t)
    assert f["pass_k"] == 0.25 and f["flipping"] == ["C02", "C03"] and f["flip_rate"] == 0.5
    # s² = 2·1/(3·2) = 1/3 for each flipping case: Σ = 2/3, sd = √(4/3)/4.
    assert sum_case_variances([3, 2, 1, 0], 3) == pytest.approx(2 / 3)
    assert f["floor"]["sd_single"] == pytest.approx(math.sqrt(4 / 3) / 4, abs=1e-15)


def test_a_case_without_a_counted_answer_leaves_that_run_and_the_per_case_figures():
    t = table_of([[True, None, False], [True, True, True]])
    f = repeat_figures(t)
    assert f["runs"][0] == {"run_id": "r0", "grounded": 1, "counted": 2, "share": 0.5, "not_counted": ["C02"]}
    assert f["not_in_every_run"] == ["C02"] and f["cases_in_every_run"] == 2
    assert f["flipping"] == ["C03"]


def test_a_floor_needs_two_runs():
    with pytest.raises(ValueError, match="two runs"):
        sum_case_variances([1, 0], 1)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_noise_floor_matches_a_simulation_of_repeated_runs(k):
    """Known per-case probabilities; many simulated configurations of k runs (fixed seed, so it cannot flake).

    The formula's sd² (its expectation over configurations, since sᵢ² is unbiased) must match the variance
    of the difference between two fresh single runs, and sd²/k that between the means of two sets of k runs.
    """
    rng = np.random.default_rng(2026)
    p = np.array([0.0, 1.0, 0.95, 0.9, 0.9, 0.8, 0.7, 0.6, 0.5, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.99, 1.0, 0.85,
                  0.75, 0.65])
    n, replicates = len(p), 20_000
    truth = 2 * np.sum(p * (1 - p)) / n**2
    runs = rng.random((replicates, k, n)) < p  # one configuration of k runs per replicate
    counts = runs.sum(axis=1)
    estimated = np.array([noise_floor(row.tolist(), k)["sd_single"] ** 2 for row in counts])
    single = (rng.random((replicates, n)) < p).mean(axis=1) - (rng.random((replicates, n)) < p).mean(axis=1)
    means = runs.mean(axis=(1, 2)) - (rng.random((replicates, k, n)) < p).mean(axis=(1, 2))
    # Relative standard errors here are about 1% (variance of 20,000 draws); 5% leaves a wide margin.
    assert estimated.mean() == pytest.approx(truth, rel=0.05)
    assert single.var() == pytest.approx(truth, rel=0.05)
    assert means.var() == pytest.approx(truth / k, rel=0.05)
    mean_floor = np.array([noise_floor(row.tolist(), k)["sd_mean"] ** 2 for row in counts[:2000]])
    assert mean_floor.mean() == pytest.approx(truth / k, rel=0.08)


# ---------------------------------------------------------------- the sign test and the bootstrap


def test_sign_test_matches_scipy_binomtest():
    worst = 0.0
    for up in range(31):
        for down in range(31 - up):
            if up + down == 0:
                assert sign_test(0, 0) == 1.0
                continue
            worst = max(worst, abs(sign_test(up, down) - binomtest(up, up + down, 0.5).pvalue))
    assert worst < 1e-12


D_VALUES = [0.0] * 12 + [1 / 3, 1 / 3, 2 / 3, 1.0, -1 / 3, 0.5, -0.5, 1 / 6]


def test_bootstrap_mean_matches_an_independent_construction():
    # Random.choices on the sorted values draws the same indices; numpy's linear percentile is R type 7.
    data = sorted(D_VALUES)
    rng = random.Random(20003)
    means = [math.fsum(rng.choices(data, k=len(data))) / len(data) for _ in range(2000)]
    low, high = np.percentile(means, [2.5, 97.5], method="linear")
    mean, got_low, got_high = bootstrap_mean_ci(D_VALUES)
    assert mean == pytest.approx(np.mean(D_VALUES), abs=1e-15)
    assert (got_low, got_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def test_bootstrap_mean_agrees_with_a_numpy_bootstrap_of_its_own():
    # A different generator and 20,000 resamples: the limits agree to Monte Carlo error.
    rng = np.random.default_rng(7)
    d = np.array(D_VALUES)
    means = d[rng.integers(0, len(d), size=(20_000, len(d)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    _, got_low, got_high = bootstrap_mean_ci(D_VALUES)
    assert got_low == pytest.approx(low, abs=0.02) and got_high == pytest.approx(high, abs=0.02)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-6, 6).map(lambda i: i / 6), min_size=1, max_size=25))
def test_bootstrap_mean_interval_holds_the_mean_and_ignores_order(values):
    mean, low, high = bootstrap_mean_ci(values, resamples=200)
    assert low <= mean + 1e-12 and mean - 1e-12 <= high
    assert min(values) <= low and high <= max(values)
    assert bootstrap_mean_ci(list(reversed(values)), resamples=200) == (mean, low, high)
    if len(set(values)) == 1:
        assert low == high == values[0]


def test_bootstrap_mean_rejects_empty_input():
    with pytest.raises(ValueError, match="no values"):
        bootstrap_mean_ci([])


# ---------------------------------------------------------------- two configurations


def test_compare_uses_mean_paired_difference_bootstrap_and_sign_test():
    x = table_of([[True, True, False, False, True], [True, False, False, False, True]])
    y = table_of([[True, True, True, False, False], [True, True, True, True, True], [True, True, False, True, False]])
    f = compare_tables(x, y)
    d = [1 - 1, 1 - 0.5, 2 / 3 - 0, 2 / 3 - 0, 1 / 3 - 1]
    assert [r["d"] for r in f["cases"]] == pytest.approx(d, abs=1e-15)
    assert f["difference"] == pytest.approx(np.mean(d), abs=1e-15)
    assert f["better"] == ["C02", "C03", "C04"] and f["worse"] == ["C05"] and f["same"] == ["C01"]
    assert f["sign_p"] == pytest.approx(binomtest(3, 4, 0.5).pvalue, abs=1e-12)
    exact = [r["d"] for r in f["cases"]]  # each dᵢ rounded once from its exact fraction
    assert f["method"] == "bootstrap" and tuple(f["interval"]) == bootstrap_mean_ci(exact)[1:]


def test_compare_of_single_runs_keeps_newcombe_and_mcnemar():
    x = table_of([[True, True, False, False, True, None]])
    y = table_of([[True, False, True, True, True, True]])
    f = compare_tables(x, y)
    # Y first: a = 2 (C01, C05), b = Y only = 2 (C03, C04), c = X only = 1 (C02), d = 0; C06 not paired.
    assert f["method"] == "newcombe" and f["paired"] == 5 and f["not_paired"] == ["C06"]
    assert (f["difference"], *f["interval"]) == newcombe_paired(2, 2, 1, 0)
    assert f["sign_p"] == mcnemar_exact(2, 1)


def test_compare_with_no_common_case_has_no_difference():
    f = compare_tables(table_of([[None, True]]), table_of([[True, None], [True, True]]))
    assert f["paired"] == 0 and f["difference"] is None and f["interval"] is None and f["sign_p"] == 1.0
