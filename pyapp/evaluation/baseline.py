"""Baseline files: what runs of one configuration gave, per case, to gate later runs against (DR-008).

A baseline is JSON laid out for version control: the fields in a fixed order, a
header field per line, then one case per line, so a change shows as a changed line
in a diff. Per case it keeps the outcome in each run, in run order (a case without
a counted answer keeps its status, e.g. ``infrastructure_failure``), how many runs
grounded it, and the checks and model failures behind the other outcomes. The
header says what was measured: set and prompt versions and hash, provider, the model
requested and the models and system fingerprints the provider reported, the
configuration id, the runs, the date of their last entry (so the same log always
gives the same file) and the site version.

Three digests follow those fields: one of each header field's line, one of each case's
line, and ``content_sha256``, the sha256 of the whole content (the format, every header
field and every case) in a canonical form. The whole-content digest is what tells that
the file is as written; the line digests name what was edited
(:func:`pyapp.evaluation.baseline_checks.edits_of`). Re-baselining is meant to be a
deliberate act, a new file written by ``baseline``, not a changed line. A digest is no
signature: whoever edits a line can recompute every digest. Only rebuilding the
baseline from the log its runs are in (``baseline --verify``,
:func:`pyapp.evaluation.baseline_checks.differences`) finds such an edit. Files of format 1
(no digests) and 2 (digests of the cases only) are still read; what their digests
cannot show is said (:func:`pyapp.evaluation.baseline_checks.unchecked_text`).

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
BASELINE_FORMAT = 3
# 1: before any digest; 2: with the digests of the cases only.
READ_FORMATS = (1, 2, BASELINE_FORMAT)
# What the runs gave: the header's content, each field a line.
HEADER_FIELDS = (
    "eval_set_version", "prompt_version", "prompt_set_hash", "configuration", "provider", "model_requested",
    "models_reported", "system_fingerprints", "base_url_host", "temperature", "max_tokens", "runs", "date",
    "site_version",
)
DIGEST_KEYS = ("header_digests", "case_digests", "content_sha256")
HEADER_KEYS = (*HEADER_FIELDS, *DIGEST_KEYS)
_HEADER_KEYS_OF = {1: HEADER_FIELDS, 2: (*HEADER_FIELDS, "case_digests"), BASELINE_FORMAT: HEADER_KEYS}
DIGEST_CHARS = 16
CASE_KEYS = ("case_id", "outcomes", "grounded", "counted", "failing_checks", "model_failures")
OUTCOME_WORDS = (*ANSWERED, CaseStatus.STALE, CaseStatus.INFRA_FAILURE, CaseStatus.CANCELLED,
                 CaseStatus.NEVER_ASKED)
MAX_BASELINE_CHARS = 5_000_000
MAX_BASELINE_RUNS = 100
_HEX = set("0123456789abcdef")


def _one_configuration(runs: Sequence[Run]):
    if not runs:
        raise ValueError("a baseline needs at least one run")
    if len({r.run_id for r in runs}) != len(runs):
        raise ValueError("a baseline's runs must be different runs; one is named twice")
    grouped = group_runs(runs)
    if grouped.apart:
        run_id, reason = grouped.apart[0]
        raise ValueError(f"run {run_id} belongs to no configuration ({reason}), so it cannot be a baseline")
    if len(grouped.groups) > 1:
        names = "; ".join(g.configuration.label for g in grouped.groups)
        raise ValueError(f"the runs are of {len(grouped.groups)} configurations ({names}); a baseline is runs "
                         "of one")
    return grouped.groups[0].configuration


def field_line(key: str, value: object) -> str:
    """A header field of a baseline as its line in the file (without the comma after it)."""
    return f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"


def case_line(row: dict) -> str:
    """A case of a baseline as its line in the file (without the comma between lines)."""
    return json.dumps({key: row[key] for key in CASE_KEYS}, ensure_ascii=False)


def line_digest(line: str) -> str:
    """The first :data:`DIGEST_CHARS` hex digits of the sha256 of a line of the file."""
    return hashlib.sha256(_utf8(line)).hexdigest()[:DIGEST_CHARS]


def header_digests(baseline: dict) -> list[str]:
    """The digest of each header field's line, in the order of :data:`HEADER_FIELDS`."""
    return [line_digest(field_line(key, baseline[key])) for key in HEADER_FIELDS]


def case_digests(baseline: dict) -> list[str]:
    """The digest of each case's line, in the order of the cases."""
    return [line_digest(case_line(row)) for row in baseline["cases"]]


def content_sha256(baseline: dict) -> str:
    """The sha256 (64 hex digits) of the baseline's content in its canonical form.

    The content is the format and its version, every header field and every case; the
    canonical form is that as JSON with the keys sorted, no spaces and text as UTF-8. The
    digests are left out: they follow from the content. How the file is laid out does not
    change it, so only a changed value does.
    """
    content = {key: baseline[key] for key in ("format", "format_version", *HEADER_FIELDS)}
    content["cases"] = [{key: row[key] for key in CASE_KEYS} for row in baseline["cases"]]
    return hashlib.sha256(_utf8(json.dumps(content, ensure_ascii=False, sort_keys=True,
                                           separators=(",", ":")))).hexdigest()


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("The baseline holds a lone surrogate (a \\ud800 to \\udfff escape alone), which is not "
                         "text.") from None


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
    baseline = {"format": BASELINE_NAME, "format_version": BASELINE_FORMAT, **header, "cases": rows}
    return {**baseline, "header_digests": header_digests(baseline), "case_digests": case_digests(baseline),
            "content_sha256": content_sha256(baseline)}


def baseline_text(baseline: dict) -> str:
    """A baseline as its file: a field per line, then a case per line, keys in a fixed order.

    The file has the format and the header fields the baseline has: a baseline read from an
    older file is written in that file's format.
    """
    version = baseline["format_version"]
    lines = [f'{{"format": {json.dumps(BASELINE_NAME)}, "format_version": {json.dumps(version)},']
    lines += [field_line(key, baseline[key]) + "," for key in _HEADER_KEYS_OF[version]]
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
    header_keys = _HEADER_KEYS_OF[version]
    expected = ("format", "format_version", *header_keys, "cases")
    if sorted(doc) != sorted(expected):
        missing = [key for key in expected if key not in doc]
        extra = sorted(key[:40] for key in doc if key not in expected)[:5]
        raise ValueError(f"The baseline's fields are not those of format {version}: "
                         + "; ".join(([f"it lacks {', '.join(missing)}"] if missing else [])
                                     + ([f"it has {', '.join(extra)} besides"] if extra else [])) + ".")
    for key in header_keys:
        if not _plain(doc[key]):
            raise ValueError(f"The baseline's {key} must be a short text, a number, null or a list of short texts.")
    _check_digests(doc, "header_digests", len(HEADER_FIELDS), f"one per field from {HEADER_FIELDS[0]} to "
                   f"{HEADER_FIELDS[-1]}")
    if doc["eval_set_version"] != EVAL_SET_VERSION:
        said = str(doc["eval_set_version"])[:40]
        if "header_digests" in doc and doc["header_digests"][0] != line_digest(
                field_line("eval_set_version", doc["eval_set_version"])):
            raise ValueError(f"The header's eval_set_version was edited: it says {said}, which its digest does not "
                             f"match, and today's set is {EVAL_SET_VERSION}. Make a new baseline with python -m pyapp "
                             "baseline.")
        raise ValueError(f"The baseline was made on eval set {said}; today's set is {EVAL_SET_VERSION}. Make a new "
                         "baseline.")
    runs = doc["runs"]
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_BASELINE_RUNS \
            or not all(isinstance(r, str) for r in runs):
        raise ValueError(f"The baseline's runs must be a list of 1 to {MAX_BASELINE_RUNS} run ids.")
    if len(set(runs)) != len(runs):
        twice = next(r for r in runs if runs.count(r) > 1)[:60]
        raise ValueError(f"The baseline names run {twice} twice; its runs must be different runs.")
    rows = doc["cases"]
    if not isinstance(rows, list) or [r.get("case_id") if isinstance(r, dict) else None for r in rows] \
            != list(FIXED_SETS.case_ids()):
        raise ValueError(f"The baseline's cases must be the cases of {EVAL_SET_VERSION}, one each, in order.")
    for row in rows:
        _check_row(row, len(runs))
    _check_digests(doc, "case_digests", len(rows), "one per case")
    whole = doc.get("content_sha256", "0" * 64)
    if not isinstance(whole, str) or len(whole) != 64 or not set(whole) <= _HEX:
        raise ValueError("The baseline's content_sha256 must be 64 hex digits.")
    _utf8(json.dumps(doc, ensure_ascii=False))
    return doc


def _check_digests(doc: dict, key: str, count: int, which: str) -> None:
    digests = doc.get(key)
    if key in doc and (not isinstance(digests, list) or len(digests) != count or not all(
            isinstance(d, str) and len(d) == DIGEST_CHARS and set(d) <= _HEX for d in digests)):
        raise ValueError(f"The baseline's {key} must be {count} digests of {DIGEST_CHARS} hex digits, {which}.")


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
