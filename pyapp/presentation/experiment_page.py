"""The experiments page's figures as HTML, plots as SVG: the same markup at build time and in the browser (DR-010).

Every text comes from the figures' own formatted strings (``pyapp.experiment.orders``) and is
escaped here; the plots use classes only (the site's policy blocks inline styles). The
page's script places this markup and nothing else, so a re-run in the browser shows
exactly what the build published when the figures are the same.
"""

from __future__ import annotations

import math
from html import escape

from pyapp.core.formatting import fmt_svg
from pyapp.experiment.orders import BASELINE, ORDER_LABELS

WIDTH = 400
LABEL_RIGHT = 104  # the order labels end here; the plot starts after
PLOT_LEFT = 112
PLOT_RIGHT = 372
ROW = 26
TOP = 10
LOG_MAX = 2000  # the distribution plots' axis runs from 1 to this many nodes (log scale)
# Short enough for the plots' label column on a phone.
PLOT_LABELS = {"file": "file order", "lon-sorted": "longitude", "lat-sorted": "latitude", "shuffled": "shuffled",
               "median-first": "median first"}


def _log_x(nodes: float) -> float:
    return PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * math.log10(max(1.0, nodes)) / math.log10(LOG_MAX)


def _label(y: float, text: str) -> str:
    return f'<text x="{LABEL_RIGHT}" y="{fmt_svg(y + 4)}" class="row-label">{escape(text)}</text>'


def distribution_svg(kind: dict, points: int, points_text: str) -> str:
    """Nodes visited per order on a log axis: whiskers min to max, box the quartiles, bar the median,
    dot the mean with its 95% interval; the dashed line is brute force."""
    rows = kind["orders"]
    height = TOP + ROW * len(rows) + 34
    title_id = f"dist-{kind['kind']}"
    parts = [f'<svg class="plot" viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="{title_id}">',
             f'<title id="{title_id}">Nodes visited per query, {escape(kind["label"])}, by insertion order '
             "(log scale)</title>"]
    axis_y = TOP + ROW * len(rows)
    for tick in (1, 10, 100, 1000):
        x = fmt_svg(_log_x(tick))
        parts.append(f'<line x1="{x}" x2="{x}" y1="{TOP - 4}" y2="{axis_y}" class="grid"/>')
        parts.append(f'<text x="{x}" y="{axis_y + 14}" class="tick">{tick:,}</text>')
    brute = fmt_svg(_log_x(points))
    parts.append(f'<line x1="{brute}" x2="{brute}" y1="{TOP - 6}" y2="{axis_y}" class="brute"/>')
    parts.append(f'<text x="{brute}" y="{axis_y + 28}" class="tick brute-label">brute force {escape(points_text)}'
                 "</text>")
    for i, row in enumerate(rows):
        s = row["nodes_visited"]
        y = TOP + ROW * i + ROW / 2
        q1, _, q3 = s["quartiles"]
        parts.append(_label(y, PLOT_LABELS[row["order"]]))
        parts.append(f'<line x1="{fmt_svg(_log_x(s["min"]))}" x2="{fmt_svg(_log_x(s["max"]))}" '
                     f'y1="{fmt_svg(y)}" y2="{fmt_svg(y)}" class="whisker"/>')
        parts.append(f'<rect x="{fmt_svg(_log_x(q1))}" y="{fmt_svg(y - 7)}" width="{fmt_svg(_log_x(q3) - _log_x(q1))}" '
                     'height="14" class="box"/>')
        median = fmt_svg(_log_x(s["median"]))
        parts.append(f'<line x1="{median}" x2="{median}" y1="{fmt_svg(y - 7)}" y2="{fmt_svg(y + 7)}" class="median"/>')
        low, high = s["mean_ci"]
        parts.append(f'<line x1="{fmt_svg(_log_x(low))}" x2="{fmt_svg(_log_x(high))}" '
                     f'y1="{fmt_svg(y + 10)}" y2="{fmt_svg(y + 10)}" class="ci"/>')
        parts.append(f'<circle cx="{fmt_svg(_log_x(s["mean"]))}" cy="{fmt_svg(y + 10)}" r="2.5" class="mean"/>')
    parts.append("</svg>")
    return "".join(parts)


def _nice_limit(x: float) -> float:
    """The smallest of 1, 2 or 5 times a power of ten at or above ``x`` (at least 1)."""
    if x <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(x))
    for step in (1, 2, 5, 10):
        if step * power >= x:
            return float(step * power)
    return float(10 * power)


def paired_svg(kind: dict) -> str:
    """Each order's mean difference in nodes visited from median-first, with its 95% paired interval."""
    pairs = kind["paired"]
    limit = _nice_limit(max(max(abs(p["interval"][0]), abs(p["interval"][1])) for p in pairs))
    height = TOP + ROW * len(pairs) + 20
    title_id = f"paired-{kind['kind']}"

    def x(value: float) -> float:
        return PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * (value + limit) / (2 * limit)

    parts = [f'<svg class="plot" viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="{title_id}">',
             f'<title id="{title_id}">Nodes visited minus median-first\'s, mean over the queries of '
             f'{escape(kind["label"])}, with 95% paired bootstrap intervals</title>']
    axis_y = TOP + ROW * len(pairs)
    for tick in (-limit, 0.0, limit):
        tx = fmt_svg(x(tick))
        line_class = "zero" if tick == 0 else "grid"
        parts.append(f'<line x1="{tx}" x2="{tx}" y1="{TOP - 4}" y2="{axis_y}" class="{line_class}"/>')
        label = "0" if tick == 0 else f"{tick:+,.0f}"
        parts.append(f'<text x="{tx}" y="{axis_y + 14}" class="tick">{label}</text>')
    for i, pair in enumerate(pairs):
        y = TOP + ROW * i + ROW / 2
        low, high = pair["interval"]
        parts.append(_label(y, PLOT_LABELS[pair["order"]]))
        parts.append(f'<line x1="{fmt_svg(x(low))}" x2="{fmt_svg(x(high))}" '
                     f'y1="{fmt_svg(y)}" y2="{fmt_svg(y)}" class="ci"/>')
        parts.append(f'<circle cx="{fmt_svg(x(pair["difference"]))}" cy="{fmt_svg(y)}" r="3.5" class="mean"/>')
    parts.append("</svg>")
    return "".join(parts)


def _table(label: str, head: list[str], rows: list[list[str]]) -> str:
    cells = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (f'<div class="table-wrap" tabindex="0" role="region" aria-label="{escape(label)}"><table>'
            f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>")


def _mean_median(summary: dict | str | None) -> list[str]:
    if summary is None:
        return ["–", "–"]
    t = summary["text"]
    return [f'{t["mean"]} <span class="ci-text">({t["mean_ci"]})</span>',
            f'{t["median"]} <span class="ci-text">({t["median_ci"]})</span>']


def _order_row(row: dict, metric: str) -> list[str]:
    summary = row.get(metric)
    if isinstance(summary, str):
        summary = row[summary]
    return [escape(row["label"]), *_mean_median(summary)]


def _largest(kind: dict, explorer_base: str) -> str:
    items = []
    for row in kind["largest"]:
        base = escape(ORDER_LABELS[BASELINE])
        href = escape(f"{explorer_base}?{row['explorer']}")
        base_href = escape(f"{explorer_base}?{row['baseline_explorer']}")
        items.append(
            f'<li data-query="{escape(row["query_id"])}"><strong>{escape(row["query_id"])}</strong> at '
            f'{escape(row["text"]["where"])}: {escape(ORDER_LABELS[row["order"]])} visits {row["nodes"]:,} nodes, '
            f'{base} {row["baseline_nodes"]:,} ({escape(row["text"]["difference"])}). Open in the explorer: '
            f'<a href="{href}">{escape(ORDER_LABELS[row["order"]])}</a>, <a href="{base_href}">{base}</a>.</li>')
    return f'<ol class="largest">{"".join(items)}</ol>'


def figures_html(figures: dict, explorer_base: str) -> str:
    """The figures section: trees, then per kind the plots, tables and largest differences.

    ``explorer_base`` is the relative link to the explorer from the page showing the figures.
    """
    t = figures["text"]
    out = [
        f'<p class="run-summary" data-digest="{figures["digest"]}">Seed {figures["seed"]}: {t["queries"]} queries '
        f'({escape(figures["first_id"])} to {escape(figures["last_id"])}, {figures["per_kind"]} of each kind) on '
        f'{t["points"]} businesses, {t["searches"]} searches. Every order found the same answers as brute force '
        f'for {t["agree"]} queries. Figures digest <code>{figures["digest"][:16]}</code>.</p>',
        '<h2 id="trees">The five trees</h2>',
        _table("Tree depth by insertion order", ["Insertion order", "Depth", "Average depth"],
               [[escape(tr["label"]), tr["text"]["depth"], tr["text"]["average_depth"]] for tr in figures["trees"]]),
    ]
    for kind in figures["kinds"]:
        anchor = f"kind-{kind['kind']}"
        out.append(f'<section class="kind" aria-labelledby="{anchor}"><h2 id="{anchor}">'
                   f'{escape(kind["label"][0].upper() + kind["label"][1:])}</h2>')
        out.append(f'<figure>{distribution_svg(kind, figures["points"], t["points"])}<figcaption>Nodes visited per '
                   "query, log scale. Line: fewest to most; box: the middle half; bar: median; dot and line below: "
                   "mean with its 95% bootstrap interval. Dashed: brute force computes every distance.</figcaption>"
                   "</figure>")
        out.append(_table(f"Nodes visited, {kind['label']}", ["Insertion order", "Mean (95% CI)", "Median (95% CI)"],
                          [_order_row(row, "nodes_visited") for row in kind["orders"]]))
        out.append('<p class="hint">Distances computed equal nodes visited for every query: the search computes '
                   "one distance per node it visits.</p>")
        other = [("subtrees_pruned", "Subtrees pruned")]
        if kind["radius"] is not None:
            other.append(("results", "Results"))
        for metric, title in other:
            out.append(f"<details><summary>{title}</summary>"
                       + _table(f"{title}, {kind['label']}", ["Insertion order", "Mean (95% CI)", "Median (95% CI)"],
                                [_order_row(row, metric) for row in kind["orders"]]) + "</details>")
        out.append(f'<figure>{paired_svg(kind)}<figcaption>Each order against median first on the same queries: '
                   "mean extra nodes visited (dot) and its 95% paired bootstrap interval (line). Right of zero "
                   "costs more than median first.</figcaption></figure>")
        out.append(_table(f"Paired differences, {kind['label']}",
                          ["Insertion order", "Mean difference (95% CI)", "Queries better / worse / same"],
                          [[escape(ORDER_LABELS[p["order"]]),
                            f'{p["text"]["difference"]} <span class="ci-text">({p["text"]["interval"]})</span>',
                            f'{p["better"]} / {p["worse"]} / {p["same"]}'] for p in kind["paired"]]))
        out.append("<h3>Largest differences</h3>" + _largest(kind, explorer_base) + "</section>")
    return "".join(out)


def reproduction_note(figures: dict, published_digest: str) -> str:
    """One sentence: whether these figures are the published ones, digit for digit."""
    if figures["digest"] == published_digest:
        return (f"Seed {figures['seed']}, {figures['per_kind']} queries per kind: every figure is identical to the "
                f"published one, digit for digit (digest {published_digest[:16]}).")
    return (f"Seed {figures['seed']}, {figures['per_kind']} queries per kind: these figures differ from the published "
            f"ones (digest {figures['digest'][:16]}, published {published_digest[:16]}).")
