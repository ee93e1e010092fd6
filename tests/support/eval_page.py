"""Driving the evaluation page in the browser tests: a fake Anthropic server, the page opened and a run
started and awaited, the log read back from IndexedDB and exported, and the command line beside it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from explain_samples import answer_from_prompt
from pyapp.evaluation import export
from pyapp.evaluation.evalset import FIXED_SETS, LARGE_SET_VERSION, case_prompt

ANTHROPIC = "https://api.anthropic.com/v1/messages"


KEY = "sk-ant-test-EVAL-SECRET-98765"


DUMP_DB = """async () => {
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("kd-tree-explorer", 1);
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const rows = await new Promise((ok, fail) => { const r = db.transaction("audit").objectStore("audit").getAll();
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  db.close();
  return rows.map((row) => row.json);
}"""
# Every case id names the same search in both sets, so the larger set's prompts cover both.
PROMPT_CASE = {(p.system, p.user): c.case_id for c in FIXED_SETS.cases(LARGE_SET_VERSION) for p in [case_prompt(c)]}


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


def cli(*args) -> dict:
    done = subprocess.run([sys.executable, "-m", "pyapp", *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def show_view(page, name: str) -> None:
    """Open the workbench's view ``name`` from its navigation, as a visitor does."""
    page.click(f".view-nav a[data-view='{name}']")
    page.wait_for_selector(f"section.view[data-view='{name}']:not([hidden])")


def export_json(page, tmp_path, run_id=""):
    """Export from the Data view, then go back to the view the page showed."""
    back = page.get_attribute("body", "data-view")
    show_view(page, "data")
    page.select_option("#export-run", run_id)
    with page.expect_download() as download:
        page.click("#export-json")
    path = tmp_path / "export.json"
    download.value.save_as(path)
    show_view(page, back)
    return path


def open_eval(context, site):
    page = context.new_page()
    page.goto(site.url + "ai-eval/")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    show_view(page, "run")
    page.select_option("#provider", "anthropic")
    page.fill("#model", "claude-test")
    page.fill("#api-key", KEY)
    page.dispatch_event("#api-key", "change")
    return page


def start_run(page) -> str:
    show_view(page, "run")
    page.click("#start-run")
    return wait_run_end(page)


def wait_run_end(page, timeout=120_000) -> str:
    """The run's last status, once it has ended (a run that made answers opens the Results view)."""
    page.wait_for_selector("#start-run:not([disabled])", state="attached", timeout=timeout)
    return page.text_content("#run-status")


def entries(page) -> list[dict]:
    return [json.loads(text) for text in page.evaluate(DUMP_DB)]


def calls(page, run_id=None) -> list[dict]:
    return [e for e in entries(page) if e["type"] == "call" and (run_id is None or e["run_id"] == run_id)]




def runs_list_row(page, run_id: str) -> list[str]:
    return page.locator(f"#runs tr[data-run='{run_id}'] td").all_text_contents()


def show_detail(page, run_id: str) -> None:
    show_view(page, "results")
    page.click(f"#runs tr[data-run='{run_id}'] button")
    page.wait_for_selector(f"#run-detail[data-run='{run_id}']")


def import_run(page, tmp_path, run_entries: list[dict], name: str, already: int = 0) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(export.export_json(run_entries))
    show_view(page, "data")
    page.set_input_files("#import-file", str(path))
    added = len(run_entries) - already
    page.wait_for_selector(f"#import-message:has-text('Imported {added} entries ({already} were already here)')",
                           state="attached")


def listed(page) -> dict[str, str]:
    """Run id -> its grounded count as the runs list shows it."""
    rows = page.locator("#runs tbody tr")
    return {rows.nth(i).get_attribute("data-run"): rows.nth(i).locator("td").nth(3).text_content()
            for i in range(rows.count())}


def reported(page, tmp_path) -> dict[str, str]:
    """Run id -> grounded count, from ``python -m pyapp report`` on an export of the page's whole store."""
    path = tmp_path / "store.json"
    path.write_text(export.export_json(entries(page)))
    return {r["run_id"]: f"{r['grounded']}/{r['graded']}" for r in cli("report", str(path), "--json")}


def rate_run(page, rater: str, run_id: str, says_no: dict[str, set[str]]) -> None:
    """Rate every answer of ``run_id`` with the keyboard; ``says_no`` maps a case to the questions answered no."""
    show_view(page, "rate")
    page.fill("#rater-name", rater)
    page.select_option("#rate-run", run_id)
    page.click("#start-rating")
    page.wait_for_selector("#rating-item:not([hidden])")
    for graded in page.query_selector_all(".graded-view"):
        assert not graded.is_visible(), "rating is blind: grades and other ratings are hidden"
    keys = page.eval_on_selector_all("#rating-questions li", "items => items.map(i => i.dataset.key)")
    while page.is_visible("#rating-item"):
        case_id = page.get_attribute("#rating-case", "data-case")
        shown = page.inner_text("#rating-item")
        assert "grounded" not in shown and "FAIL" not in shown
        for key in keys:
            page.keyboard.press("n" if key in says_no.get(case_id, set()) else "y")
        page.wait_for_function("(c) => document.querySelector('#rating-item').hidden || "
                               "document.querySelector('#rating-case').dataset.case !== c", arg=case_id)
    assert page.inner_text("#rating-status").startswith("You rated all 20 answers")
    assert all(node.is_visible() for node in page.query_selector_all("#view-rate .graded-view, .view-nav .graded-view"))
    shown = page.eval_on_selector_all("section.view", "ss => ss.filter((s) => s.checkVisibility()).map((s) => s.id)")
    assert shown == ["view-rate"], "after rating, the Rate view alone is on screen"
