"""What can be told about a baseline file since it was written (DR-008): the edits its digests show, what an
older format's digests cannot show, and every difference from the baseline rebuilt from its log.

The digests catch an edit, not a forgery: whoever edits a field can recompute every digest.
Only :func:`differences`, against the baseline rebuilt from the runs the file names, finds an
edit made that way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pyapp.evaluation.baseline import (
    BASELINE_FORMAT,
    CASE_KEYS,
    HEADER_FIELDS,
    case_digests,
    case_line,
    content_sha256,
    field_line,
    header_digests,
)


@dataclass(frozen=True)
class Edit:
    """A part of a baseline that no longer matches the digest written with it."""

    part: str  # "header", "case", or "digest" when only a digest was edited
    name: str  # the header field, the case id, or the digest's field
    text: str  # what was edited, as the report names it

    def to_dict(self) -> dict:
        return {"part": self.part, "name": self.name, "text": self.text}


def edits_of(baseline: dict) -> list[Edit]:
    """The parts of ``baseline`` edited since it was written, as far as its digests tell; ``[]`` when none shows.

    When the content still matches ``content_sha256``, a line digest that does not match its line was
    itself edited, and is named so. When it does not, each field and case whose line digest does not
    match is named; if all of them match, the content digest or a line together with its own digest
    was edited, and that is said.
    """
    version = baseline["format_version"]
    if version == 1:
        return []
    intact = version == BASELINE_FORMAT and baseline["content_sha256"] == content_sha256(baseline)
    found = []
    if version == BASELINE_FORMAT:
        for key, written, now in zip(HEADER_FIELDS, baseline["header_digests"], header_digests(baseline),
                                     strict=True):
            if written != now:
                found.append(Edit("digest", "header_digests", f"the digest of the header's {key} was edited")
                             if intact else Edit("header", key, f"the header's {key} was edited"))
    for row, written, now in zip(baseline["cases"], baseline["case_digests"], case_digests(baseline), strict=True):
        if written != now:
            case_id = row["case_id"]
            found.append(Edit("digest", "case_digests", f"the digest of case {case_id}'s line was edited")
                         if intact else Edit("case", case_id, f"case {case_id}'s line was edited"))
    if version == BASELINE_FORMAT and not intact and not found:
        found.append(Edit("digest", "content_sha256",
                          "the content no longer matches content_sha256, while every field and case line matches "
                          "its own digest: content_sha256 was edited, or a line together with its own digest"))
    return found


def unchecked_text(baseline: dict) -> str | None:
    """What the digests of an older format cannot show; None for a file of today's format."""
    version = baseline["format_version"]
    if version == 1:
        return "the baseline is of format 1, written before the digests, so an edit to any of its lines cannot be seen"
    if version == 2:
        return ("the baseline is of format 2, written before the digests of its header and of its whole content, so "
                "an edit to its header cannot be seen")
    return None


def differences(baseline: dict, rebuilt: dict) -> list[str]:
    """Every field and case line of ``baseline`` that differs from ``rebuilt``, the baseline its runs give now.

    Values are compared as the file writes them (0 and 0.0 differ). A digest is listed only where
    what it covers is the same in both, since a changed field or line changes its digest too.
    """
    found = []
    same_fields = []
    for key in HEADER_FIELDS:
        written, now = field_line(key, baseline[key]), field_line(key, rebuilt[key])
        same_fields.append(written == now)
        if written != now:
            found.append(f"the header's {key}: {_value(baseline[key])} in the file, {_value(rebuilt[key])} "
                         "in the baseline rebuilt from the log")
    same_cases = []
    for old, new in zip(baseline["cases"], rebuilt["cases"], strict=True):
        same_cases.append(case_line(old) == case_line(new))
        found.extend(f"case {old['case_id']}'s {key}: {_value(old[key])} in the file, {_value(new[key])} in the "
                     "baseline rebuilt from the log"
                     for key in CASE_KEYS[1:] if json.dumps(old[key]) != json.dumps(new[key]))
    if "header_digests" in baseline:
        found.extend(f"the digest of the header's {key}: {written} in the file, {now} in the baseline rebuilt "
                     "from the log"
                     for key, same, written, now in zip(HEADER_FIELDS, same_fields, baseline["header_digests"],
                                                        rebuilt["header_digests"], strict=True)
                     if same and written != now)
    if "case_digests" in baseline:
        found.extend(f"the digest of case {row['case_id']}'s line: {written} in the file, {now} in the baseline "
                     "rebuilt from the log"
                     for row, same, written, now in zip(baseline["cases"], same_cases, baseline["case_digests"],
                                                        rebuilt["case_digests"], strict=True)
                     if same and written != now)
    if "content_sha256" in baseline and all(same_fields) and all(same_cases) \
            and baseline["content_sha256"] != rebuilt["content_sha256"]:
        found.append(f"content_sha256: {baseline['content_sha256']} in the file, {rebuilt['content_sha256']} in "
                     "the baseline rebuilt from the log")
    return found


def _value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
