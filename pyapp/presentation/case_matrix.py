"""Every case of every run at a glance: the case × run matrix of a log, as the page draws it and
``python -m pyapp report LOG --matrix`` prints it (DR-008).

One section per evaluation set (runs of different sets never share a case, DR-009), one row per case
of the set in its order, one column per run, the runs grouped by configuration and oldest first, as
:func:`pyapp.evaluation.configurations.group_runs` groups them, the groups in the order of their letters.
Runs and configurations are named as :mod:`pyapp.presentation.run_names` names them over the whole log, so a
configuration keeps its letter in a matrix of some runs only. A run that belongs to no configuration has a
column in a group of its own. A cell is the case's outcome in that run: its counted answer's outcome, or else
its status (``run_report``'s ``cases``, cell for cell).

A case is marked as flipped in a configuration when its counted answers there disagree: grounded in
one run, not in another. The repeat figures (:func:`pyapp.evaluation.repeats.repeat_figures`) count
flips among the cases answered in every run of the configuration only, so where a run left a case
unanswered the matrix can mark more cases than the flip rate counts.

Every cell has a letter as well as a name, so the page never tells outcomes apart by colour alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.core.vocabulary import CaseStatus, Outcome
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.own_cases import set_label
from pyapp.evaluation.repeats import verdict_table
from pyapp.evaluation.runs import CaseResult, Run
from pyapp.presentation.run_names import NO_CONFIGURATION, NO_LETTER, LogNames, log_names, oldest_first

# A cell's name, its letter and what it says, in the order the legend lists them.
CELLS = (
    (Outcome.GROUNDED, "G", "grounded"),
    (Outcome.NOT_GROUNDED, "N", "not grounded"),
    (Outcome.MODEL_FAILURE, "M", "model failure"),
    (CaseStatus.INFRA_FAILURE, "I", "infrastructure failure"),
    (CaseStatus.STALE, "S", "stale input"),
    (CaseStatus.CANCELLED, "C", "cancelled"),
    (CaseStatus.NEVER_ASKED, "-", "not asked"),
)
LETTERS = {str(name): letter for name, letter, _ in CELLS}
FLIPPED = "*"
# The most runs the page draws at once: a matrix past this width is not read at a glance.
PAGE_RUNS = 40


def cell_of(result: CaseResult) -> str:
    """The case's cell: the counted answer's outcome, or the case's status when nothing counted."""
    return str(result.outcome) if result.status == CaseStatus.GRADED else str(result.status)


def _group(runs: Sequence[Run], config_id: str | None, label: str, names: LogNames) -> dict:
    table = verdict_table(runs)
    flipping = [] if config_id is None else [
        case_id for i, case_id in enumerate(table.case_ids) if {True, False} <= set(table.column(i))]
    named = NO_CONFIGURATION if config_id is None else names.configurations[config_id]
    return {
        "configuration": config_id,
        # The head of the group's columns: its configuration's letter.
        "name": named["letter"] or NO_LETTER,
        **named,
        "label": label,
        "runs": [{"run_id": run.run_id, **names.runs[run.run_id]} for run in runs],
        "flipping": flipping,
    }


def case_matrix(runs: Sequence[Run], names: LogNames | None = None) -> dict:
    """The matrix of ``runs`` (module doc), with the legend of its cells; ``names`` are those of the whole log
    (default: of ``runs``)."""
    runs = sorted(runs, key=oldest_first)
    grouped = group_runs(runs)
    names = log_names(runs) if names is None else names
    by_id = {run.run_id: run for run in runs}
    lettered = {config_id: index for index, config_id in enumerate(names.configurations)}
    groups_by_set: dict[str, list[tuple[dict, list[Run]]]] = {}
    for group in sorted(grouped.groups, key=lambda group: lettered[group.configuration.id]):
        config = group.configuration
        found = _group(group.runs, config.id, config.label, names)
        groups_by_set.setdefault(config.eval_set_version, []).append((found, list(group.runs)))
    for run_id, reason in grouped.apart:
        run = by_id[run_id]
        found = _group([run], None, f"belongs to no configuration: {reason}", names)
        groups_by_set.setdefault(run.eval_set_version, []).append((found, [run]))
    sections = []
    for version, groups in groups_by_set.items():
        case_ids = [result.case_id for result in groups[0][1][0].cases]
        rows = []
        for index, case_id in enumerate(case_ids):
            cells = [cell_of(run.cases[index]) for _, members in groups for run in members]
            flipped = [group["configuration"] for group, _ in groups if case_id in group["flipping"]]
            rows.append({"case_id": case_id, "cells": cells, "flipped_in": flipped})
        sections.append({"eval_set_version": version, "set_label": set_label(version),
                         "groups": [group for group, _ in groups], "rows": rows})
    return {
        "legend": [{"cell": str(name), "letter": letter, "text": text} for name, letter, text in CELLS],
        "flipped": {"letter": FLIPPED, "text": "flipped between runs of one configuration"},
        "sets": sections,
    }


def page_matrix(runs: Sequence[Run], configuration: str | None = None) -> dict:
    """The matrix the page draws: of every run, or of one configuration's (by id), at most the newest
    :data:`PAGE_RUNS`, with a sentence saying which runs it shows."""
    names = log_names(runs)
    group = None if configuration is None else names.grouped.find(configuration)
    chosen = list(runs) if group is None else list(group.runs)
    newest = {run.run_id for run in sorted(chosen, key=lambda run: run.started, reverse=True)[:PAGE_RUNS]}
    shown = [run for run in chosen if run.run_id in newest]
    of = "" if group is None else f" of configuration {names.configurations[group.configuration.id]['config_name']}"
    if len(shown) < len(chosen):
        note = (f"The newest {len(shown):,} of the {len(chosen):,} runs{of}; "
                "python -m pyapp report LOG --matrix prints them all.")
    elif shown:
        note = f"The one run{of}." if len(shown) == 1 else f"All {len(shown):,} runs{of}."
    else:
        note = "No runs yet."
    return {**case_matrix(shown, names), "note": note, "configuration": configuration}


def format_case_matrix(matrix: dict) -> str:
    """The matrix as text for a terminal or a CI log: a letter per cell, the groups by their configurations'
    letters and each run's column headed by its place in its configuration."""
    legend = ", ".join(f"{item['letter']} {item['text']}" for item in matrix["legend"])
    lines = [f"cases × runs: {legend}; {matrix['flipped']['letter']} {matrix['flipped']['text']}"]
    for section in matrix["sets"]:
        groups = section["groups"]
        lines += ["", f"set {section['set_label']} ({len(section['rows'])} cases)"]
        for group in groups:
            config = f"{group['configuration']}  " if group["configuration"] else ""
            runs = ", ".join(run["label"] for run in group["runs"])
            lines.append(f"  {group['name']}  {config}{group['label']}; runs {runs}")
        heads = [[run["column"] for run in group["runs"]] for group in groups]
        titles = [[group["name"]] + [""] * (len(group["runs"]) - 1) for group in groups]
        width = max(len(text) for block in heads + titles for text in block)
        column = max(len(row["case_id"]) for row in section["rows"])
        no_marks = [False] * len(groups)
        lines.append(_matrix_line("", column, width, titles, no_marks))
        lines.append(_matrix_line("", column, width, heads, no_marks))
        for row in section["rows"]:
            cells = iter(row["cells"])
            letters = [[LETTERS[next(cells)] for _ in group["runs"]] for group in groups]
            marks = [group["configuration"] in row["flipped_in"] for group in groups]
            lines.append(_matrix_line(row["case_id"], column, width, letters, marks))
    return "\n".join(line.rstrip() for line in lines)


def _matrix_line(head: str, column: int, width: int, blocks: list[list[str]], marks: list[bool]) -> str:
    parts = [" ".join(text.ljust(width) for text in block) + (" " + FLIPPED if mark else "  ")
             for block, mark in zip(blocks, marks, strict=True)]
    return f"  {head.ljust(column)}  " + "   ".join(parts)

