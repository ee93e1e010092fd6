"""How runs and configurations are named wherever the pages and the command line list them (DR-008).

A run is named by the end of its id, which tells runs apart, and its place among its configuration's runs,
oldest first. A configuration is named by a letter and its model (``A · claude-test-1``): A, B, … Z, AA,
AB, … in the order of the configurations' first runs, oldest first, over the whole log, so that one
configuration has one letter in every view of that log, even in a view of that configuration alone.
:mod:`pyapp.presentation.name_lookup` reads these names back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyapp.evaluation.configurations import Configuration, Grouped, group_runs
from pyapp.evaluation.runs import Run

SHORT_ID_CHARS = 6
# The name of a group of runs that belongs to no configuration, in the matrix where a letter would be, and what
# a configuration's names add to such a group.
NO_LETTER = "--"
NO_CONFIGURATION = {"letter": None, "config_name": None}


def short_id(run_id: str) -> str:
    """The end of a run's id, which tells runs apart (a new run's id ends in six random hex digits)."""
    return run_id[-SHORT_ID_CHARS:]


def oldest_first(run: Run) -> tuple[str, str]:
    """The sort key of runs in the order their names are given: by start, then by id (as a rebuild orders them)."""
    return run.started, run.run_id


def letter(index: int) -> str:
    """The letter of the configuration at ``index`` (from 0): A, B, ..., Z, AA, AB, ..."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def configuration_name(letter: str, configuration: Configuration) -> str:
    """A configuration's name for a person: its letter and its model, ``A · claude-test-1``."""
    return f"{letter} · {configuration.model}"


def configuration_names(grouped: Grouped) -> dict[str, dict]:
    """Each configuration's names by its id: ``letter`` and ``config_name``, the letters in the order of the
    configurations' first runs, oldest first, whatever order ``grouped`` was built in. ``grouped`` must hold
    every run of the log."""
    first_runs = sorted(grouped.groups, key=lambda group: min(oldest_first(run) for run in group.runs))
    names = {}
    for index, group in enumerate(first_runs):
        found = letter(index)
        names[group.configuration.id] = {"letter": found, "config_name": configuration_name(found, group.configuration)}
    return names


@dataclass(frozen=True)
class LogNames:
    """Every name the runs and configurations of one log are given, by id: ``runs`` oldest first (the names
    :func:`run_names` gives), ``configurations`` in letter order (:func:`configuration_names`)."""

    grouped: Grouped
    runs: Mapping[str, dict]
    configurations: Mapping[str, dict]


def log_names(runs: Sequence[Run]) -> LogNames:
    """The names of ``runs``, every run of one log (module doc)."""
    grouped = group_runs(sorted(runs, key=oldest_first))
    names = {run_id: {"short": short_id(run_id), "ordinal": None, "column": NO_LETTER,
                      "label": f"{short_id(run_id)} (no configuration)"} for run_id, _ in grouped.apart}
    for group in grouped.groups:
        for ordinal, run in enumerate(group.runs, start=1):
            short = short_id(run.run_id)
            names[run.run_id] = {"short": short, "ordinal": ordinal, "column": f"#{ordinal}",
                                 "label": f"{short} #{ordinal}"}
    age = {run.run_id: oldest_first(run) for run in runs}
    return LogNames(grouped, {run_id: names[run_id] for run_id in sorted(names, key=age.__getitem__)},
                    configuration_names(grouped))


def run_names(runs: Sequence[Run]) -> dict[str, dict]:
    """Each run's name wherever it is listed: its short id, its place among its configuration's runs
    (None for a run of no configuration), the head of its column in the matrix ("#2") and a label such as
    "a1b2c3 #2"."""
    return dict(log_names(runs).runs)
