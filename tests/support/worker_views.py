"""The bridge driven as the worker drives it, on CPython: operations handled, the store filled, the views read."""

from __future__ import annotations

import json
import types

from live_call import run_async
from pyapp import browser
from pyapp.browser import log_cache, opening_view

# Records a log can hold that are no entry: each is skipped and counted, and none stops the page.
CORRUPT_RECORDS = [
    "{not json",
    "[" * 10_000 + "]" * 10_000,  # deep enough to end Pyodide's parser if it were parsed
    json.dumps({"type": "call", "id": "x"}),
    '{"format": 1, "format": 1}',
    '{"format": NaN}',
    '{"format": ' + "9" * 5_000 + "}",
]


def counting(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` with a wrapper that notes each call's first argument."""
    calls, original = [], getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def fresh_views(monkeypatch, run_ids: list[str]) -> dict:
    """The same, from a worker that has read nothing yet (a new tab)."""
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())
    monkeypatch.setattr(opening_view, "VIEW", opening_view.OpeningView())
    log_cache.grader.cache_clear()
    return views(run_ids)


def handle(name: str, file: bytes | None = None, **args) -> dict:
    """Operation ``name`` as the worker calls it: its answer, then ``after_answer``. ``file``: the bytes the
    page sends with the call, as the worker hands them over (a Uint8Array, with ``to_bytes``)."""
    sent = None if file is None else types.SimpleNamespace(to_bytes=lambda: file)
    answer = json.loads(run_async(browser.handle(name, json.dumps(args), sent)))
    browser.after_answer()
    assert answer["ok"], answer
    return answer["value"]


def store(worker, entries: list[dict]) -> None:
    worker.stored.extend(json.dumps(entry) for entry in entries)


def views(run_ids: list[str]) -> dict:
    """Everything the evaluation page reads from the log, as the worker answers it."""
    return {"overview": handle("eval_overview"), "details": [handle("run_detail", run_id=r) for r in run_ids],
            "configurations": handle("configurations"), "audit": handle("audit_log"), "plans": handle("plans")}
