"""Two runs on the same cases, compared pair by pair (DR-006): the per-case table, the paired difference with
Newcombe's interval, the exact McNemar test, and the sentence that says what they mean together."""

from __future__ import annotations

from pyapp.core.formatting import (
    fmt_p,
    fmt_points,
    fmt_share,
)
from pyapp.core.vocabulary import CaseStatus, Outcome
from pyapp.evaluation.configurations import Grouped
from pyapp.evaluation.own_cases import refuse_own_with_fixed
from pyapp.evaluation.runs import Run
from pyapp.evaluation.stats import (
    ALPHA,
    CONFIDENCE,
    mcnemar_exact,
    newcombe_paired,
    paired_disagreement_note,
    smallest_detectable_discordant,
    wilson,
)
from pyapp.presentation.comparison_plot import runs_plot
from pyapp.presentation.guidance import small_sample_guidance

# The page and `compare` refuse a run compared with itself in these words.
SAME_RUN = "Choose two different runs: a run compared with itself shows nothing."


def _verdict(first: str, second: str) -> str:
    """How the second run did on a case against the first."""
    if (first == Outcome.GROUNDED) == (second == Outcome.GROUNDED):
        return "same"
    return "better" if second == Outcome.GROUNDED else "worse"


def _compare_sentence(a: int, b: int, c: int, d: int, low: float, high: float, p: float) -> str:
    n = a + b + c + d
    if n == 0:
        return "No case has a counted answer in both runs, so there is nothing to compare yet."
    k = smallest_detectable_discordant(n, ALPHA)
    reach = max(abs(low), abs(high))
    limits = f"{fmt_points(low)} to {fmt_points(high)} points"
    if b + c == 0:
        return (f"The runs agree on all {n} paired cases ({a} grounded in both, {d} in neither). That shows "
                f"no difference on these searches, but the interval ({limits}) leaves room for a real "
                f"difference of up to {reach * 100:.1f} points, and one run of each says nothing about how "
                "much either varies from run to run.")
    split = (f"The runs disagree on {b + c} of {n} paired cases: {b} grounded only by the first, "
             f"{c} only by the second.")
    if p < ALPHA:
        return (f"{split} A split this uneven is unlikely if the two were equally good (exact McNemar "
                f"p = {fmt_p(p)}); the second run's share minus the first's is {fmt_points((c - b) / n)} points "
                f"({limits}). It holds "
                "for these searches only, and one run of each does not show how much either varies.")
    need = (f"at least {k} disagreements all one way are needed for p < {ALPHA:.2g}" if k is not None
            else f"no split can reach p < {ALPHA:.2g}")
    if low > 0.0 or high < 0.0:
        return (f"{split} The interval ({limits}) leaves out zero, but the exact test does not reach "
                f"p < {ALPHA:.2g} (p = {fmt_p(p)}): with {n} paired cases {need}, so treat the gap as a "
                "hint, not as settled.")
    return (f"{split} That is too few to tell them apart: with {n} paired cases {need}, and the interval "
            f"({limits}) allows either run to be the better one.")


def compare_report(run_a: Run, run_b: Run, grouped: Grouped | None = None) -> dict:
    """The paired comparison of two runs on the cases both have a counted answer for; with the log's
    runs by configuration (``grouped``), drawn against their noise floors too (``plot``).

    Differences are the second run's grounded share minus the first's, as everywhere: the later or
    candidate minus the earlier or reference (a configuration Y minus X, runs now minus a baseline).
    A case's ``verdict`` says how the second run did against the first. Runs of different sets are
    never compared, nor a run with itself (``ValueError``).
    """
    if run_a.run_id == run_b.run_id:
        raise ValueError(SAME_RUN)
    refuse_own_with_fixed(run_a.eval_set_version, run_b.eval_set_version)
    if run_a.eval_set_version != run_b.eval_set_version:
        raise ValueError(f"run {run_a.run_id} is of {run_a.eval_set_version} and run {run_b.run_id} of "
                         f"{run_b.eval_set_version}; runs of different sets are never compared")
    second = {c.case_id: c for c in run_b.cases}
    rows, unpaired = [], []
    a = b = c = d = 0
    for first in run_a.cases:
        other = second[first.case_id]
        if first.status != CaseStatus.GRADED or other.status != CaseStatus.GRADED:
            unpaired.append(first.case_id)
            continue
        one, two = first.outcome == Outcome.GROUNDED, other.outcome == Outcome.GROUNDED
        a += one and two
        b += one and not two
        c += two and not one
        d += not one and not two
        rows.append({"case_id": first.case_id, "kind": first.case.kind,
                     "first": first.outcome, "second": other.outcome,
                     "first_text": first.outcome.replace("_", " "), "second_text": other.outcome.replace("_", " "),
                     "verdict": _verdict(first.outcome, other.outcome)})
    n = a + b + c + d
    difference, low, high = newcombe_paired(a, c, b, d, CONFIDENCE)  # second minus first
    p = mcnemar_exact(b, c)
    first_interval = list(wilson(a + b, n, CONFIDENCE)) if n else None
    second_interval = list(wilson(a + c, n, CONFIDENCE)) if n else None
    report = {
        "first": run_a.run_id,
        "second": run_b.run_id,
        "eval_set_version": run_a.eval_set_version,
        "settings": {"first": run_a.settings, "second": run_b.settings},
        "paired": n,
        "not_paired": unpaired,
        "table": {"a": a, "b": b, "c": c, "d": d},
        "first_grounded": a + b,
        "second_grounded": a + c,
        "first_interval": first_interval,
        "second_interval": second_interval,
        "difference": difference if n else None,
        "interval": [low, high] if n else None,
        "mcnemar_p": p,
        "better": c,
        "worse": b,
        "same": a + d,
        "cases": rows,
        "guidance": small_sample_guidance(len(run_a.cases)),
        "note": paired_disagreement_note(a, c, b, d, CONFIDENCE) if n else None,
        "summary": _compare_sentence(a, b, c, d, low, high, p),
    }
    report["display"] = {
        "first": fmt_share(a + b, n, first_interval),
        "second": fmt_share(a + c, n, second_interval),
        "difference": "no paired cases" if not n else
        f"{fmt_points(difference)} points, second minus first (95% CI {fmt_points(low)} to {fmt_points(high)})",
        "mcnemar": f"exact McNemar p = {fmt_p(p)} ({c} against {b})",
        "per_case": f"{c} better in the second, {b} worse, {a + d} the same",
    }
    report["plot"] = None if grouped is None else runs_plot(report, grouped)
    return report


def format_compare_report(report: dict) -> str:
    """The command line's text for :func:`compare_report`'s dict."""
    shown = report["display"]
    t = report["table"]
    lines = [
        f"first  {report['first']}: {shown['first']}",
        f"second {report['second']}: {shown['second']}",
        f"paired cases: {report['paired']}  (a both {t['a']}, b first only {t['b']}, c second only {t['c']}, "
        f"d neither {t['d']})",
        f"difference: {shown['difference']}",
        shown["mcnemar"],
    ]
    if report["not_paired"]:
        lines.append(f"not paired (no counted answer in both): {', '.join(report['not_paired'])}")
    lines.append("per case (the second against the first):")
    lines.extend(f"  {r['case_id']}  {r['first']:<14} {r['second']:<14} {r['verdict']}"
                 for r in report["cases"])
    lines.append(report["summary"])
    if report["note"]:
        lines.append(report["note"])
    lines.append(report["guidance"]["text"])
    return "\n".join(lines)
