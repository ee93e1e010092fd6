"""The bridge's tests each run in a thread of their own, where no event loop runs.

inspect_ai's synchronous readers and writers, called where an asyncio loop is running (the browser tests'
Playwright keeps one in the main thread for the whole session), patch asyncio for the whole process
(nest_asyncio), after which loops made by later tests are never closed. The command line never runs them
under a loop; in a fresh thread the tests call them as it does.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool:
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(pyfuncitem.obj, **args).result()
    assert not hasattr(asyncio, "_nest_patched"), "inspect_ai patched asyncio for every later test (module doc)"
    return True
