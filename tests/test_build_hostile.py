"""The build facing hostile or careless sources (DR-001).

Every bad record fails the build with its file and line, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import test_build
from test_build import RECORD, problems_of, write_record

import build

project = test_build.project  # the small project fixture


def rewrite(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def record_text(id: str, title: str = "A decision", extra: str = "", body: str = "Text.") -> str:
    return RECORD.format(id=id, title=title, status="Accepted", body=body, extra=extra, day=1)


BAD_RECORDS = [
    ("impossible-date", lambda r: rewrite(write_record(r, "DR-003"), "2026-11-01", "2026-02-30"),
     "DR-003-thing.md:5: date must be a date of the calendar"),
    ("number-and-text-keys", lambda r: write_record(r, "DR-003", extra="1: one\nowner: me\n"),
     "DR-003-thing.md:7: unknown front matter key 'owner'"),
    ("not-utf8", lambda r: (r / "decisions" / "DR-003-x.md").write_bytes(
        record_text("DR-003", title="Caf\xe9").encode("latin-1")),
     "DR-003-x.md:3: is not UTF-8 text (byte 0xE9 on this line)"),
    ("folder-named-like-a-record", lambda r: (r / "decisions" / "DR-009-x.md").mkdir(),
     "DR-009-x.md:1: is a folder"),
    ("supersedes-itself", lambda r: write_record(r, "DR-003", status="Superseded", extra="supersedes: DR-003\n"),
     "DR-003-thing.md:6: a record cannot supersede itself"),
    ("superseded-by-itself", lambda r: write_record(r, "DR-003", status="Superseded", extra="superseded-by: DR-003\n"),
     "DR-003-thing.md:6: a record cannot supersede itself"),
    ("supersede-loop-of-two", lambda r: (
        write_record(r, "DR-003", status="Superseded", extra="supersedes: DR-004\n"),
        write_record(r, "DR-004", status="Superseded", extra="supersedes: DR-003\n")),
     "DR-003-thing.md:6: supersede links form a loop: DR-003 → DR-004 → DR-003"),
    ("supersede-loop-of-three", lambda r: (
        write_record(r, "DR-003", status="Superseded", extra="supersedes: DR-004\nsuperseded-by: DR-005\n"),
        write_record(r, "DR-004", status="Superseded", extra="supersedes: DR-005\n"),
        write_record(r, "DR-005", status="Superseded")),
     "DR-005-thing.md:1: supersede links form a loop: DR-005 → DR-003 → DR-004 → DR-005"),
    ("supersedes-an-accepted-record", lambda r: write_record(r, "DR-099", extra="supersedes: DR-001\n"),
     "DR-099-thing.md:6: supersedes DR-001, whose status is Accepted"),
    ("superseded-by-but-accepted", lambda r: write_record(r, "DR-003", extra="superseded-by: DR-002\n"),
     "DR-003-thing.md:6: superseded by DR-002 but status is Accepted"),
]


@pytest.mark.parametrize(("breakage", "expected"), [(b, e) for _, b, e in BAD_RECORDS],
                         ids=[i for i, _, _ in BAD_RECORDS])
def test_bad_record_fails_naming_file_and_line(project, breakage, expected):
    breakage(project)
    problems = problems_of(project)
    assert any(expected in p for p in problems), problems


def test_supersedes_an_accepted_record_is_not_blamed_on_that_record(project):
    write_record(project, "DR-099", extra="supersedes: DR-001\n")
    problems = problems_of(project)
    assert [p for p in problems if "DR-001-first.md" in p] == []


def test_record_starting_with_a_byte_order_mark_builds(project, tmp_path):
    (project / "decisions" / "DR-003-bom.md").write_bytes(b"\xef\xbb\xbf" + record_text("DR-003", "Marked").encode())
    files = build.build(project, tmp_path / "dist")
    assert "DR-003: Marked" in files["decisions/DR-003/index.html"].decode()
