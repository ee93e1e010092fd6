"""The site generator: validation, rendering, links, feed, determinism (DR-001)."""

from __future__ import annotations

import difflib
import gzip
import hashlib
import itertools
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jinja2
import pytest

import build
from site_project import (
    assert_build_reports,
    each_breakage,
    problems_of,
    rewrite,
    write_record,
)
from sitegen import ROOT, builder, caches, hosting, links, load
from sitegen.convert import MarkdownRenderer
from sitegen.document_cache import code_inputs
from sitegen.links import content_hash, relative_url
from sitegen.output import write_dist
from sitegen.problems import BuildFailed
from sitegen.static import pyodide_folder
from sitegen.wheel import build_wheel


def test_small_site_renders_records_index_feed_and_pages(project, tmp_path):
    files = builder.build(project, tmp_path / "dist")
    for path in ["index.html", "decisions/index.html", "decisions/DR-001/index.html", "decisions/DR-002/index.html",
                 "decisions/feed.xml", "decisions/src/DR-001-first.md", "pyodide/0.0.1/pyodide.asm.wasm",
                 "app/small_site-0.1-py3-none-any.whl"]:
        assert path in files, path
        assert (tmp_path / "dist" / path).is_file()
    index = files["decisions/index.html"].decode()
    assert index.index("DR-001") < index.index("DR-002")
    assert "2026-11-02" in index and "Accepted" in index


def test_record_mentions_link_to_records_but_not_inside_code(project, tmp_path):
    html = builder.build(project, tmp_path / "dist")["decisions/DR-001/index.html"].decode()
    assert '<a href="../DR-002/">DR-002</a>' in html
    assert "<code>DR-001</code>" in html
    home = builder.build(project, tmp_path / "dist2")["index.html"].decode()
    assert '<a href="decisions/DR-001/">DR-001</a>' in home


def test_supersede_links_run_both_ways_from_one_side(project, tmp_path):
    write_record(project, "DR-001", "first", status="Superseded")
    write_record(project, "DR-002", "second", extra="supersedes: DR-001\n", day=2)
    files = builder.build(project, tmp_path / "dist")
    old = files["decisions/DR-001/index.html"].decode()
    new = files["decisions/DR-002/index.html"].decode()
    assert re.search(r"Superseded by</dt><dd><a href=\"../DR-002/\">", old)
    assert re.search(r"Supersedes</dt><dd><a href=\"../DR-001/\">", new)


def add_to_template(root: Path, name: str, line: str) -> None:
    """Insert ``line`` as the third line of the template ``name``."""
    path = root / "site_src" / "templates" / name
    lines = path.read_text(encoding="utf-8").split("\n")
    path.write_text("\n".join([*lines[:2], line, *lines[2:]]), encoding="utf-8")


def add_page(root: Path, name: str, body: str) -> None:
    (root / "site_src" / "pages" / name).write_text(f"---\ntitle: More\n---\n{body}", encoding="utf-8")


TEMPLATE_PAGE = "{% extends 'base.html.j2' %}{% block main %}\n<h1>More</h1>\n{} \n{% endblock %}\n"

BROKEN = [
    ("duplicate-id", lambda r: write_record(r, "DR-001", "again"),
     "DR-001-first.md:2: duplicate id DR-001, also in decisions/DR-001-again.md"),
    ("unknown-status", lambda r: write_record(r, "DR-003", status="Done"), "DR-003-thing.md:4: unknown status 'Done'"),
    ("missing-record", lambda r: write_record(r, "DR-003", body="As DR-009 said."),
     "DR-003-thing.md:9: reference to missing record DR-009"),
    ("broken-link", lambda r: write_record(r, "DR-003", body="[gone](../DR-404/)"),
     "DR-003-thing.md:9: broken internal link '../DR-404/'"),
    ("absolute-link", lambda r: write_record(r, "DR-003", body="[root](/decisions/)"),
     "DR-003-thing.md:9: absolute link '/decisions/'"),
    ("no-front-matter", lambda r: (r / "decisions" / "DR-003-x.md").write_text("# Hi\n"),
     "DR-003-x.md:1: missing front matter"),
    ("bad-yaml", lambda r: (r / "decisions" / "DR-003-x.md").write_text("---\nid: [DR-003\n---\n"),
     "DR-003-x.md:"),
    ("bad-date", lambda r: rewrite(write_record(r, "DR-003"), "2026-11-01", "soon"),
     "DR-003-thing.md:5: date must be a date"),
    ("missing-section", lambda r: rewrite(write_record(r, "DR-003"), "## Why", "## Because"),
     "DR-003-thing.md:7: missing section '## Why'"),
    ("id-not-file-name", lambda r: write_record(r, "DR-003").rename(r / "decisions" / "DR-004-thing.md"),
     "DR-004-thing.md:2: file name must be 'DR-003-slug.md'"),
    ("superseded-without-successor", lambda r: write_record(r, "DR-003", status="Superseded"),
     "DR-003-thing.md:4: status is Superseded but no record supersedes it"),
    ("supersedes-missing", lambda r: write_record(r, "DR-003", extra="supersedes: DR-077\n"),
     "DR-003-thing.md:6: supersede link to missing record DR-077"),
    ("unknown-key", lambda r: write_record(r, "DR-003", extra="owner: me\n"),
     "DR-003-thing.md:6: unknown front matter key 'owner'"),
    # links, checked in the rendered pages
    ("reference-style-link", lambda r: write_record(r, "DR-003", body="[gone][ref]\n\n[ref]: ../DR-404/"),
     "decisions/DR-003-thing.md:11: broken internal link '../DR-404/'"),
    ("link-to-a-missing-anchor", lambda r: write_record(r, "DR-003", body="See [it](../DR-001/#nowhere)."),
     "decisions/DR-003-thing.md:9: broken internal link '../DR-001/#nowhere': decisions/DR-001/index.html has no id"),
    ("missing-record-in-prose-after-code", lambda r: write_record(r, "DR-003", body="```\nDR-999\n```\n\nAs DR-998."),
     "decisions/DR-003-thing.md:13: reference to missing record DR-998"),
    ("template-link-call", lambda r: add_to_template(r, "page.html.j2", "<a href=\"{{ link('nope/') }}\">x</a>"),
     "site_src/templates/page.html.j2:3: broken internal link 'nope/'"),
    ("template-asset-call", lambda r: add_to_template(r, "page.html.j2", "<img src=\"{{ asset('static/no.png') }}\">"),
     "site_src/templates/page.html.j2:3: asset 'static/no.png' is not a file of the site"),
    ("template-written-absolute-url", lambda r: add_to_template(r, "records.html.j2", "<a href=\"/about/\">x</a>"),
     "decisions/index.html:29: absolute link '/about/': links must be relative, written by the templates of this page"),
    ("template-page-literal-link", lambda r: add_page(r, "more.html", TEMPLATE_PAGE.replace("{}", "<a href=gone/>")),
     "site_src/pages/more.html:6: broken internal link 'gone/'"),
    ("template-page-link-call", lambda r: add_page(r, "more.html", TEMPLATE_PAGE.replace(
        "{}", "<a href=\"{{ link('gone/index.html') }}\">x</a>")),
     "site_src/pages/more.html:6: broken internal link 'gone/index.html'"),
    ("markdown-page-link", lambda r: add_page(r, "more.md", "# More\n\n[Gone](../gone/)\n"),
     "site_src/pages/more.md:6: broken internal link '../gone/'"),
    # Python-Markdown nests a block in a list item only at four spaces (DR-001)
    ("table-in-a-list-item-at-two-spaces",
     lambda r: write_record(r, "DR-003", body="- one\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n- two"),
     "decisions/DR-003-thing.md:11: this line inside a list item is indented by 2 space(s); indent it by 4"),
    ("nested-list-at-two-spaces", lambda r: add_page(r, "more.md", "# More\n\n- one\n  - inner\n"),
     "site_src/pages/more.md:7: this line inside a list item is indented by 2 space(s)"),
    ("list-item-right-after-a-nested-block",
     lambda r: add_page(r, "more.md", "# More\n\n- one\n\n    Nested.\n- two\n"),
     "site_src/pages/more.md:9: this list item follows a block nested in the item before it: put a blank line"),
]


@each_breakage(BROKEN)
def test_broken_source_fails_naming_file_and_line(project, breakage, expected):
    assert_build_reports(project, breakage, expected)


def test_template_link_broken_on_every_page_is_reported_once(project):
    add_to_template(project, "base.html.j2", "<link rel=\"help\" href=\"{{ link('help/index.html') }}\">")
    problems = problems_of(project)
    assert len([p for p in problems if p.startswith("site_src/templates/base.html.j2:3:")]) == 1, problems


WORKING_LINKS = [
    ("absolute-url-in-a-code-block", "```\n<a href=\"/decisions/\">x</a> [y](/y/)\n```"),
    ("absolute-url-in-a-code-span", "Write `[y](/y/)`, not `href=\"/\"`."),
    ("unknown-record-in-a-code-block", "```\nDR-999\n```"),
    ("unknown-record-in-a-code-span", "The id `DR-999` is free."),
    ("link-to-an-existing-anchor", "See [its context](../DR-001/#context) and [mine](#decision)."),
    ("reference-style-link", "See [the first][first].\n\n[first]: ../DR-001/"),
]


@pytest.mark.parametrize("body", [b for _, b in WORKING_LINKS], ids=[i for i, _ in WORKING_LINKS])
def test_what_links_nowhere_builds(project, tmp_path, body):
    write_record(project, "DR-003", body=body)
    assert "decisions/DR-003/index.html" in builder.build(project, tmp_path / "dist")


def test_each_document_is_converted_from_a_clean_state():
    renderer = MarkdownRenderer({"DR-001"})
    first, missing_in_first = renderer.convert("# Notes\n\nDR-001 and DR-009.", "decisions/DR-002/index.html")
    second, missing_in_second = renderer.convert("# Notes\n\nDR-001.", "index.html")
    assert missing_in_first == ["DR-009"] and missing_in_second == []
    assert '<a href="../DR-001/">DR-001</a> and DR-009.' in first
    assert '<h1 id="notes">' in second and '<a href="decisions/DR-001/">DR-001</a>' in second


def test_all_problems_are_reported_at_once(project):
    write_record(project, "DR-003", status="Done")
    write_record(project, "DR-004", body="DR-099")
    problems = problems_of(project)
    assert len(problems) == 2, problems


def test_command_line_exits_non_zero_and_names_the_file(project):
    write_record(project, "DR-003", status="Finished")
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(project)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "decisions/DR-003-thing.md:4: unknown status 'Finished'" in done.stderr
    assert not (project / "dist").exists()


LIST_WITH_TABLE = """- **First.** Measured:

    | a | b |
    |---|---|
    | 1 | 2 |

    After the table.

- **Second.** More.
- **Third.** Last.
"""


def test_a_table_in_a_list_item_keeps_the_items_after_it_apart(project, tmp_path):
    write_record(project, "DR-003", body=LIST_WITH_TABLE)
    html = builder.build(project, tmp_path / "dist")["decisions/DR-003/index.html"].decode()
    items = re.findall(r"<li>(.*?)</li>", html.split('class="toc"')[1].split("</nav>")[1], flags=re.DOTALL)
    assert len(items) == 3, items
    assert "<table>" in items[0] and "After the table." in items[0]
    assert "Second." in items[1] and "- " not in items[1]


def test_real_records_have_no_list_items_run_together(dist):
    for page in sorted((dist / "decisions").glob("DR-*/index.html")):
        html = page.read_text(encoding="utf-8")
        paragraphs = re.findall(r"<p>(.*?)</p>", html, flags=re.DOTALL)
        assert [p for p in paragraphs if re.search(r"\n- ", p)] == [], page
    dr001 = (dist / "decisions" / "DR-001" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<li>(?:(?!</li>).)*<table>", dr001, flags=re.DOTALL)


def test_a_record_has_a_table_of_contents_linking_its_sections(project, tmp_path):
    html = builder.build(project, tmp_path / "dist")["decisions/DR-001/index.html"].decode()
    contents = html.split('<nav class="toc" aria-label="Contents">')[1].split("</nav>")[0]
    assert re.findall(r'href="#([a-z-]+)"', contents) == [
        "context", "decision", "options-considered", "why", "what-happened", "what-id-change"]


def test_feed_entries_summarise_the_records_context(project, tmp_path):
    write_record(project, "DR-003", body="The *first* paragraph, with `code` & more.\n\nThe second.", day=3)
    feed = ET.fromstring(builder.build(project, tmp_path / "dist")["decisions/feed.xml"])
    ns = {"a": "http://www.w3.org/2005/Atom"}
    summary = feed.find("a:entry", ns).find("a:summary", ns).text
    assert summary == "The first paragraph, with code & more."


def test_feed_is_atom_with_one_entry_per_record(project, tmp_path):
    feed = builder.build(project, tmp_path / "dist")["decisions/feed.xml"]
    root = ET.fromstring(feed)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = root.findall("a:entry", ns)
    assert [e.find("a:title", ns).text.split(":")[0] for e in entries] == ["DR-002", "DR-001"]
    assert entries[0].find("a:link", ns).get("href") == "DR-002/"
    assert root.find("a:updated", ns).text == "2026-11-02T00:00:00Z"


@pytest.mark.parametrize(
    ("target", "from_url", "expected"),
    [("index.html", "index.html", "./"), ("decisions/DR-001/index.html", "index.html", "decisions/DR-001/"),
     ("index.html", "decisions/DR-001/index.html", "../../"), ("static/site.css", "explorer/index.html",
                                                               "../static/site.css")],
    ids=["home-to-home", "home-to-record", "record-to-home", "page-to-asset"],
)
def test_relative_url(target, from_url, expected):
    assert relative_url(target, from_url) == expected


PATHS = ["a", "a/b", "a/b/", "a/./b", "a//b", "a/../b", "a/..", "./a", "index.html", "a/index.html", "a/b/index.html",
         "b/c/d.png", "../x", "a/../../x", "/abs/"]


def test_relative_url_is_what_relpath_gives():
    for target, from_url in itertools.product(PATHS, ["", *PATHS]):
        link = posixpath.relpath(target, posixpath.dirname(from_url) or ".")
        expected = link[: -len("index.html")] or "./" if link.endswith("index.html") else link
        assert relative_url(target, from_url) == expected, (target, from_url)


def test_real_site_has_only_relative_urls_and_a_csp_on_every_page(dist):
    pages = sorted(dist.rglob("*.html"))
    assert len(pages) >= 5
    for page in pages:
        html = page.read_text(encoding="utf-8")
        meta = f'<meta http-equiv="Content-Security-Policy" content="{hosting.CSP}">'
        assert meta in html.replace("&#39;", "'"), page
        for url in re.findall(r'(?:href|src|data-[a-z-]+)="([^"]*)"', html):
            assert not url.startswith(("/", "http://", "https://")), (page, url)


def test_real_site_contents(dist):
    for path in ["index.html", "decisions/index.html", "decisions/feed.xml", "pyodide/314.0.8/pyodide.asm.wasm",
                 "explorer/index.html", "ai-eval/index.html", "_headers", ".htaccess",
                 "app/kd_tree_explorer-0.1.0-py3-none-any.whl"]:
        assert (dist / path).is_file(), path
    for source in sorted((ROOT / "decisions").glob("DR-*.md")):
        assert (dist / "decisions" / source.name[:6] / "index.html").is_file()
    assert "Content-Security-Policy: " + hosting.CSP_HEADER in (dist / "_headers").read_text()


def test_two_builds_are_byte_identical(tmp_path):
    first = builder.build(dist=tmp_path / "a")
    second = builder.build(dist=tmp_path / "b")
    assert first.keys() == second.keys()
    assert [p for p in first if first[p] != second[p]] == []
    on_disk = sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert on_disk == sorted(first)


def test_rebuild_keeps_unchanged_files_and_removes_what_is_not_an_output(tmp_path):
    dist, outside = tmp_path / "dist", tmp_path / "outside"
    write_dist({"same.txt": b"same", "a/changed.txt": b"old", "a/gone.txt": b"x", "b/c/gone.txt": b"x"}, dist)
    outside.mkdir()
    (outside / "kept.txt").write_bytes(b"not ours")
    (dist / "a" / "link").symlink_to(outside, target_is_directory=True)
    (dist / "file-link.txt").symlink_to(outside / "kept.txt")
    (dist / "now-a-file").mkdir()
    long_ago = 1_000_000_000
    os.utime(dist / "same.txt", (long_ago, long_ago))
    write_dist({"same.txt": b"same", "a/changed.txt": b"new", "now-a-file": b"f"}, dist)
    on_disk = {p.relative_to(dist).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}
    assert on_disk == {"same.txt": b"same", "a/changed.txt": b"new", "now-a-file": b"f"}
    assert sorted(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_dir()) == ["a"]
    assert (dist / "same.txt").stat().st_mtime == long_ago  # not written again
    assert (outside / "kept.txt").read_bytes() == b"not ours"  # links are removed, never followed


def test_a_build_with_warm_caches_does_not_import_the_experiment(tmp_path, dist):
    # The dist fixture's build filled the caches; the experiment's figures and markup come from them (DR-001).
    again = tmp_path / "again"
    code = ("import json, sys, pathlib\nfrom sitegen import builder\n"
            f"builder.build(dist=pathlib.Path({str(again)!r}))\n"
            "print(json.dumps(list(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    imported = set(json.loads(done.stdout))
    assert "pyapp.experiment.orders" not in imported
    assert ((tmp_path / "again" / "experiments" / "index.html").read_bytes()
            == (dist / "experiments" / "index.html").read_bytes())


def test_a_rebuild_takes_unchanged_documents_from_the_cache_and_converts_changed_ones(project, tmp_path, monkeypatch):
    first = builder.build(project, tmp_path / "a")
    real_renderer, real_reader = load.MarkdownRenderer, links.HtmlChecker

    def refused(*args, **kwargs):
        raise AssertionError("converted or read again although nothing changed")

    monkeypatch.setattr(load, "MarkdownRenderer", refused)
    monkeypatch.setattr(links, "HtmlChecker", refused)
    assert builder.build(project, tmp_path / "b") == first
    monkeypatch.setattr(load, "MarkdownRenderer", real_renderer)
    monkeypatch.setattr(links, "HtmlChecker", real_reader)
    write_record(project, "DR-002", "second", body="See [the first](../DR-001/) again.", day=2)
    changed = builder.build(project, tmp_path / "c")
    assert "again." in changed["decisions/DR-002/index.html"].decode()
    shutil.rmtree(project / ".cache")
    assert builder.build(project, tmp_path / "d") == changed  # as a build without the cache makes it


def test_a_document_with_a_problem_is_checked_again_on_every_build(project, tmp_path):
    write_record(project, "DR-002", "second", body="See DR-009.", day=2)
    for _ in range(2):
        assert any("reference to missing record DR-009" in problem for problem in problems_of(project))


def test_output_may_not_leave_dist(tmp_path):
    with pytest.raises(BuildFailed, match="leaves dist"):
        write_dist({"../escape.txt": b"x"}, tmp_path / "dist")
    assert not (tmp_path / "escape.txt").exists()


SNAPSHOT = Path(__file__).parent / "snapshots" / "small_site"


def differences(expected: Path, actual: Path) -> list[str]:
    """Every file missing on either side, and a unified diff of each file that differs (after Pelican's
    ``assertDirsEqual``); binary files are named with their sizes."""
    def files(folder: Path) -> set[str]:
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}

    want, got = files(expected), files(actual)
    report = [f"missing from the build: {path}" for path in sorted(want - got)]
    report += [f"not in the snapshot: {path}" for path in sorted(got - want)]
    for path in sorted(want & got):
        old, new = (expected / path).read_bytes(), (actual / path).read_bytes()
        if old == new:
            continue
        try:
            old_lines, new_lines = old.decode("utf-8").splitlines(True), new.decode("utf-8").splitlines(True)
        except UnicodeDecodeError:
            report.append(f"binary file differs: {path} ({len(old):,} bytes in the snapshot, {len(new):,} built)")
            continue
        report.append("".join(difflib.unified_diff(old_lines, new_lines, f"snapshot/{path}", f"built/{path}")))
    return report


def test_small_site_matches_its_snapshot(project, tmp_path):
    """Every file the small project builds, byte for byte.

    After an intended change to templates, CSS or rendering, regenerate with
    ``UPDATE_SNAPSHOTS=1 python -m pytest tests/site/test_build.py -k snapshot`` and review the diff.
    """
    builder.build(project, tmp_path / "dist")
    if os.environ.get("UPDATE_SNAPSHOTS"):
        shutil.rmtree(SNAPSHOT, ignore_errors=True)
        shutil.copytree(tmp_path / "dist", SNAPSHOT)
    report = differences(SNAPSHOT, tmp_path / "dist")
    if report:
        pytest.fail("the built small site differs from tests/site/snapshots/small_site (regenerate with "
                    "UPDATE_SNAPSHOTS=1 if intended):\n" + "\n".join(report), pytrace=False)


def test_snapshot_differences_name_missing_and_extra_files_and_show_a_diff(tmp_path):
    expected, actual = tmp_path / "expected", tmp_path / "actual"
    for folder in (expected, actual):
        (folder / "a").mkdir(parents=True)
        (folder / "a" / "page.html").write_text("<h1>Title</h1>\n<p>Same</p>\n", encoding="utf-8")
        (folder / "same.bin").write_bytes(b"\xff\x00")
    (actual / "a" / "page.html").write_text("<h1>New title</h1>\n<p>Same</p>\n", encoding="utf-8")
    (expected / "gone.txt").write_text("x", encoding="utf-8")
    (actual / "new.txt").write_text("y", encoding="utf-8")
    (actual / "same.bin").write_bytes(b"\xff\x01\x02")
    report = differences(expected, actual)
    assert report[:2] == ["missing from the build: gone.txt", "not in the snapshot: new.txt"]
    assert "--- snapshot/a/page.html\n+++ built/a/page.html\n" in report[2]
    assert "-<h1>Title</h1>\n+<h1>New title</h1>\n <p>Same</p>\n" in report[2]
    assert report[3] == "binary file differs: same.bin (2 bytes in the snapshot, 3 built)"
    assert len(report) == 4


def test_second_build_loads_compiled_templates_from_the_cache(project, tmp_path, monkeypatch):
    compiled = []
    compile_source = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return compile_source(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    first = builder.build(project, tmp_path / "a")
    assert "base.html.j2" in compiled and None not in compiled  # the project's pages are Markdown
    assert len(list((project / caches.TEMPLATE_CACHE).iterdir())) == len(compiled)
    compiled.clear()
    assert builder.build(project, tmp_path / "b") == first
    assert compiled == []
    add_to_template(project, "page.html.j2", "<!-- changed -->")
    assert "<!-- changed -->" in builder.build(project, tmp_path / "c")["index.html"].decode()
    assert compiled == ["page.html.j2"]


def test_real_site_pages_have_a_meta_description_and_a_404_page_the_hosts_use(dist):
    for page in sorted(dist.rglob("*.html")):
        found = re.findall(r'<meta name="description" content="([^"]{40,})">', page.read_text(encoding="utf-8"))
        assert len(found) == 1, page
    assert "<h1 id=\"page-not-found\">Page not found</h1>" in (dist / "404.html").read_text(encoding="utf-8")
    assert "ErrorDocument 404 /404.html" in (dist / ".htaccess").read_text()


def test_real_evaluation_page_explains_each_method_in_a_sentence_and_links_dr_006(dist):
    html = (dist / "ai-eval" / "index.html").read_text(encoding="utf-8")
    methods = html.split('<dl class="methods">')[1].split("</dl>")[0]
    terms = re.findall(r"<dt>(.*?)</dt>", methods)
    assert terms == ["Wilson interval", "Newcombe's method 10", "Exact McNemar test",
                     "Bootstrap interval of the median latency"], terms
    assert all(len(d.split()) >= 12 for d in re.findall(r"<dd>(.*?)</dd>", methods, flags=re.DOTALL))
    assert '<a href="../decisions/DR-006/">DR-006</a>' in html


def test_real_home_page_sends_explaining_a_search_to_the_explorer(dist):
    html = (dist / "index.html").read_text(encoding="utf-8")
    explorer_item = next(li for li in re.findall(r"<li>(.*?)</li>", html, flags=re.DOTALL) if "Explorer" in li)
    assert "explain the search" in explorer_item
    eval_item = next(li for li in re.findall(r"<li>(.*?)</li>", html, flags=re.DOTALL) if "AI evaluation" in li)
    assert "explain a" not in eval_item


def test_a_changed_template_fails_the_snapshot_with_a_diff_of_each_page(project, tmp_path):
    add_to_template(project, "base.html.j2", "<!-- a changed line -->")
    builder.build(project, tmp_path / "dist")
    report = differences(SNAPSHOT, tmp_path / "dist")
    pages = sorted(p.relative_to(SNAPSHOT).as_posix() for p in SNAPSHOT.rglob("*.html"))
    for page in pages:
        [diff] = [r for r in report if r.startswith(f"--- snapshot/{page}\n+++ built/{page}\n")]
        assert "\n+<!-- a changed line -->\n" in diff, diff
    assert len(pages) >= 6


# --- what a warm build takes from its caches, and what makes it compute afresh (DR-001) ---------------------


def test_a_warm_build_imports_neither_markdown_nor_yaml(project, tmp_path):
    code = ("import json, sys, pathlib\nfrom sitegen import builder\n"
            f"builder.build(pathlib.Path({str(project)!r}), pathlib.Path({str(tmp_path / 'dist')!r}))\n"
            "print(json.dumps(sorted(name for name in sys.modules if name.split('.')[0] in ('markdown', 'yaml'))))")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
            for _ in range(2)]
    assert "markdown" in json.loads(runs[0].stdout) and "yaml" in json.loads(runs[0].stdout)  # a cold build
    assert json.loads(runs[1].stdout) == []


def test_a_changed_front_matter_is_read_again(project, tmp_path):
    builder.build(project, tmp_path / "a")
    write_record(project, "DR-002", "second", body="See [the first](../DR-001/).", day=2, title="A new title")
    assert "<td>A new title</td>" in builder.build(project, tmp_path / "b")["decisions/index.html"].decode()
    write_record(project, "DR-002", "second", body="See [the first](../DR-001/).", day=2, extra="1: one\n")
    for _ in range(2):  # a key JSON would turn into text is not kept: YAML reads it on every build
        assert any("DR-002-second.md:6: unknown front matter key 1" in p for p in problems_of(project))


def test_the_documents_cache_is_keyed_by_the_markdown_code_and_the_libraries_versions():
    import markdown
    import yaml

    from sitegen import record_links

    inputs = code_inputs()
    assert Path(build.__file__) in inputs and Path(record_links.__file__) in inputs
    assert Path(markdown.__file__).parent / "__meta__.py" in inputs
    assert Path(yaml.__file__) in inputs
    assert markdown.__version__ == ".".join(map(str, markdown.__version_info__[:3]))  # what __meta__.py holds
    assert f"__version__ = '{yaml.__version__}'" in Path(yaml.__file__).read_text(encoding="utf-8")


def test_the_documents_cache_is_keyed_by_every_module_of_the_generator():
    import sitegen

    modules = sorted(Path(sitegen.__file__).parent.glob("*.py"))
    assert Path(sitegen.__file__) in modules and set(modules) <= set(code_inputs())


def test_a_changed_package_file_or_project_version_makes_a_new_wheel(project, tmp_path):
    first = builder.build(project, tmp_path / "a")
    assert first["app/small_site-0.1-py3-none-any.whl"] == build_wheel(project)[1]
    (project / "pyapp" / "__init__.py").write_text("__version__ = '1'\n", encoding="utf-8")
    second = builder.build(project, tmp_path / "b")["app/small_site-0.1-py3-none-any.whl"]
    assert second != first["app/small_site-0.1-py3-none-any.whl"] and second == build_wheel(project)[1]
    rewrite(project / "pyproject.toml", 'version = "0.1"', 'version = "0.2"')
    third = builder.build(project, tmp_path / "c")
    assert "app/small_site-0.2-py3-none-any.whl" in third and "app/small_site-0.1-py3-none-any.whl" not in third
    assert len(list((project / caches.WHEEL_CACHE).rglob("*.whl"))) == 1  # an earlier input's wheel is removed


def test_the_service_worker_lists_a_changed_file_again(project, tmp_path):
    from sitegen import service_worker

    builder.build(project, tmp_path / "a")
    css = next((project / "site_src" / "static" / "css").glob("*.css"))
    css.write_bytes(css.read_bytes() + b"\n/* changed */\n")
    files = builder.build(project, tmp_path / "b")
    fresh = {path: data for path, data in files.items() if path != service_worker.SERVICE_WORKER}
    source = (project / "site_src" / service_worker.SERVICE_WORKER).read_text(encoding="utf-8")
    assert files[service_worker.SERVICE_WORKER].decode() == service_worker.service_worker(source, fresh)
    assert content_hash(css.read_bytes()) in files[service_worker.SERVICE_WORKER].decode()


def test_a_runtime_file_changed_in_place_with_the_same_size_is_copied_again(project, tmp_path):
    wasm = project / "node_modules" / "pyodide" / "pyodide.asm.wasm"
    builder.build(project, tmp_path / "dist")
    wasm.write_bytes(wasm.read_bytes().upper())  # same size, at once: within the file system's clock tick
    files = builder.build(project, tmp_path / "dist")
    assert files["pyodide/0.0.1/pyodide.asm.wasm"] == wasm.read_bytes()
    assert (tmp_path / "dist" / "pyodide" / "0.0.1" / "pyodide.asm.wasm").read_bytes() == wasm.read_bytes()


def test_a_dist_file_changed_behind_the_build_or_whose_output_changed_is_written_again(project, tmp_path, monkeypatch):
    from sitegen import digests

    dist = tmp_path / "dist"
    builder.build(project, dist)
    real_clock = digests.time.time_ns
    monkeypatch.setattr(digests.time, "time_ns", lambda: real_clock() + 3 * digests.SETTLED_NS)
    builder.build(project, dist)  # reads dist/ back as if its files had settled long ago, and keeps their digests
    page = dist / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace("Home", "Hoax"), encoding="utf-8")  # same size
    builder.build(project, dist)
    assert "Hoax" not in page.read_text(encoding="utf-8")
    builder.build(project, dist)  # settled again
    rewrite(project / "site_src" / "pages" / "index.md", "# Home", "# Hame")  # a new output of the same size
    builder.build(project, dist)
    assert "Hame" in page.read_text(encoding="utf-8")


def test_a_kept_digest_stands_for_a_file_only_with_its_status_and_once_settled(tmp_path):
    from sitegen.digests import SETTLED_NS, FileDigests, status

    path = tmp_path / "data.bin"
    path.write_bytes(b"one")
    seen = status(path)
    digests = FileDigests(tmp_path / "digests.json")
    settled, racy = seen[2] + SETTLED_NS + 1, seen[2] + 1_000_000
    digests.entries = {str(path): {"status": seen, "read_at": settled, "sha256": "kept"}}
    assert digests.read(path) == (b"one", "kept")  # not hashed: the kept digest stands for it
    digests.entries = {str(path): {"status": seen, "read_at": racy, "sha256": "kept"}}
    assert digests.read(path)[1] == hashlib.sha256(b"one").hexdigest()  # read 1 ms after a change: hashed
    other = [*seen[:1], seen[1] + 1, *seen[2:]]
    digests.entries = {str(path): {"status": other, "read_at": settled, "sha256": "kept"}}
    assert digests.read(path)[1] == hashlib.sha256(b"one").hexdigest()


def test_each_compressible_file_gets_a_gzip_copy_of_its_bytes_that_the_service_worker_does_not_keep(dist):
    from sitegen import service_worker

    built = {p.relative_to(dist).as_posix(): p.read_bytes() for p in dist.rglob("*") if p.is_file()}
    copies = {path for path in built if path.endswith(".gz")}
    for path in copies:
        original = built[path.removesuffix(".gz")]
        assert gzip.decompress(built[path]) == original, path
        assert len(built[path]) < len(original), path
    compressible = {path + ".gz" for path in built if path.endswith(hosting.COMPRESSED_SUFFIXES)}
    assert copies == compressible  # every such file of the real site is made smaller by gzip
    runtime = pyodide_folder(ROOT / "node_modules" / "pyodide")
    assert {"sw.js.gz", "index.html.gz", "static/js/worker.mjs.gz", f"{runtime}/pyodide.asm.wasm.gz"} <= copies
    wasm = next(path for path in copies if path.endswith(".wasm.gz"))
    assert len(built[wasm]) < len(gzip.compress(built[wasm.removesuffix(".gz")], 1))  # better than a host's level 1
    listed = service_worker.kept_files(built)
    assert not [path for path in listed if path.endswith(".gz")]
    assert "index.html" in listed


def test_gzip_copies_are_made_once_and_only_where_they_are_smaller(project, tmp_path, monkeypatch):
    from sitegen import compression

    files = builder.build(project, tmp_path / "a")
    assert "index.html.gz" in files and "pyodide/0.0.1/pyodide.asm.wasm" in files
    assert "pyodide/0.0.1/pyodide.asm.wasm.gz" not in files  # the stand-in runtime's few bytes: gzip adds to them
    cache = project / caches.GZIP_CACHE
    assert len(list(cache.iterdir())) == len([p for p in files if p.endswith(hosting.COMPRESSED_SUFFIXES)])

    def refuse(*args, **kwargs):
        raise AssertionError("compressed again")

    monkeypatch.setattr(compression.gzip, "compress", refuse)
    assert builder.build(project, tmp_path / "b") == files  # all from the cache
    monkeypatch.undo()
    page = project / "site_src" / "pages" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    changed = builder.build(project, tmp_path / "c")
    assert gzip.decompress(changed["index.html.gz"]) == changed["index.html"] != files["index.html"]
    kept = {p.name for p in cache.iterdir()}
    assert f"{hashlib.sha256(files['index.html']).hexdigest()}.gz" not in kept  # the old page's copy is gone
    assert f"{hashlib.sha256(changed['index.html']).hexdigest()}.gz" in kept
