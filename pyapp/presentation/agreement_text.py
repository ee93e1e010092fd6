"""The agreement figures as ``python -m pyapp agreement`` prints them: the same figures the page's tables show
(DR-009), and each model judge's against the people (DR-012)."""

from __future__ import annotations

from pyapp.core.formatting import counted, fmt_fixed
from pyapp.evaluation.rater_figures import CONSENSUS
from pyapp.presentation.judge_tables import judge_heading, judge_label

# The answers to rate next named in the text, in order; ``--json`` names every one.
RATE_NEXT_SHOWN = 20


def _figure_lines(label: str, figure: dict, indent: str = "  ") -> list[str]:
    shown = figure["display"]
    lines = [f"{indent}{label:<14} agree {shown['agreement']}, kappa {shown['kappa']}"]
    if figure["note"]:
        lines.append(f"{indent}  {figure['note']}")
    return lines


def format_agreement_report(report: dict) -> str:
    """The report as text for ``python -m pyapp agreement``: the figures the page shows."""
    rubric = report["rubric"]
    lines = [f"rubric {rubric['version']}: {rubric['verdict_rule']}"]
    for number, q in enumerate(rubric["questions"], 1):
        lines.append(f"  {number}. {q['key']}: {q['text']}")
    lines.append(f"{counted(report['ratings'], 'rating')} of counted answers by "
                 f"{counted(len(report['raters']), 'rater')}"
                 + (f" ({', '.join(report['raters'])})" if report["raters"] else "")
                 + f"; {report['left_out']} left out (not on a counted answer of a run).")
    if report["note"]:
        lines.append(report["note"])
    for pair in report["pairs"]:
        a, b = pair["raters"]
        lines.append("")
        lines.append(f"{a} and {b}: {counted(pair['n'], 'answer')} rated by both")
        for q in pair["questions"]:
            lines.extend(_figure_lines(q["key"], q))
        lines.extend(_figure_lines("overall", pair["overall"]))
    for figure in report["versus_grade"]:
        (pg, pn), (fg, fn) = figure["table"]
        lines.append("")
        lines.append(f"{figure['rater']}: rubric verdict against the mechanical grade, "
                     f"{counted(figure['n'], 'answer')}")
        lines.append(f"  {'':<16}{'grounded':>10}{'not grounded':>14}")
        lines.append(f"  {'acceptable':<16}{pg:>10}{pn:>14}")
        lines.append(f"  {'not acceptable':<16}{fg:>10}{fn:>14}")
        lines.extend(_figure_lines("verdict", figure))
        for d in figure["disagreements"]:
            lines.append(f"    run {d['run_id']} {d['case_id']} (call {d['call_id']}): {d['verdict']}, "
                         f"graded {d['outcome']}")
    if report["judges"]:
        lines.append(format_judges(report["judges"]))
    return "\n".join(lines)


def _table_lines(figure: dict, rows: tuple[str, str], columns: tuple[str, str]) -> list[str]:
    (a, b), (c, d) = figure["table"]
    return [f"    {'':<16}{columns[0]:>14}{columns[1]:>16}",
            f"    {rows[0]:<16}{a:>14}{b:>16}",
            f"    {rows[1]:<16}{c:>14}{d:>16}"]


def _pair_lines(pair: dict) -> list[str]:
    other = pair["raters"][1]
    lines = [f"  against {'the ' if other == CONSENSUS else ''}{other}: {counted(pair['n'], 'answer')} judged by both"]
    for q in pair["questions"]:
        lines.extend(_figure_lines(q["key"], q, "    "))
    lines.extend(_figure_lines("overall", pair["overall"], "    "))
    lines.append(f"    overall verdicts, the judge's in rows and {'the ' if other == CONSENSUS else ''}{other}'s "
                 "in columns:")
    lines.extend(_table_lines(pair["overall"], ("acceptable", "not acceptable"), ("acceptable", "not acceptable")))
    return lines


def _precision_lines(judge: dict) -> list[str]:
    precision = judge["precision"]
    wanted = f"±{fmt_fixed(precision['half_width'], 2)}"
    lines = [f"  against the people's consensus, per question (half-width {wanted} wanted, on at least "
             f"{precision['least_answers']} answers):"]
    for q in precision["questions"]:
        shown = q["display"]
        lines.append(f"    {q['key']:<14} {counted(q['n'], 'answer'):>12}  {shown['half_width']:>6}  "
                     f"{shown['more']} more needed  {shown['status']}")
    if precision["still_needed"]:
        lines.append(f"  {precision['still_needed']}")
    rate_next = judge["rate_next"]
    if rate_next["note"]:
        lines.append(f"  rate next: {rate_next['note']}")
        named = [f"{a['run_id']} {a['case_id']}" for a in rate_next["answers"]]
        if named:
            more = len(named) - RATE_NEXT_SHOWN
            lines.append("    " + ", ".join(named[:RATE_NEXT_SHOWN])
                         + (f", and {counted(more, 'more answer')} (--json names every one)" if more > 0 else ""))
    return lines


def format_judges(judges: list[dict]) -> str:
    """The model judges' figures (DR-012): against each person, the consensus and the grade, and the probes."""
    lines = []
    for judge in judges:
        lines.append("")
        label = judge_label(judge)
        lines.append(f"judge {judge_heading(judge)}" + (f" [{label}]" if label else ""))
        lines.append(f"  {judge['judging_note']}")
        if judge["judgings"] > 1:
            lines.extend(f"    {j['display']}" for j in judge["each_judging"])
        lines.append(f"  {judge['validation_note']}")
        lines.extend(_precision_lines(judge))
        for failure in judge["failures"][:5]:
            lines.append(f"  failure on call {failure['call_id']}: {failure['failure']}. {failure['message']}")
        for pair in (*judge["versus_people"], judge["versus_consensus"]):
            lines.extend(_pair_lines(pair))
        grade = judge["versus_grade"]
        lines.append(f"  against the mechanical grade: {counted(grade['n'], 'answer')}")
        lines.extend(_table_lines(grade, ("acceptable", "not acceptable"), ("grounded", "not grounded")))
        lines.extend(_figure_lines("verdict", grade, "    "))
        length = judge["length"]
        lines.append("  yes-rate by answer length (characters of prose), judge against people:")
        for third in length["terciles"]:
            span = "-" if third["characters"] is None else f"{third['characters'][0]}-{third['characters'][1]}"
            lines.append(f"    {third['third']:<9}{span:>12}  judge {third['judge']['display']:<14} "
                         f"people {third['people']['display']}")
        if length["note"]:
            lines.append(f"    {length['note']}")
        own = judge["self_preference"]
        if own["flagged"]:
            lines.append(f"  {own['note']}")
            lines.append(f"    own model's answers: kappa {own['own']['display']['kappa']}, "
                         f"agree {own['own']['display']['agreement']}")
            lines.append(f"    other answers: kappa {own['others']['display']['kappa']}, "
                         f"agree {own['others']['display']['agreement']}")
        same = judge["consistency"]
        if same["note"]:
            lines.append(f"  consistency: {same['note']}")
        else:
            lines.append(f"  consistency over {counted(same['judgings'], 'judging')}: same verdict in every one on "
                         f"{same['unchanged']['display']} answers")
            lines.append(f"    each against judging {same['against']}, the one the figures rest on:")
            for repeat in same["repeats"]:
                lines.extend(_figure_lines(f"judging {repeat['judging']}", repeat["overall"], "    "))
    return "\n".join(lines)
