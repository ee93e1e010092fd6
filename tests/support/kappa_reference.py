"""Kappa computed independently of pyapp: scikit-learn's kappa and Agresti's form of its standard error."""

from __future__ import annotations

import math

import numpy as np
from sklearn.metrics import cohen_kappa_score

from pyapp.evaluation.stats import z_value

Z = z_value(0.95)


def labels_of(table: list[list[int]]) -> tuple[list[int], list[int]]:
    """The two raters' label lists behind ``table`` (row = first rater's category)."""
    first, second = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            first += [i] * count
            second += [j] * count
    return first, second


def sklearn_kappa(table: list[list[int]]) -> float:
    first, second = labels_of(table)
    return cohen_kappa_score(first, second, labels=list(range(len(table))))


def agresti_se(table: list[list[int]]) -> float:
    """The delta-method SE of kappa in Agresti's theta form (Categorical Data Analysis, 2nd ed., 2002, 11.5.1).

    Algebraically the Fleiss-Cohen-Everitt (1969) variance, written differently, so it checks that code.
    """
    p = np.array(table, dtype=float)
    n = p.sum()
    p /= n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    t1 = np.trace(p)
    t2 = float(rows @ cols)
    t3 = float(np.diag(p) @ (rows + cols))
    t4 = float((p * (cols[:, None] + rows[None, :]) ** 2).sum())
    variance = (t1 * (1 - t1) / (1 - t2) ** 2 + 2 * (1 - t1) * (2 * t1 * t2 - t3) / (1 - t2) ** 3
                + (1 - t1) ** 2 * (t4 - 4 * t2 ** 2) / (1 - t2) ** 4) / n
    return math.sqrt(max(0.0, variance))
