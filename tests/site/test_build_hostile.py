"""The build and the dev server facing hostile or careless sources (DR-001).

Every bad record fails the build with its file and line, never a traceback; rendered
records hold only the allowed HTML; the dev server answers 404, never a listing or a
dropped connection.
"""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest

from served import serve
from site_project import RECORD, assert_build_reports, each_breakage, problems_of, rewrite, write_record
from sitegen import builder, hosting


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


@each_breakage(BAD_RECORDS)
def test_bad_record_fails_naming_file_and_line(project, breakage, expected):
    assert_build_reports(project, breakage, expected)


def test_supersedes_an_accepted_record_is_not_blamed_on_that_record(project):
    write_record(project, "DR-099", extra="supersedes: DR-001\n")
    problems = problems_of(project)
    assert [p for p in problems if "DR-001-first.md" in p] == []


def test_record_starting_with_a_byte_order_mark_builds(project, tmp_path):
    (project / "decisions" / "DR-003-bom.md").write_bytes(b"\xef\xbb\xbf" + record_text("DR-003", "Marked").encode())
    files = builder.build(project, tmp_path / "dist")
    assert "DR-003: Marked" in files["decisions/DR-003/index.html"].decode()


REFUSED_HTML = [
    ("script", "<script>alert(1)</script>", "9: the tag <script> is not allowed"),
    ("script-in-capitals", "<SCRIPT>alert(1)</SCRIPT>", "9: the tag <script> is not allowed"),
    ("link-prefetch", '<link rel="prefetch" href="https://example.org/">', "9: the tag <link> is not allowed"),
    ("meta-refresh", 'Go.\n\n<meta http-equiv="refresh" content="0;url=https://example.org/">',
     "11: the tag <meta> is not allowed"),
    ("iframe", '<iframe src="https://example.org/"></iframe>', "9: the tag <iframe> is not allowed"),
    ("style-element", "<style>body { display: none }</style>", "9: the tag <style> is not allowed"),
    ("svg-onload", "<svg onload=alert(1)></svg>", "9: the tag <svg> is not allowed"),
    ("form", '<form action="https://example.org/"><button>Go</button></form>', "9: the tag <form> is not allowed"),
    ("onclick-from-attr-list", 'Text.\n{: onclick="alert(1)" }', "10: the attribute 'onclick' on <p> is not allowed"),
    ("style-attribute", 'Press <kbd style="color: red">q</kbd>.', "9: the attribute 'style' on <kbd> is not allowed"),
    ("javascript-link", "[run](javascript:alert(1))", "9: a link to 'javascript:' is not allowed"),
    ("escaped-javascript-link", '<a href="java&#115;cript:alert(1)">run</a>', "9: a link to 'javascript:' is not"),
    ("remote-image", "![x](https://example.org/x.png)", "9: an image must come from this site"),
    ("scheme-relative-image", '<img src="//example.org/x.png" alt="x">', "9: an image must come from this site"),
    ("comment-hiding-a-script", "<!--> <script>alert(1)</script> -->", "9: HTML comments are not allowed"),
    ("cdata-hiding-a-script", "<![CDATA[ x ><script>alert(1)</script> ]]>", "9: declarations such as"),
    ("unknown-marked-section", "<div><![x[ <script>alert(1)</script> ]]></div>", "9: a <![…[ section is not allowed"),
]


@pytest.mark.parametrize(("body", "expected"), [(b, e) for _, b, e in REFUSED_HTML],
                         ids=[i for i, _, _ in REFUSED_HTML])
def test_disallowed_html_in_a_record_fails_naming_file_and_line(project, body, expected):
    write_record(project, "DR-003", body=body)
    problems = problems_of(project)
    assert any(f"decisions/DR-003-thing.md:{expected}" in p for p in problems), problems


def test_unfinished_tag_at_the_end_of_a_record_fails(project):
    path = write_record(project, "DR-003")
    path.write_text(path.read_text() + '\n<div>\n<kbd title="unfinished\n</div>\n')
    problems = problems_of(project)
    assert any("decisions/DR-003-thing.md:32: unfinished HTML '<kbd title=" in p for p in problems), problems


def test_disallowed_html_in_a_markdown_page_fails(project):
    (project / "site_src" / "pages" / "about.md").write_text("---\ntitle: About\n---\n<iframe></iframe>\n")
    problems = problems_of(project)
    assert any("site_src/pages/about.md:4: the tag <iframe> is not allowed" in p for p in problems), problems


ALLOWED_HTML = [
    ("abbr", '<abbr title="k-dimensional">k-d</abbr> tree', '<abbr title="k-dimensional">k-d</abbr>'),
    ("kbd", "Press <kbd>Enter</kbd>.", "<kbd>Enter</kbd>"),
    ("sup-and-sub", "x<sup>2</sup> and H<sub>2</sub>O", "x<sup>2</sup> and H<sub>2</sub>O"),
    ("br", "one<br>two", "one<br>two"),
    ("details", "<details><summary>More</summary>Hidden.</details>", "<details><summary>More</summary>"),
    ("links-out", "[a](https://example.org/) [b](mailto:a@example.org)", 'href="mailto:a@example.org"'),
    ("script-in-code", "Never write `<script>`.", "<code>&lt;script&gt;</code>"),
    ("class-from-attr-list", "Text.\n{: .note }", '<p class="note">Text.</p>'),
    ("aligned-table", "| a | b |\n|:-:|--:|\n| 1 | 2 |", '<td align="center">1</td>'),
]


@pytest.mark.parametrize(("body", "expected"), [(b, e) for _, b, e in ALLOWED_HTML],
                         ids=[i for i, _, _ in ALLOWED_HTML])
def test_allowed_html_in_a_record_builds(project, tmp_path, body, expected):
    write_record(project, "DR-003", body=body)
    html = builder.build(project, tmp_path / "dist")["decisions/DR-003/index.html"].decode()
    assert expected in html


@pytest.fixture
def served_folder(tmp_path: Path):
    """A small folder served by the dev server: a home page and a folder without index.html."""
    (tmp_path / "site" / "notes").mkdir(parents=True)
    (tmp_path / "site" / "index.html").write_text("home")
    (tmp_path / "site" / "notes" / "a.txt").write_text("a")
    served = serve(tmp_path / "site")
    yield served
    served.server.shutdown()
    served.server.server_close()


@pytest.mark.parametrize("path", ["/notes/", "/%00", "/index.html%00", "/%ed%a0%80"],
                         ids=["folder-without-index", "nul", "nul-after-a-file", "lone-surrogate"])
def test_dev_server_answers_404_for_folders_and_invalid_paths(served_folder, path):
    host, port = served_folder.server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode()
    finally:
        connection.close()
    assert response.status == 404
    assert "a.txt" not in body
    assert response.getheader("Content-Security-Policy") == hosting.CSP_HEADER
