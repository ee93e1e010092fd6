"""How a run is named wherever the pages and the command line list it: the end of its id, which tells
runs apart, and its place among its configuration's runs, oldest first (DR-008)."""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.runs import Run

SHORT_ID_CHARS = 6


def short_id(run_id: str) -> str:
    """The end of a run's id, which tells runs apart (a new run's id ends in six random hex digits)."""
    return run_id[-SHORT_ID_CHARS:]


def run_names(runs: Sequence[Run]) -> dict[str, dict]:
    """Each run's name wherever it is listed: its short id, its place among its configuration's runs
    (None for a run of no configuration), the head of its column in the matrix ("#2") and a label such as
    "a1b2c3 #2"."""
    grouped = group_runs(sorted(runs, key=lambda run: run.started))
    names = {run_id: {"short": short_id(run_id), "ordinal": None, "column": "--",
                      "label": f"{short_id(run_id)} (no configuration)"} for run_id, _ in grouped.apart}
    for group in grouped.groups:
        for ordinal, run in enumerate(group.runs, start=1):
            short = short_id(run.run_id)
            names[run.run_id] = {"short": short, "ordinal": ordinal, "column": f"#{ordinal}",
                                 "label": f"{short} #{ordinal}"}
    return names
