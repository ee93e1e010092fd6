"""The key scenarios in Chromium, Firefox and WebKit, written once over ``engines.EnginePage`` (DR-002).

Each engine is started once for the module and shared by its scenarios; every scenario
gets its own server port, so its origin (and with it storage and Web Locks) is fresh.
The model provider is ``fake_provider.FakeProvider``, a real HTTP server on loopback
reached through the OpenAI-compatible path; everything else is the built site.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

import engines
from designed_logs import entries_with_designed_flips
from fake_provider import FakeProvider, faithful_reply
from pyapp import __version__
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from served import Served, serve
from sitegen.serve import SiteHandler

pytestmark = pytest.mark.browser

KEY = "sk-test-ENGINES-SECRET-4242"
KEY_NAME = "kd-explorer-api-key"
PROMPT_CASE = {case_prompt(c).user: c.case_id for c in FIXED_SETS.cases()}
MAP_POINT = """(selector) => {
  const map = document.querySelector(selector);
  map.scrollIntoView({ block: "center" });
  const box = map.getBoundingClientRect();
  return [box.left + box.width * 0.4, box.top + box.height * 0.35];
}"""
FORGET_STEP = "() => { delete document.getElementById('step-caption').dataset.step; }"
WASM_FORBIDDING_POLICY = "default-src 'self'; script-src 'self'"
# A `using` declaration (explicit resource management): Chromium 156 and Firefox 153 parse it, WebKitGTK 2.50
# does not (DR-002). Added to the explorer's module, it breaks the page in one engine only.
ONE_ENGINE_SYNTAX = "{ using nothing = null; }\n"
REQUIRED = {
    "chromium": [],  # conftest's browser fixture says what is missing
    "firefox": [engines.FIREFOX],
    "webkit": [engines.WEBKIT_DRIVER, engines.MINIBROWSER, engines.XVFB],
}


class NoWasmHandler(SiteHandler):
    """A host whose Content-Security-Policy forbids WebAssembly."""

    security_headers = {"Content-Security-Policy": WASM_FORBIDDING_POLICY}


@pytest.fixture(scope="module", params=engines.ENGINES)
def engine(request, tmp_path_factory) -> Iterator[engines.Engine]:
    missing = [path for path in REQUIRED[request.param] if not os.path.exists(path)]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: run 'make test', which installs the browsers")
    chromium = request.getfixturevalue("browser") if request.param == "chromium" else None
    started = engines.launch(request.param, tmp_path_factory.mktemp(request.param), chromium)
    yield started
    started.quit()


@pytest.fixture
def page(engine) -> Iterator[engines.EnginePage]:
    opened = engine.new_page()
    yield opened
    opened.close()


@pytest.fixture
def fresh_site(dist) -> Iterator[Served]:
    """The built site under /kd/ on a port of its own: a new origin with empty storage."""
    served = serve(dist, "/kd/")
    yield served
    served.server.shutdown()
    served.server.server_close()


def console_problems(page: engines.EnginePage) -> list[str]:
    """Errors and policy violations the page reported ([] where the engine cannot report any)."""
    return [line for line in page.console or [] if line.startswith(("error", "pageerror", "CSP violation"))]


def assert_python_ready(page: engines.EnginePage) -> None:
    """Python started, and nothing went wrong on the way (a module an engine cannot parse ends here, quickly)."""
    page.wait_for("#python-status:not([data-state='loading'])")
    status = page.text("#python-status")
    assert re.fullmatch(rf"Python ready: Python 3\.\d+\.\d+, pyapp {re.escape(__version__)}", status), status
    assert console_problems(page) == []


def cli_trace(order: str, lon: str, lat: str) -> dict:
    args = [sys.executable, "-m", "pyapp", "trace", "--order", order, "--kind", "nearest", "--lon", lon,
            "--lat", lat, "--json"]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def assert_step(page: engines.EnginePage, index: int, trace: list[dict]) -> None:
    assert page.attribute("#step-caption", "data-step") == str(index)
    assert page.attribute("#step-caption", "data-action") == trace[index - 1]["action"]
    assert page.attribute("#step-caption", "data-node") == str(trace[index - 1]["node_id"])


def test_explorer_boots_cleanly_and_a_click_and_steps_match_the_cli(page, fresh_site):
    page.goto(fresh_site.url + "explorer/")
    assert_python_ready(page)
    page.wait_for("body[data-explorer-ready='true']")
    page.evaluate(FORGET_STEP)
    page.select("#order", "shuffled")
    page.wait_for("#step-caption[data-step='1']")
    before = page.value("#lon")

    page.evaluate(FORGET_STEP)
    page.click_at(*page.evaluate(MAP_POINT, "#map"))
    page.wait_for("#step-caption[data-step='1']", timeout=30)
    lon, lat = page.value("#lon"), page.value("#lat")
    assert lon != before, "the click did not land on the map"
    expected = cli_trace("shuffled", lon, lat)
    trace = expected["trace"]
    assert page.text("#step-count") == str(len(trace))
    assert page.text("#nodes-visited") == str(expected["counts"]["nodes_visited"])
    assert page.text("#subtrees-pruned") == str(expected["counts"]["subtrees_pruned"])
    steps = min(5, len(trace))
    for index in range(1, steps + 1):
        assert_step(page, index, trace)
        page.click("#next-step")
    page.click("#prev-step")
    assert_step(page, steps, trace)
    page.click("#last-step")
    assert_step(page, len(trace), trace)
    assert page.attribute("#current-best", "data-node") == str(expected["result"]["id"])
    assert page.count("#trace-list li") == len(trace)
    assert console_problems(page) == []


def configure(page: engines.EnginePage, fake: FakeProvider) -> None:
    page.select("#provider", "openai-compatible")
    page.fill("#base-url", fake.base_url)
    page.fill("#model", "local-test-model")
    page.fill("#api-key", KEY)


def open_eval(page: engines.EnginePage, site: Served, fake: FakeProvider) -> None:
    page.goto(site.url + "ai-eval/?view=run")
    assert_python_ready(page)
    page.wait_for("body[data-eval-ready='true']")
    configure(page, fake)


def wait_run_end(page: engines.EnginePage, timeout: float = 180) -> str:
    page.wait_for("#start-run:not([disabled])", timeout=timeout)
    return page.text("#run-status")


def logged_calls(page: engines.EnginePage) -> list[dict]:
    records = json.loads(page.storage())["indexedDB"]
    rows = [row for table in records if table["store"] == "audit" for row in table["rows"]]
    return [entry for entry in (json.loads(row["json"]) for row in rows) if entry["type"] == "call"]


def test_full_run_is_logged_survives_a_reload_and_is_rebuilt_with_the_same_numbers(page, fresh_site):
    with FakeProvider() as fake:
        open_eval(page, fresh_site, fake)
        page.click("#start-run")
        assert "has an answer for every case" in wait_run_end(page)
        asked = [PROMPT_CASE[json.loads(post.body)["messages"][-1]["content"]] for post in fake.requests("POST")]
    assert sorted(asked) == sorted(FIXED_SETS.case_ids()), "one request per case"
    calls = logged_calls(page)
    assert sorted(e["case_id"] for e in calls) == sorted(FIXED_SETS.case_ids())
    assert {e["outcome"] for e in calls} == {"grounded"} and len({e["run_id"] for e in calls}) == 1
    row = page.text(f"#runs tr[data-run='{calls[0]['run_id']}']")

    page.reload()
    assert_python_ready(page)
    page.wait_for("body[data-eval-ready='true']")
    assert page.text("#runs-message").startswith("1 run rebuilt from 20 logged calls")
    assert page.text(f"#runs tr[data-run='{calls[0]['run_id']}']") == row
    assert logged_calls(page) == calls

    stored = json.loads(page.storage())
    assert stored["sessionStorage"].get(KEY_NAME) == KEY, "the key is kept for this tab only"
    assert KEY not in json.dumps(stored["localStorage"])
    assert KEY not in json.dumps(stored["indexedDB"])
    assert not [line for line in page.console or [] if KEY in line]


# The start panel's three ways in, when it is shown.
START_SHOWN = """() => document.getElementById("start").hidden ? null
  : [...document.querySelectorAll(".start-actions a")].map((a) => a.textContent.trim())"""
# A file chosen in a file input, as the picker leaves it: the page's own change handler imports it.
CHOOSE_FILE = """([selector, name, text]) => {
  const input = document.querySelector(selector);
  const chosen = new DataTransfer();
  chosen.items.add(new File([text], name, { type: "application/json" }));
  input.files = chosen.files;
  input.dispatchEvent(new Event("change", { bubbles: true }));
}"""
# Key presses as the grid and the case view receive them (focus first, then keydown events in turn).
PRESS = """([selector, keys]) => {
  if (selector) document.querySelector(selector).focus();
  for (const key of keys) {
    document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  }
}"""
CELLS = "() => [...document.querySelectorAll('#case-matrix td.cell')].map((td) => [td.dataset.run, td.dataset.case, " \
        "td.dataset.cell])"


def test_the_start_an_import_the_matrix_and_a_case_read_alike_and_the_address_reopens_the_case(
        page, fresh_site, tmp_path):
    entries = entries_with_designed_flips()
    page.goto(fresh_site.url + "ai-eval/")
    assert_python_ready(page)
    page.wait_for("body[data-eval-ready='true']")
    assert page.evaluate(START_SHOWN) == ["Run the set with your key", "Import an export", "Open the demo"]
    page.click("#start-import-link")
    page.wait_for("section[data-view='data']:not([hidden])")
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    page.evaluate(CHOOSE_FILE, ["#import-file", log.name, log.read_text(encoding="utf-8")])
    page.wait_for("section[data-view='results']:not([hidden]) #case-matrix td.cell")
    reports = {r["run_id"]: {c["case_id"]: c for c in r["cases"]}
               for r in json.loads(subprocess.run([sys.executable, "-m", "pyapp", "report", str(log), "--json"],
                                                  capture_output=True, text=True, check=True).stdout)}
    cells = page.evaluate(CELLS)
    assert len(cells) == 6 * 20
    for run_id, case_id, cell in cells:
        case = reports[run_id][case_id]
        assert cell == (case["outcome"] if case["status"] == "graded" else case["status"])

    page.evaluate(PRESS, ["#case-matrix td.cell", ["End", "ArrowLeft"] + ["ArrowDown"] * 17 + ["Enter"]])
    page.wait_for("#case-view[data-run='y2'][data-case='C18']:not([hidden])")
    counted = next(e for e in entries if e["id"] == reports["y2"]["C18"]["entry_id"])
    assert page.evaluate("() => document.querySelector('#case-answer').textContent") == counted["answer"]
    verdicts = page.evaluate("() => [...document.querySelectorAll('#case-checks tbody tr')]"
                             ".map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent])")
    assert verdicts == [[c["name"], "pass" if c["passed"] else "FAIL"] for c in reports["y2"]["C18"]["checks"]]
    assert len(verdicts) == 5 and [v for _, v in verdicts].count("FAIL") == 1
    page.evaluate(PRESS, [None, ["ArrowLeft"]])
    page.wait_for("#case-view[data-run='y1'][data-case='C18']")

    page.goto(fresh_site.url + "ai-eval/?run=y2&case=C18")
    page.wait_for("#case-view[data-run='y2'][data-case='C18']:not([hidden])")
    assert page.text("#case-view-heading") == "C18 in run y2 #2: not grounded"
    step = page.attribute("#case-cited tbody tr:nth-child(2) a", "href")
    page.goto(fresh_site.url + "ai-eval/" + step)  # the link is relative to the evaluation page
    page.wait_for("body[data-explorer-ready='true']")
    assert page.attribute("#step-caption", "data-step") == "2" and "step=2" in page.evaluate("() => location.search")


# Downloads recorded in the page instead of saved: each link's file name and its blob's text (DR-015).
CAPTURE_DOWNLOADS = """() => {
  window.downloads = [];
  const blobs = new Map();
  const make = URL.createObjectURL;
  URL.createObjectURL = (blob) => { const url = make(blob); blobs.set(url, blob); return url; };
  HTMLAnchorElement.prototype.click = function () {
    const name = this.download;
    blobs.get(this.href).text().then((text) => window.downloads.push({ name, text }));
  };
}"""


def test_a_finished_run_offers_its_entries_in_one_click_and_they_import_back_as_duplicates(page, fresh_site):
    with FakeProvider() as fake:
        open_eval(page, fresh_site, fake)
        page.wait_for("#run-storage .storage-text")
        line = page.text("#run-storage")
        # Not persisted (WebKitGTK does not say): what the browser may delete is said, with the export beside it.
        assert line.startswith("Your audit log: 0 entries, 0 bytes.") and "Persisted:" not in line, line
        assert "deletes it at once" in line and "Export the log" in line
        page.click("#start-run")
        assert "has an answer for every case" in wait_run_end(page)
    page.wait_for("section[data-view='results']:not([hidden]) #run-kept:not([hidden])")
    assert page.text("#run-kept").startswith("This run is stored in this browser only.")
    page.evaluate(CAPTURE_DOWNLOADS)
    page.click("#download-run")
    page.wait_for("body[data-eval-ready='true']")
    for _ in range(50):
        downloads = page.evaluate("() => window.downloads")
        if downloads:
            break
        page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 100))")
    [download] = downloads
    calls = logged_calls(page)
    assert download["name"] == f"kd-explorer-{calls[0]['run_id']}.jsonl"
    lines = [json.loads(line) for line in download["text"].splitlines()]
    assert [e["id"] for e in lines if e["type"] == "call"] == [e["id"] for e in calls]
    page.click(".view-nav a[data-view='data']")
    page.wait_for("#data-storage .storage-text")  # drawn once the view shows, after the store is measured
    assert page.text("#data-storage").startswith(f"Your audit log: {len(lines)} entries,")
    page.evaluate(CHOOSE_FILE, ["#import-file", download["name"], download["text"]])
    page.wait_for("#import-message[data-state='imported']")
    assert page.text("#import-message") == f"Imported 0 entries ({len(lines)} were already here)."


def test_second_window_is_refused_the_run_that_is_running(page, engine, fresh_site):
    release = threading.Event()

    def stall_after_the_first_case(body: dict) -> dict:
        # Held until the test ends: the first window's run stays running however long the second window takes
        # (the page gives up on an attempt after 60 s and asks again, so the first window may still ask).
        if PROMPT_CASE[body["messages"][-1]["content"]] != "C01":
            release.wait(timeout=900)
        return faithful_reply(body)

    with FakeProvider(stall_after_the_first_case) as fake:
        open_eval(page, fresh_site, fake)
        page.click("#start-run")
        page.wait_for("#case-status [data-case='C02'][data-state='asking']", timeout=60)
        run_id = logged_calls(page)[0]["run_id"]
        second = page.new_window()
        try:
            open_eval(second, fresh_site, fake)
            second.select("#continue-select", run_id)
            asked_before = len(fake.requests("POST"))
            second.click("#continue-run")
            assert "already running in another tab" in wait_run_end(second)
            assert len(fake.requests("POST")) == asked_before, "the second window asked nothing"
        finally:
            second.close()
            release.set()
            page.click("#cancel-run")
            wait_run_end(page, 60)


def test_host_forbidding_webassembly_gets_its_message_within_seconds(page, dist):
    served = serve(dist, "/", handler=NoWasmHandler)
    try:
        page.goto(served.url + "explorer/")
        # Far below the page's own boot limit, which would say "no answer within 60 s".
        page.wait_for("#python-status:not([data-state='loading'])", timeout=15)
        assert page.attribute("#python-status", "data-state") == "error"
        status = page.text("#python-status")
        assert status == ("Python could not start: the host's Content-Security-Policy forbids WebAssembly "
                          "(its script-src needs 'wasm-unsafe-eval', see DR-002)."), status
    finally:
        served.server.shutdown()
        served.server.server_close()


def test_a_module_with_syntax_only_webkit_rejects_fails_the_boot_check_there(page, engine, dist, tmp_path):
    """What running the scenarios in every engine is for: a change Chromium alone would pass."""
    broken = tmp_path / "dist"
    shutil.copytree(dist, broken, copy_function=os.link)  # links: the copy costs no disk
    module = broken / "static" / "js" / "explorer.mjs"
    text = module.read_text(encoding="utf-8")
    module.unlink()  # the built file keeps its bytes
    module.write_text(ONE_ENGINE_SYNTAX + text, encoding="utf-8")
    served = serve(broken, "/kd/")
    try:
        page.goto(served.url + "explorer/")
        if isinstance(engine, engines.WebKitDriver):
            with pytest.raises(AssertionError, match="Python could not start"):
                assert_python_ready(page)
        else:
            assert_python_ready(page)
    finally:
        served.server.shutdown()
        served.server.server_close()
