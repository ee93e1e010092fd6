"""Run the evaluation set through the audited client, one call at a time (DR-006).

Nothing about a run is stored except the audit entries of its calls: which
cases are still to ask is worked out from the log every time, so a reload or a
crash mid-run loses no answered call and ``continue`` asks only for what lacks a
graded answer.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from .audit import cancel_entry, new_entry_id
from .evalset import EVAL_SET_VERSION, case, case_prompt, case_search, cases
from .providers import Settings
from .runs import cases_to_ask, rebuild
from .walkthrough import explain


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"run-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


async def run_eval(
    run_id: str,
    fresh: bool,
    settings: Settings,
    api_key: str | None,
    *,
    read_entries: Callable[[], Awaitable[list[dict]]],
    append: Callable[[list[dict]], Awaitable[object]],
    emit: Callable[[dict], object],
    cancelled: Callable[[], bool],
    **client: object,
) -> dict:
    """Ask every case of ``run_id`` (all twenty when ``fresh``) that has no graded answer yet.

    ``client`` carries ``transport``, ``sleep`` and ``clock`` for :func:`pyapp.walkthrough.explain`.
    Stops at once on a rejected key or exhausted quota, and on cancel.
    """
    if fresh:
        todo = [c.case_id for c in cases()]
    else:
        todo = cases_to_ask(rebuild(await read_entries(), validated=True).run(run_id))
    emit({"type": "run-start", "run_id": run_id, "todo": todo})
    stopped = None
    for index, case_id in enumerate(todo):
        if cancelled():
            stopped = "cancelled"
            await append([cancel_entry(new_entry_id(), datetime.now(UTC), run_id, case_id)])
            break
        emit({"type": "case-start", "run_id": run_id, "case_id": case_id, "index": index, "total": len(todo)})
        the_case = case(case_id)
        search = {"order": the_case.order, "kind": the_case.search_kind, "lon": the_case.lon, "lat": the_case.lat,
                  "radius": the_case.radius}
        explained = await explain(
            search, settings, api_key, append=append, cancelled=cancelled, run_id=run_id, case_id=case_id,
            eval_set_version=EVAL_SET_VERSION, prompt=case_prompt(the_case), result=case_search(the_case), **client,
        )
        entry = explained.entry
        emit({"type": "case-done", "run_id": run_id, "case_id": case_id, "index": index, "total": len(todo),
              "outcome": entry["outcome"], "message": entry["message"]})
        if entry["outcome"] == "cancelled":
            stopped = "cancelled"
            await append([cancel_entry(new_entry_id(), datetime.now(UTC), run_id, case_id, entry["id"])])
            break
        if explained.outcome.stops_run:
            stopped = entry["message"]
            break
    return {"run_id": run_id, "stopped": stopped}
