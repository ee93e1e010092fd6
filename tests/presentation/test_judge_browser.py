"""In Chromium: a model judge on the evaluation page (DR-012), with Anthropic mocked at the network edge.

Two runs come in through the page's import; two people rate the first on the page with the keyboard, as the
design of ``tests/support/judge_design.py`` says; the judge is asked through the page's own client in the
worker, answered by route interception with the designed verdicts. The page's tables and headings then equal
``python -m pyapp agreement --json`` on the page's export, cell for cell, and the answers it offers to rate next
come in the order that report names.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from eval_page import KEY, entries, export_json, open_eval, rate_run, show_view
from judge_design import designed_answers, designed_log, judgement, prose_of, tabled_log
from page_checks import assert_accessible
from pyapp.evaluation.export import export_json as export_text
from pyapp.evaluation.export import parse_import
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
# Every heading and sentence of each judge's part, in page order (the choice of judging is read apart).
READ_JUDGE_TEXTS = """() => [...document.querySelectorAll('.agreement-judge')].map((part) => [...part.querySelectorAll(
  ':scope > h3, :scope > h4, :scope > p:not(.actions), .judge-precision > p, .judge-precision > button')]
  .map((node) => node.textContent))"""


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
        precision = judge["precision"]
        tables.append({"label": precision["label"], "columns": precision["columns"], "rows": precision["rows"]})
        if judge["failures"]:
            tables.append({"label": judge["failures_label"], "columns": judge["failure_columns"],
                           "rows": judge["failures"]})
        tables += [{"label": v["label"], "columns": v["columns"], "rows": v["rows"]} for v in judge["versus"]]
        for part in ("grade", "length"):
            tables.append({"label": judge[part]["label"], "columns": judge[part]["columns"],
                           "rows": judge[part]["rows"]})
    return tables


def expected_judge_texts(view: dict) -> list[list[str]]:
    """Each judge's headings and sentences the page must show, in its order, from the command line's view."""
    texts = []
    for judge in view["judges"]:
        precision = judge["precision"]
        shown = [judge["heading"] + (f" {judge['label']}" if judge["label"] else ""), judge["judging_note"],
                 judge["validation"]]
        shown += [text for text in (precision["still_needed"], precision["rate_next"], precision["rate_button"])
                  if text]
        for versus in judge["versus"]:
            shown += [versus["heading"], *versus["notes"]]
        shown += ["Against the mechanical grade", judge["grade"]["figures"], *judge["grade"]["notes"], "Bias probes"]
        shown += [text for text in (judge["length"]["note"], judge["self_preference"]) if text]
        texts.append([*shown, judge["consistency"]])
    return texts


def command_line(path, *judgings: str) -> tuple[dict, dict]:
    """``python -m pyapp agreement --json`` on ``path`` (with ``--judging`` for each of ``judgings``): the report,
    and the page's view made from it."""
    named = [arg for judging in judgings for arg in ("--judging", judging)]
    done = subprocess.run([sys.executable, "-m", "pyapp", "agreement", str(path), "--json", *named],
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    return report, agreement_tables(report)


def assert_the_page_shows(page, view: dict) -> None:
    assert page.evaluate(READ_TABLES) == expected_tables(view)
    assert page.evaluate(READ_JUDGE_TEXTS) == expected_judge_texts(view)


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

        path = export_json(page, tmp_path)
        report, view = command_line(path)
        assert_the_page_shows(page, view)
        (judge,) = view["judges"]
        assert [r[2] for r in judge["failures"]] == ["invalid json", "refusal", "bad request"]
        assert judge["heading"].startswith("claude-test (judge): 37 verdicts and 3 judge failures in judging-")
        assert judge["label"].startswith("not validated: too few answers (")
        assert judge["judging_note"].endswith("the first judging to ask about every counted answer of its runs.")
        headings = [v["heading"] for v in judge["versus"]]
        assert headings[:2] == ["Against Ann: 17 answers with both verdicts",  # run-a's 20, less 3 failures
                                "Against Bo: 17 answers with both verdicts"]
        assert headings[2].startswith("Against the people's consensus: ")

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

        show_view(page, "rate")
        assert_accessible(page)

        # Run-b was judged and no person rated it: its answers come to a new rater in the order the report names.
        page.fill("#rater-name", "Cy")
        page.click(".judge-rate-button")
        page.wait_for_selector("#rating-item:not([hidden])")
        assert page.inner_text("#rating-status") == ("Rating 20 answers claude-test (judge) judged that no person has "
                                                     "rated, as Cy; the order is the one likely to narrow its "
                                                     "intervals soonest.")
        offered = []
        while page.is_visible("#rating-item"):
            call_id = page.get_attribute("#rating-case", "data-call")
            offered.append(call_id)
            shown = page.inner_text("#rating-item")
            assert "acceptable" not in shown and "Designed." not in shown  # never the judge's verdict or reasons
            for _ in range(4):
                page.keyboard.press("y")
            page.wait_for_function("(c) => document.querySelector('#rating-item').hidden || "
                                   "document.querySelector('#rating-case').dataset.call !== c", arg=call_id)
        (judge_report,) = report["judges"]
        assert offered == [a["call_id"] for a in judge_report["rate_next"]["answers"]]
        assert {a["run_id"] for a in judge_report["rate_next"]["answers"]} == {"run-b"}
        assert offered != [c["id"] for c in logged if c["type"] == "call" and c["run_id"] == "run-b"]  # not case order
        assert page.inner_text("#rating-status").startswith("You rated all 20 answers")
    finally:
        context.close()


def test_a_judge_measured_precisely_enough_is_validated_and_each_judging_shows_its_own_figures(browser, site,
                                                                                               tmp_path):
    precise = tabled_log(dict.fromkeys(RUBRIC.keys, [[90, 8], [7, 45]]))  # kappa 0.78 on 150 answers
    calls = [e["id"] for e in precise if e["type"] == "call"][:150]
    logged = precise + [judgement(c, dict.fromkeys(RUBRIC.keys, True), judging_id="judging-2", time=9000.0 + i)
                        for i, c in enumerate(calls)]
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        page = open_eval(context, site)
        source = tmp_path / "judged.json"
        source.write_text(export_text(logged), encoding="utf-8")
        page.set_input_files("#import-file", str(source))
        page.wait_for_selector("#import-message[data-state='imported']", state="attached")
        show_view(page, "rate")
        page.click("#show-agreement")
        page.wait_for_selector(".agreement-judge h3:has-text('in judging-1')")
        path = export_json(page, tmp_path)

        _, view = command_line(path)
        assert_the_page_shows(page, view)
        assert page.inner_text(".agreement-judge h3") == "judge-test-1 (judge): 150 verdicts and 0 judge failures in " \
                                                         "judging-1"  # validated: no label
        assert page.locator(".label-not-validated").count() == 0
        choice = ".judge-judging-choice"
        assert page.eval_on_selector_all(f"{choice} option", "os => os.map((o) => [o.value, o.textContent])") == \
            view["judges"][0]["judgings"]
        assert page.input_value(choice) == "judging-1"

        page.select_option(choice, "judging-2")
        page.wait_for_selector(".agreement-judge h3:has-text('in judging-2')")
        _, second = command_line(path, "judging-2")
        assert_the_page_shows(page, second)
        assert page.inner_text(".label-not-validated") == (
            'not validated: the judge rated every answer "yes" on every question, so agreement cannot be measured')
        assert page.input_value(choice) == "judging-2"
    finally:
        context.close()
