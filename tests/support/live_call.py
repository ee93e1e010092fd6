"""Running pyapp's async call path on CPython in tests: one case through the real ``explain``."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from pyapp.asking.walkthrough import Explained, explain
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, case_prompt, case_search
from pyapp.providers.client import HttpResponse
from pyapp.providers.settings import Settings


def run_async(coroutine):
    """Run ``coroutine`` to the end in a thread of its own: Playwright's sync API keeps a loop running in
    the main thread once a browser test has run, and ``asyncio.run`` refuses to start beside it."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def answered_by(response: HttpResponse, appended: list[dict]) -> dict:
    """The I/O of one call answered at once by ``response``, its entries appended to ``appended``."""
    async def transport(request):
        return response

    async def sleep(seconds):
        return None

    async def append(entries):
        appended.extend(entries)

    return {"transport": transport, "sleep": sleep, "clock": lambda: 0.0, "append": append}


def explain_case(response: HttpResponse, settings: Settings, key: str, case_id: str = "C01",
                 run_id: str = "run-test") -> tuple[list[dict], Explained]:
    """Ask case ``case_id`` of a run once, answered by ``response``: the entries appended and the result."""
    appended: list[dict] = []
    the_case = FIXED_SETS.case(case_id)
    explained = run_async(explain(
        {}, settings, key, run_id=run_id, case_id=case_id, eval_set_version=EVAL_SET_VERSION,
        prompt=case_prompt(the_case), result=case_search(the_case), **answered_by(response, appended),
    ))
    return appended, explained


def judge_once(response: HttpResponse, settings: Settings, key: str, run_entries: list[dict]) -> list[dict]:
    """Judge the first counted answer of ``run_entries`` once through the real judging loop, answered by
    ``response``: the entries appended."""
    from pyapp.asking.judging import answers_to_judge, judge_answers
    from pyapp.evaluation.rebuild import rebuild

    appended: list[dict] = []
    items = answers_to_judge(list(rebuild(run_entries, validated=True)))[:1]
    run_async(judge_answers(items, settings, key, "judging-once", **answered_by(response, appended)))
    return appended
