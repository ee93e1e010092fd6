"""The judging loop (DR-012) with Anthropic faked at the transport: what is sent, what is logged, when it stops."""

from __future__ import annotations

import json

from eval_helpers import full_run
from judge_design import designed_answers, verdict_text
from live_call import run_async
from pyapp.asking.judging import TOOL_DESCRIPTION, answers_to_judge, judge_answers, prompt_characters
from pyapp.auditlog.validation import validate_entry
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.judge import JUDGE_PROMPT_VERSION, VERDICT_SCHEMA_NAME
from pyapp.providers.client import HttpResponse, NetworkError
from pyapp.providers.settings import Settings

KEY = "sk-ant-api03-JUDGEsecret0123456789"
SETTINGS = Settings("anthropic", "claude-judge", 1000, 0.0)


def tool_reply(verdict: object, stop: str = "tool_use") -> HttpResponse:
    body = {"id": "msg_j", "type": "message", "role": "assistant", "model": "claude-judge-2026",
            "content": [{"type": "tool_use", "id": "t1", "name": VERDICT_SCHEMA_NAME, "input": verdict}],
            "stop_reason": stop, "usage": {"input_tokens": 2100, "output_tokens": 140}}
    return HttpResponse(200, {}, json.dumps(body))


class Judge:
    """A fake Anthropic judge: answers each request with ``answer(number)`` (a response, or an exception)."""

    def __init__(self, answer):
        self.answer, self.sent, self.now_ms = answer, [], 0.0

    async def transport(self, request):
        self.sent.append(request)
        self.now_ms += 700
        reply = self.answer(len(self.sent))
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def sleep(self, seconds):
        self.now_ms += seconds * 1000

    def judge(self, items, cancelled=lambda: False):
        logged, events = [], []

        async def append(entries):
            logged.extend(entries)

        result = run_async(judge_answers(items, SETTINGS, KEY, "judging-t", transport=self.transport,
                                         sleep=self.sleep, clock=lambda: self.now_ms, append=append,
                                         emit=events.append, cancelled=cancelled))
        return result, logged, events


def items(count: int = 20):
    return answers_to_judge(list(rebuild(full_run("run-a"), validated=True)))[:count]


ALL_YES = json.loads(verdict_text(designed_answers("")))


def test_each_answer_is_one_request_and_one_valid_entry_linked_to_its_call():
    judge = Judge(lambda n: tool_reply(ALL_YES))
    todo = items()
    result, logged, events = judge.judge(todo)
    assert result["verdicts"] == 20 and result["failures"] == 0 and result["stopped"] is None
    assert [e["call_id"] for e in logged] == [i.call_id for i in todo]
    assert all(validate_entry(e) == [] for e in logged) and len(events) == 20
    entry = logged[0]
    assert (entry["prompt_version"], entry["prompt_hash"]) == (JUDGE_PROMPT_VERSION, todo[0].prompt().hash)
    assert (entry["input_tokens"], entry["output_tokens"], entry["answer_ms"]) == (2100, 140, 700)
    assert entry["model_reported"] == "claude-judge-2026" and entry["judging_id"] == "judging-t"
    body = json.loads(judge.sent[0].body)
    assert body["tools"][0]["name"] == VERDICT_SCHEMA_NAME and body["tools"][0]["description"] == TOOL_DESCRIPTION
    assert body["messages"][0]["content"] == todo[0].prompt().user and body["system"] == todo[0].prompt().system
    assert KEY not in json.dumps(logged)


def test_a_rejected_key_stops_the_judging_at_once():
    denied = HttpResponse(401, {}, json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                                          "message": "invalid x-api-key"}}))
    result, logged, _ = Judge(lambda n: denied).judge(items())
    assert len(logged) == 1 and logged[0]["error"] == "auth" and result["stopped"]
    assert "stopped after 1 of 20 answers" in result["message"]


def test_three_requests_in_a_row_without_a_reply_stop_it():
    result, logged, _ = Judge(lambda n: tool_reply(ALL_YES) if n == 1 else NetworkError("refused")).judge(items())
    assert len(logged) == 4 and [e["error"] for e in logged] == [None, "network", "network", "network"]
    assert "3 requests in a row got no answer" in result["stopped"]


def test_a_cut_verdict_is_a_judge_failure_and_the_judging_goes_on():
    result, logged, _ = Judge(lambda n: tool_reply(ALL_YES, "max_tokens" if n == 2 else "tool_use")).judge(items(3))
    assert [e["failure"] for e in logged] == [None, "truncated", None]
    assert logged[1]["answers"] is None and result["failures"] == 1 and result["verdicts"] == 2


def test_cancel_ends_it_before_the_next_answer():
    asked = []
    judge = Judge(lambda n: asked.append(n) or tool_reply(ALL_YES))
    result, logged, _ = judge.judge(items(), cancelled=lambda: len(asked) >= 2)
    assert len(logged) == 2 and result["stopped"] == "cancelled" and "cancelled after 2 of 20" in result["message"]


def test_the_characters_counted_before_judging_are_those_of_the_prompts_sent():
    todo = answers_to_judge(list(rebuild(full_run("run-a") + full_run("run-b", start=50.0), validated=True)))
    assert prompt_characters(todo) == sum(len(p.system) + len(p.user) for p in (i.prompt() for i in todo))
