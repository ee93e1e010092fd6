"""Cohen's kappa and its interval, the figure every agreement in the site is (DR-009, DR-012).

Cohen's (1960) kappa compares the observed share of agreement p_o with the share
p_e two raters would reach by chance with their own marginals:
kappa = (p_o - p_e) / (1 - p_e). Its 95% interval is kappa ± z·SE with the
large-sample standard error of Fleiss, Cohen & Everitt (1969), "Large sample
standard errors of kappa and weighted kappa", Psychological Bulletin 72(5):

    SE² = [ Σ_i p_ii (1 - (p_i. + p_.i)(1 - kappa))²
            + (1 - kappa)² Σ_{i≠j} p_ij (p_.i + p_j.)²
            - (kappa - p_e (1 - kappa))² ] / (n (1 - p_e)²)

cut to [-1, 1]. When both raters put every answer in one and the same category,
p_e is 1 and kappa is undefined; when one of them does, kappa is 0 whatever the
other does, and the formula's SE of 0 would claim a certainty there is none of,
so that kappa has no interval. The figures say so in words instead.
The interval is an approximation for many cases; below :data:`FEW_ANSWERS` every
figure carries a sentence saying it means little.

Standard library only and plain float arithmetic, so the page (Pyodide) and
``python -m pyapp agreement`` print the same digits.
"""


from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pyapp.core.formatting import fmt_fixed, fmt_percent
from pyapp.evaluation.stats import CONFIDENCE, z_value

# Below this many answers rated by both, a kappa's interval is too wide and its approximation too
# rough to mean much (a judgement recorded in DR-009, not a measured threshold).
FEW_ANSWERS = 30


@dataclass(frozen=True)
class Kappa:
    """Agreement on a square table of counts: ``table[i][j]`` = answers the first put in i, the second in j.

    ``kappa``, ``low`` and ``high`` are None when kappa is undefined (no answers, or chance agreement 1);
    ``single_category`` says one of the two put every answer in one category (module doc). ``half_width`` is
    z·SE, the interval's half-width before it is cut to [-1, 1], None when there is no interval.
    """

    n: int
    agree: int
    observed: float | None
    expected: float | None
    kappa: float | None
    low: float | None
    high: float | None
    single_category: bool = False
    half_width: float | None = None

    def to_json(self) -> dict:
        return {"n": self.n, "agree": self.agree, "observed": self.observed, "expected": self.expected,
                "kappa": self.kappa, "interval": None if self.low is None else [self.low, self.high]}


def _check_table(table: Sequence[Sequence[int]]) -> int:
    size = len(table)
    if size < 2 or any(len(row) != size for row in table):
        raise ValueError("an agreement table must be square, with at least two categories")
    for row in table:
        for count in row:
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"table counts must be non-negative integers, got {count!r}")
    return size


def cohen_kappa(table: Sequence[Sequence[int]], confidence: float = CONFIDENCE) -> Kappa:
    """Cohen's kappa of ``table`` with the Fleiss-Cohen-Everitt interval (module doc)."""
    size = _check_table(table)
    n = sum(sum(row) for row in table)
    agree = sum(table[i][i] for i in range(size))
    if n == 0:
        return Kappa(0, 0, None, None, None, None, None, single_category=True)
    rows = [sum(table[i]) for i in range(size)]
    cols = [sum(table[i][j] for i in range(size)) for j in range(size)]
    observed = agree / n
    chance_by_n2 = sum(rows[i] * cols[i] for i in range(size))  # integers: p_e = 1 exactly is seen exactly
    expected = chance_by_n2 / (n * n)
    if chance_by_n2 == n * n:
        return Kappa(n, agree, observed, 1.0, None, None, None, single_category=True)
    if n in rows or n in cols:
        return Kappa(n, agree, observed, expected, 0.0, None, None, single_category=True)
    kappa = (observed - expected) / (1.0 - expected)
    p_row = [r / n for r in rows]
    p_col = [c / n for c in cols]
    diagonal = math.fsum(table[i][i] / n * (1.0 - (p_row[i] + p_col[i]) * (1.0 - kappa)) ** 2
                         for i in range(size))
    off = math.fsum(table[i][j] / n * (p_col[i] + p_row[j]) ** 2
                    for i in range(size) for j in range(size) if i != j)
    variance = (diagonal + (1.0 - kappa) ** 2 * off - (kappa - expected * (1.0 - kappa)) ** 2) / (
        n * (1.0 - expected) ** 2)
    half = z_value(confidence) * math.sqrt(max(0.0, variance))  # rounding can leave -1e-17
    return Kappa(n, agree, observed, expected, kappa, max(-1.0, kappa - half), min(1.0, kappa + half),
                 half_width=half)


def answers_for_half_width(k: Kappa, target: float) -> int | None:
    """The fewest answers at which a table with ``k``'s shares has a half-width (z·SE) of at most ``target``;
    None when ``k`` has no interval.

    The variance is a function of the table's shares divided by n, so at N answers with the same shares the
    half-width is ``k.half_width * sqrt(k.n / N)``.
    """
    if k.half_width is None:
        return None

    def within(answers: int) -> bool:
        return k.half_width * math.sqrt(k.n / answers) <= target

    needed = max(1, math.ceil(k.half_width ** 2 * k.n / target ** 2))
    # The float quotient can land a step off either way; the condition itself decides.
    while needed > 1 and within(needed - 1):
        needed -= 1
    while not within(needed):
        needed += 1
    return needed


def kappa_note(k: Kappa, what: str) -> str | None:
    """A plain sentence when the figure for ``what`` means little or nothing, else None."""
    if k.n == 0:
        return f"No answer has both ratings needed for {what}, so there is nothing to compare yet."
    if k.kappa is None:
        return (f"Kappa for {what} is undefined: every one of the {k.n} answers fell in the same category for "
                "both, so agreement by chance is already 100% and there is nothing left to measure.")
    if k.single_category:
        return (f"Kappa for {what} is 0 by construction: one of the two gave the same answer to all {k.n}, "
                "so it says nothing about agreement and has no interval.")
    if k.n < FEW_ANSWERS:
        return (f"{k.n} answers are too few for {what} to mean much: the interval is wide and rests on an "
                f"approximation meant for many cases (at least {FEW_ANSWERS}).")
    return None


def figure(table: list[list[int]], what: str) -> dict:
    k = cohen_kappa(table)
    return {
        "table": table,
        **k.to_json(),
        "note": kappa_note(k, what),
        "display": {
            "agreement": f"{k.agree}/{k.n}" + (f" ({fmt_percent(k.observed)})" if k.n else ""),
            "kappa": kappa_text(k),
        },
    }


def kappa_text(k: Kappa) -> str:
    if k.kappa is None:
        return "undefined"
    if k.low is None:
        return fmt_fixed(k.kappa, 2)
    return f"{fmt_fixed(k.kappa, 2)} (95% CI {fmt_fixed(k.low, 2)} to {fmt_fixed(k.high, 2)})"


def yes_no_table(pairs: list[tuple[bool, bool]]) -> list[list[int]]:
    """[[yes-yes, yes-no], [no-yes, no-no]]: the first of each pair picks the row."""
    table = [[0, 0], [0, 0]]
    for first, second in pairs:
        table[0 if first else 1][0 if second else 1] += 1
    return table
