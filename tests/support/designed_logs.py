"""Audit logs designed for a test: runs with flips between repeats, calls with reported models, and any
JSON value as a strategy."""

from __future__ import annotations

from hypothesis import strategies as st

from eval_helpers import OTHER_SETTINGS, call, full_run

IDS = [f"C{i:02d}" for i in range(1, 21)]

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


def with_reported(entries: list[dict], model: str | None, fingerprint: str | None = None) -> list[dict]:
    return [{**e, "model_reported": model, "system_fingerprint": fingerprint} for e in entries]
