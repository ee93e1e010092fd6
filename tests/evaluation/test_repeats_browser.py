"""Repeated runs on the evaluation page: grouped by configuration, repeated, and compared (DR-008).

A crafted export with three runs of one configuration and two of another (designed flips)
is imported into the page; the page's figures must equal, character for character, what
``python -m pyapp`` prints for the page's own export. "Repeat this configuration" then makes
a fourth run through the provider, mocked at the network edge.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from designed_logs import entries_with_designed_flips
from eval_page import ANTHROPIC, FakeAnthropic, cli, export_json, open_eval, show_view, wait_run_end
from page_checks import OVERFLOW
from pyapp.evaluation.cost import actual_usage, run_size
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import export_json as export_entries
from pyapp.evaluation.export import parse_import

pytestmark = pytest.mark.browser


def import_designed(page, tmp_path) -> None:
    (tmp_path / "designed.json").write_text(export_entries(entries_with_designed_flips()), encoding="utf-8")
    show_view(page, "data")
    page.set_input_files("#import-file", str(tmp_path / "designed.json"))
    page.wait_for_selector("section[data-view='results']:not([hidden]) #case-matrix td.cell")
    show_view(page, "compare")
    page.wait_for_selector("#configurations article.configuration")


def figures_of(page, selector: str) -> dict[str, str]:
    terms = page.locator(f"{selector} dt").all_inner_texts()
    return dict(zip(terms, page.locator(f"{selector} dd").all_inner_texts(), strict=True))


def test_configurations_and_their_comparison_equal_the_command_line(context, site, tmp_path):
    page = open_eval(context, site)
    import_designed(page, tmp_path)
    path = export_json(page, tmp_path)
    report = cli("report", str(path), "--configurations", "--json")
    assert [g["k"] for g in report["configurations"]] == [3, 2]
    assert page.locator("#runs-apart li").all_inner_texts() == [f"{a['run_id']}: {a['reason']}"
                                                                 for a in report["apart"]]
    for group in report["configurations"]:
        shown = figures_of(page, f"article[data-config='{group['id']}']")
        assert page.inner_text(f"article[data-config='{group['id']}'] .config-label") == group["label"]
        assert shown["Runs"] == "; ".join(group["display"]["runs"])
        assert shown["Mean grounded share"] == group["display"]["mean"]
        assert shown[f"pass^{group['k']}"] == group["display"]["pass_k"]
        assert shown["Flip rate"] == group["display"]["flip_rate"]
        assert shown["Noise floor (95%)"] == group["display"]["floor"]

    x, y = (g["id"] for g in report["configurations"])
    page.select_option("#config-x", x)
    page.select_option("#config-y", y)
    page.click("#compare-configs")
    page.wait_for_selector("#config-figures")
    expected = cli("compare", str(path), "--config", x, "--config", y, "--json")
    shown = figures_of(page, "#config-figures")
    assert shown["Difference"] == expected["display"]["difference"]
    assert shown["Test"] == expected["display"]["test"]
    assert shown["Per case"] == expected["display"]["per_case"]
    assert shown.get("Better in Y") == (", ".join(expected["comparison"]["better"]) or None)
    assert shown.get("Worse in Y") == (", ".join(expected["comparison"]["worse"]) or None)
    assert page.locator("#config-comparison .floor-text").all_inner_texts() == expected["floor_text"]

    # Drawn: the difference inside its interval, each floor a band around zero, as pyapp placed them.
    plot = expected["plot"]
    assert page.inner_text("#config-plot-caption") == (
        f"{plot['caption']} {plot['difference_text']}; {'; '.join(band['text'] for band in plot['bands'])}.")
    drawn = page.eval_on_selector("#config-plot", """(svg) => ({
      dot: Number(svg.querySelector(".estimate").getAttribute("cx")),
      line: ["x1", "x2"].map((a) => Number(svg.querySelector(".interval").getAttribute(a))),
      bands: [...svg.querySelectorAll("rect.band")].map((r) => Number(r.getAttribute("width"))),
      zero: Number(svg.querySelector(".zero").getAttribute("x1")) })""")
    assert drawn["line"][0] < drawn["dot"] < drawn["line"][1]
    assert (drawn["dot"] > drawn["zero"]) == (plot["difference"] > 0)
    widths = [band["half_width"] for band in plot["bands"]]
    assert drawn["bands"][0] / drawn["bands"][1] == pytest.approx(widths[0] / widths[1])
    # On a phone the drawing scales to its box, and the page does not scroll sideways.
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate(OVERFLOW) <= 0
    assert page.eval_on_selector(".comparison-plot", "f => f.scrollWidth <= f.clientWidth")
    page.set_viewport_size({"width": 1280, "height": 800})
    # The cases that moved open in Y's latest run.
    moved = page.locator("#better-links button, #worse-links button").all_inner_texts()
    assert moved == expected["comparison"]["better"] + expected["comparison"]["worse"]
    page.click(f"#better-links button[data-case='{moved[0]}']")
    page.wait_for_selector(f"#case-view[data-run='{expected['y']['run_ids'][-1]}'][data-case='{moved[0]}']")


def test_repeat_this_configuration_adds_a_run_to_it(context, site, tmp_path):
    fake = FakeAnthropic(wrong={"C03"})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    import_designed(page, tmp_path)
    first = page.get_attribute("#configurations article.configuration >> nth=0", "data-config")

    show_view(page, "run")
    page.fill("#api-key", "")
    page.dispatch_event("#api-key", "change")
    show_view(page, "compare")
    page.click(f"article[data-config='{first}'] button.repeat")
    page.wait_for_selector("section[data-view='run']:not([hidden])")  # the settings are shown where the key goes
    assert "enter your API key" in page.inner_text("#run-status")
    assert fake.asked == []
    assert page.input_value("#model") == "claude-test-1"

    page.fill("#api-key", "sk-ant-test-REPEAT-1234567")
    page.dispatch_event("#api-key", "change")
    show_view(page, "compare")
    page.click(f"article[data-config='{first}'] button.repeat")
    assert "has an answer for every case" in wait_run_end(page)
    assert fake.asked == list(FIXED_SETS.case_ids())
    show_view(page, "compare")
    page.wait_for_selector(f"article[data-config='{first}'] dt:text-is('pass^4')")
    report = cli("report", str(export_json(page, tmp_path)), "--configurations", "--json")
    group = next(g for g in report["configurations"] if g["id"] == first)
    assert group["k"] == 4
    assert figures_of(page, f"article[data-config='{first}']")["pass^4"] == group["display"]["pass_k"]


def test_plans_registered_before_and_after_the_data_are_shown_with_their_verdicts(context, site, tmp_path):
    context.route(ANTHROPIC, FakeAnthropic(wrong={"C03"}))
    page = open_eval(context, site)
    import_designed(page, tmp_path)
    x, y = page.eval_on_selector_all("#configurations article", "items => items.map(i => i.dataset.config)")
    # After the data: the designed runs were made on 2 December.
    page.select_option("#plan-x", x)
    page.select_option("#plan-y", y)
    page.select_option("#plan-rule", "difference-below")
    page.fill("#plan-points", "20")
    page.click("#register-plan")
    page.wait_for_selector("#plans li >> nth=0")
    assert "rule difference-below:+20" in page.inner_text("#plan-message")
    # Before the data: Y is the settings in the form, a configuration with no run yet.
    show_view(page, "run")
    page.fill("#model", "claude-test-2")
    page.dispatch_event("#model", "change")
    show_view(page, "compare")
    page.select_option("#plan-y", "form")
    page.select_option("#plan-rule", "no-new-fail")
    page.fill("#plan-note", "the second model loses no case")
    page.click("#register-plan")
    page.wait_for_selector("#plans li >> nth=1")
    show_view(page, "run")
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page)

    path = export_json(page, tmp_path)
    show_view(page, "compare")
    report = cli("report", str(path), "--configurations", "--json")
    new = next(g["id"] for g in report["configurations"] if g["configuration"]["model"] == "claude-test-2")
    for first, second, expected_before in ((x, y, [False]), (x, new, [True])):
        page.select_option("#config-x", first)
        page.select_option("#config-y", second)
        page.click("#compare-configs")
        page.wait_for_selector("#config-comparison .plan, #config-figures >> nth=0")
        page.wait_for_function("([x, y]) => document.querySelector('#config-figures dd').textContent.includes(x)",
                               arg=[first, second])
        expected = cli("compare", str(path), "--config", first, "--config", second, "--json")["plans"]
        assert [p["registered_before"] for p in expected] == expected_before
        shown = page.locator("#config-comparison .plan")
        assert shown.count() == len(expected)
        for i, plan in enumerate(expected):
            item = shown.nth(i)
            assert item.get_attribute("data-before") == str(plan["registered_before"]).lower()
            assert item.locator(".timing").inner_text() == f"{plan['metric_text']} {plan['timing']}"
            assert item.locator(".verdict").inner_text() == plan["verdict"]["text"]
    # C03 went from grounded in every run of X to not grounded: the rule registered first rejects Y.
    assert "REJECTS" in page.inner_text("#config-comparison .plan .verdict")


def test_drift_is_flagged_when_the_reported_model_changes_mid_way(context, site, tmp_path):
    from designed_logs import with_reported
    from eval_helpers import OTHER_SETTINGS, full_run

    page = open_eval(context, site)
    entries = (with_reported(full_run("d1"), "claude-test-1-v1")
               + with_reported(full_run("d2", start=100), "claude-test-1-v1")[:10]
               + with_reported(full_run("d2", start=100), "claude-test-1-v2")[10:]
               + with_reported(full_run("o1", start=200, settings=OTHER_SETTINGS), "gpt-x"))
    (tmp_path / "drift.json").write_text(export_entries(entries), encoding="utf-8")
    page.set_input_files("#import-file", str(tmp_path / "drift.json"))
    page.wait_for_selector("section[data-view='results']:not([hidden]) #case-matrix td.cell")
    show_view(page, "compare")
    page.wait_for_selector("#configurations article.configuration >> nth=1")
    path = export_json(page, tmp_path)
    groups = cli("report", str(path), "--configurations", "--json")["configurations"]
    assert [g["drift"]["flagged"] for g in groups] == [True, False]
    for group in groups:
        shown = figures_of(page, f"article[data-config='{group['id']}']")
        assert shown.get("Drift") == (group["drift"]["text"] if group["drift"]["flagged"] else None)
    page.select_option("#config-x", groups[0]["id"])
    page.select_option("#config-y", groups[1]["id"])
    page.click("#compare-configs")
    page.wait_for_selector("#config-comparison .drift-text")
    expected = cli("compare", str(path), "--config", groups[0]["id"], "--config", groups[1]["id"], "--json")
    assert page.locator("#config-comparison .drift-text").all_inner_texts() == expected["drift_text"]


def test_the_estimate_before_k_runs_and_the_usage_after_equal_the_command_lines(context, site, tmp_path):
    fake = FakeAnthropic(wrong={"C04"})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    page.fill("#run-count", "2")
    page.fill("#price-in", "3")
    page.fill("#price-out", "15")
    page.dispatch_event("#price-out", "change")
    expected = run_size(2, 4000, 3.0, 15.0)["display"]
    page.wait_for_selector(f"#run-estimate:text-is('Before you start: {expected}')")
    page.click("#start-run")
    assert "Run 2 of 2: " in wait_run_end(page)
    assert fake.asked == list(FIXED_SETS.case_ids()) * 2
    page.wait_for_selector("#run-usage:not(:empty)", state="attached")
    entries = parse_import(export_json(page, tmp_path).read_bytes())
    runs = sorted({e["run_id"] for e in entries})
    assert page.inner_text("#run-usage") == f"After the run: {actual_usage(entries, runs, 3.0, 15.0)['display']}"
    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    assert (page.input_value("#price-in"), page.input_value("#price-out")) == ("3", "15"), "prices kept locally"


def test_a_baseline_exported_by_the_page_is_the_command_lines_and_diffs_the_same(context, site, tmp_path):
    page = open_eval(context, site)
    import_designed(page, tmp_path)
    path = export_json(page, tmp_path)
    x, y = (g["id"] for g in cli("report", str(path), "--configurations", "--json")["configurations"])
    show_view(page, "data")
    page.select_option("#baseline-config", x)
    with page.expect_download() as download:
        page.click("#export-baseline")
    saved = tmp_path / "baseline.json"
    download.value.save_as(saved)
    show_view(page, "compare")
    written = subprocess.run([sys.executable, "-m", "pyapp", "baseline", str(path), "--run", "x1", "--run", "x2",
                              "--run", "x3"], capture_output=True, check=True).stdout
    assert saved.read_bytes() == written

    page.set_input_files("#baseline-file", str(saved))
    page.select_option("#diff-config", y)
    page.select_option("#diff-rule", "lower-bound-below")
    page.fill("#diff-points", "5")
    page.click("#run-diff")
    page.wait_for_selector("#diff-verdict")
    done = subprocess.run([sys.executable, "-m", "pyapp", "diff", str(saved), str(path), "--run", "y1", "--run", "y2",
                           "--rule", "lower-bound-below:5", "--json"], capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert done.returncode == (3 if report["rejected"] else 0)
    assert page.locator("#diff-table tbody tr td:nth-child(2)").all_inner_texts() == [c["verdict"]
                                                                                      for c in report["cases"]]
    assert figures_of(page, "#diff-figures")["Difference"] == report["display"]["difference"]
    assert page.locator("#diff-rules li").all_inner_texts() == [r["text"] for r in report["rules"]]
    assert page.inner_text("#diff-verdict") == report["result_text"]
    assert page.locator("#diff-result .note").all_inner_texts() == [c["text"] for c in report["changed"]]
    plot = report["plot"]  # drawn against the floors of the baseline's runs and of the runs now
    assert page.inner_text("#diff-plot-caption") == (
        f"{plot['caption']} {plot['difference_text']}; {'; '.join(band['text'] for band in plot['bands'])}.")
    assert page.locator("#diff-pass-links button").all_inner_texts() == report["comparison"]["better"]


def test_runs_made_through_the_provider_group_flip_and_compare_as_the_command_line_says(context, site, tmp_path):
    fake = FakeAnthropic()
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)

    def run_with(wrong: set[str], button: str) -> None:
        fake.wrong = wrong
        show_view(page, "run" if button == "#start-run" else "compare")
        page.click(button)
        assert "has an answer for every case" in wait_run_end(page)

    show_view(page, "run")
    page.fill("#model", "claude-x")
    page.dispatch_event("#model", "change")
    run_with({"C02"}, "#start-run")
    x = page.get_attribute("#configurations article.configuration >> nth=0", "data-config")
    run_with({"C02", "C05"}, f"article[data-config='{x}'] button.repeat")
    run_with({"C05"}, f"article[data-config='{x}'] button.repeat")
    show_view(page, "run")
    page.fill("#model", "claude-y")
    page.dispatch_event("#model", "change")
    run_with({"C09"}, "#start-run")
    y = next(c for c in page.eval_on_selector_all("#configurations article", "a => a.map(i => i.dataset.config)")
             if c != x)
    run_with(set(), f"article[data-config='{y}'] button.repeat")
    assert len(fake.asked) == 100

    path = export_json(page, tmp_path)
    groups = {g["id"]: g for g in cli("report", str(path), "--configurations", "--json")["configurations"]}
    assert (groups[x]["k"], groups[y]["k"]) == (3, 2)
    assert groups[x]["figures"]["flipping"] == ["C02", "C05"] and groups[y]["figures"]["flipping"] == ["C09"]
    show_view(page, "compare")
    for group in groups.values():
        shown = figures_of(page, f"article[data-config='{group['id']}']")
        assert shown["Flip rate"] == group["display"]["flip_rate"]
        assert shown["Noise floor (95%)"] == group["display"]["floor"]
    page.select_option("#config-x", x)
    page.select_option("#config-y", y)
    page.click("#compare-configs")
    page.wait_for_selector("#config-figures")
    expected = cli("compare", str(path), "--config", x, "--config", y, "--json")
    assert figures_of(page, "#config-figures")["Difference"] == expected["display"]["difference"]
    assert page.locator("#config-comparison .floor-text").all_inner_texts() == expected["floor_text"]
