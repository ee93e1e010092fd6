"""The evaluation page shows, character for character, the figures the command line prints (DR-006).

One run is made in Chromium through the mocked provider; two more, with designed values
(1 grounded of 16 counted, a 6.25% share; a median latency of 1234.5 ms), are imported as a
crafted export. The page's own JSON export of all three is then read by ``python -m pyapp``,
and every figure the page shows is compared with the command line's string for it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from eval_helpers import answer_for, call
from eval_page import (
    ANTHROPIC,
    FakeAnthropic,
    cli,
    export_json,
    open_eval,
    runs_list_row,
    show_detail,
    show_view,
    start_run,
)
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import export_json as export_entries

pytestmark = pytest.mark.browser

# Sixteen latencies whose median falls on a tie: (1234 + 1235) / 2 = 1234.5 ms.
TIE_LATENCIES = [1000.0 + i for i in range(7)] + [1234.0, 1235.0] + [1300.0 + i for i in range(7)]


def designed_run(run_id: str, grounded: int, start: float) -> list[dict]:
    """Sixteen counted answers (the first ``grounded`` of them right) and four infrastructure failures."""
    entries = []
    for i, case_id in enumerate(FIXED_SETS.case_ids()):
        if i >= 16:
            entries.append(call(run_id, case_id, outcome="infrastructure_failure", answer_ms=None,
                                time=start + i))
        elif i < grounded:
            entries.append(call(run_id, case_id, answer_ms=TIE_LATENCIES[i], time=start + i))
        else:
            entries.append(call(run_id, case_id, outcome="not_grounded", answer=answer_for(case_id, "distance"),
                                answer_ms=TIE_LATENCIES[i], time=start + i))
    return entries


def cli_text(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "pyapp", *args], capture_output=True, text=True,
                          check=True).stdout



def test_page_figures_equal_the_command_lines_on_the_same_export(context, site, tmp_path):
    context.route(ANTHROPIC, FakeAnthropic(wrong={"C02", "C05", "C09"}))
    page = open_eval(context, site)
    assert "has an answer for every case" in start_run(page)
    crafted = designed_run("run-designed-1", 1, 0.0) + designed_run("run-designed-2", 6, 100.0)
    (tmp_path / "crafted.json").write_text(export_entries(crafted), encoding="utf-8")
    page.set_input_files("#import-file", str(tmp_path / "crafted.json"))
    page.wait_for_selector("#runs tr[data-run='run-designed-2']")

    path = export_json(page, tmp_path)  # all runs, as the page exports them
    reports = {r["run_id"]: r for r in cli("report", str(path), "--json")}
    assert len(reports) == 3
    designed = reports["run-designed-1"]
    assert (designed["grounded"], designed["graded"], designed["latency"]["median"]) == (1, 16, 1234.5)

    for run_id, report in reports.items():
        shown = report["display"]
        row = runs_list_row(page, run_id)
        # The runs list splits the command line's "k/n (share, 95% CI low to high)" over two columns.
        assert f"{row[3].removesuffix(')')}, 95% CI {row[4]})" == shown["grounded"], run_id
        assert f"median {row[5]} (95% CI " in shown["latency"], run_id
        assert row[8] == shown["tokens_in_out"], run_id

        show_detail(page, run_id)
        assert page.inner_text("#run-headline").startswith(f"Grounded: {shown['grounded']}. ")
        assert page.inner_text("#run-latency") == (
            f"Latency of the answering request: {shown['latency']}. {shown['tokens']}.")
        cells = [r.locator("td").all_inner_texts() for r in page.locator("#case-table tbody tr").all()]
        assert [(c[0], c[1]) for c in cells] == [(c["case_id"], c["outcome_text"]) for c in report["cases"]]
        ticks = page.locator("#run-detail svg text.tick").all_text_contents()  # SVG text has no innerText
        assert ticks == [report["latency_axis"]["zero_text"], report["latency_axis"]["top_text"]]

    text = cli_text("report", str(path), "--run", "run-designed-1")
    assert f"grounded: {designed['display']['grounded']}" in text
    assert "grounded: 1/16 (6.3%, 95% CI" in text and "median 1,235 ms (95% CI" in text

    show_view(page, "compare")
    page.select_option("#compare-a", "run-designed-2")
    page.select_option("#compare-b", "run-designed-1")
    page.click("#compare")
    page.wait_for_selector("#paired-table")
    compared = cli("compare", str(path), "--run", "run-designed-2", "--run", "run-designed-1", "--json")
    shown = compared["display"]
    assert page.locator("#compare-figures dd").all_inner_texts() == [
        shown["first"], shown["second"], shown["difference"], shown["mcnemar"], shown["per_case"]]
    assert page.inner_text("#compare-summary") == compared["summary"]
    plot = compared["plot"]  # drawn against the floor of each run's configuration
    assert page.inner_text("#compare-plot-caption") == (
        f"{plot['caption']} {plot['difference_text']}; {'; '.join(band['text'] for band in plot['bands'])}.")
    assert page.eval_on_selector_all("#compare-plot text.label", "ts => ts.map((t) => t.textContent)") == [
        plot["label"], *(band["label"] for band in plot["bands"])]
    better = [c["case_id"] for c in compared["cases"] if c["verdict"] == "better"]
    assert page.locator("#compare-better-links button").all_inner_texts() == better
    pairs = [r.locator("td").all_inner_texts() for r in page.locator("#paired-table tbody tr").all()]
    assert pairs == [[c["case_id"], c["first_text"], c["second_text"], c["verdict"]] for c in compared["cases"]]
    compare_text = cli_text("compare", str(path), "--run", "run-designed-2", "--run", "run-designed-1")
    assert f"difference: {shown['difference']}" in compare_text and "second minus first" in shown["difference"]

    guidance = compared["guidance"]
    assert page.inner_text("#wilson-20") == guidance["display"]["all_grounded_wilson_low"]
    assert f"{page.inner_text('#detectable-points')} points" in guidance["text"]
    assert f"one run sends {page.inner_text('#prompt-chars')} characters" in cli_text("evalset")
