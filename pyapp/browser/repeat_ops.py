"""Operations on repeated runs (DR-008): configurations and their comparison, the matrix of cases against runs,
plans, baselines, and what runs cost."""

from __future__ import annotations

from pyapp.browser import log_cache
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, over_the_log, read_entries, sets_for
from pyapp.browser.opening_view import opening


@op
@opening
@over_the_log
async def configurations() -> dict:
    """The runs grouped by configuration, with the figures of repeated runs (DR-008)."""
    from pyapp.presentation.repeat_report import configurations_report

    return configurations_report(list((await log_cache.LOG.refresh()).runs().rebuilt().runs))


@op
@opening
@over_the_log
async def case_matrix(configuration: str | None = None) -> dict:
    """Every case against the newest runs, of the log or of one configuration (DR-008)."""
    from pyapp.presentation.case_matrix import page_matrix

    return page_matrix(list((await log_cache.LOG.refresh()).runs().rebuilt().runs), configuration)


@op
@over_the_log
async def compare_configurations(x: str, y: str) -> dict:
    """Configuration ``y`` against ``x``, as ``python -m pyapp compare --config X --config Y`` prints it."""
    from pyapp.evaluation.configurations import group_runs
    from pyapp.evaluation.plans import plans_in
    from pyapp.presentation.repeat_report import configuration_compare_report

    log = await log_cache.LOG.refresh()
    return configuration_compare_report(group_runs(list(log.runs().rebuilt().runs)), x, y, plans_in(log.entries))


@op
@opening
@over_the_log
async def plans() -> list[dict]:
    """The registered plans, newest first, with their times as a person reads them."""
    from pyapp.evaluation.plans import plans_in, when_text

    return [{**plan, "when": when_text(plan["time"])}
            for plan in reversed(plans_in((await log_cache.LOG.refresh()).entries))]


@op
@over_the_log
async def register_plan(x: str, y: str, rule: str, note: str, settings: dict, set_version: str | None = None) -> dict:
    """Append a plan comparing ``y`` against ``x``; either may be ``"form"``: the settings and set chosen now."""
    from pyapp.auditlog.entries import plan_entry, stamp
    from pyapp.evaluation.configurations import configuration_for
    from pyapp.evaluation.evalset import EVAL_SET_VERSION
    from pyapp.providers.settings import Settings

    sets = await sets_for(set_version)

    def named(name: str) -> str:
        if name != "form":
            return name
        return configuration_for(Settings.from_dict(settings).to_dict(), set_version or EVAL_SET_VERSION, sets).id

    entry = plan_entry(*stamp(), named(x), named(y), rule, note)
    await append_entries([entry])
    return entry


def _run_ids(run_ids: object) -> list[str]:
    if not isinstance(run_ids, list) or not run_ids or not all(isinstance(r, str) for r in run_ids):
        raise ValueError("Choose at least one run.")
    return run_ids


@op
@over_the_log
async def baseline_file(run_ids: list[str]) -> str:
    """The baseline file of ``run_ids``, byte for byte what ``python -m pyapp baseline`` writes."""
    from pyapp.evaluation.baseline import baseline_of, baseline_text

    index = (await log_cache.LOG.refresh()).runs()
    return baseline_text(baseline_of([index.run(run_id) for run_id in _run_ids(run_ids)]))


@op
@over_the_log
async def baseline_diff(baseline: str, run_ids: list[str], rules: list[str] | None = None,
                        accept_edited: bool = False) -> dict:
    """``run_ids`` against a loaded baseline file, as ``python -m pyapp diff`` prints it."""
    from pyapp.auditlog.rules import NO_NEW_FAIL, parse_rule
    from pyapp.evaluation.baseline import parse_baseline
    from pyapp.presentation.baseline_diff import diff_report

    parsed = [parse_rule(text) for text in rules or [NO_NEW_FAIL]]
    index = (await log_cache.LOG.refresh()).runs()
    return diff_report(parse_baseline(baseline), [index.run(run_id) for run_id in _run_ids(run_ids)], parsed,
                       accept_edited is True)


@op
@over_the_log
async def run_size_estimate(runs: int, max_tokens: int | None = None, price_in: float | None = None,
                            price_out: float | None = None, set_version: str | None = None) -> dict:
    """What ``runs`` runs of a set send, and with the visitor's prices their estimated cost."""
    from pyapp.evaluation.cost import run_size
    from pyapp.evaluation.evalset import EVAL_SET_VERSION

    return run_size(runs, max_tokens, price_in, price_out, set_version or EVAL_SET_VERSION, await sets_for(set_version))


@op
@over_the_log
async def run_usage(run_ids: list[str], price_in: float | None = None, price_out: float | None = None) -> dict:
    """The tokens the provider reported for the calls of ``run_ids``, and with prices their cost."""
    from pyapp.evaluation.cost import actual_usage

    entries, _ = await read_entries()
    return actual_usage(entries, _run_ids(run_ids), price_in, price_out)
