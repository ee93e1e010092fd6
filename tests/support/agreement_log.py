"""A designed log of two runs rated by two raters, for the agreement tables' tests (DR-009)."""

from __future__ import annotations

from eval_helpers import full_run, rating
from pyapp.evaluation.evalset import FIXED_SETS

IDS = FIXED_SETS.case_ids()


def rated_log() -> list[dict]:
    """Two runs (40 counted answers) rated by Ann and Bo.

    Both say yes to ``no_invention`` everywhere (kappa undefined); Bo says no to ``answer``
    on five answers Ann accepts; Ann says no to ``followable`` on C03 of run-b; run-a's C02
    and run-b's C05 and C09 are not grounded.
    """
    entries = full_run("run-a", frozenset(IDS) - {"C02"}) + full_run(
        "run-b", frozenset(IDS) - {"C05", "C09"}, start=100.0)
    calls = [(e["run_id"], e["case_id"], e["id"]) for e in entries]
    bo_no = {("run-a", "C02"), ("run-a", "C11"), ("run-b", "C05"), ("run-b", "C12"), ("run-b", "C19")}
    for n, (run_id, case_id, call_id) in enumerate(calls):
        ann = {"followable": False} if (run_id, case_id) == ("run-b", "C03") else {}
        bo = {"answer": False} if (run_id, case_id) in bo_no else {}
        entries.append(rating(call_id, "Ann", time=300.0 + n, **ann))
        entries.append(rating(call_id, "Bo", time=400.0 + n, **bo))
    return entries
