"""Baseline files: what runs of one configuration gave, per case, to gate later runs against (DR-008).

A baseline is JSON laid out for version control: the fields in a fixed order, a
header field per line, then one case per line, so a change shows as a changed line
in a diff. Per case it keeps the outcome in each run, in run order (a case without
a counted answer keeps its status, e.g. ``infrastructure_failure``), how many runs
grounded it, and the checks and model failures behind the other outcomes. The
header says what was measured: set and prompt versions and hash, provider, the model
requested and the models and system fingerprints the provider reported, the
configuration id, the runs, the date of their last entry (so the same log always
gives the same file), the site version, and a digest of each case's line. The digests
make an edit by hand visible (:func:`edited_cases`): re-baselining is meant to be a
deliberate act, a new file written by ``baseline``, not a changed line. A digest is no
signature: whoever edits a line can also recompute its digest, but cannot do so by
accident. Files of format 1, written before the digests, are still read.

:func:`pyapp.presentation.baseline_diff.diff_report` compares runs with a baseline: the baseline's per-run outcomes
rebuild its verdict table exactly, so the figures are those of
``compare --config`` (:func:`pyapp.evaluation.repeats.compare_tables`), and the reject rules of
:mod:`pyapp.auditlog.rules` decide.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from pyapp import __version__
from pyapp.core import strict_json
from pyapp.core.vocabulary import ANSWERED, CaseStatus, Outcome
from pyapp.evaluation.configurations import drift, group_runs
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS
from pyapp.evaluation.repeats import VerdictTable
from pyapp.evaluation.runs import Run

BASELINE_NAME = "kd-tree-explorer-baseline"
BASELINE_FORMAT = 2
READ_FORMATS = (1, BASELINE_FORMAT)  # 1: before the digests of the cases
HEADER_KEYS = (
    "eval_set_version", "prompt_version", "prompt_set_hash", "configuration", "provider", "model_requested",
    "models_reported", "system_fingerprints", "base_url_host", "temperature", "max_tokens", "runs", "date",
    "site_version", "case_digests",
)
DIGEST_CHARS = 16
CASE_KEYS = ("case_id", "outcomes", "grounded", "counted", "failing_checks", "model_failures")
OUTCOME_WORDS = (*ANSWERED, CaseStatus.STALE, CaseStatus.INFRA_FAILURE, CaseStatus.CANCELLED,
                 CaseStatus.NEVER_ASKED)
MAX_BASELINE_CHARS = 5_000_000
MAX_BASELINE_RUNS = 100
# Exit status of ``diff`` when a rule rejects: apart from 1 (an error) and 2 (a usage error).
REJECTED_STATUS = 3


def _one_configuration(runs: Sequence[Run]):
    if not runs:
        raise ValueError("a baseline needs at least one run")
    grouped = group_runs(runs)
    if grouped.apart:
        run_id, reason = grouped.apart[0]
        raise ValueError(f"run {run_id} belongs to no configuration ({reason}), so it cannot be a baseline")
    if len(grouped.groups) > 1:
        names = "; ".join(g.configuration.label for g in grouped.groups)
        raise ValueError(f"the runs are of {len(grouped.groups)} configurations ({names}); a baseline is runs "
                         "of one")
    return grouped.groups[0].configuration


def case_line(row: dict) -> str:
    """A case of a baseline as its line in the file (without the comma between lines)."""
    return json.dumps({key: row[key] for key in CASE_KEYS}, ensure_ascii=False)


def case_digest(row: dict) -> str:
    """The first :data:`DIGEST_CHARS` hex digits of the sha256 of the case's line."""
    return hashlib.sha256(case_line(row).encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def edited_cases(baseline: dict) -> list[str] | None:
    """The cases whose line no longer matches the digest the header holds; None for a file without digests."""
    digests = baseline.get("case_digests")
    if digests is None:
        return None
    return [row["case_id"] for row, digest in zip(baseline["cases"], digests, strict=True)
            if case_digest(row) != digest]


def baseline_of(runs: Sequence[Run]) -> dict:
    """The baseline of ``runs`` (repeats of one configuration, in the order given) as a dict."""
    config = _one_configuration(runs)
    reported = drift(runs)
    header = {
        "eval_set_version": config.eval_set_version,
        "prompt_version": config.prompt_version,
        "prompt_set_hash": config.prompt_set_hash,
        "configuration": config.id,
        "provider": config.provider,
        "model_requested": config.model,
        "models_reported": reported["models_reported"],
        "system_fingerprints": reported["fingerprints"],
        "base_url_host": config.base_url_host,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "runs": [r.run_id for r in runs],
        "date": max(r.last for r in runs)[:10],
        "site_version": __version__,
    }
    rows = []
    for index, case_id in enumerate(FIXED_SETS.case_ids()):
        results = [run.cases[index] for run in runs]
        outcomes = [r.outcome if r.status == CaseStatus.GRADED else r.status for r in results]
        grades = [r.grade for r in results if r.grade is not None]
        rows.append({
            "case_id": case_id,
            "outcomes": [str(o) for o in outcomes],
            "grounded": sum(1 for o in outcomes if o == Outcome.GROUNDED),
            "counted": sum(1 for o in outcomes if o in ANSWERED),
            "failing_checks": sorted({name for g in grades for name in g.failed_checks}),
            "model_failures": sorted({g.failure for g in grades if g.failure}),
        })
    header["case_digests"] = [case_digest(row) for row in rows]
    return {"format": BASELINE_NAME, "format_version": BASELINE_FORMAT, **header, "cases": rows}


def baseline_text(baseline: dict) -> str:
    """A baseline as its file: a field per line, then a case per line, keys in a fixed order."""
    lines = [f'{{"format": {json.dumps(BASELINE_NAME)}, "format_version": {BASELINE_FORMAT},']
    lines += [f"{json.dumps(key)}: {json.dumps(baseline[key], ensure_ascii=False)}," for key in HEADER_KEYS]
    lines.append('"cases": [')
    lines.append(",\n".join(case_line(row) for row in baseline["cases"]))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def parse_baseline(data: str | bytes) -> dict:
    """A baseline file checked whole: ``ValueError`` with a sentence when anything is off."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("The baseline is not UTF-8 text.") from None
    if len(data) > MAX_BASELINE_CHARS:
        raise ValueError(f"The baseline is larger than {MAX_BASELINE_CHARS:,} characters; it is not one.")
    if strict_json.nesting_exceeds(data, 4):
        raise ValueError("The baseline nests deeper than a baseline does.")
    try:
        doc = strict_json.loads(data.removeprefix("\ufeff"), 4)
    except (ValueError, RecursionError):
        raise ValueError("The baseline is not valid JSON (was it cut off or edited?).") from None
    if not isinstance(doc, dict) or doc.get("format") != BASELINE_NAME:
        raise ValueError(f'This is not a baseline file: it needs "format": "{BASELINE_NAME}".')
    version = doc.get("format_version")
    if version not in READ_FORMATS or isinstance(version, bool):
        readable = ", ".join(map(str, READ_FORMATS))
        raise ValueError(f"This baseline's format_version is not one this site reads ({readable}).")
    header_keys = HEADER_KEYS if version == BASELINE_FORMAT else HEADER_KEYS[:-1]
    expected = ("format", "format_version", *header_keys, "cases")
    if sorted(doc) != sorted(expected):
        raise ValueError(f"The baseline's fields are not {', '.join(expected)}.")
    if doc["eval_set_version"] != EVAL_SET_VERSION:
        raise ValueError(f"The baseline was made on eval set {str(doc['eval_set_version'])[:40]}; today's set is "
                         f"{EVAL_SET_VERSION}. Make a new baseline.")
    for key in header_keys:
        if not _plain(doc[key]):
            raise ValueError(f"The baseline's {key} must be a short text, a number, null or a list of short texts.")
    runs = doc["runs"]
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_BASELINE_RUNS \
            or not all(isinstance(r, str) for r in runs):
        raise ValueError(f"The baseline's runs must be a list of 1 to {MAX_BASELINE_RUNS} run ids.")
    rows = doc["cases"]
    if not isinstance(rows, list) or [r.get("case_id") if isinstance(r, dict) else None for r in rows] \
            != list(FIXED_SETS.case_ids()):
        raise ValueError(f"The baseline's cases must be the cases of {EVAL_SET_VERSION}, one each, in order.")
    for row in rows:
        _check_row(row, len(runs))
    digests = doc.get("case_digests", [])
    if version == BASELINE_FORMAT and (not isinstance(digests, list) or len(digests) != len(rows) or not all(
            len(d) == DIGEST_CHARS and set(d) <= set("0123456789abcdef") for d in digests)):
        raise ValueError(f"The baseline's case_digests must be {len(rows)} digests of {DIGEST_CHARS} hex digits, "
                         "one per case.")
    return doc


def _plain(value: object) -> bool:
    if isinstance(value, list):
        return len(value) <= MAX_BASELINE_RUNS and all(isinstance(v, str) and len(v) <= 200 for v in value)
    return value is None or (isinstance(value, str) and len(value) <= 200) or \
        (isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= 1e12)


def _check_row(row: dict, k: int) -> None:
    where = f"The baseline's case {row['case_id']}"
    if sorted(row) != sorted(CASE_KEYS):
        raise ValueError(f"{where} must have exactly the fields {', '.join(CASE_KEYS)}.")
    outcomes = row["outcomes"]
    if not isinstance(outcomes, list) or len(outcomes) != k or any(o not in OUTCOME_WORDS for o in outcomes):
        raise ValueError(f"{where} needs one outcome per run ({k}), each one of {', '.join(OUTCOME_WORDS)}.")
    grounded = sum(1 for o in outcomes if o == Outcome.GROUNDED)
    counted = sum(1 for o in outcomes if o in ANSWERED)
    if row["grounded"] != grounded or row["counted"] != counted or isinstance(row["grounded"], bool) \
            or isinstance(row["counted"], bool):
        raise ValueError(f"{where} says {str(row['grounded'])[:12]} grounded of {str(row['counted'])[:12]} "
                         f"counted, but its outcomes give {grounded} of {counted}.")
    for key in ("failing_checks", "model_failures"):
        if not isinstance(row[key], list) or not all(isinstance(v, str) and len(v) <= 64 for v in row[key]):
            raise ValueError(f"{where}'s {key} must be a list of names.")


def baseline_table(baseline: dict) -> VerdictTable:
    """The verdicts of the baseline's runs, as :func:`pyapp.evaluation.repeats.verdict_table` gives them for runs."""
    rows = tuple(
        tuple(None if row["outcomes"][i] not in ANSWERED else row["outcomes"][i] == Outcome.GROUNDED
              for row in baseline["cases"])
        for i in range(len(baseline["runs"])))
    return VerdictTable(tuple(baseline["runs"]), tuple(row["case_id"] for row in baseline["cases"]), rows)
