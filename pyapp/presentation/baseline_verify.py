"""A baseline file against the baseline its runs give when rebuilt from the log, as
``python -m pyapp baseline --verify BASELINE LOG`` prints it (DR-008).

This is the check a digest cannot be: an editor can recompute every digest of the file, but
not make the log's runs give what the file says.
"""

from __future__ import annotations

from collections.abc import Iterable

from pyapp.evaluation.baseline import BASELINE_FORMAT, baseline_of
from pyapp.evaluation.baseline_checks import differences
from pyapp.evaluation.runs import Run


def verify_report(baseline: dict, log_runs: Iterable[Run]) -> dict:
    """``baseline`` against the baseline rebuilt from the runs of ``log_runs`` it names, in its order.

    ``ValueError`` when the log lacks one of them, or they are not runs of one configuration.
    """
    known = {run.run_id: run for run in log_runs}
    missing = [run_id for run_id in baseline["runs"] if run_id not in known]
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ValueError(f"The log holds no run {shown}, which the baseline names: give the log its runs were "
                         "written to (or the header's runs were edited).")
    rebuilt = baseline_of([known[run_id] for run_id in baseline["runs"]])
    found = differences(baseline, rebuilt)
    count = len(found)
    older = baseline["format_version"] != BASELINE_FORMAT
    return {
        "runs": baseline["runs"], "differences": found, "identical": not found,
        "format_text": (f"the file is of format {baseline['format_version']}; python -m pyapp baseline now writes "
                        f"format {BASELINE_FORMAT}, with a digest of each header field and of the whole content")
        if older else None,
        "result_text": f"result: {count} difference{'s' if count > 1 else ''}; the file is not what its runs give"
        if found else "result: identical; every header field and case line is what its runs give",
    }


def format_verify_report(report: dict) -> str:
    """The command line's text for :func:`verify_report`'s dict: a line per difference, then the result."""
    runs = report["runs"]
    lines = [f"the file against the baseline rebuilt from the log's run{'s' if len(runs) > 1 else ''} "
             f"{', '.join(runs)}"]
    if report["format_text"]:
        lines.append(report["format_text"])
    lines.extend(report["differences"])
    lines.append(report["result_text"])
    return "\n".join(lines)
