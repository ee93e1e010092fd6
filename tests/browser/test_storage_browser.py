"""Browser storage going wrong: corrupt audit entries and a full quota end in clear messages (DR-005)."""

from __future__ import annotations

import json

import pytest

from browser_storage import ADD_ROWS
from eval_page import ANTHROPIC, DUMP_DB, FakeAnthropic, open_eval, wait_run_end

pytestmark = pytest.mark.browser


def test_corrupt_audit_entries_are_skipped_counted_and_kept(context, site):
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page)
    page.evaluate(ADD_ROWS, [{"json": "{not json"}, {"json": json.dumps({"type": "call", "id": "x"})}, {"other": 1}])

    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    message = page.inner_text("#runs-message")
    assert "1 run rebuilt from 20 logged calls" in message
    assert "3 unreadable audit entries were skipped (left in place)" in message
    assert page.locator("#runs tbody tr").count() == 1
    assert len(page.evaluate(DUMP_DB)) == 23, "nothing is deleted"


def test_full_storage_stops_the_run_with_a_clear_message(context, site):
    fake = FakeAnthropic()
    context.route(ANTHROPIC, fake)
    # Set before the page starts: set after the worker had stored its start-up snapshot (DR-002), the
    # override stopped no write, even with that snapshot deleted again (the cause was not found).
    cdp = context.new_cdp_session(context.new_page())
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site.origin, "quotaSize": 1000})
    page = open_eval(context, site)
    page.click("#start-run")
    status = wait_run_end(page)
    assert "storage for the site is full (QuotaExceededError), so the audit log could not be written" in status
    assert fake.asked == ["C01"], "the run stops at the first call it cannot record"
    assert page.evaluate(DUMP_DB) == []
