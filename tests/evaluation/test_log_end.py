"""Where a write left a JSON-lines log unfinished, found from its bytes alone (DR-008)."""

from __future__ import annotations

import io

import pytest

from eval_helpers import decision, full_run
from pyapp.evaluation.export import export_json, log_line
from pyapp.evaluation.log_end import UnfinishedEnd, ends_whole, unfinished_end

A, B = (log_line(e).encode() for e in full_run("run-1")[:2])
EXPORT = export_json(full_run("run-1")[:2]).encode()
NOTE = log_line(decision("e000001", True, "Selkeä")).encode()  # a character of two bytes


@pytest.mark.parametrize("data, end", [
    (A + B, None),
    (b"", None),
    (b" \n\n", None),
    (A + B + b"\n \n", None),
    (A.replace(b"\n", b"\r\n") + B.replace(b"\n", b"\r\n"), None),
    (b"\xef\xbb\xbf" + A + B, None),
    (A + B[:-1], UnfinishedEnd(2, len(A), cut=False)),
    (A + B[:-1] + b"  ", UnfinishedEnd(2, len(A), cut=False)),
    (A + B + b"  ", UnfinishedEnd(2, len(A), cut=False)),
    (A[:-1], UnfinishedEnd(1, 0, cut=False)),
    (b"\xef\xbb\xbf" + A[:-1], UnfinishedEnd(1, 0, cut=False)),
    (A + B[:40], UnfinishedEnd(2, len(A), cut=True)),
    (A + B[:12], UnfinishedEnd(2, len(A), cut=True)),
    (A + B[:1], UnfinishedEnd(2, len(A), cut=True)),
    (A + B[:40] + b"\n", UnfinishedEnd(2, len(A), cut=True)),
    (A + B[:40] + b"\0" * 300, UnfinishedEnd(2, len(A), cut=True)),
    (A + b"\0" * 300, UnfinishedEnd(2, len(A), cut=True)),
    (A + NOTE[:NOTE.index("ä".encode()) + 1], UnfinishedEnd(2, len(A), cut=True)),
    (A + b"\n\n" + B[:40], UnfinishedEnd(4, len(A) + 2, cut=True)),
    (A[:40], UnfinishedEnd(1, 0, cut=True)),
    (b"not json\n" + A + B[:40], None),
    (A + b"not json\n" + B, None),
    (A + B.replace(b'"type":"call"', b'"type":"call","type":"call"'), None),
    (EXPORT, None),
    (EXPORT[:-40], None),
    (EXPORT.replace(b"\n", b""), None),
    (EXPORT.replace(b"\n", b"")[:-1], None),
], ids=["whole", "empty", "blank", "blank-lines-after", "crlf", "byte-order-mark", "no-line-break",
        "no-line-break-then-spaces", "spaces-after-the-line-break", "only-line-no-line-break",
        "byte-order-mark-no-line-break", "cut-mid-string",
        "cut-after-a-comma", "cut-after-the-first-byte", "cut-then-a-line-break", "cut-then-zeros", "zeros",
        "cut-mid-character", "cut-after-blank-lines", "only-line-cut", "first-line-not-an-entry",
        "bad-middle-line", "key-twice-is-whole", "export", "export-cut", "export-on-one-line",
        "export-on-one-line-cut"])
def test_the_unfinished_end_is_the_last_line_and_only_it(data, end):
    assert unfinished_end(data) == end


def _ends(data: bytes) -> bool:
    handle = io.BytesIO(data)
    told = ends_whole(handle)
    assert handle.tell() == 0
    return told


def test_a_log_is_told_whole_from_its_first_and_last_lines_and_never_wrongly():
    lines = [log_line(e).encode() for e in full_run("ends")]
    whole = b"".join(lines)
    long_last = lines[-1].replace(b'"message":""', b'"message":"' + b"x" * 200_000 + b'"')
    cases = {
        "whole": (whole, True),
        "one entry": (lines[0], True),
        "a byte order mark": (b"\xef\xbb\xbf" + whole, True),
        "blank lines at the end": (whole + b"\n  \n", True),
        "a last line longer than a block": (whole + long_last, True),
        "cut": (whole + lines[0][:50], False),
        "no last line break": (whole.rstrip(b"\n"), False),
        "blank lines first": (b"\n" + whole, False),
        "an export": (b'{\n  "format": "kd-tree-explorer-audit"\n}\n', False),
        "empty": (b"", False),
    }
    for name, (data, expected) in cases.items():
        assert _ends(data) is expected, name
        if expected:
            assert unfinished_end(data) is None, name
