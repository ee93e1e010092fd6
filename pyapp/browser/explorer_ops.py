"""Operations of the explorer: the tree and a search as the map draws them, an explanation asked and
checked, a decision on it, and a search kept as one of the visitor's own cases (DR-005, DR-007, DR-009)."""

from __future__ import annotations

from pyapp.browser import log_cache
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, over_the_log
from pyapp.browser.worker_io import ProgressLine, cancelled, clock_ms, sleep, transport


@op
def tree_view(order: str) -> dict:
    from pyapp.presentation.explorer import tree_view as view

    return view(order)


@op
def search_view(order: str, kind: str, lon: float, lat: float, radius: float | None = None) -> dict:
    from pyapp.presentation.explorer import search_view as view

    return view(order, kind, lon, lat, radius)


@op
async def explain(search: dict, settings: dict, api_key: str | None) -> dict:
    from pyapp.asking.walkthrough import explain as explain_search
    from pyapp.providers.settings import Settings

    with ProgressLine() as line:
        explained = await explain_search(
            search, Settings.from_dict(settings), api_key, transport=transport, sleep=sleep, clock=clock_ms,
            append=append_entries, cancelled=cancelled, progress=lambda state: line.show("Asking the model", state),
        )
    return explained.to_json()


@op
async def record_decision(call_id: str, helpful: bool, note: str) -> dict:
    from pyapp.auditlog.entries import decision_entry, stamp

    entry = decision_entry(*stamp(), call_id, helpful, note)
    await append_entries([entry])
    return entry


@op
@over_the_log
async def add_own_case(search: dict) -> dict:
    """Keep ``search`` as one of the visitor's own cases (DR-009); a search already kept is not added again."""
    from pyapp.auditlog.entries import own_case_entry, stamp
    from pyapp.evaluation.own_cases import MAX_OWN_CASES

    entry = own_case_entry(*stamp(), search)
    mine = (await log_cache.LOG.refresh()).runs().own
    known = mine.case_id_of(entry["search"])
    if known is not None:
        return {"added": False, "text": f"This search is already {known} of your cases. {mine.summary()}"}
    if mine.full:
        raise ValueError(f"Your cases already hold {MAX_OWN_CASES} searches, the most a set takes; "
                         "this one was not added.")
    entry = own_case_entry(entry["id"], entry["time"], entry["search"], mine.name_with(entry["search"]))
    await append_entries([entry])
    mine = (await log_cache.LOG.refresh()).runs().own
    return {"added": True, "text": f"Added as {mine.case_id_of(entry['search'])}. {mine.summary()} "
                                   "Run them on the evaluation page."}
