"""A worker that fails after boot rejects every waiting call and the page says Python stopped (DR-002).

The failure is an exception thrown inside the running worker through the browser's debugging
protocol (Playwright's worker ``evaluate``), the same kind of event a fault in the worker's own
code raises: an ``error`` event at the page's ``Worker``. Nothing in the site offers a way to
cause it.
"""

from __future__ import annotations

import pytest

from chromium import python_worker
from eval_page import ANTHROPIC, FakeAnthropic, open_eval, wait_run_end

pytestmark = pytest.mark.browser

THROW_IN_WORKER = "() => { setTimeout(() => { throw new Error('a fault in the worker'); }); }"



def test_a_crash_after_boot_rejects_the_waiting_run_and_says_to_reload(context, site):
    fake = FakeAnthropic(stall={"C01"})
    context.route(ANTHROPIC, fake)
    page = open_eval(context, site)
    page.click("#start-run")
    page.wait_for_selector("#case-status [data-case='C01'][data-state='asking']")
    assert page.is_disabled("#start-run")
    worker = python_worker(page)
    worker.evaluate(THROW_IN_WORKER)

    status = wait_run_end(page, 20_000)  # the waiting call is rejected, so the buttons come back
    assert status.startswith("The run could not go on: Python stopped")
    assert page.get_attribute("#python-status", "data-state") == "error"
    assert "Reload the page" in page.inner_text("#python-status")
    assert page.is_disabled("#cancel-run")

    page.evaluate("document.getElementById('run-status').textContent = ''")
    page.click("#start-run")  # a call after the crash is refused at once, not left waiting
    page.wait_for_selector("#run-status:has-text('Python stopped')", timeout=5_000)
    assert page.is_enabled("#start-run")
    assert fake.asked == ["C01"]
