"""In Chromium: a model judge on the evaluation page (DR-012), with Anthropic mocked at the network edge.

Two runs come in through the page's import; two people rate the first on the page with the keyboard, as the
design of ``tests/support/judge_design.py`` says; the judge is asked through the page's own client in the
worker, answered by route interception with the designed verdicts. The page's tables then equal
``python -m pyapp agreement --json`` on the page's export, cell for cell.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from eval_helpers import full_run, rating
from eval_page import KEY, entries, export_json, open_eval, rate_run, show_view
from judge_design import designed_answers, designed_log, judgement, prose_of
from page_checks import assert_accessible
from pyapp.evaluation.export import export_json as export_text
from pyapp.evaluation.export import parse_import
from pyapp.evaluation.judge_agreement import VALIDATION_ANSWERS
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.judge import VERDICT_SCHEMA_NAME
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.agreement_tables import agreement_tables
from pyapp.presentation.case_view import case_view

pytestmark = pytest.mark.browser

ANTHROPIC = "https://api.anthropic.com/v1/messages"
READ_TABLES = """() => [...document.querySelectorAll('#agreement-tables table')].map((t) => ({
  label: t.closest('[aria-label]').getAttribute('aria-label'),
  columns: [...t.tHead.rows[0].cells].map((c) => c.textContent),
  rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
}))"""


def anthropic_judge(route) -> None:
    """The designed judge as Anthropic's Messages API answers a forced tool call."""
    body = json.loads(route.request.post_data)
    prose = prose_of(body["messages"][0]["content"])
    if "judge-http-400" in prose:
        route.fulfill(status=400, content_type="application/json", body=json.dumps(
            {"type": "error", "error": {"type": "invalid_request_error", "message": "designed bad request"}}))
        return
    verdict = {key: {"answer": "yes" if yes else "no", "reason": "Designed."}
               for key, yes in designed_answers(prose).items()}
    content = [{"type": "tool_use", "id": "toolu_j", "name": VERDICT_SCHEMA_NAME, "input": verdict}]
    stop = "tool_use"
    if "judge-invalid" in prose:
        content = [{"type": "text", "text": '{"pruning": {"answer": "yes"'}]
        stop = "end_turn"
    if "judge-refuse" in prose:
        content, stop = [{"type": "text", "text": "I will not rate this."}], "refusal"
    route.fulfill(status=200, content_type="application/json", body=json.dumps({
        "id": "msg_j", "type": "message", "role": "assistant", "model": "claude-judge", "content": content,
        "stop_reason": stop, "usage": {"input_tokens": 2000, "output_tokens": 150}}))


def expected_tables(view: dict) -> list[dict]:
    """The tables the page must draw, in its order, from the command line's view."""
    tables = [{"label": p["label"], "columns": p["columns"], "rows": p["rows"]} for p in view["pairs"]]
    for rater in view["versus"]:
        tables.append({"label": rater["label"], "columns": rater["columns"], "rows": rater["rows"]})
        if rater["disagreements"]:
            tables.append({"label": rater["disagreements_label"], "columns": rater["disagreement_columns"],
                           "rows": rater["disagreements"]})
    for judge in view["judges"]:
        if judge["failures"]:
            tables.append({"label": judge["failures_label"], "columns": judge["failure_columns"],
                           "rows": judge["failures"]})
        tables += [{"label": v["label"], "columns": v["columns"], "rows": v["rows"]} for v in judge["versus"]]
        for part in ("grade", "length"):
            tables.append({"label": judge[part]["label"], "columns": judge[part]["columns"],
                           "rows": judge[part]["rows"]})
    return tables


def command_line_view(path) -> dict:
    done = subprocess.run([sys.executable, "-m", "pyapp", "agreement", str(path), "--json"],
                          capture_output=True, text=True, check=True)
    return agreement_tables(json.loads(done.stdout))


def test_two_people_and_a_judge_the_pages_tables_equal_the_command_line(browser, site, tmp_path):
    context = browser.new_context(accept_downloads=True, bypass_csp=True, viewport={"width": 1280, "height": 900})
    console: list[str] = []
    try:
        context.route(ANTHROPIC, anthropic_judge)
        page = open_eval(context, site)
        page.on("console", lambda message: console.append(message.text))
        logged, design = designed_log(tags={0: "judge-invalid", 1: "judge-refuse", 2: "judge-http-400"})
        source = tmp_path / "runs.json"
        source.write_text(export_text([e for e in logged if e["type"] == "call"]), encoding="utf-8")
        page.set_input_files("#import-file", str(source))
        page.wait_for_selector("#runs tr[data-run='run-b']")
        run_a = [e for e in logged if e["type"] == "call" and e["run_id"] == "run-a"]
        for person in ("Ann", "Bo"):
            rate_run(page, person, "run-a", {c["case_id"]: {k for k, yes in design[c["id"]][person].items() if not yes}
                                             for c in run_a})
        assert page.inner_text("#judge-version") == "judge-prompt-1"
        assert "Does it invent no step?" in page.text_content("#judge-prompt")  # inside a closed <details>
        page.locator("#judge-heading").scroll_into_view_if_needed()
        page.wait_for_selector("#judge-estimate:has-text('Judging sends 40 calls')")

        page.click("#start-judge")
        page.wait_for_selector("#judge-status:has-text('asked about all 40 answers')", timeout=120_000)
        assert "37 verdicts and 3 judge failures" in page.inner_text("#judge-status")
        assert "40 calls used 78,000 input and 5,850 output tokens" in page.inner_text("#judge-usage")
        page.wait_for_selector(".agreement-judge")
        shown = page.evaluate(READ_TABLES)

        path = export_json(page, tmp_path)
        view = command_line_view(path)
        assert shown == expected_tables(view)
        (judge,) = view["judges"]
        assert [r[2] for r in judge["failures"]] == ["invalid json", "refusal", "bad request"]
        headings = [v["heading"] for v in judge["versus"]]
        assert headings[:2] == ["Against Ann: 17 answer(s) with both verdicts",  # run-a's 20, less 3 failures
                                "Against Bo: 17 answer(s) with both verdicts"]
        assert headings[2].startswith("Against the people's consensus: ")
        assert page.inner_text(".agreement-judge .label-not-validated") == "not validated"
        assert page.inner_text(".judge-validation") == judge["validation"]
        assert page.inner_text(".judge-consistency") == judge["consistency"]

        the_call = next(c for c in run_a if c["case_id"] == "C04")
        show_view(page, "results")
        page.locator("#case-matrix td.cell[data-run='run-a'][data-case='C04']").click()
        page.wait_for_selector("#case-judged")
        logged_now = parse_import(path.read_text(encoding="utf-8"))
        built = rebuild(logged_now)
        expected = case_view(built.run("run-a"), "C04", logged_now, lambda: built.runs)["judged"]
        assert page.locator("#case-judged li").all_inner_texts() == [j["text"] for j in expected]
        assert len(expected) == 1 and expected[0]["text"].startswith("claude-test (judge) [not validated], judging-")
        assert the_call["id"] in {e["call_id"] for e in logged_now if e["type"] == "judgement"}

        stored = json.dumps(entries(page))
        assert KEY not in stored and KEY not in path.read_text(encoding="utf-8") and KEY not in page.url
        assert not any(KEY in line for line in console)
        assert sum(e["type"] == "judgement" for e in entries(page)) == 40

        assert_accessible(page)
    finally:
        context.close()


def test_the_not_validated_label_goes_once_the_judge_is_compared_on_enough_answers(browser, site, tmp_path):
    calls = [e for r in range(5) for e in full_run(f"run-{r}", start=100.0 * r)]
    ratings = [rating(c["id"], "Ann", time=1000.0 + i, answer=i % 3 != 0) for i, c in enumerate(calls)]
    verdicts = [judgement(c["id"], {**dict.fromkeys(RUBRIC.keys, True), "answer": i % 4 != 0})
                for i, c in enumerate(calls)]
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        page = open_eval(context, site)
        for name, part in (("below", verdicts[:VALIDATION_ANSWERS - 1]), ("above", verdicts[VALIDATION_ANSWERS - 1:])):
            source = tmp_path / f"{name}.json"
            known = calls + ratings if name == "below" else []
            source.write_text(export_text(known + part if known else calls + part), encoding="utf-8")
            page.set_input_files("#import-file", str(source))
            page.wait_for_selector("#import-message[data-state='imported']", state="attached")
            show_view(page, "rate")
            page.click("#show-agreement")
            compared = VALIDATION_ANSWERS - 1 if name == "below" else VALIDATION_ANSWERS
            # Waits for this import's tables: the first import's are still on the page until they are replaced.
            page.wait_for_selector(f".agreement-judge h3:has-text('{compared} verdict(s)')")
            heading = page.inner_text(".agreement-judge h3")
            assert ("not validated" in heading) == (name == "below")
            assert f"{compared}" in page.inner_text(".judge-validation")
            page.evaluate("document.getElementById('import-message').removeAttribute('data-state')")
    finally:
        context.close()
