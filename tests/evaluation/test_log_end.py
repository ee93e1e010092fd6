"""Where a write left a JSON-lines log unfinished, found from its bytes alone (DR-008)."""

from __future__ import annotations

import pytest

from eval_helpers import decision, full_run
from pyapp.evaluation.export import export_json, log_line
from pyapp.evaluation.log_end import UnfinishedEnd, unfinished_end

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
