"""End to end in Chromium: the /ai-eval/ page runs the set through a mocked provider.

The provider is mocked at the network edge (route interception of the Anthropic
URL); everything else is the built site: the worker, Pyodide, pyapp, IndexedDB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from explain_samples import answer_from_prompt
from pyapp.evaluation.evalset import LARGE_SET_VERSION, case_ids, case_prompt, cases

pytestmark = pytest.mark.browser

KEY = "sk-ant-test-EVAL-SECRET-98765"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
DUMP_DB = """async () => {
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("kd-tree-explorer", 1);
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const rows = await new Promise((ok, fail) => { const r = db.transaction("audit").objectStore("audit").getAll();
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  db.close();
  return rows.map((row) => row.json);
}"""
# Every case id names the same search in both sets, so the larger set's prompts cover both.
PROMPT_CASE = {(p.system, p.user): c.case_id for c in cases(LARGE_SET_VERSION) for p in [case_prompt(c)]}


class FakeAnthropic:
    """Answers like the Messages API; ``wrong`` cases get a miscounted answer, ``stall`` cases no answer."""

    def __init__(self, wrong=(), stall=(), status=200):
        self.wrong, self.stall, self.status = set(wrong), set(stall), status
        self.asked: list[str] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()

    def __call__(self, route):
        body = json.loads(route.request.post_data)
        case_id = PROMPT_CASE.get((body["system"], body["messages"][0]["content"]), "unknown")
        with self.lock:
            self.asked.append(case_id)
            self.headers.append(route.request.headers)
        if case_id in self.stall:
            return  # never answered: the request stays open until the page aborts it
        if self.status != 200:
            route.fulfill(status=self.status, content_type="application/json",
                          body=json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                                      "message": "invalid x-api-key"}}))
            return
        answer = answer_from_prompt(body["messages"][0]["content"])
        if case_id in self.wrong:
            answer["nodes_visited"] += 1
        route.fulfill(status=200, content_type="application/json", body=json.dumps({
            "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "search_explanation", "input": answer}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 1000, "output_tokens": 200}}))



def open_eval(context, site):
    page = context.new_page()
    page.goto(site.url + "ai-eval/")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    page.select_option("#provider", "anthropic")
    page.fill("#model", "claude-test")
    page.fill("#api-key", KEY)
    page.dispatch_event("#api-key", "change")
    return page


def entries(page) -> list[dict]:
    return [json.loads(text) for text in page.evaluate(DUMP_DB)]


def calls(page, run_id=None) -> list[dict]:
    return [e for e in entries(page) if e["type"] == "call" and (run_id is None or e["run_id"] == run_id)]


def wait_run_end(page, timeout=120_000) -> str:
    page.wait_for_selector("#start-run:not([disabled])", timeout=timeout)
    return page.inner_text("#run-status")


def start_run(page) -> str:
    page.click("#start-run")
    return wait_run_end(page)


def export_json(page, tmp_path, run_id=""):
    page.select_option("#export-run", run_id)
    with page.expect_download() as download:
        page.click("#export-json")
    path = tmp_path / "export.json"
    download.value.save_as(path)
    return path


def cli(*args) -> dict:
    done = subprocess.run([sys.executable, "-m", "pyapp", *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_two_full_runs_rebuilt_graded_compared_and_equal_to_the_cli(context, site, tmp_path):
    fake = FakeAnthropic(wrong={"C02", "C05", "C09"})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    assert "has an answer for every case" in start_run(page)

    assert fake.asked == list(case_ids()), "twenty requests, one per case, in order, each with its exact prompt"
    assert all(h["x-api-key"] == KEY and h["anthropic-dangerous-direct-browser-access"] == "true"
               for h in fake.headers)
    cli_prompt = cli("prompt", "C07", "--json")
    assert (cli_prompt["system"], cli_prompt["user"]) == (case_prompt(cases()[6]).system, case_prompt(cases()[6]).user)
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
    assert (compared["better"], compared["worse"]) == (3, 2)
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
    assert fake.asked == list(case_ids())[2:], "answered cases are not asked again; the cancelled one is"
    assert page.locator(f"#runs tr[data-run='{run_id}'] td").nth(3).inner_text().startswith("20/20")


def test_reload_mid_run_loses_no_answer_and_continue_asks_only_the_rest(context, site):
    fake, page = run_until_asking(context, site, "C06")
    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    logged = calls(page)
    assert [e["case_id"] for e in logged] == ["C01", "C02", "C03", "C04", "C05"]
    continue_with_answers(page, fake, logged[0]["run_id"])
    assert fake.asked == list(case_ids())[5:]
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
    page.wait_for_selector("#import-message:has-text('Imported')")
    page.wait_for_selector("#runs tr[data-run='run-imported-1']")
    row = page.locator("#runs tr[data-run='run-imported-1'] td")
    assert row.nth(3).inner_text().startswith("19/19")
    assert row.nth(7).inner_text() == "1"

    before = len(entries(page))
    (tmp_path / "bad.json").write_text('{"format": 1, "entries": [{"type": "call"')
    page.set_input_files("#import-file", str(tmp_path / "bad.json"))
    page.wait_for_selector("#import-message:has-text('Nothing was imported')")
    assert len(entries(page)) == before
