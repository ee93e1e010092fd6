"""Browser tests: the built site, served under a sub-path, boots Pyodide under its CSP."""

from __future__ import annotations

import re

import pytest

from conftest import wait_for_python
from pyapp import __version__

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["explorer/", "ai-eval/"], ids=["explorer", "ai-eval"])
def test_page_boots_python_under_csp_without_leaving_the_site(watched, site, path):
    watched.page.goto(site.url + path)
    status = wait_for_python(watched.page)
    assert re.fullmatch(rf"Python ready: Python 3\.\d+\.\d+, pyapp {re.escape(__version__)}", status), status
    assert watched.csp_violations == []
    assert watched.foreign_requests == []
    assert watched.errors == []
