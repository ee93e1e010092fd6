"""The run or configuration a name given on the command line means, among the names
:mod:`pyapp.presentation.run_names` gives one log's runs and configurations.

A run is named by its whole id, or by any end of it that no other run's id ends with (its short id, as the
lists print it). A configuration is named by its id, its letter or its name (``A · claude-test-1``), or by a
name of one of its runs. A name that means nothing is refused with a sentence saying what was looked for
(``ValueError``); one that could mean more than one thing with a sentence naming the candidates
(:class:`AmbiguousName`, which the command line reports as a usage error).
"""

from __future__ import annotations

from pyapp.presentation.run_names import LogNames

# How many of a log's runs or configurations a refusal lists before it counts the rest.
LISTED = 8


class AmbiguousName(ValueError):
    """A name that could mean more than one run or configuration of the log."""


def _listed(items: list[str]) -> str:
    more = len(items) - LISTED
    return ", ".join(items[:LISTED]) + (f" and {more} more" if more > 0 else "") if items else "none"


def _configuration_of(names: LogNames, run_id: str) -> str | None:
    """The id of the configuration run ``run_id`` belongs to; None for a run of no configuration."""
    for group in names.grouped.groups:
        if any(run.run_id == run_id for run in group.runs):
            return group.configuration.id
    return None


def _run_said(names: LogNames, run_id: str) -> str:
    """A candidate run in a refusal: its whole id, its short id and where it stands."""
    run, config_id = names.runs[run_id], _configuration_of(names, run_id)
    where = ("no configuration" if config_id is None
             else f"{run['column']} of {names.configurations[config_id]['letter']}")
    return f"{run_id} ({run['short']}, {where})"


def find_run(names: LogNames, name: str) -> str:
    """The id of the run ``name`` means: a run's whole id, or the end of exactly one run's id."""
    if not name:
        raise ValueError("an empty name means no run")
    if name in names.runs:
        return name
    ending = [run_id for run_id in names.runs if run_id.endswith(name)]
    if len(ending) == 1:
        return ending[0]
    if ending:
        raise AmbiguousName(f"{name!r} is the end of {len(ending)} runs' ids: "
                            f"{'; '.join(_run_said(names, run_id) for run_id in ending)}; give more of the id")
    shorts = [run["short"] for run in names.runs.values()]
    raise ValueError(f"no run {name!r} in the log: name a run by its id or the end of it "
                     f"(runs: {_listed(shorts)})")


def find_configuration(names: LogNames, name: str) -> str:
    """The id of the configuration ``name`` means: a configuration's id, letter or name, the whole id of one of
    its runs, or else the end of one run's id (as :func:`find_run` reads it)."""
    if not name:
        raise ValueError("an empty name means no configuration")
    owner = _configuration_of(names, name) if name in names.runs else None
    exact = [config_id for config_id, said in names.configurations.items()
             if name in (config_id, said["letter"], said["config_name"]) or config_id == owner]
    if len(exact) > 1:
        said = "; ".join(f"{names.configurations[config_id]['config_name']} ({config_id})" for config_id in exact)
        raise AmbiguousName(f"{name!r} names {len(exact)} configurations: {said}; name one by its id")
    if exact:
        return exact[0]
    if not any(run_id.endswith(name) for run_id in names.runs):
        known = [f"{said['config_name']} ({config_id})" for config_id, said in names.configurations.items()]
        raise ValueError(f"no configuration or run {name!r} in the log: name a configuration by its letter or "
                         f"id, or by one of its runs (configurations: {_listed(known)})")
    run_id = find_run(names, name)  # refuses a name that is the end of several runs' ids, naming them
    config_id = _configuration_of(names, run_id)
    if config_id is None:
        raise ValueError(f"run {run_id} belongs to no configuration: {dict(names.grouped.apart)[run_id]}")
    return config_id
