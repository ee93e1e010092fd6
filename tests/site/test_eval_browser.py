"""End to end in Chromium: the /ai-eval/ page runs the set through a mocked provider.

The provider is mocked at the network edge (route interception of the Anthropic
URL); everything else is the built site: the worker, Pyodide, pyapp, IndexedDB.
"""

from __future__ import annotations

import json

import pytest

from eval_page import (
    ANTHROPIC,
    KEY,
    FakeAnthropic,
    calls,
    cli,
    entries,
    export_json,
    open_eval,
    show_view,
    start_run,
    wait_run_end,
)
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt

pytestmark = pytest.mark.browser


def test_two_full_runs_rebuilt_graded_compared_and_equal_to_the_cli(context, site, tmp_path):
    fake = FakeAnthropic(wrong={"C02", "C05", "C09"})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    assert "has an answer for every case" in start_run(page)

    assert fake.asked == list(FIXED_SETS.case_ids()), \
        "twenty requests, one per case, in order, each with its exact prompt"
    assert all(h["x-api-key"] == KEY and h["anthropic-dangerous-direct-browser-access"] == "true"
               for h in fake.headers)
    cli_prompt = cli("prompt", "C07", "--json")
    c07 = case_prompt(FIXED_SETS.case("C07"))
    assert (cli_prompt["system"], cli_prompt["user"]) == (c07.system, c07.user)
    first = calls(page)
    assert len(first) == 20 and len({e["run_id"] for e in first}) == 1
    run_a = first[0]["run_id"]
    assert [e["outcome"] for e in first].count("grounded") == 17
    assert all(e["answer_ms"] is not None and e["total_ms"] >= e["answer_ms"] for e in first)

    fake.wrong = {"C02", "C11", "C12", "C13"}
    fake.asked.clear()
    assert "has an answer for every case" in start_run(page)
    run_b = next(e["run_id"] for e in calls(page) if e["run_id"] != run_a)
    assert len(fake.asked) == 20

    dump = json.dumps(entries(page))
    assert KEY not in dump
    assert KEY not in json.dumps(page.evaluate("Object.entries(localStorage)"))

    page.click(f"#runs tr[data-run='{run_a}'] button")
    page.wait_for_selector(f"#run-detail[data-run='{run_a}']")
    page_headline = page.inner_text("#run-headline")
    page_latency = page.inner_text("#run-latency")
    show_view(page, "compare")
    page.select_option("#compare-a", run_a)
    page.select_option("#compare-b", run_b)
    page.click("#compare")
    figures = page.inner_text("#compare-figures")
    assert page.locator("#paired-table tbody tr").count() == 20
    assert page.locator("#rates-plot circle.estimate").count() == 2

    path = export_json(page, tmp_path)
    assert KEY not in path.read_text()
    report = cli("report", str(path), "--run", run_a, "--json")
    assert report["grounded"] == 17 and report["graded"] == 20
    assert report["display"]["grounded"] in page_headline
    assert report["display"]["latency"] in page_latency
    compared = cli("compare", str(path), "--run", run_a, "--run", run_b, "--json")
    assert (compared["better"], compared["worse"]) == (2, 3)  # the second run against the first
    for text in (compared["display"]["difference"], compared["display"]["mcnemar"]):
        assert text in figures


def test_rejected_key_stops_the_run_after_the_first_call(context, site):
    fake = FakeAnthropic(status=401)
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    status = start_run(page)
    assert "stopped" in status and KEY not in status
    assert fake.asked == ["C01"]
    logged = calls(page)
    assert [e["outcome"] for e in logged] == ["infrastructure_failure"]
    assert KEY not in json.dumps(entries(page))


def run_until_asking(context, site, case_id: str):
    """Open the page and start a run whose case ``case_id`` gets no answer; the fake and the page once it is asked."""
    fake = FakeAnthropic(stall={case_id})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    page.click("#start-run")
    page.wait_for_selector(f"#case-status [data-case='{case_id}'][data-state='asking']", timeout=60_000)
    return fake, page


def continue_with_answers(page, fake: FakeAnthropic, run_id: str) -> None:
    """Let the fake answer every case from now on, continue ``run_id`` and wait until it has every answer."""
    fake.stall.clear()
    fake.asked.clear()
    show_view(page, "run")
    page.select_option("#continue-select", run_id)
    page.click("#continue-run")
    assert "has an answer for every case" in wait_run_end(page)


def test_cancelled_case_is_asked_again_when_the_run_continues(context, site):
    fake, page = run_until_asking(context, site, "C03")
    page.click("#cancel-run")
    assert "cancelled" in wait_run_end(page, 30_000)
    run_id = calls(page)[0]["run_id"]
    assert [e["outcome"] for e in calls(page)] == ["grounded", "grounded", "cancelled"]
    assert [e["case_id"] for e in entries(page) if e["type"] == "cancel"] == ["C03"]

    continue_with_answers(page, fake, run_id)
    assert fake.asked == list(FIXED_SETS.case_ids())[2:], "answered cases are not asked again; the cancelled one is"
    assert page.locator(f"#runs tr[data-run='{run_id}'] td").nth(3).inner_text().startswith("20/20")


def test_reload_mid_run_loses_no_answer_and_continue_asks_only_the_rest(context, site):
    fake, page = run_until_asking(context, site, "C06")
    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    logged = calls(page)
    assert [e["case_id"] for e in logged] == ["C01", "C02", "C03", "C04", "C05"]
    continue_with_answers(page, fake, logged[0]["run_id"])
    assert fake.asked == list(FIXED_SETS.case_ids())[5:]
    assert len(calls(page)) == 20


def test_second_tab_cannot_run_the_same_run(context, site):
    fake, first = run_until_asking(context, site, "C02")
    run_id = calls(first)[0]["run_id"]
    second = open_eval(context, site)
    second.select_option("#continue-select", run_id)
    second.click("#continue-run")
    assert "already running in another tab" in wait_run_end(second)
    assert fake.asked == ["C01", "C02"]
    first.click("#cancel-run")
    wait_run_end(first, 30_000)


def test_import_marks_a_changed_prompt_stale_and_rejects_a_bad_file(context, site, tmp_path):
    fake = FakeAnthropic()
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    start_run(page)
    exported = json.loads(export_json(page, tmp_path).read_text())
    # The same calls as another run whose first case was asked with a prompt the site no longer sends.
    for entry in exported["entries"]:
        entry["id"] = "imported-" + entry["id"][:20]
        entry["run_id"] = "run-imported-1"
        if entry.get("case_id") == "C01" and entry["type"] == "call":
            entry["prompt_hash"] = "0" * 64
    (tmp_path / "changed.json").write_text(json.dumps(exported))
    page.set_input_files("#import-file", str(tmp_path / "changed.json"))
    page.wait_for_selector("#import-message:has-text('Imported')", state="attached")
    page.wait_for_selector("#runs tr[data-run='run-imported-1']")
    row = page.locator("#runs tr[data-run='run-imported-1'] td")
    assert row.nth(3).inner_text().startswith("19/19")
    assert row.nth(7).inner_text() == "1"

    before = len(entries(page))
    (tmp_path / "bad.json").write_text('{"format": 1, "entries": [{"type": "call"')
    page.set_input_files("#import-file", str(tmp_path / "bad.json"))
    page.wait_for_selector("#import-message:has-text('Nothing was imported')", state="attached")
    assert len(entries(page)) == before
