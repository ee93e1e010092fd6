"""Driving the explorer in the browser tests, with the providers routed at the network edge, and the
command line's trace beside it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chromium import PageWatch
from explain_samples import answer_from_prompt
from pyapp.auditlog.validation import validate_entry
from pyapp.explanation.prompt import Prompt, build_prompt
from pyapp.kdtree.search import SearchResult, search

KEY = "sk-test-SECRET-123456"
MODELS = {"anthropic": "claude-test-model", "openai": "gpt-test-model",
          "openai-compatible": "local-test-model"}
PROVIDER_ROUTES = ("https://api.anthropic.com/**", "https://api.openai.com/**")
READ_AUDIT = """async () => {
  const names = (await indexedDB.databases()).map((db) => db.name);
  if (!names.includes("kd-tree-explorer")) return [];  // opening it here would create it without its store
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open("kd-tree-explorer");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    if (!db.objectStoreNames.contains("audit")) return [];
    return await new Promise((resolve, reject) => {
      const request = db.transaction("audit").objectStore("audit").getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}"""
Reply = Callable[[object], None]
ANTHROPIC_USAGE = {"input_tokens": 5120, "output_tokens": 410}
# The hosted providers let a page read their response headers (retry-after among
# them); without Access-Control-Expose-Headers the page could not honour it.
CORS = {"access-control-allow-origin": "*", "access-control-expose-headers": "*"}
OPENAI_USAGE = {"prompt_tokens": 4980, "completion_tokens": 388, "total_tokens": 5368}


def cli_trace(order: str, kind: str, lon: str, lat: str, radius: str | None = None) -> dict:
    args = [sys.executable, "-m", "pyapp", "trace", "--order", order, "--kind", kind, "--lon", lon, "--lat", lat,
            "--json"]
    if radius:
        args += ["--radius", radius]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def map_to_screen(page, x: float, y: float) -> tuple[float, float]:
    """The viewport position of map point (``x``, ``y``)."""
    return tuple(page.evaluate("""([x, y]) => {
      const at = new DOMPoint(x, y).matrixTransform(document.getElementById("map").getScreenCTM());
      return [at.x, at.y];
    }""", [x, y]))


class Explorer:
    """The explorer page in its own context; with ``routed``, the providers answer from ``replies``.

    ``replies`` are used in order; the last one repeats for every further request.
    """

    def __init__(self, browser, site, *, routed: bool = True, **context_options) -> None:
        self.context = browser.new_context(accept_downloads=True, **context_options)
        self.watch = PageWatch(self.context, site.origin)
        self.page = self.watch.page
        self.urls: list[str] = []
        self.dialogs: list[str] = []
        self.replies: list[Reply] = []
        self.sent: list[Sent] = []
        self.context.on("request", lambda request: self.urls.append(request.url))
        self.page.on("dialog", self._dialog)
        for pattern in PROVIDER_ROUTES if routed else ():
            self.context.route(pattern, self._answer)
        self.page.goto(site.url + "explorer/")
        self.page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _answer(self, route) -> None:
        request = route.request
        self.sent.append(Sent(request.method, request.url, dict(request.headers), request.post_data or ""))
        if not self.replies:
            route.abort("failed")  # an unexpected request: the test's request count will show it
            return
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        reply(route)

    def configure(self, provider: str, key: str | None = KEY, base_url: str | None = None) -> None:
        page = self.page
        page.select_option("#provider", provider)
        if base_url is not None:
            page.fill("#base-url", base_url)
        page.fill("#model", MODELS[provider])
        page.fill("#api-key", key or "")
        page.set_checked("#remember-key", False)

    def audit(self) -> list[dict]:
        return [json.loads(row["json"]) for row in self.page.evaluate(READ_AUDIT)]

    def start(self, provider: str, replies: list[Reply], **settings) -> int:
        """Click "Explain this search"; returns the number of audit entries before the click."""
        self.configure(provider, **settings)
        self.replies[:] = replies
        self.sent.clear()
        before = len(self.audit())
        self.page.evaluate("() => { document.getElementById('explain-status').dataset.outcome = ''; }")
        self.page.click("#explain")
        return before

    def finish(self, before: int, timeout: float = 30_000) -> dict:
        """Wait for the call to end; the one new audit entry it appended."""
        self.page.wait_for_selector("#explain:not([disabled])", timeout=timeout)
        new = self.audit()[before:]
        assert [entry["type"] for entry in new] == ["call"], new
        assert validate_entry(new[0]) == []
        return new[0]

    def explain(self, provider: str, replies: list[Reply], **settings) -> dict:
        return self.finish(self.start(provider, replies, **settings))

    def shown_outcome(self) -> str:
        """The outcome the status line gives; an answered call's panel gives the same one."""
        outcome = self.page.get_attribute("#explain-status", "data-outcome")
        if self.page.is_visible("#explanation"):
            assert self.page.get_attribute("#outcome", "data-outcome") == outcome
        return outcome

    def export_text(self) -> str:
        page = self.page
        if not page.evaluate("() => document.getElementById('audit-view').open"):
            page.click("#audit-view summary")
        with page.expect_download(timeout=15_000) as download:
            page.click("#export-audit")
        return Path(download.value.path()).read_text(encoding="utf-8")

    def assert_key_nowhere(self, *, remembered: bool = False) -> None:
        """The key is in no stored entry, export, console line, URL or page text (nor localStorage unless
        remembered), and nothing on the page threw."""
        page = self.page
        assert KEY not in json.dumps(page.evaluate(READ_AUDIT))
        local = page.evaluate("() => JSON.stringify(Object.entries(localStorage))")
        assert (KEY in local) == remembered
        assert KEY not in self.export_text()
        assert [line for line in self.watch.console if KEY in line] == []
        assert [url for url in self.urls if KEY in url] == []
        assert KEY not in page.inner_text("body")
        assert self.watch.errors == []
        assert self.watch.csp_violations == []


def answered(provider: str, answer: dict) -> Reply:
    """A 200 whose answer is ``answer``, the way each provider returns structured output."""
    if provider == "anthropic":
        block = {"type": "tool_use", "id": "toolu_test", "name": "search_explanation", "input": answer}
        return fulfil(200, anthropic_message([block], "tool_use"))
    return fulfil(200, openai_completion({"content": json.dumps(answer)}, "stop"))


def faithful(page) -> dict:
    """The answer a model that read the prompt faithfully would give."""
    return answer_from_prompt(page_prompt(page).user)












@dataclass(frozen=True)
class Sent:
    method: str
    url: str
    headers: dict
    body: str


def anthropic_message(content: list, stop_reason: str) -> dict:
    return {"id": "msg_test", "type": "message", "role": "assistant", "model": MODELS["anthropic"],
            "content": content, "stop_reason": stop_reason, "stop_sequence": None, "usage": ANTHROPIC_USAGE}


def fulfil(status: int, body: object, headers: dict | None = None) -> Reply:
    text = body if isinstance(body, str) else json.dumps(body)

    def reply(route) -> None:
        route.fulfill(status=status, headers={**CORS, "content-type": "application/json", **(headers or {})},
                      body=text)

    return reply


def openai_completion(message: dict, finish_reason: str) -> dict:
    return {"id": "chatcmpl-test", "object": "chat.completion", "model": MODELS["openai"],
            "choices": [{"index": 0, "message": {"role": "assistant", **message},
                         "finish_reason": finish_reason}],
            "usage": OPENAI_USAGE}


def page_prompt(page) -> Prompt:
    return build_prompt(page_search(page))










def page_search(page) -> SearchResult:
    """The search the page shows, recomputed by pyapp from the page's inputs."""
    kind, _, radius = page.input_value("#kind").partition(":")
    return search(page.input_value("#order"), kind, float(page.input_value("#lon")),
                  float(page.input_value("#lat")), float(radius) if radius else None)


def stall(route) -> None:
    """Never answer: the request hangs until the page gives up on it."""
