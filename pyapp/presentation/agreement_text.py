"""The agreement figures as ``python -m pyapp agreement`` prints them: the same figures the page's tables show
(DR-009)."""

from __future__ import annotations


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
    lines.append(f"{report['ratings']} rating(s) of counted answers by {len(report['raters'])} rater(s)"
                 + (f" ({', '.join(report['raters'])})" if report["raters"] else "")
                 + f"; {report['left_out']} left out (not on a counted answer of a run).")
    if report["note"]:
        lines.append(report["note"])
    for pair in report["pairs"]:
        a, b = pair["raters"]
        lines.append("")
        lines.append(f"{a} and {b}: {pair['n']} answer(s) rated by both")
        for q in pair["questions"]:
            lines.extend(_figure_lines(q["key"], q))
        lines.extend(_figure_lines("overall", pair["overall"]))
    for figure in report["versus_grade"]:
        (pg, pn), (fg, fn) = figure["table"]
        lines.append("")
        lines.append(f"{figure['rater']}: rubric verdict against the mechanical grade, {figure['n']} answer(s)")
        lines.append(f"  {'':<16}{'grounded':>10}{'not grounded':>14}")
        lines.append(f"  {'acceptable':<16}{pg:>10}{pn:>14}")
        lines.append(f"  {'not acceptable':<16}{fg:>10}{fn:>14}")
        lines.extend(_figure_lines("verdict", figure))
        for d in figure["disagreements"]:
            lines.append(f"    run {d['run_id']} {d['case_id']} (call {d['call_id']}): {d['verdict']}, "
                         f"graded {d['outcome']}")
    return "\n".join(lines)
