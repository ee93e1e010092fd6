"""Audit logs designed for a test: runs with flips between repeats, calls with reported models, and any
JSON value as a strategy."""

from __future__ import annotations

from hypothesis import strategies as st

from eval_helpers import OTHER_SETTINGS, call, cancel, full_run
from pyapp.evaluation.evalset import FIXED_SETS, LARGE_SET_VERSION

IDS = [f"C{i:02d}" for i in range(1, 21)]
LARGE_IDS = list(FIXED_SETS.case_ids(LARGE_SET_VERSION))

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


def entries_with_designed_flips() -> list[dict]:
    """X: three runs, C16 and C17 flip; Y: two runs, C18 and C19 flip; one run with mixed settings."""
    entries = full_run("x1", set(IDS[:16])) + full_run("x2", set(IDS[:15]) | {"C17"}, start=100)
    entries += full_run("x3", set(IDS[:16]), start=200)
    entries += full_run("y1", set(IDS[:18]), start=300, settings=OTHER_SETTINGS)
    entries += full_run("y2", set(IDS[:17]) | {"C19"}, start=400, settings=OTHER_SETTINGS)
    entries += full_run("mixed", start=500)[:19] + [call("mixed", "C20", time=520, settings=OTHER_SETTINGS)]
    return entries


def entries_for_the_matrix() -> list[dict]:
    """Designed flips in two configurations (3 and 2 runs), a run of no configuration, and in one more
    run of the first configuration every other cell: model failure, infrastructure failure, stale,
    cancelled and never asked. Plus two runs of the 80-case set."""
    entries = entries_with_designed_flips()
    entries += full_run("run-20261206-120000-c0ffee", set(FIXED_SETS.case_ids()[:12]), start=600,
                        failing={"C13": "model_failure"})[:14]
    entries += [call("run-20261206-120000-c0ffee", "C15", outcome="infrastructure_failure", time=640),
                call("run-20261206-120000-c0ffee", "C16", prompt_hash="e" * 64, time=641),
                cancel("run-20261206-120000-c0ffee", "C17", time=642)]
    entries += full_run("big1", set(LARGE_IDS[:70]), start=700, version=LARGE_SET_VERSION)
    entries += full_run("big2", set(LARGE_IDS[:60]) | set(LARGE_IDS[65:72]), start=900, version=LARGE_SET_VERSION)
    return entries


def eighty_by_ten() -> list[dict]:
    """Ten runs of the 80-case set in two configurations of five, each run grounded on fewer cases."""
    entries = []
    for i in range(10):
        entries += full_run(f"run-20261206-1200{i:02d}-aaaa{i:02d}", set(LARGE_IDS[i:]), start=100 * i,
                            version=LARGE_SET_VERSION, settings=OTHER_SETTINGS if i >= 5 else None)
    return entries


def with_reported(entries: list[dict], model: str | None, fingerprint: str | None = None) -> list[dict]:
    return [{**e, "model_reported": model, "system_fingerprint": fingerprint} for e in entries]
