"""Operations of the evaluation page's runs: the sets, the runs list, a run's detail, one case of a run, two
runs compared, and a run asked one call at a time (DR-006, DR-009)."""

from __future__ import annotations

from pyapp.browser import log_cache
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, over_the_log, sets_for
from pyapp.browser.opening_view import opening
from pyapp.browser.worker_io import ProgressLine, cancelled, clock_ms, emit, sleep, transport


@op
@over_the_log
async def evalset(set_version: str | None = None) -> dict:
    """One set as the page shows it (default: the first), and what each set can show (DR-009)."""
    from pyapp.evaluation.evalset import EVAL_SET_VERSION
    from pyapp.presentation.page_content import evalset_page

    return evalset_page(set_version or EVAL_SET_VERSION, await sets_for(set_version))


@op
@opening
@over_the_log
async def own_set() -> dict | None:
    """The visitor's own set as the set choice offers it (None while it has no case), labelled as theirs."""
    from pyapp.evaluation.own_cases import set_label
    from pyapp.presentation.guidance import set_guidance

    mine = (await log_cache.LOG.refresh()).runs().own
    if mine.name is None:
        return None
    guidance = set_guidance([mine.name], mine.sets)[0]
    return {"eval_set_version": mine.name, "cases": len(mine.cases), "label": set_label(mine.name),
            "option": f"{set_label(mine.name)} ({len(mine.cases)} cases)", "text": guidance["text"]}


@op
@opening
@over_the_log
async def eval_overview(every: bool = False) -> dict:
    """The runs list, newest first, from the log's runs index: the newest runs rated, or ``every`` one (the
    detail of a run is ``run_detail``)."""
    from pyapp.presentation.report import RUNS_RATED, rate_ticks, runs_message, runs_overview

    log = await log_cache.LOG.refresh()
    index = log.runs()
    rebuilt = index.rebuilt()
    runs = sorted(rebuilt.runs, key=lambda run: run.started, reverse=True)
    rated = len(runs) if every else min(len(runs), RUNS_RATED)
    shown = runs_overview(runs, rated)
    corrupt = log.corrupt + rebuilt.skipped
    return {"runs": shown, "rated": rated, "calls": index.run_calls, "corrupt": corrupt, "rate_ticks": rate_ticks(),
            "message": runs_message(len(shown), index.run_calls, corrupt)}


@op
@opening
@over_the_log
async def run_detail(run_id: str) -> dict:
    from pyapp.presentation.report import run_report

    return run_report((await log_cache.LOG.refresh()).runs().run(run_id))


@op
@over_the_log
async def case_detail(run_id: str, case_id: str) -> dict:
    """One case of one run, everything about it (the matrix's cells open it)."""
    from pyapp.presentation.case_view import case_view

    log = await log_cache.LOG.refresh()
    index = log.runs()
    return case_view(index.run(run_id), case_id, log.entries, lambda: index.rebuilt().runs)


@op
@over_the_log
async def compare_runs(run_a: str, run_b: str) -> dict:
    from pyapp.evaluation.configurations import group_runs
    from pyapp.presentation.run_comparison import compare_report

    index = (await log_cache.LOG.refresh()).runs()
    return compare_report(index.run(run_a), index.run(run_b), group_runs(list(index.rebuilt().runs)))


@op
async def run_eval(run_id: str | None, settings: dict, api_key: str | None, set_version: str | None = None) -> dict:
    from kdt_worker import acquire_lock

    from pyapp.asking.runner import new_run_id
    from pyapp.asking.runner import run_eval as run
    from pyapp.providers.settings import Settings

    settings = Settings.from_dict(settings)
    sets = await sets_for(set_version)
    fresh = run_id is None
    run_id = run_id or new_run_id()
    # Web Locks: a second tab cannot run the same run at the same time.
    release = await acquire_lock(f"kd-explorer-run:{run_id}")
    if release is None:
        raise RuntimeError(f"run {run_id} is already running in another tab of this browser")
    try:
        async def run_of(run_id: str):
            return (await log_cache.LOG.refresh()).runs().run(run_id)

        with ProgressLine() as line:
            return await run(run_id, fresh, settings, api_key, read_run=run_of, append=append_entries,
                             emit=emit, cancelled=cancelled, progress=line.show, transport=transport, sleep=sleep,
                             clock=clock_ms, sets=sets, **({"set_version": set_version} if set_version else {}))
    finally:
        release()
