"""The numbers the evaluation page shows and the command line prints for runs, computed once (DR-006).

:func:`run_report` here and :func:`pyapp.presentation.run_comparison.compare_report` return plain
JSON-able dicts with raw floats; their ``display`` entries are the same numbers formatted by
:mod:`pyapp.core.formatting`, which the page and the command line's text both use, so the two
never round differently.

Denominators: the headline counts every case with a counted answer (grounded,
not grounded or model failure). Infrastructure failures, cancellations and
stale inputs are listed apart and are in no denominator.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from pyapp.core.formatting import (
    counted,
    fmt_count,
    fmt_count_share,
    fmt_interval,
    fmt_ms,
    fmt_percent,
    fmt_share,
)
from pyapp.core.vocabulary import CaseStatus, Outcome
from pyapp.evaluation.evalset import is_own_set, set_kinds
from pyapp.evaluation.own_cases import set_label
from pyapp.evaluation.runs import Run, cases_to_ask
from pyapp.evaluation.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    bootstrap_median_ci,
    wilson,
)
from pyapp.presentation.run_names import run_names


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


def _case_row(result) -> dict:
    c = result.case
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
        rows = [c for c in run.cases if c.case.kind == kind.name]
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
                  f"over {counted(run.calls, 'call')}",
        "tokens_in_out": f"{fmt_count(run.input_tokens)} / {fmt_count(run.output_tokens)}",
    }
    report["latency_axis"] = {"top": top, "top_text": fmt_ms(top), "zero_text": fmt_ms(0.0)}
    return report


def _set_note(version: str) -> str:
    """What the page adds after a run's name: only a run of the visitor's own cases names its set (DR-009)."""
    return f" · {set_label(version)}" if is_own_set(version) else ""


def runs_message(runs: int, calls: int, unreadable: int) -> str:
    """The sentence above the page's runs list: how many runs, from how many calls, and what was skipped."""
    said = f"{counted(runs, 'run')} rebuilt from {counted(calls, 'logged call')}"
    if not unreadable:
        return said + "."
    skipped = counted(unreadable, "unreadable audit entry was", "unreadable audit entries were")
    return f"{said}; {skipped} skipped (left in place)."


# The runs list rates the newest runs, and the rest on request: at 100,000 entries, grading the answers of all
# 4,437 runs for the list was the largest part of a first visit, 2.8 s of 7.1 s (DR-006).
RUNS_RATED = 100


def runs_overview(runs: Sequence[Run], rated: int | None = None) -> list[dict]:
    """One row per run for the runs list: grounded share and Wilson interval, no bootstrap, so cheap.

    Only the first ``rated`` runs (None: every one) have their share, which grades every counted answer of
    theirs; the others' share, interval and their texts are None, and the rest of their row is read without
    grading: the page's choices of a run need only that.
    """
    rows = []
    names = run_names(runs)
    for position, run in enumerate(runs):
        graded = run.graded
        n = len(graded)
        if rated is None or position < rated:
            k = [c.outcome for c in graded].count(Outcome.GROUNDED)
            interval = list(wilson(k, n, CONFIDENCE)) if n else None
            share, display = (k / n if n else None), _share_display(k, n, interval)
        else:
            k = interval = share = None
            display = dict.fromkeys(("grounded", "grounded_count", "grounded_interval"))
        median = statistics.median(run.answer_latencies) if run.answer_latencies else None
        rows.append({
            "run_id": run.run_id,
            "label": names[run.run_id]["label"],
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
            "grounded_share": share,
            "grounded_interval": interval,
            "to_ask": len(cases_to_ask(run)),
            "complete": run.complete,
            "infrastructure_failures": len(run.infrastructure_failures),
            "stale": len(run.stale),
            "tokens": {"input": run.input_tokens, "output": run.output_tokens},
            "median_latency": median,
            "display": {**display, "median_latency": fmt_ms(median),
                        "tokens_in_out": f"{fmt_count(run.input_tokens)} / {fmt_count(run.output_tokens)}"},
        })
    return rows


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
