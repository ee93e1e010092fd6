"""Operations of rating against the rubric, blind, and the agreement figures (DR-009)."""

from __future__ import annotations

from pyapp.browser import log_cache
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, over_the_log


@op
def rubric() -> dict:
    from pyapp.explanation.rubric import RUBRIC

    return RUBRIC.to_json()


@op
@over_the_log
async def rating_queue(run_id: str, rater: str) -> list[dict]:
    """The counted answers of ``run_id`` for ``rater`` to rate blind: no grades, no other rater's ratings."""
    from pyapp.auditlog.validation import valid_rater
    from pyapp.evaluation.rating import rating_queue as queue

    if not valid_rater(rater):
        raise ValueError("Type your name as the rater first (at most 40 characters, no line breaks).")
    log = await log_cache.LOG.refresh()
    return queue(log.runs().run(run_id), log.entries, rater)


@op
@over_the_log
async def judge_rating_queue(judge: str, judging: str, rater: str) -> dict:
    """The answers ``judge`` judged in ``judging`` that no person has rated, for ``rater`` to rate blind, in the
    order likely to validate the judge soonest (DR-012); never the judge's verdicts."""
    from pyapp.auditlog.validation import valid_rater
    from pyapp.evaluation.rating import judge_queue

    if not valid_rater(rater):
        raise ValueError("Type your name as the rater first (at most 40 characters, no line breaks).")
    log = await log_cache.LOG.refresh()
    return judge_queue(list(log.runs().rebuilt()), log.entries, rater, judge, judging or None)


@op
async def record_rating(call_id: str, rater: str, answers: dict, note: str = "") -> dict:
    from pyapp.auditlog.entries import rating_entry, stamp
    from pyapp.explanation.rubric import RUBRIC

    entry = rating_entry(*stamp(), call_id, rater, RUBRIC.version, answers, note)
    await append_entries([entry])
    return entry


@op
@over_the_log
async def agreement(judgings: list[str] | None = None) -> dict:
    """The agreement figures of the whole log as the page's tables, and the text ``python -m pyapp agreement``
    prints for them; each judge's rest on its judging in ``judgings``, if one is (``--judging``)."""
    from pyapp.evaluation.agreement import agreement_report
    from pyapp.presentation.agreement_tables import agreement_tables
    from pyapp.presentation.agreement_text import format_agreement_report

    log = await log_cache.LOG.refresh()
    report = agreement_report(log.entries, list(log.runs().rebuilt()), judgings or ())
    return {"report": report, "tables": agreement_tables(report), "text": format_agreement_report(report)}
