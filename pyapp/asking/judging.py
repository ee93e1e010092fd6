"""Ask a model judge about counted answers, one call at a time, each call one audit entry (DR-012).

A judging is one pass of a judge over a list of answers; its entries share a ``judging_id``.
Each call goes through the audited client (:func:`pyapp.providers.client.call`) with the
client's retries, and its entry is appended before the next call starts. The judge sees the
case's search, trace and result and the answer's prose (:func:`pyapp.explanation.judge.judge_prompt`),
never the mechanical grade or anyone's rating. A judging stops as a run does: at once on a
rejected key or exhausted quota, on cancel, and after
:data:`pyapp.asking.runner.MAX_FAILURES_IN_A_ROW` requests in a row without a reply.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pyapp.asking.runner import MAX_FAILURES_IN_A_ROW
from pyapp.auditlog.entries import Clock, judgement_entry, stamp, utc_now
from pyapp.core.formatting import counted
from pyapp.core.vocabulary import Outcome
from pyapp.evaluation.evalset import Case, case_search
from pyapp.evaluation.runs import Run
from pyapp.explanation.judge import VERDICT_SCHEMA, VERDICT_SCHEMA_NAME, JudgePrompt, judge_prompt, parse_verdict
from pyapp.explanation.rubric import RUBRIC, explanation_text
from pyapp.providers.api import build_request
from pyapp.providers.client import Progress, Transport, call, scrub_outcome
from pyapp.providers.keyguard import contains_secret, scrub_secret
from pyapp.providers.settings import Settings

TOOL_DESCRIPTION = "Record the verdict on the explanation as JSON that fits this schema."
# The most judgings of the same answers asked at once: enough to measure consistency, few enough to bound the cost.
MAX_JUDGINGS = 10


@dataclass(frozen=True)
class ToJudge:
    """One counted answer to put before the judge: its case and the prose the judge rates."""

    run_id: str
    case_id: str
    call_id: str
    case: Case
    explanation: str

    def prompt(self) -> JudgePrompt:
        return judge_prompt(case_search(self.case), self.explanation)


def new_judging_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"judging-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def check_judgings(count: object) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_JUDGINGS:
        raise ValueError(f"The number of judgings must be a whole number from 1 to {MAX_JUDGINGS}.")
    return count


def answers_to_judge(runs: Sequence[Run], run_ids: Sequence[str] | None = None) -> list[ToJudge]:
    """Every counted answer of ``runs`` (of those named in ``run_ids`` only, when given), runs in the given
    order and cases in set order. ``ValueError`` for a name that is no run."""
    if run_ids:
        known = {run.run_id for run in runs}
        unknown = [r for r in run_ids if r not in known]
        if unknown:
            raise ValueError(f"no run {unknown[0]!r} in the log")
        runs = [run for run in runs if run.run_id in set(run_ids)]
    return [ToJudge(run.run_id, r.case_id, r.entry_id, r.case, explanation_text(r.answer or ""))
            for run in runs for r in run.graded]


def prompt_characters(items: Sequence[ToJudge]) -> int:
    """The characters of every item's prompt, system and user, without building each one: a prompt is its case's
    prompt for an empty explanation with the explanation's JSON string in place of ``""``."""
    empty: dict[Case, int] = {}
    total = 0
    for item in items:
        if item.case not in empty:
            base = judge_prompt(case_search(item.case), "")
            empty[item.case] = len(base.system) + len(base.user) - len('""')
        total += empty[item.case] + len(json.dumps(item.explanation, ensure_ascii=False))
    return total


async def judge_answers(
    items: Sequence[ToJudge],
    settings: Settings,
    api_key: str | None,
    judging_id: str,
    *,
    transport: Transport,
    sleep: Callable[[float], Awaitable[object]],
    clock: Callable[[], float],
    append: Callable[[list[dict]], Awaitable[object]],
    emit: Callable[[dict], object] = lambda _: None,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[str, Progress | None], object] = lambda label, _: None,
    now: Clock = utc_now,
) -> dict:
    """Ask the judge about every item in order (module doc); returns the judging's id, how many calls gave a
    verdict, how many failed, why it stopped (None if it did not), the error class of the call it stopped on
    (``stop_error``) and the sentence to show."""
    verdicts = failures = in_a_row = 0
    stopped = None
    for index, item in enumerate(items):
        if cancelled():
            stopped = Outcome.CANCELLED
            break
        label = f"Judging {item.run_id} {item.case_id} ({index + 1} of {len(items)})"
        prompt = item.prompt()
        request = build_request(settings, prompt, api_key, VERDICT_SCHEMA, schema_name=VERDICT_SCHEMA_NAME,
                                description=TOOL_DESCRIPTION)
        outcome = await call(request, transport, sleep=sleep, clock=clock, cancelled=cancelled,
                             progress=lambda state, label=label: progress(label, state))
        progress(label, None)
        outcome = scrub_outcome(outcome, api_key)
        verdict = None if outcome.reply is None else parse_verdict(outcome.reply.text, outcome.reply.stop)
        entry_id, time = stamp(now)
        entry = judgement_entry(entry_id=entry_id, time=time, call_id=item.call_id, judging_id=judging_id,
                                prompt=prompt, rubric_version=RUBRIC.version, settings=settings,
                                outcome=outcome, verdict=verdict)
        if contains_secret(entry, api_key):
            entry = scrub_secret(entry, api_key)
        await append([entry])
        given = entry["answers"] is not None
        verdicts += given
        failures += not given
        in_a_row = 0 if outcome.reply is not None else in_a_row + 1
        emit({"type": "judged", "judging_id": judging_id, "run_id": item.run_id, "case_id": item.case_id,
              "index": index, "total": len(items), "entry": entry})
        if outcome.error == Outcome.CANCELLED:
            stopped = Outcome.CANCELLED
        elif outcome.stops_run:
            stopped = entry["message"]
        elif in_a_row >= MAX_FAILURES_IN_A_ROW:
            stopped = (f"{in_a_row} requests in a row got no answer, so the provider or the network seems to be "
                       f"down. The last one: {entry['message']}")
        if stopped is not None:
            break
    return {"judging_id": judging_id, "verdicts": verdicts, "failures": failures, "stopped": stopped,
            "stop_error": None if stopped is None else (Outcome.CANCELLED if stopped == Outcome.CANCELLED
                                                        else outcome.error),
            "message": _message(judging_id, stopped, verdicts, failures, len(items))}


def _message(judging_id: str, stopped: str | None, verdicts: int, failures: int, total: int) -> str:
    done = f"{counted(verdicts, 'verdict')} and {counted(failures, 'judge failure')}"
    if stopped == Outcome.CANCELLED:
        return f"Judging {judging_id} was cancelled after {verdicts + failures} of {total} answers: {done}."
    if stopped is not None:
        return f"Judging {judging_id} stopped after {verdicts + failures} of {total} answers ({done}): {stopped}"
    return f"Judging {judging_id} asked about all {total} answers: {done}."
