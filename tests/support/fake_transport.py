"""A provider faked at the transport: the key and settings the tests ask with, and answers built from a search."""

from __future__ import annotations

import json

from explain_samples import answer_from_prompt
from live_call import run_async
from pyapp.asking.runner import run_eval
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from pyapp.evaluation.rebuild import rebuild
from pyapp.providers.client import (
    HttpResponse,
    NetworkError,
)
from pyapp.providers.settings import Settings

KEY = "sk-ant-api03-FAULTSsecret0123456789"


SETTINGS = Settings("anthropic", "claude-x", 4000, 0.0)


PROMPT_CASE = {(p.system, p.user): c.case_id for c in FIXED_SETS.cases() for p in [case_prompt(c)]}


class Provider:
    """Answers faithfully until ``dies_after`` requests, then every request fails as ``failure``."""

    def __init__(self, dies_after: int | None = None, failure: Exception | None = None, fails: tuple = ()):
        self.dies_after, self.failure, self.fails = dies_after, failure or NetworkError("refused"), set(fails)
        self.asked: list[str] = []
        self.now_ms = 0.0

    async def transport(self, request):
        body = json.loads(request.body)
        case_id = PROMPT_CASE[(body["system"], body["messages"][0]["content"])]
        self.asked.append(case_id)
        self.now_ms += 500
        if case_id in self.fails or (self.dies_after is not None and len(self.asked) > self.dies_after):
            raise self.failure
        return answer(request)

    async def sleep(self, seconds: float) -> None:
        self.now_ms += seconds * 1000

    def run(self) -> tuple[dict, list[dict], list[dict], list[tuple]]:
        logged, events, progress = [], [], []

        async def read_run(run_id):
            return rebuild(logged).run(run_id)

        async def append(entries):
            logged.extend(entries)

        result = run_async(run_eval(
            "run-faults", True, SETTINGS, KEY, read_run=read_run, append=append, emit=events.append,
            cancelled=lambda: False, progress=lambda label, state: progress.append((label, state)),
            transport=self.transport, sleep=self.sleep, clock=lambda: self.now_ms,
        ))
        return result, logged, events, progress


def answer(request) -> HttpResponse:
    body = json.loads(request.body)
    user = body["messages"][0]["content"]
    return HttpResponse(200, {}, json.dumps({
        "type": "message", "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5},
        "content": [{"type": "tool_use", "name": "search_explanation", "input": answer_from_prompt(user)}]}))


def respond_as_provider(url: str, body: str):
    reply = answer(type("Request", (), {"body": body})())
    return reply.status, reply.headers, reply.body


