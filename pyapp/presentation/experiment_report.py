"""The experiment's figures as text for the command line: the texts the page shows (DR-010)."""

from __future__ import annotations

from pyapp.experiment.orders import BASELINE, METRIC_LABELS


def metric_text(row: dict, metric: str) -> str | None:
    """ "mean 14.8 (95% CI 14.1 to 15.5), median 13.0 (12.0 to 14.0)", or None when the kind has no such figure."""
    summary = row.get(metric)
    if summary is None:
        return None
    if isinstance(summary, str):  # the same figures as another metric
        return f"the same as {METRIC_LABELS[summary]}"
    t = summary["text"]
    return f"mean {t['mean']} (95% CI {t['mean_ci']}), median {t['median']} (95% CI {t['median_ci']})"


def format_experiment(figures: dict) -> str:
    """Every figure of the experiment, kind by kind, in the page's words and digits."""
    t = figures["text"]
    lines = [
        f"experiment {figures['version']}, seed {figures['seed']}: {t['queries']} queries "
        f"({figures['first_id']} to {figures['last_id']}, {figures['per_kind']} per kind) on {t['points']} points, "
        f"{t['searches']} searches",
        f"answers equal to brute force for every order: {t['agree']} queries",
        f"bootstrap: {figures['bootstrap']['resamples']:,} resamples, seed {figures['bootstrap']['seed']}",
        "",
        "trees:",
    ]
    for tree in figures["trees"]:
        lines.append(f"  {tree['order']:<12}  depth {tree['text']['depth']:>5}  average depth "
                     f"{tree['text']['average_depth']}")
    for kind in figures["kinds"]:
        lines += ["", f"{kind['label']} ({kind['queries']} queries); brute force computes {t['points']} distances"]
        for row in kind["orders"]:
            lines.append(f"  {row['order']}")
            for metric, label in METRIC_LABELS.items():
                text = metric_text(row, metric)
                if text is not None:
                    lines.append(f"    {label}: {text}")
        lines.append(f"  nodes visited minus {BASELINE}'s, query by query:")
        for pair in kind["paired"]:
            p = pair["text"]
            lines.append(f"    {pair['order']:<12}  {p['difference']:>7} (95% CI {p['interval']})  "
                         f"better {pair['better']}, worse {pair['worse']}, same {pair['same']}")
        lines.append("  largest differences:")
        for row in kind["largest"]:
            lines.append(f"    {row['query_id']}  {row['order']:<12}  {row['text']['where']}  {row['nodes']} against "
                         f"{row['baseline_nodes']} nodes ({row['text']['difference']})")
    lines += ["", f"digest {figures['digest']}"]
    return "\n".join(lines)
