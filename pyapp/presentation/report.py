"""The numbers the evaluation page shows and the command line prints, computed once (DR-006).

:func:`run_report` and :func:`compare_report` return plain JSON-able dicts with
raw floats; their ``display`` entries are the same numbers formatted by the
``fmt_*`` functions below, which the page and :func:`format_run_report` /
:func:`format_compare_report` both use, so the two never round differently.

Denominators: the headline counts every case with a counted answer (grounded,
not grounded or model failure). Infrastructure failures, cancellations and
stale inputs are listed apart and are in no denominator.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from pyapp.core.collector import gc_paused
from pyapp.core.formatting import (
    fmt_count,
    fmt_count_share,
    fmt_interval,
    fmt_ms,
    fmt_p,
    fmt_percent,
    fmt_points,
    fmt_share,
)
from pyapp.core.vocabulary import CaseStatus, Outcome
from pyapp.evaluation.evalset import SET_VERSIONS, case, case_ids, is_own_set, set_kinds
from pyapp.evaluation.own_cases import refuse_own_with_fixed, set_label
from pyapp.evaluation.runs import Run, cases_to_ask
from pyapp.evaluation.stats import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    bootstrap_median_ci,
    mcnemar_exact,
    newcombe_paired,
    paired_disagreement_note,
    smallest_detectable_discordant,
    wilson,
)

CASES_IN_SET = 20
# The page and `compare` refuse a run compared with itself in these words.
SAME_RUN = "Choose two different runs: a run compared with itself shows nothing."
# The grounded rates at which the guidance gives each set's Wilson half-width.
GUIDANCE_RATES = (0.5, 0.8, 0.9)

def _share_display(k: int, n: int, interval: list[float] | None) -> dict:
    """The grounded share's texts, the same in the runs list, the run's detail and the command line."""
    return {
        "grounded": fmt_share(k, n, interval),
        "grounded_count": fmt_count_share(k, n),
        "grounded_interval": fmt_interval(interval),
    }


def rate_ticks() -> list[dict]:
    """Where the runs plot marks its axis of grounded shares, and the label of each mark."""
    return [{"at": at, "text": fmt_percent(at)} for at in (0.0, 0.25, 0.5, 0.75, 1.0)]


# --------------------------------------------------------------------------- one run


def _case_row(result) -> dict:
    c = case(result.case_id, result.eval_set_version)
    grade = result.grade
    return {
        "case_id": result.case_id,
        "kind": c.kind,
        "order": c.order,
        "why_it_matters": c.why_it_matters,
        "status": result.status,
        "outcome": None if grade is None else grade.outcome,
        "failure": None if grade is None else grade.failure,
        "detail": grade.detail if grade is not None and grade.detail else result.detail,
        "checks": [] if grade is None else [ch.to_json() for ch in grade.checks],
        "failed_checks": [] if grade is None else list(grade.failed_checks),
        # Each failing check's reason, as the command line prints it under the case.
        "failed_reasons": [] if grade is None else [f"{ch.name}: {ch.reason}" for ch in grade.checks if not ch.passed],
        "entry_id": result.entry_id,
        "logged_outcome": result.logged_outcome,
        "outcome_text": (grade.outcome if grade is not None else result.status).replace("_", " "),
        "answer_ms": result.answer_ms,
        "answer_text": "n/a" if result.answer_ms is None else fmt_ms(result.answer_ms),
        "total_ms": result.total_ms,
        "calls": result.calls,
        "decision": None if result.decision is None else {
            "helpful": result.decision.helpful, "note": result.decision.note},
    }


def _latency(values: list[float]) -> dict | None:
    if not values:
        return None
    median, low, high = bootstrap_median_ci(values, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE)
    return {"n": len(values), "median": median, "low": low, "high": high,
            "resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED}


def run_report(run: Run) -> dict:
    """Everything the page shows for one run (module doc gives the denominators)."""
    graded = run.graded
    outcomes = [c.outcome for c in graded]
    k, n = outcomes.count(Outcome.GROUNDED), len(outcomes)
    interval = list(wilson(k, n, CONFIDENCE)) if n else None
    latency = _latency(run.answer_latencies)
    per_kind = []
    for kind in set_kinds(run.eval_set_version):
        rows = [c for c in run.cases if case(c.case_id, run.eval_set_version).kind == kind.name]
        kind_outcomes = [c.outcome for c in rows if c.status == CaseStatus.GRADED]
        per_kind.append({
            "kind": kind.name,
            "label": kind.label,
            "cases": len(rows),
            "grounded": kind_outcomes.count(Outcome.GROUNDED),
            "not_grounded": kind_outcomes.count(Outcome.NOT_GROUNDED),
            "model_failure": kind_outcomes.count(Outcome.MODEL_FAILURE),
            "not_graded": len(rows) - len(kind_outcomes),
        })
    report = {
        "run_id": run.run_id,
        "started": run.started,
        "last": run.last,
        "eval_set_version": run.eval_set_version,
        "set_label": set_label(run.eval_set_version),
        "set_note": _set_note(run.eval_set_version),
        "settings": run.settings,
        "mixed_settings": run.mixed_settings,
        "settings_seen": list(run.settings_seen),
        "cases_total": len(run.cases),
        "graded": n,
        "grounded": k,
        "not_grounded": outcomes.count(Outcome.NOT_GROUNDED),
        "model_failures": outcomes.count(Outcome.MODEL_FAILURE),
        "grounded_share": k / n if n else None,
        "grounded_interval": interval,
        "latency": latency,
        "latencies": sorted(run.answer_latencies),
        "per_kind": per_kind,
        "infrastructure_failures": [note.to_json() for note in run.infrastructure_failures],
        "stale": [note.to_json() for note in run.stale],
        "cancelled": [note.to_json() for note in run.cancelled],
        "repeats": [note.to_json() for note in run.repeats],
        "regraded_differently": list(run.regraded_differently),
        "to_ask": cases_to_ask(run),
        "cases": [_case_row(c) for c in run.cases],
        "tokens": {"input": run.input_tokens, "output": run.output_tokens, "calls": run.calls},
    }
    top = max(run.answer_latencies, default=0.0) * 1.05  # the latency plot's axis ends a little past the slowest
    report["display"] = {
        **_share_display(k, n, interval),
        "latency": "no latencies" if latency is None else
        f"median {fmt_ms(latency['median'])} (95% CI {fmt_ms(latency['low'])} to {fmt_ms(latency['high'])})",
        "median_latency": fmt_ms(None if latency is None else latency["median"]),
        "tokens": f"{fmt_count(run.input_tokens)} input and {fmt_count(run.output_tokens)} output tokens "
                  f"over {run.calls} calls",
        "tokens_in_out": f"{fmt_count(run.input_tokens)} / {fmt_count(run.output_tokens)}",
    }
    report["latency_axis"] = {"top": top, "top_text": fmt_ms(top), "zero_text": fmt_ms(0.0)}
    return report


def _set_note(version: str) -> str:
    """What the page adds after a run's name: only a run of the visitor's own cases names its set (DR-009)."""
    return f" · {set_label(version)}" if is_own_set(version) else ""


def runs_message(runs: int, calls: int, unreadable: int) -> str:
    """The sentence above the page's runs list: how many runs, from how many calls, and what was skipped."""
    said = (f"{fmt_count(runs)} {'run' if runs == 1 else 'runs'} rebuilt from {fmt_count(calls)} logged "
            f"{'call' if calls == 1 else 'calls'}")
    if not unreadable:
        return said + "."
    entries = "entry was" if unreadable == 1 else "entries were"
    return f"{said}; {fmt_count(unreadable)} unreadable audit {entries} skipped (left in place)."


def runs_overview(runs: Sequence[Run]) -> list[dict]:
    """One row per run for the runs list: grounded share and Wilson interval, no bootstrap, so cheap.

    Reading the shares grades every counted answer of every run listed.
    """
    rows = []
    with gc_paused():
        graded = [[c.outcome for c in run.graded] for run in runs]
    for run, outcomes in zip(runs, graded, strict=True):
        k, n = outcomes.count(Outcome.GROUNDED), len(outcomes)
        interval = list(wilson(k, n, CONFIDENCE)) if n else None
        median = statistics.median(run.answer_latencies) if run.answer_latencies else None
        rows.append({
            "run_id": run.run_id,
            "eval_set_version": run.eval_set_version,
            "set_label": set_label(run.eval_set_version),
            "set_note": _set_note(run.eval_set_version),
            "started": run.started,
            "last": run.last,
            "settings": run.settings,
            "mixed_settings": run.mixed_settings,
            "calls": run.calls,
            "graded": n,
            "grounded": k,
            "grounded_share": k / n if n else None,
            "grounded_interval": interval,
            "to_ask": len(cases_to_ask(run)),
            "complete": run.complete,
            "infrastructure_failures": len(run.infrastructure_failures),
            "stale": len(run.stale),
            "tokens": {"input": run.input_tokens, "output": run.output_tokens},
            "median_latency": median,
            "display": {**_share_display(k, n, interval), "median_latency": fmt_ms(median),
                        "tokens_in_out": f"{fmt_count(run.input_tokens)} / {fmt_count(run.output_tokens)}"},
        })
    return rows


# --------------------------------------------------------------------------- two runs


def _verdict(first: str, second: str) -> str:
    if (first == Outcome.GROUNDED) == (second == Outcome.GROUNDED):
        return "same"
    return "better" if first == Outcome.GROUNDED else "worse"


def small_sample_guidance(pairs: int = CASES_IN_SET) -> dict:
    """What ``pairs`` cases can show at best, for the page before any run is paid for."""
    k = smallest_detectable_discordant(pairs, ALPHA)
    best_low = wilson(pairs, pairs, CONFIDENCE)[0] if pairs else 0.0
    guidance = {
        "pairs": pairs,
        "all_grounded_wilson_low": best_low,
        "smallest_one_way": k,
        "smallest_one_way_points": None if k is None else k / pairs,
        "smallest_one_way_p": None if k is None else mcnemar_exact(k, 0),
        "one_fewer_p": None if k is None or k < 2 else mcnemar_exact(k - 1, 0),
    }
    if k is None:
        text = (f"With {pairs} paired cases no split of disagreements can reach p < {ALPHA:.2g}, "
                "so a comparison can only describe the runs, not tell them apart.")
    else:
        text = (f"Even {pairs} grounded answers out of {pairs} leave a 95% Wilson lower bound of "
                f"{fmt_percent(best_low)}. Two runs on the {pairs} cases can be told apart (exact McNemar "
                f"p < {ALPHA:.2g}) only if they disagree on at least {k} cases all in one direction "
                f"({k} against 0 gives p = {fmt_p(mcnemar_exact(k, 0))}), a difference of "
                f"{fmt_points(k / pairs).lstrip('+')} points; smaller differences, however real, "
                "will not show.")
    guidance["text"] = text
    guidance["display"] = {
        "all_grounded_wilson_low": fmt_percent(best_low),
        "smallest_one_way": "none" if k is None else str(k),
        "smallest_one_way_points": "n/a" if k is None else fmt_points(k / pairs).lstrip("+"),
    }
    return guidance


def wilson_half_width(rate: float, n: int) -> float:
    """Half the width of the 95% Wilson interval of ``n`` answers, ``rate`` of them grounded (rounded to a count)."""
    low, high = wilson(math.floor(rate * n + 0.5), n, CONFIDENCE)
    return (high - low) / 2.0


def set_guidance(versions: Sequence[str] = SET_VERSIONS) -> list[dict]:
    """What each fixed set can show at best, before any run is paid for (DR-009).

    Per set: its size, the Wilson half-width at each of :data:`GUIDANCE_RATES`, and
    the smallest paired difference two runs on it can show (:func:`small_sample_guidance`).
    """
    rows = []
    for version in versions:
        n = len(case_ids(version))
        widths = [{"rate": rate, "half_width": wilson_half_width(rate, n),
                   "text": f"±{fmt_points(wilson_half_width(rate, n)).lstrip('+')} points at {rate * 100:g}%"}
                  for rate in GUIDANCE_RATES]
        paired = small_sample_guidance(n)
        k = paired["smallest_one_way"]
        detectable = ("no difference can reach p < 0.05" if k is None else
                      f"{paired['display']['smallest_one_way_points']} points ({k} cases one way, none the other)")
        rows.append({
            "eval_set_version": version,
            "cases": n,
            "half_widths": widths,
            "smallest_one_way": k,
            "smallest_one_way_points": paired["smallest_one_way_points"],
            "text": (f"{set_label(version)}, {n} cases: the Wilson 95% interval is "
                     f"{', '.join(w['text'] for w in widths)}; "
                     f"the smallest difference two runs can show is {detectable}."),
        })
    return rows


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
                f"p = {fmt_p(p)}); the difference is {fmt_points((b - c) / n)} points ({limits}). It holds "
                "for these searches only, and one run of each does not show how much either varies.")
    need = (f"at least {k} disagreements all one way are needed for p < {ALPHA:.2g}" if k is not None
            else f"no split can reach p < {ALPHA:.2g}")
    if low > 0.0 or high < 0.0:
        return (f"{split} The interval ({limits}) leaves out zero, but the exact test does not reach "
                f"p < {ALPHA:.2g} (p = {fmt_p(p)}): with {n} paired cases {need}, so treat the gap as a "
                "hint, not as settled.")
    return (f"{split} That is too few to tell them apart: with {n} paired cases {need}, and the interval "
            f"({limits}) allows either run to be the better one.")


def compare_report(run_a: Run, run_b: Run) -> dict:
    """The paired comparison of two runs on the cases both have a counted answer for.

    Differences are the first run's grounded share minus the second's; a case's
    ``verdict`` says how the first run did against the second. Runs of different
    sets are never compared, nor a run with itself (``ValueError``).
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
        rows.append({"case_id": first.case_id, "kind": case(first.case_id, run_a.eval_set_version).kind,
                     "first": first.outcome, "second": other.outcome,
                     "first_text": first.outcome.replace("_", " "), "second_text": other.outcome.replace("_", " "),
                     "verdict": _verdict(first.outcome, other.outcome)})
    n = a + b + c + d
    difference, low, high = newcombe_paired(a, b, c, d, CONFIDENCE)
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
        "better": b,
        "worse": c,
        "same": a + d,
        "cases": rows,
        "guidance": small_sample_guidance(len(run_a.cases)),
        "note": paired_disagreement_note(a, b, c, d, CONFIDENCE) if n else None,
        "summary": _compare_sentence(a, b, c, d, low, high, p),
    }
    report["display"] = {
        "first": fmt_share(a + b, n, first_interval),
        "second": fmt_share(a + c, n, second_interval),
        "difference": "no paired cases" if not n else
        f"{fmt_points(difference)} points (95% CI {fmt_points(low)} to {fmt_points(high)})",
        "mcnemar": f"exact McNemar p = {fmt_p(p)} ({b} against {c})",
        "per_case": f"{b} better, {c} worse, {a + d} the same",
    }
    return report


# --------------------------------------------------------------------------- text for the command line


def format_run_report(report: dict) -> str:
    """The command line's text for :func:`run_report`'s dict."""
    shown = report["display"]
    settings = report["settings"] or {}
    lines = [
        f"run {report['run_id']}  started {report['started']}  set {report['set_label']}",
        f"settings: {settings.get('provider')} {settings.get('model')}, "
        f"max_tokens {settings.get('max_tokens')}, "
        f"temperature {settings.get('temperature')}" + ("  (calls used different settings)"
                                                          if report["mixed_settings"] else ""),
        f"grounded: {shown['grounded']}",
        f"  graded {report['graded']} of {report['cases_total']}: grounded {report['grounded']}, "
        f"not grounded {report['not_grounded']}, model failure {report['model_failures']}",
        f"latency of the answering request: {shown['latency']}",
        f"tokens: {shown['tokens']}",
        "per kind (counts only):",
    ]
    for kind in report["per_kind"]:
        lines.append(f"  {kind['label']:<30} grounded {kind['grounded']}, "
                     f"not grounded {kind['not_grounded']}, model failure {kind['model_failure']}, "
                     f"not graded {kind['not_graded']}")
    for title, key in (("infrastructure failures (in no denominator)", "infrastructure_failures"),
                       ("stale inputs (in no denominator, asked again on continue)", "stale"),
                       ("cancelled", "cancelled"), ("repeats (not counted)", "repeats")):
        notes = report[key]
        lines.append(f"{title}: {len(notes)}")
        lines.extend(f"  {n['case_id']}  {n['entry_id']}  {n['reason']}" for n in notes)
    if report["regraded_differently"]:
        changed = ", ".join(report["regraded_differently"])
        lines.append(f"graded differently today than when logged: {changed}")
    lines.append("cases:")
    for row in report["cases"]:
        verdict = row["outcome"] or row["status"]
        extra = ""
        if row["failed_checks"]:
            extra = "  failed: " + ", ".join(row["failed_checks"])
        elif row["failure"]:
            extra = f"  {row['failure']}"
        ms = "" if row["answer_ms"] is None else f"  {row['answer_text']}"
        lines.append(f"  {row['case_id']}  {row['kind']:<13} {row['order']:<12} {verdict}{extra}{ms}")
        for check in row["checks"]:
            lines.append(f"      {'pass' if check['passed'] else 'FAIL'}  {check['name']}: {check['reason']}")
    if report["to_ask"]:
        lines.append(f"to ask on continue: {', '.join(report['to_ask'])}")
    return "\n".join(lines)


def format_compare_report(report: dict) -> str:
    """The command line's text for :func:`compare_report`'s dict."""
    shown = report["display"]
    t = report["table"]
    lines = [
        f"first  {report['first']}: {shown['first']}",
        f"second {report['second']}: {shown['second']}",
        f"paired cases: {report['paired']}  (a both {t['a']}, b first only {t['b']}, c second only {t['c']}, "
        f"d neither {t['d']})",
        f"difference, first minus second: {shown['difference']}",
        shown["mcnemar"],
    ]
    if report["not_paired"]:
        lines.append(f"not paired (no counted answer in both): {', '.join(report['not_paired'])}")
    lines.append("per case (first against second):")
    lines.extend(f"  {r['case_id']}  {r['first']:<14} {r['second']:<14} {r['verdict']}"
                 for r in report["cases"])
    lines.append(report["summary"])
    if report["note"]:
        lines.append(report["note"])
    lines.append(report["guidance"]["text"])
    return "\n".join(lines)
