"""The supersede links between decision records: checked, and completed so that they run both ways (DR-001)."""

from __future__ import annotations

from sitegen.documents import Record
from sitegen.problems import Problem


def link_records(records: list[Record]) -> list[Problem]:
    """Check supersede links and complete them so they run both ways.

    A problem is reported against the file holding the line at fault: a record that says it
    supersedes another whose status is not Superseded gets the message, not the other record.
    """
    problems: list[Problem] = []
    by_id = {r.id: r for r in records}
    for record in records:
        for key, ids in (("supersedes", record.supersedes), ("superseded-by", record.superseded_by)):
            for other_id in ids:
                if other_id == record.id:
                    problems.append(Problem(record.source, record.key_lines[key], "a record cannot supersede itself"))
                elif other_id not in by_id:
                    message = f"supersede link to missing record {other_id}"
                    problems.append(Problem(record.source, record.key_lines[key], message))
    if problems:
        return problems
    written_successors = {r.id: r.superseded_by for r in records}
    for record in records:
        for old_id in record.supersedes:
            old = by_id[old_id]
            if record.id not in old.superseded_by:
                old.superseded_by = (*old.superseded_by, record.id)
        for new_id in record.superseded_by:
            new = by_id[new_id]
            if record.id not in new.supersedes:
                new.supersedes = (*new.supersedes, record.id)
    for record in records:
        loop = supersede_loop(record, by_id)
        if loop:
            lines = record.key_lines  # 1 for a key the file does not have
            line = lines["supersedes"] if lines["supersedes"] > 1 else lines["superseded-by"]
            problems.append(Problem(record.source, line, "supersede links form a loop: " + " → ".join(loop)))
    if problems:
        return problems
    for record in records:
        if record.status == "Superseded" and not record.superseded_by:
            message = "status is Superseded but no record supersedes it"
            problems.append(Problem(record.source, record.key_lines["status"], message))
        if record.status == "Superseded":
            continue
        for new_id in record.superseded_by:
            if new_id in written_successors[record.id]:
                message = f"superseded by {new_id} but status is {record.status}"
                problems.append(Problem(record.source, record.key_lines["superseded-by"], message))
            else:
                new = by_id[new_id]
                message = f"supersedes {record.id}, whose status is {record.status}: mark {record.id} Superseded"
                problems.append(Problem(new.source, new.key_lines["supersedes"], message))
    return problems


def supersede_loop(start: Record, by_id: dict[str, Record]) -> list[str]:
    """The ids along a chain of 'supersedes' links from ``start`` back to itself, or [] if there is none."""
    paths, seen = [[start.id]], {start.id}
    while paths:
        path = paths.pop()
        for old_id in by_id[path[-1]].supersedes:
            if old_id == start.id:
                return [*path, start.id]
            if old_id not in seen:
                seen.add(old_id)
                paths.append([*path, old_id])
    return []
