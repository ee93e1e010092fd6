"""What the command line prints (and the page will show) for repeated runs and two configurations (DR-008).

:func:`configurations_report` and :func:`configuration_compare_report` return plain
JSON-able dicts with raw floats and ``display`` texts made by :mod:`pyapp.presentation.report`'s
``fmt_*`` functions, the one rounding rule of DR-006.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.core.formatting import counted, fmt_count_share, fmt_p, fmt_percent, fmt_point_size, fmt_points
from pyapp.evaluation.configurations import ConfigurationRuns, Grouped, drift, group_runs
from pyapp.evaluation.own_cases import refuse_own_with_fixed
from pyapp.evaluation.plans import plan_status
from pyapp.evaluation.repeats import compare_tables, repeat_figures, verdict_table
from pyapp.evaluation.runs import Run
from pyapp.evaluation.stats import ALPHA, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from pyapp.presentation.comparison_plot import comparison_plot
from pyapp.presentation.run_comparison import compare_report
from pyapp.presentation.run_names import configuration_names, oldest_first


def _repeat_display(figures: dict) -> dict:
    k, n = figures["k"], figures["cases_in_every_run"]
    shown = {
        "runs": [f"{r['run_id']}: {fmt_count_share(r['grounded'], r['counted'])}"
                 + (f", not counted: {', '.join(r['not_counted'])}" if r["not_counted"] else "")
                 for r in figures["runs"]],
        "mean": "no counted answers" if figures["mean_share"] is None else
        f"{fmt_percent(figures['mean_share'])} over {counted(k, 'run')} "
        f"(range {fmt_percent(figures['min_share'])} to {fmt_percent(figures['max_share'])})",
    }
    if k < 2:
        return shown
    shown["pass_k"] = f"{fmt_count_share(figures['pass_k_cases'], n)} of the cases in every run grounded in all {k}"
    shown["flip_rate"] = (f"{fmt_count_share(len(figures['flipping']), n)} of the cases in every run changed verdict"
                          + (f": {', '.join(figures['flipping'])}" if figures["flipping"] else ""))
    floor = figures["floor"]
    shown["floor"] = "no case has a counted answer in every run" if floor["sd_single"] is None else (
        f"one run against another: ±{fmt_point_size(floor['floor_single'])} (sd {fmt_point_size(floor['sd_single'])}); "
        f"means of {k} runs: ±{fmt_point_size(floor['floor_mean'])} (sd {fmt_point_size(floor['sd_mean'])})")
    return shown


def _group_report(group: ConfigurationRuns, names: dict[str, dict]) -> dict:
    """One configuration with its runs and repeat figures; ``names`` are the log's (run_names.configuration_names)."""
    config = group.configuration
    figures = repeat_figures(verdict_table(group.runs))
    return {
        "id": config.id,
        **names[config.id],
        "configuration": config.to_json(),
        "label": config.label,
        "run_ids": [r.run_id for r in group.runs],
        # The latest run's own settings, base URL whole: what "Repeat this configuration" sends again.
        "settings": group.runs[-1].settings,
        "k": len(group.runs),
        "figures": figures,
        "drift": drift(group.runs),
        "display": _repeat_display(figures),
    }


def configurations_report(runs: Sequence[Run]) -> dict:
    """Every configuration of ``runs`` (every run of a log) with its names and repeat figures, and the runs that
    belong to none."""
    grouped = group_runs(sorted(runs, key=oldest_first))
    names = configuration_names(grouped)
    return {
        "configurations": [_group_report(g, names) for g in grouped.groups],
        "apart": [{"run_id": run_id, "reason": reason} for run_id, reason in grouped.apart],
    }


def _floor_sentence(name: str, side: dict, difference: float) -> tuple[bool | None, str]:
    floor = side["figures"]["floor"]
    if floor is None or floor["floor_mean"] is None:
        return None, (f"{name} has one run, so its noise floor is unknown; repeat it to measure one."
                      if side["k"] < 2 else f"{name} has no case counted in every run, so no noise floor.")
    inside = abs(difference) <= floor["floor_mean"]
    where = "inside" if inside else "outside"
    return inside, (f"The difference is {where} {name}'s noise floor for means of {side['k']} runs "
                    f"(±{fmt_point_size(floor['floor_mean'])}).")


def _disagreement_note(figures: dict) -> str | None:
    """A sentence when the bootstrap interval and the sign test reach different verdicts, else None.

    With few cases that moved, all one way, the bootstrap interval can leave out zero while
    the exact test cannot reach p < 0.05 (DR-006 rejected the bootstrap for single runs for this).
    """
    if figures["method"] != "bootstrap":
        return None  # the run comparison carries its own note
    low, high = figures["interval"]
    interval_differs = low > 0.0 or high < 0.0
    test_differs = figures["sign_p"] < ALPHA
    if interval_differs == test_differs:
        return None
    moved = len(figures["better"]) + len(figures["worse"])
    if interval_differs:
        return (f"The interval leaves out zero, yet the exact sign test gives p = {fmt_p(figures['sign_p'])}: "
                f"only {moved} cases moved, and the bootstrap over so few understates the doubt, "
                "so read the gap as a hint, not as settled.")
    return (f"The exact sign test gives p = {fmt_p(figures['sign_p'])}, below {ALPHA:.2g}, yet the interval "
            "still includes zero: read the gap as a hint, not as settled.")


def comparison_display(figures: dict, x: str = "X", y: str = "Y") -> dict:
    """The per-case counts, the difference and the test of :func:`pyapp.evaluation.repeats.compare_tables`, as text."""
    shown = {"per_case": f"{len(figures['better'])} better, {len(figures['worse'])} worse, "
                         f"{len(figures['same'])} the same ({y} against {x})"}
    if figures["difference"] is None:
        shown["difference"] = "no case has a counted answer in every run of both"
        shown["test"] = ""
        return shown
    single = figures["method"] == "newcombe"
    low, high = figures["interval"]
    how = ("Newcombe method 10" if single else
           f"paired bootstrap over cases, {BOOTSTRAP_RESAMPLES:,} resamples, seed {BOOTSTRAP_SEED}")
    shown["difference"] = (f"{fmt_points(figures['difference'])} points, {y} minus {x} "
                           f"(95% CI {fmt_points(low)} to {fmt_points(high)}, {how}) on {figures['paired']} cases")
    test = "exact McNemar" if single else "exact sign test"
    shown["test"] = (f"{test} p = {fmt_p(figures['sign_p'])} "
                     f"({len(figures['better'])} better against {len(figures['worse'])} worse)")
    return shown


def _drift_sentences(x: dict, y: dict) -> list[str]:
    """A warning per side whose runs were answered by different models or fingerprints (DR-008)."""
    return [f"Drift: {name}'s runs were {side['drift']['text']}, so its spread and this difference may mix "
            "model changes with noise." for name, side in (("X", x), ("Y", y)) if side["drift"]["flagged"]]


def configuration_compare_report(grouped: Grouped, x_name: str, y_name: str, plans: Sequence[dict] = ()) -> dict:
    """Configuration Y against configuration X (each named by its id or one of its runs' ids), with their names
    among every run of the log, which ``grouped`` holds.

    ``plans`` are the log's plan entries; those registered for exactly this X and Y are
    reported with when they were registered and their rule's verdict (:mod:`pyapp.evaluation.plans`).
    """
    gx, gy = grouped.find(x_name), grouped.find(y_name)
    if gx.configuration == gy.configuration:
        raise ValueError("both names are the same configuration: choose two different ones")
    sets = (gx.configuration.eval_set_version, gy.configuration.eval_set_version)
    refuse_own_with_fixed(*sets)
    if sets[0] != sets[1]:
        raise ValueError(f"X is on {sets[0]} and Y on {sets[1]}; configurations of different sets are never "
                         "compared (DR-009)")
    names = configuration_names(grouped)
    x, y = _group_report(gx, names), _group_report(gy, names)
    figures = compare_tables(verdict_table(gx.runs), verdict_table(gy.runs))
    report = {"x": x, "y": y, "comparison": figures, "inside_floor": {"x": None, "y": None}, "floor_text": [],
              "note": None, "drift_text": _drift_sentences(x, y)}
    if figures["method"] == "newcombe":
        report["runs"] = compare_report(gx.runs[0], gy.runs[0])
    shown = comparison_display(figures)
    if figures["difference"] is not None:
        report["note"] = _disagreement_note(figures)
        for key, name, side in (("x", "X", x), ("y", "Y", y)):
            inside, text = _floor_sentence(name, side, figures["difference"])
            report["inside_floor"][key] = inside
            report["floor_text"].append(text)
    report["display"] = shown
    report["plot"] = comparison_plot(report)
    ids = (gx.configuration.id, gy.configuration.id)
    report["plans"] = [plan_status(plan, gx.runs, gy.runs, figures) for plan in plans
                       if (plan["x"], plan["y"]) == ids]
    return report


# --------------------------------------------------------------------------- text for the command line


def _format_group(g: dict, title: str = "configuration") -> list[str]:
    shown = g["display"]
    lines = [f"{title} {g['config_name']} ({g['id']}): {g['label']}", f"  runs ({g['k']}):"]
    lines.extend(f"    {line}" for line in shown["runs"])
    lines.append(f"  mean grounded share: {shown['mean']}")
    reported = g["drift"]
    if reported["flagged"]:
        lines.append(f"  DRIFT: {reported['text']}")
    else:
        said = [f"{what} {values[0]}" for what, values in (("model reported:", reported["models_reported"]),
                                                           ("system fingerprint:", reported["fingerprints"]))
                if values]
        if said:
            lines.append(f"  {'; '.join(said)}")
    if g["k"] >= 2:
        figures = g["figures"]
        if figures["not_in_every_run"]:
            lines.append(f"  cases not counted in every run (left out below): {', '.join(figures['not_in_every_run'])}")
        lines.append(f"  pass^{g['k']}: {shown['pass_k']}")
        lines.append(f"  flip rate: {shown['flip_rate']}")
        lines.append(f"  noise floor (95%): {shown['floor']}")
    else:
        lines.append("  one run: no repeat figures until it is repeated")
    return lines


def format_configurations_report(report: dict) -> str:
    """The command line's text for :func:`configurations_report`'s dict."""
    blocks = ["\n".join(_format_group(g)) for g in report["configurations"]]
    if report["apart"]:
        blocks.append("\n".join(["runs in no configuration:"]
                                + [f"  {a['run_id']}: {a['reason']}" for a in report["apart"]]))
    return "\n\n".join(blocks)


def format_configuration_compare_report(report: dict) -> str:
    """The command line's text for :func:`configuration_compare_report`'s dict."""
    figures, shown = report["comparison"], report["display"]
    lines = _format_group(report["x"], "X") + _format_group(report["y"], "Y")
    lines.append(f"difference: {shown['difference']}")
    if shown["test"]:
        lines.append(shown["test"])
    lines.append(f"per case: {shown['per_case']}")
    for title, key in (("better", "better"), ("worse", "worse")):
        if figures[key]:
            lines.append(f"  {title}: {', '.join(figures[key])}")
    if figures["not_paired"]:
        lines.append(f"not compared (not counted in every run of both): {', '.join(figures['not_paired'])}")
    lines.extend(report["floor_text"])
    lines.extend(report["drift_text"])
    if report["note"]:
        lines.append(report["note"])
    if "runs" in report:
        lines.append(report["runs"]["summary"])
    for plan in report["plans"]:
        lines.append(f"plan {plan['id']}: {plan['metric_text']} {plan['timing']} {plan['verdict']['text']}")
    return "\n".join(lines)
