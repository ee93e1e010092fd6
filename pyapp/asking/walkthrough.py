"""One AI walkthrough of one search: prompt, call, grade, audit entry (DR-005).

Every input and output that touches the browser (the HTTP transport, sleeping,
the clock, the audit store) is passed in, so the page, the evaluation runner and
the tests all run this same function.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pyapp.auditlog.entries import Clock, call_entry, stamp, stored_answer, ungraded_outcome, utc_now
from pyapp.explanation.checks import facts_for
from pyapp.explanation.grading import Grade, grade_answer
from pyapp.explanation.prompt import Prompt, build_prompt
from pyapp.explanation.schema import load_schema
from pyapp.kdtree.search import SearchResult, search
from pyapp.providers.api import build_request
from pyapp.providers.client import CallOutcome, Progress, Transport, call, scrub_outcome
from pyapp.providers.keyguard import contains_secret, scrub_secret
from pyapp.providers.settings import Settings


@dataclass(frozen=True)
class Explained:
    """What one call left behind: the audit entry (already stored) and, for an answer, its grade."""

    entry: dict
    grade: Grade | None
    outcome: CallOutcome

    def to_json(self) -> dict:
        return {
            "entry": self.entry,
            "grade": None if self.grade is None else self.grade.to_json(),
            "claims": None if self.grade is None else self.grade.claims,
            "walkthrough": None if self.grade is None else self.grade.walkthrough,
            "stops_run": self.outcome.stops_run,
        }


def search_of(args: dict) -> SearchResult:
    return search(args["order"], args["kind"], args["lon"], args["lat"], args.get("radius"))


async def explain(
    search_args: dict,
    settings: Settings,
    api_key: str | None,
    *,
    transport: Transport,
    sleep: Callable[[float], Awaitable[object]],
    clock: Callable[[], float],
    append: Callable[[list[dict]], Awaitable[object]],
    cancelled: Callable[[], bool] = lambda: False,
    run_id: str | None = None,
    case_id: str | None = None,
    eval_set_version: str | None = None,
    prompt: Prompt | None = None,
    result: SearchResult | None = None,
    progress: Callable[[Progress], object] = lambda _: None,
    now: Clock = utc_now,
) -> Explained:
    """Ask for an explanation of one search, grade it, and append its audit entry before returning.

    ``clock`` times the call in milliseconds; ``now`` stamps its entry (the wall clock unless a test passes one).
    """
    result = result or search_of(search_args)
    prompt = prompt or build_prompt(result)
    request = build_request(settings, prompt, api_key, load_schema())
    outcome = await call(request, transport, sleep=sleep, clock=clock, cancelled=cancelled, progress=progress)
    # A reply that echoes the key is logged and graded without it: one entry per call, never the key (DR-005).
    outcome = scrub_outcome(outcome, api_key)
    grade = None
    outcome_class = ungraded_outcome(outcome)
    if outcome_class is None:
        # Grade the text the log keeps, so every rebuild gives this same grade (DR-006).
        grade = grade_answer(stored_answer(outcome.reply.text), outcome.reply.stop, facts_for(result, prompt))
        outcome_class = grade.outcome
    entry_id, time = stamp(now)
    entry = call_entry(
        entry_id=entry_id,
        time=time,
        run_id=run_id,
        case_id=case_id,
        eval_set_version=eval_set_version,
        prompt=prompt,
        settings=settings,
        outcome=outcome,
        grade_outcome=outcome_class,
        failure=None if grade is None else (grade.detail or None),
        search=None if run_id else {**search_args, "radius": search_args.get("radius")},
    )
    if contains_secret(entry, api_key):  # any other field, e.g. a provider's stop reason
        entry = scrub_secret(entry, api_key)
    await append([entry])
    return Explained(entry, grade, outcome)
