"""Operations of the model judge (DR-012): the size of a judging before it starts, and judgings asked one call
at a time with the visitor's key, each call appended to the audit log as it ends."""

from __future__ import annotations

from pyapp.browser import log_cache
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, over_the_log
from pyapp.browser.worker_io import ProgressLine, cancelled, clock_ms, emit, sleep, transport


async def _answers(run_id: str | None) -> list:
    from pyapp.asking.judging import answers_to_judge

    log = await log_cache.LOG.refresh()
    items = answers_to_judge(list(log.runs().rebuilt()), [run_id] if run_id else None)
    if not items:
        raise ValueError("There is no counted answer to judge yet: a run needs answers that were graded.")
    return items


@op
@over_the_log
async def judging_estimate(run_id: str | None, judgings: int, max_tokens: int | None, price_in: float | None,
                           price_out: float | None) -> dict:
    """What ``judgings`` judgings of ``run_id``'s counted answers (every run's when None) send, and may cost."""
    from pyapp.asking.judging import check_judgings, prompt_characters
    from pyapp.evaluation.cost import judging_size
    from pyapp.explanation.judge import VERDICT_SCHEMA

    items = await _answers(run_id)
    times = check_judgings(judgings)
    return judging_size(len(items) * times, prompt_characters(items) * times, VERDICT_SCHEMA, max_tokens, price_in,
                        price_out)


@op
async def judge(run_id: str | None, settings: dict, api_key: str | None, judgings: int = 1) -> dict:
    """Judge ``run_id``'s counted answers (every run's when None) ``judgings`` times; stops when a judging stops."""
    from kdt_worker import acquire_lock

    from pyapp.asking.judging import check_judgings, judge_answers, new_judging_id
    from pyapp.presentation.judge_tables import judgement_said
    from pyapp.providers.settings import Settings

    settings = Settings.from_dict(settings)
    check_judgings(judgings)
    items = await _answers(run_id)
    release = await acquire_lock("kd-explorer-judging")
    if release is None:
        raise RuntimeError("a judging is already running in another tab of this browser")

    def judged(event: dict) -> None:
        emit({"type": "judged", "index": event["index"], "total": event["total"],
              "text": f"{event['run_id']} {event['case_id']}: {judgement_said(event['entry'])}"})

    results = []
    try:
        with ProgressLine("judge-progress") as line:
            for _ in range(judgings):
                result = await judge_answers(items, settings, api_key, new_judging_id(), transport=transport,
                                             sleep=sleep, clock=clock_ms, append=append_entries, emit=judged,
                                             cancelled=cancelled, progress=line.show)
                results.append(result)
                if result["stopped"] is not None:
                    break
    finally:
        release()
    return {"judging_ids": [r["judging_id"] for r in results], "stopped": results[-1]["stopped"],
            "message": " ".join(r["message"] for r in results)}


@op
@over_the_log
async def judging_usage(judging_ids: list[str], price_in: float | None, price_out: float | None) -> dict:
    """The tokens the provider reported for the calls of ``judging_ids``, and with prices their cost."""
    from pyapp.evaluation.cost import judging_usage as usage

    return usage((await log_cache.LOG.refresh()).entries, judging_ids, price_in, price_out)
