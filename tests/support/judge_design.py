"""A designed log, designed people and a designed model judge, for the tests of the judge (DR-012).

Every answer's prose carries its design: ``judge-no:KEY`` makes the fake judge answer no to rubric
question KEY, ``judge-invalid``, ``judge-refuse`` and ``judge-http-400`` make it fail in that way,
and filler sentences make the prose long. The fake judge reads the prose back from the JSON string
its prompt quotes, as a real judge reads it, so the verdicts come through the whole path: prompt,
HTTP, reply parsing, audit entry, log.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from itertools import count

from eval_helpers import answer_for, at, call, full_run, rating
from pyapp.auditlog.entries import judgement_entry
from pyapp.evaluation.evalset import FIXED_SETS, case_search
from pyapp.explanation.judge import Verdict, judge_prompt
from pyapp.explanation.rubric import RUBRIC
from pyapp.providers.client import CallOutcome
from pyapp.providers.settings import Settings
from pyapp.providers.wire import Reply

JUDGE_MODEL = "judge-test-1"
JUDGE_SETTINGS = Settings("openai-compatible", JUDGE_MODEL, 1000, 0.0, "http://127.0.0.1:9/v1")
QUOTE_LINE = "The explanation to rate, as a JSON string:\n"
FILLER = " The search then goes on exactly as the trace says, one step after another."
LONG = 400  # characters: prose at least this long is "long" to the length-biased judge
_ids = count(1)


def prose_of(user: str) -> str:
    """The explanation's prose, read back from the judge's prompt."""
    return json.loads(user.split(QUOTE_LINE, 1)[1].strip())


def designed_answers(prose: str) -> dict[str, bool]:
    return {key: f"judge-no:{key}" not in prose for key in RUBRIC.keys}


def verdict_text(answers: dict[str, bool]) -> str:
    return json.dumps({key: {"answer": "yes" if yes else "no", "reason": f"Designed {'yes' if yes else 'no'}."}
                       for key, yes in answers.items()})


def designed_judge(body: dict) -> dict | tuple[int, dict]:
    """The fake judge's Chat Completions reply to ``body`` (the module doc's rules)."""
    prose = prose_of(next(m["content"] for m in body["messages"] if m["role"] == "user"))
    if "judge-http-400" in prose:
        return 400, {"error": {"message": "designed bad request", "type": "invalid_request_error"}}
    message = {"role": "assistant", "content": verdict_text(designed_answers(prose))}
    if "judge-invalid" in prose:
        message["content"] = '{"pruning": {"answer": "yes"'
    if "judge-refuse" in prose:
        message = {"role": "assistant", "content": None, "refusal": "I will not rate this."}
    return {"id": "chatcmpl-judge", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1500, "completion_tokens": 120}}


def length_biased_judge(body: dict) -> dict | tuple[int, dict]:
    """A judge that says yes to every long answer, and follows the design on the others."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    reply = designed_judge(body)
    if len(prose_of(user)) >= LONG and isinstance(reply, dict):
        reply["choices"][0]["message"]["content"] = verdict_text(dict.fromkeys(RUBRIC.keys, True))
    return reply


def designed_log(seed: int = 7, runs: tuple[str, ...] = ("run-a", "run-b"),
                 tags: dict[int, str] | None = None) -> tuple[list[dict], dict]:
    """Runs of the 20-case set whose prose carries the judge's design, rated by Ann and Bo.

    ``tags`` adds a tag to the prose of the answers at those places (0 is the first run's first case).
    Returns the entries and the design: call id -> {"judge", "Ann", "Bo"} -> answers, and "long".
    Each person agrees with the judge on most answers and differs at random on some, per question,
    so no kappa is degenerate. Every third answer is long (14 of 40); neither the people nor the
    designed judge treat them differently, the length-biased judge does.
    """
    rng = random.Random(seed)
    entries: list[dict] = []
    design: dict[str, dict] = {}
    for r, run_id in enumerate(runs):
        for i, case_id in enumerate(FIXED_SETS.case_ids()):
            judge = {key: rng.random() > 0.3 for key in RUBRIC.keys}
            long = (20 * r + i) % 3 == 0
            said = [f"judge-no:{key}" for key, yes in judge.items() if not yes] + [(tags or {}).get(20 * r + i, "")]
            prose = f"The search starts at the root in step 1. {' '.join(said).strip()}" + (FILLER * 6 if long else "")
            entry = call(run_id, case_id, answer=answer_for(case_id, prose=prose), time=100.0 * r + i)
            entries.append(entry)
            people = {}
            for person in ("Ann", "Bo"):
                given = {key: yes if rng.random() > 0.2 else not yes for key, yes in judge.items()}
                people[person] = given
                entries.append(rating(entry["id"], person, time=1000.0 + len(entries), **given))
            design[entry["id"]] = {"judge": judge, **people, "long": long, "prose": prose}
    return entries, design


def judgement(call_id: str, answers: dict[str, bool] | None, *, judging_id: str = "judging-1", time: float = 5000.0,
              model: str = JUDGE_MODEL, failure: str | None = None, error: str | None = None) -> dict:
    """A judgement entry made as the judging makes one, without a request: a verdict, a judge failure
    (``failure``, with a reply) or a request that failed (``error``)."""
    settings = Settings("openai-compatible", model, 1000, 0.0, "http://127.0.0.1:9/v1")
    prompt = judge_prompt(case_search(FIXED_SETS.case("C01")), "prose")
    reply = None if error else Reply(verdict_text(answers) if answers else "not json", "end", 1500, 120, "stop",
                                     model)
    verdict = None if error else Verdict(answers, None if answers is None else
                                         {k: "Designed." for k in answers}, failure, "designed")
    outcome = CallOutcome(400 if error else 200, reply, error, "designed error" if error else "", 800.0, 900.0, 0,
                          False)
    number = next(_ids)
    return judgement_entry(entry_id=f"j{number:06d}", time=at(time + number / 1000), call_id=call_id,
                           judging_id=judging_id, prompt=prompt, rubric_version=RUBRIC.version, settings=settings,
                           outcome=outcome, verdict=verdict)



def tabled_log(tables: Mapping[str, list[list[int]]], *, judging_id: str = "judging-1") -> list[dict]:
    """Runs of the 20-case set, with Ann's ratings and the judge's verdicts on their first n answers, such that on
    each rubric question the judge (rows) against Ann (columns) gives exactly ``tables[question]``; n is a table's
    total. Each question's cells are laid out from another answer, so the questions do not move together."""
    n = sum(map(sum, next(iter(tables.values()))))
    entries = [e for r in range(math.ceil(n / 20)) for e in full_run(f"run-{r}", start=100.0 * r)]
    calls = [e["id"] for e in entries][:n]
    judge: dict[str, dict[str, bool]] = {c: {} for c in calls}
    person: dict[str, dict[str, bool]] = {c: {} for c in calls}
    for index, key in enumerate(RUBRIC.keys):
        (a, b), (c, d) = tables[key]
        cells = [(True, True)] * a + [(True, False)] * b + [(False, True)] * c + [(False, False)] * d
        shift = 7 * index % n
        for call_id, (said, rated) in zip(calls, cells[shift:] + cells[:shift], strict=True):
            judge[call_id][key], person[call_id][key] = said, rated
    entries += [rating(c, "Ann", time=2000.0 + i, **person[c]) for i, c in enumerate(calls)]
    entries += [judgement(c, judge[c], judging_id=judging_id, time=3000.0 + i) for i, c in enumerate(calls)]
    return entries
