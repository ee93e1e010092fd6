"""Figures for repeated runs of one configuration and for comparing two configurations (DR-008).

Everything works on a :class:`VerdictTable`: for each run and case, True (grounded),
False (a counted answer that is not grounded) or None (no counted answer in that
run). A run's own share counts its counted answers; the per-case figures (pass^k,
flips, the noise floor, the comparison) use the cases with a counted answer in
every run, and the others are listed.

Sums of per-case variances are exact fractions, rounded to float once, so the
command line and the page print the same digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pyapp.core.vocabulary import CaseStatus, Outcome
from pyapp.evaluation.runs import Run
from pyapp.evaluation.stats import CONFIDENCE, bootstrap_mean_ci, newcombe_paired, sign_test, z_value


@dataclass(frozen=True)
class VerdictTable:
    """``grounded[r][c]``: run ``run_ids[r]`` on case ``case_ids[c]``: True, False or None (not counted)."""

    run_ids: tuple[str, ...]
    case_ids: tuple[str, ...]
    grounded: tuple[tuple[bool | None, ...], ...]

    @property
    def k(self) -> int:
        return len(self.run_ids)

    def column(self, case_index: int) -> list[bool | None]:
        return [row[case_index] for row in self.grounded]

    def complete_cases(self) -> list[int]:
        """Indices of the cases with a counted answer in every run."""
        return [i for i in range(len(self.case_ids)) if all(v is not None for v in self.column(i))]

    def grounded_count(self, case_index: int) -> int:
        return sum(1 for v in self.column(case_index) if v)


def verdict_table(runs: Sequence[Run]) -> VerdictTable:
    """The verdicts of ``runs`` (all on the same set, cases in set order)."""
    if not runs:
        raise ValueError("no runs")
    case_ids = tuple(c.case_id for c in runs[0].cases)
    rows = []
    for run in runs:
        if tuple(c.case_id for c in run.cases) != case_ids:
            raise ValueError(f"run {run.run_id} is not on the same cases")
        rows.append(tuple(None if c.status != CaseStatus.GRADED else c.outcome == Outcome.GROUNDED
                          for c in run.cases))
    return VerdictTable(tuple(r.run_id for r in runs), case_ids, tuple(rows))


def sum_case_variances(grounded_counts: Sequence[int], k: int) -> Fraction:
    """Σ sᵢ² with sᵢ² = k/(k−1)·p̂ᵢ(1−p̂ᵢ) and p̂ᵢ = gᵢ/k, exactly: Σ gᵢ(k−gᵢ) / (k(k−1)).

    sᵢ² is the unbiased estimate of case i's Bernoulli variance pᵢ(1−pᵢ) from k runs.
    """
    if k < 2:
        raise ValueError("a noise floor needs at least two runs")
    return Fraction(sum(g * (k - g) for g in grounded_counts), k * (k - 1))


def noise_floor(grounded_counts: Sequence[int], k: int, confidence: float = CONFIDENCE) -> dict:
    """The spread of the grounded share between runs of one configuration, from k runs on n cases.

    A run's share is (1/n)·Σ Xᵢ with independent Xᵢ ~ Bernoulli(pᵢ), so two independent runs
    differ with variance 2·Σ pᵢ(1−pᵢ)/n². With Σ sᵢ² for Σ pᵢ(1−pᵢ): sd = √(2·Σ sᵢ²)/n, the
    floor is z·sd (z = 1.96 at 95%), and for means of k runs each both shrink by √k.
    """
    n = len(grounded_counts)
    if n == 0:
        return {"cases": 0, "k": k, "sum_variance": None, "sd_single": None, "floor_single": None,
                "sd_mean": None, "floor_mean": None}
    total = sum_case_variances(grounded_counts, k)
    sd = math.sqrt(float(2 * total)) / n
    z = z_value(confidence)
    root_k = math.sqrt(k)
    return {"cases": n, "k": k, "sum_variance": float(total), "sd_single": sd, "floor_single": z * sd,
            "sd_mean": sd / root_k, "floor_mean": z * sd / root_k}


def repeat_figures(table: VerdictTable, confidence: float = CONFIDENCE) -> dict:
    """Mean share and range over runs, pass^k, flips and the noise floor (module doc gives the cases used)."""
    k = table.k
    per_run = []
    for run_id, row in zip(table.run_ids, table.grounded, strict=True):
        counted = [v for v in row if v is not None]
        grounded = sum(1 for v in counted if v)
        per_run.append({"run_id": run_id, "grounded": grounded, "counted": len(counted),
                        "share": grounded / len(counted) if counted else None,
                        "not_counted": [c for c, v in zip(table.case_ids, row, strict=True) if v is None]})
    shares = [r["share"] for r in per_run if r["share"] is not None]
    complete = table.complete_cases()
    counts = [table.grounded_count(i) for i in complete]
    n = len(complete)
    flipping = [table.case_ids[i] for i, g in zip(complete, counts, strict=True) if 0 < g < k]
    always = sum(1 for g in counts if g == k)
    return {
        "k": k,
        "runs": per_run,
        "mean_share": math.fsum(shares) / len(shares) if shares else None,
        "min_share": min(shares) if shares else None,
        "max_share": max(shares) if shares else None,
        "cases_in_every_run": n,
        "not_in_every_run": [table.case_ids[i] for i in range(len(table.case_ids)) if i not in complete],
        "case_shares": {table.case_ids[i]: g / k for i, g in zip(complete, counts, strict=True)},
        "pass_k": always / n if n else None,
        "pass_k_cases": always,
        "flip_rate": len(flipping) / n if n else None,
        "flipping": flipping,
        "floor": noise_floor(counts, k, confidence) if k >= 2 else None,
    }


def compare_tables(x: VerdictTable, y: VerdictTable, confidence: float = CONFIDENCE) -> dict:
    """Y against X on the cases with a counted answer in every run of both: dᵢ = Y's share − X's.

    With several runs on either side: the mean of dᵢ, a paired percentile bootstrap over
    cases and an exact sign test on the cases with dᵢ ≠ 0. With one run each: Newcombe's
    method 10 and the exact McNemar test, as for two runs (DR-006); the sign test's p is
    then the McNemar p, since the cases that moved are the discordant pairs.
    """
    if x.case_ids != y.case_ids:
        raise ValueError("the two configurations are not on the same cases")
    both = sorted(set(x.complete_cases()) & set(y.complete_cases()))
    rows = []
    for i in both:
        gx, gy = x.grounded_count(i), y.grounded_count(i)
        d = Fraction(gy, y.k) - Fraction(gx, x.k)
        verdict = "better" if d > 0 else "worse" if d < 0 else "same"
        rows.append({"case_id": x.case_ids[i], "x_share": gx / x.k, "y_share": gy / y.k, "d": float(d),
                     "verdict": verdict})
    better = [r["case_id"] for r in rows if r["verdict"] == "better"]
    worse = [r["case_id"] for r in rows if r["verdict"] == "worse"]
    same = [r["case_id"] for r in rows if r["verdict"] == "same"]
    n = len(rows)
    single = x.k == 1 and y.k == 1
    figures = {
        "paired": n,
        "not_paired": [c for i, c in enumerate(x.case_ids) if i not in both],
        "cases": rows,
        "better": better,
        "worse": worse,
        "same": same,
        "sign_p": sign_test(len(better), len(worse)),
        "method": "newcombe" if single else "bootstrap",
        "difference": None,
        "interval": None,
    }
    if n == 0:
        return figures
    if single:
        # Y first: a = both grounded, b = Y only, c = X only, d = neither; (b - c)/n = Y − X.
        a = sum(1 for r in rows if r["x_share"] == 1.0 and r["y_share"] == 1.0)
        difference, low, high = newcombe_paired(a, len(better), len(worse), n - a - len(better) - len(worse),
                                                confidence)
    else:
        difference, low, high = bootstrap_mean_ci([r["d"] for r in rows], confidence=confidence)
    figures["difference"] = difference
    figures["interval"] = [low, high]
    return figures
