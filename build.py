"""Build the K-d Tree Explorer site into ``dist/`` and optionally serve it (DR-001).

Two phases: ``load_site`` reads and validates every decision record and page
and collects every problem with its file and line; only a clean model is
rendered by ``render_site``. Output is deterministic: the same tree gives a
byte-identical ``dist/``. Every URL the site writes is relative, so ``dist/``
works from any static server and any sub-path.

    python build.py                 build dist/
    python build.py --serve         build, then serve on http://127.0.0.1:8000/
    python build.py --serve --prefix /kd/   serve under a sub-path
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import hashlib
import html.parser
import http.server
import io
import json
import posixpath
import re
import shutil
import sys
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import markdown
import yaml

import stdlib_pyc

ROOT = Path(__file__).resolve().parent
SITE_TITLE = "K-d Tree Explorer"
STATUSES = ("Proposed", "Accepted", "Superseded", "Deprecated")
RECORD_SECTIONS = ("Context", "Decision", "Options considered", "Why", "What happened", "What I'd change")
RECORD_FILE = re.compile(r"^(DR-\d{3,})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
RECORD_MENTION = re.compile(r"\bDR-\d{3,}\b")
MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FRONT_MATTER_KEYS = {"id", "title", "status", "date", "supersedes", "superseded-by", "tags"}
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYAPP_SUFFIXES = (".py", ".csv", ".json")
BOOT_TIMEOUT_MS = 60_000

# The one Content-Security-Policy of the site (SPEC §10). Sent as a <meta> tag on
# every page and, because a meta policy does not reach a Web Worker, as an HTTP
# header by the built-in server and the shipped host configuration files.
CSP_DIRECTIVES = (
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "connect-src 'self' https://api.anthropic.com https://api.openai.com http://127.0.0.1:* http://localhost:*",
    "img-src 'self' data:",
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
)
CSP = "; ".join(CSP_DIRECTIVES)
# frame-ancestors is ignored (with a console warning) in a meta tag: header only.
CSP_HEADER = CSP + "; frame-ancestors 'none'"
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP_HEADER,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class BuildFailed(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class Record:
    id: str
    title: str
    status: str
    date: dt.date
    tags: tuple[str, ...]
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]
    body: str
    body_line: int
    source: str  # path relative to the project root, e.g. decisions/DR-001-site-generator.md
    key_lines: dict[str, int] = field(default_factory=dict)  # front matter key -> its line in the file
    html: str = ""  # the rendered Markdown body, filled in by load_site

    @property
    def url(self) -> str:
        return f"decisions/{self.id}/index.html"


@dataclass
class Page:
    source: str
    url: str
    title: str
    kind: str  # "markdown" or "template"
    body: str
    body_line: int = 1
    scripts: tuple[str, ...] = ()
    html: str = ""  # the rendered Markdown body of a markdown page, filled in by load_site


@dataclass
class Site:
    records: list[Record]
    pages: list[Page]
    static: dict[str, bytes] = field(default_factory=dict)  # output path -> bytes


# --- small pure helpers -------------------------------------------------------------


def relative_root(url: str) -> str:
    """Path from the page at ``url`` (e.g. ``decisions/DR-001/index.html``) to the site root."""
    depth = url.count("/")
    return "../" * depth if depth else "./"


def relative_url(target: str, from_url: str) -> str:
    """Relative link from the page at ``from_url`` to the output path ``target``."""
    link = posixpath.relpath(target, posixpath.dirname(from_url) or ".")
    if link.endswith("index.html"):
        link = link[: -len("index.html")] or "./"
    return link


def line_of(text: str, offset: int, first_line: int = 1) -> int:
    return first_line + text.count("\n", 0, offset)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


class FrontMatterLoader(yaml.SafeLoader):
    """YAML's safe loader, except that dates stay text: the build checks them itself, so an
    impossible date such as 2026-02-30 is a problem with a line, not an error inside YAML."""


FrontMatterLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)


def read_source(path: Path, rel: str) -> tuple[str | None, list[Problem]]:
    """The text of a UTF-8 source file (a leading byte order mark is dropped), or why it cannot be read."""
    if path.is_dir():
        return None, [Problem(rel, 1, "is a folder, but its name is that of a Markdown file; rename or remove it")]
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, [Problem(rel, 1, f"cannot be read: {exc.strerror}")]
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"is not UTF-8 text (byte 0x{data[exc.start]:02X} on this line); save it as UTF-8"
        return None, [Problem(rel, line, message)]


def parse_date(value: object) -> dt.date | None:
    """A date written YYYY-MM-DD that exists in the calendar, else None."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def split_front_matter(text: str, path: str) -> tuple[str | None, str, int, list[Problem]]:
    """Return (front matter, body, body's first line, problems)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, text, 1, [Problem(path, 1, "missing front matter (a first line '---')")]
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 2, []
    return None, text, 1, [Problem(path, 1, "front matter is not closed by a line '---'")]


def _id_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _key_line(front: str, key: str) -> int:
    for number, line in enumerate(front.split("\n"), start=2):
        if line.startswith(f"{key}:"):
            return number
    return 1


# --- phase 1: load and validate -----------------------------------------------------


def load_record(path: Path, root: Path) -> tuple[Record | None, list[Problem]]:
    rel = path.relative_to(root).as_posix()
    text, problems = read_source(path, rel)
    if text is None:
        return None, problems
    front, body, body_line, problems = split_front_matter(text, rel)
    if front is None:
        return None, problems
    try:
        meta = yaml.load(front, Loader=FrontMatterLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        return None, [Problem(rel, line, f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}")]
    if not isinstance(meta, dict):
        return None, [Problem(rel, 2, "front matter must be a mapping of keys to values")]

    for key in sorted(set(meta) - FRONT_MATTER_KEYS, key=repr):  # keys may be numbers, dates or text
        problems.append(Problem(rel, _key_line(front, key), f"unknown front matter key {key!r}"))
    for key in ("id", "title", "status", "date"):
        if key not in meta:
            problems.append(Problem(rel, 1, f"front matter lacks {key!r}"))
    if problems:
        return None, problems

    name = RECORD_FILE.match(path.name)
    record_id = meta["id"]
    if not isinstance(record_id, str) or not re.fullmatch(r"DR-\d{3,}", record_id):
        problems.append(Problem(rel, _key_line(front, "id"), f"id {record_id!r} is not of the form DR-NNN"))
    elif name is None or name.group(1) != record_id:
        problems.append(Problem(rel, _key_line(front, "id"), f"file name must be '{record_id}-slug.md'"))
    if not isinstance(meta["title"], str) or not meta["title"].strip():
        problems.append(Problem(rel, _key_line(front, "title"), "title must be a non-empty string"))
    if meta["status"] not in STATUSES:
        problems.append(
            Problem(rel, _key_line(front, "status"), f"unknown status {meta['status']!r}; use one of {STATUSES}")
        )
    date = parse_date(meta["date"])
    if date is None:
        message = "date must be a date of the calendar, written YYYY-MM-DD"
        problems.append(Problem(rel, _key_line(front, "date"), message))
    tags = _id_list(meta.get("tags"))
    supersedes = _id_list(meta.get("supersedes"))
    superseded_by = _id_list(meta.get("superseded-by"))
    for key, value in (("tags", tags), ("supersedes", supersedes), ("superseded-by", superseded_by)):
        if value is None:
            problems.append(Problem(rel, _key_line(front, key), f"{key} must be a string or a list of strings"))
    for heading in RECORD_SECTIONS:
        if not re.search(rf"^## {re.escape(heading)}\s*$", body, flags=re.MULTILINE):
            problems.append(Problem(rel, body_line, f"missing section '## {heading}'"))
    if problems:
        return None, problems
    record = Record(
        id=record_id,
        title=meta["title"].strip(),
        status=meta["status"],
        date=date,
        tags=tags,
        supersedes=supersedes,
        superseded_by=superseded_by,
        body=body,
        body_line=body_line,
        source=rel,
        key_lines={key: _key_line(front, key) for key in FRONT_MATTER_KEYS},
    )
    return record, []


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


def load_pages(src: Path, root: Path) -> tuple[list[Page], list[Problem]]:
    pages, problems = [], []
    for path in sorted((src / "pages").rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        stem = path.relative_to(src / "pages").with_suffix("").as_posix()
        url = "index.html" if stem == "index" else f"{stem}/index.html"
        text, found = read_source(path, rel)
        if text is None:
            problems += found
            continue
        front, body, body_line, found = split_front_matter(text, rel)
        meta = {}
        if front is not None:
            try:
                meta = yaml.load(front, Loader=FrontMatterLoader) or {}
            except yaml.YAMLError as exc:
                found.append(Problem(rel, 2, f"front matter is not valid YAML: {exc}"))
        if not isinstance(meta, dict) or not isinstance(meta.get("title"), str):
            found.append(Problem(rel, 1, "page front matter needs a 'title'"))
        problems += found
        if found:
            continue
        kind = "markdown" if path.suffix == ".md" else "template"
        scripts = tuple(meta.get("scripts", ()))
        pages.append(Page(rel, url, meta["title"], kind, body, body_line, scripts))
    return pages, problems


def internal_links(text: str) -> list[tuple[str, int]]:
    """(target, offset) of every Markdown link and href in ``text`` that points inside the site."""
    found = [(m.group(1), m.start(1)) for m in MD_LINK.finditer(text)]
    found += [(m.group(1), m.start(1)) for m in re.finditer(r"href=\"([^\"]+)\"", text)]
    return [(t, o) for t, o in found if not re.match(r"^[a-z][a-z0-9+.-]*:|^#|^\{\{", t)]


def check_references(site: Site, outputs: set[str]) -> list[Problem]:
    """Every DR-NNN mention names a record; every internal link reaches an output file."""
    problems = []
    ids = {r.id for r in site.records}
    documents = [(r.source, r.url, r.body, r.body_line) for r in site.records]
    documents += [(p.source, p.url, p.body, p.body_line) for p in site.pages]
    for source, url, body, first_line in documents:
        for match in RECORD_MENTION.finditer(body):
            if match.group(0) not in ids:
                line = line_of(body, match.start(), first_line)
                problems.append(Problem(source, line, f"reference to missing record {match.group(0)}"))
        for target, offset in internal_links(body):
            line = line_of(body, offset, first_line)
            if target.startswith("/"):
                problems.append(Problem(source, line, f"absolute link {target!r}: links must be relative"))
                continue
            path = target.split("#")[0].split("?")[0]
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(url), path))
            candidates = {resolved, posixpath.join(resolved, "index.html")}
            if resolved.startswith("..") or not candidates & outputs:
                problems.append(Problem(source, line, f"broken internal link {target!r}"))
    return problems


# --- what a record may hold besides Markdown (DR-001) ---------------------------------

ALLOWED_TAGS = frozenset({
    # written by Markdown and its tables, fenced_code, toc and attr_list extensions
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong",
    "a", "img", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "div",
    # written by hand
    "abbr", "kbd", "sup", "sub", "details", "summary",
})
ALLOWED_ATTRIBUTES = {
    "*": {"id", "class", "title"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
    "details": {"open"},
}
LINK_SCHEMES = ("http", "https", "mailto")


def url_scheme(url: str) -> str:
    """The scheme of ``url`` as a browser reads it (it ignores spaces and control characters), or ''."""
    match = re.match(r"([a-z][a-z0-9+.-]*):", re.sub(r"[\x00-\x20]", "", url).lower())
    return match.group(1) if match else ""


def is_site_path(url: str) -> bool:
    """True for a relative path such as ``../static/x.png``: no scheme, no host, no leading slash."""
    return not url_scheme(url) and not re.sub(r"[\x00-\x20]", "", url).startswith(("/", "\\"))


class HtmlChecker(html.parser.HTMLParser):
    """Collect what rendered HTML holds beyond the allowed tags, attributes and URLs.

    Comments, declarations and unfinished tags are refused outright: browsers and this parser
    do not always agree where they end (``<!-->``, ``<![CDATA[``), and markup hidden from one is
    live in the other. Markdown escapes every ``<`` of text, so a raw one left in the data is
    markup this parser gave up on.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.refused: list[tuple[str, tuple[str, ...]]] = []  # (message, expressions to find it in the source)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.refused.append((f"the tag <{tag}> is not allowed", (rf"<\s*{re.escape(tag)}\b",)))
            return
        allowed = ALLOWED_ATTRIBUTES["*"] | ALLOWED_ATTRIBUTES.get(tag, set())
        for name, value in attrs:
            value = value or ""
            attribute = rf"\b{re.escape(name)}\s*="
            clues = (re.escape(value), attribute) if value else (attribute,)
            if name not in allowed:
                self.refused.append((f"the attribute '{name}' on <{tag}> is not allowed", clues))
            elif name == "href" and url_scheme(value) not in ("", *LINK_SCHEMES):
                message = f"a link to '{url_scheme(value)}:' is not allowed; use {', '.join(LINK_SCHEMES)} or a path"
                self.refused.append((message, clues))
            elif name == "src" and not is_site_path(value):
                message = "an image must come from this site: give its src as a relative path"
                self.refused.append((message, clues))

    def handle_data(self, data: str) -> None:
        if "<" in data:
            unfinished = data[data.index("<"):][:20]
            self.refused.append((f"unfinished HTML {unfinished!r}", (re.escape(unfinished),)))

    def handle_comment(self, data: str) -> None:
        self.refused.append(("HTML comments are not allowed", (r"<!",)))

    def handle_decl(self, decl: str) -> None:
        self.refused.append(("declarations such as <!...> are not allowed", (r"<!",)))

    unknown_decl = handle_decl

    def handle_pi(self, data: str) -> None:
        self.refused.append(("processing instructions <?...> are not allowed", (r"<\?",)))


def refused_html(document: Record | Page) -> list[Problem]:
    """A problem for everything in the document's rendered HTML that a record may not hold.

    The HTML is what browsers get, so raw tags, attr_list attributes and Markdown links are all seen;
    the line is found by searching the source for clues to what was refused.
    """
    checker = HtmlChecker()
    try:
        checker.feed(document.html)
        checker.close()
    except AssertionError:  # how html.parser meets a section such as <![foo[ … ]]>
        checker.refused.append(("a <![…[ section is not allowed", (r"<!\[",)))
    hint = " (DR-001 lists the HTML a record may hold)"
    return [Problem(document.source, source_line(document, clues), message + hint)
            for message, clues in checker.refused]


def source_line(document: Record | Page, clues: tuple[str, ...]) -> int:
    """The line of the first match of the first clue that matches the document's source, else its first line."""
    for clue in clues:
        match = re.search(clue, document.body, flags=re.IGNORECASE)
        if match:
            return line_of(document.body, match.start(), document.body_line)
    return document.body_line


def load_site(root: Path = ROOT) -> Site:
    """Read and validate everything; raise BuildFailed listing every problem."""
    problems: list[Problem] = []
    records: list[Record] = []
    seen: dict[str, str] = {}
    for path in sorted((root / "decisions").glob("*.md")):
        record, found = load_record(path, root)
        problems += found
        if record is None:
            continue
        if record.id in seen:
            problems.append(Problem(record.source, 2, f"duplicate id {record.id}, also in {seen[record.id]}"))
            continue
        seen[record.id] = record.source
        records.append(record)
    records.sort(key=lambda r: r.id)
    problems += link_records(records)
    pages, found = load_pages(root / "site_src", root)
    problems += found
    to_html = MarkdownRenderer().to_html
    for document in [*records, *(page for page in pages if page.kind == "markdown")]:
        document.html = to_html(document.body, document.url)
        problems += refused_html(document)
    site = Site(records, pages)
    try:
        site.static = collect_static(root)
    except BuildFailed as failure:
        problems += failure.problems
    outputs = set(site.static) | {p.url for p in pages} | {r.url for r in records}
    outputs |= {"decisions/index.html", "decisions/feed.xml"}
    outputs |= {f"decisions/src/{Path(r.source).name}" for r in records}
    problems += check_references(site, outputs)
    if problems:
        raise BuildFailed(problems)
    return site


def collect_static(root: Path) -> dict[str, bytes]:
    """Every file copied as is: site assets, the Pyodide runtime, pyapp, vendored wheels."""
    files: dict[str, bytes] = {}
    for path in sorted((root / "site_src" / "static").rglob("*")):
        if path.is_file():
            files["static/" + path.relative_to(root / "site_src" / "static").as_posix()] = path.read_bytes()
    runtime = root / "node_modules" / "pyodide"
    missing = [name for name in PYODIDE_FILES if not (runtime / name).is_file()]
    if missing:
        raise BuildFailed([Problem("package.json", 1, f"Pyodide runtime missing {missing}: run 'npm ci' first")])
    for name in PYODIDE_FILES:
        files[f"pyodide/{name}"] = (runtime / name).read_bytes()
    # The worker loads the precompiled standard library under a content-hashed URL (DR-002).
    stdlib = files["pyodide/python_stdlib.pyc.zip"] = stdlib_pyc.precompiled_stdlib(runtime)
    worker = "static/js/worker.mjs"
    files[worker] = files[worker].replace(b"STDLIB_PYC_HASH", content_hash(stdlib).encode())
    files["pyapp.zip"] = zip_package(root / "pyapp")
    for wheel in sorted((root / "vendor").glob("*.whl")):
        files[f"wheels/{wheel.name}"] = wheel.read_bytes()
    schema = root / "pyapp" / "answer_schema.json"
    if schema.is_file():
        files["answer-schema.json"] = schema.read_bytes()
    return files


def zip_package(package: Path) -> bytes:
    """A byte-reproducible zip of the package's sources and data (fixed times, sorted names)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(package.rglob("*")):
            if path.is_file() and path.suffix in PYAPP_SUFFIXES and "__pycache__" not in path.parts:
                info = zipfile.ZipInfo(path.relative_to(package.parent).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


# --- phase 2: render ----------------------------------------------------------------


class RecordLinks(markdown.treeprocessors.Treeprocessor):
    """Turn every DR-NNN in text (not in code or an existing link) into a link to the record."""

    def __init__(self, md: markdown.Markdown, page_url: list[str]):
        super().__init__(md)
        self.page_url = page_url

    def run(self, root: ET.Element) -> None:
        self._walk(root)

    def _walk(self, element: ET.Element) -> None:
        if element.tag in ("a", "code", "pre"):
            return
        for child in list(element):
            self._walk(child)
        element.text, new = self._split(element.text)
        for index, link in enumerate(new):
            element.insert(index, link)
        parent_children = list(element)
        for child in parent_children:
            child.tail, new = self._split(child.tail)
            position = list(element).index(child) + 1
            for offset, link in enumerate(new):
                element.insert(position + offset, link)

    def _split(self, text: str | None) -> tuple[str | None, list[ET.Element]]:
        if not text or not RECORD_MENTION.search(text):
            return text, []
        parts = RECORD_MENTION.split(text)
        mentions = RECORD_MENTION.findall(text)
        links = []
        for mention, tail in zip(mentions, parts[1:], strict=True):
            link = ET.Element("a", {"href": relative_url(f"decisions/{mention}/index.html", self.page_url[0])})
            link.text = mention
            link.tail = tail
            links.append(link)
        return parts[0], links


class RecordLinkExtension(markdown.extensions.Extension):
    def __init__(self, page_url: list[str]):
        super().__init__()
        self.page_url = page_url

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.treeprocessors.register(RecordLinks(md, self.page_url), "record_links", 5)


class MarkdownRenderer:
    """One Markdown instance, reset between documents (no state leaks between pages)."""

    def __init__(self) -> None:
        self.page_url = ["index.html"]
        self.md = markdown.Markdown(
            extensions=["tables", "fenced_code", "toc", "attr_list", RecordLinkExtension(self.page_url)],
            # An aligned column gets align="…", not style="…", which the CSP would block (DR-001).
            extension_configs={"tables": {"use_align_attribute": True}},
            output_format="html",
        )

    def to_html(self, text: str, url: str) -> str:
        self.page_url[0] = url
        self.md.reset()
        return self.md.convert(text)


class Renderer:
    """The Jinja2 templates, with the helpers every page gets (root, asset, link)."""

    def __init__(self, root: Path, static: dict[str, bytes]):
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(root / "site_src" / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
        )
        self.static = static

    def render(self, template: str | jinja2.Template, url: str, **context) -> str:
        root = relative_root(url)

        def asset(path: str) -> str:
            # Content-hashed query strings let hosts cache assets without serving stale ones.
            return f"{root}{path}?v={content_hash(self.static[path])}"

        def link(target: str) -> str:
            return relative_url(target, url)

        wheels = json.dumps([asset(path) for path in sorted(self.static) if path.startswith("wheels/")])

        if isinstance(template, str):
            template = self.env.get_template(template)
        return template.render(
            root=root, asset=asset, link=link, url=url, csp=CSP, site_title=SITE_TITLE,
            boot_timeout_ms=BOOT_TIMEOUT_MS, wheels=wheels, **context,
        )


def render_site(site: Site, root: Path = ROOT) -> dict[str, bytes]:
    """Every output file of the site, by path relative to dist/."""
    renderer = Renderer(root, site.static)
    out: dict[str, bytes] = {}

    def emit(path: str, data: bytes | str) -> None:
        if path in out:
            raise BuildFailed([Problem(path, 1, "two sources write this output path")])
        out[path] = data.encode("utf-8") if isinstance(data, str) else data

    for path, data in site.static.items():
        emit(path, data)
    emit("_headers", "/*\n" + "".join(f"  {k}: {v}\n" for k, v in SECURITY_HEADERS.items()))
    emit(".htaccess", htaccess())
    by_id = {r.id: r for r in site.records}
    for record in site.records:
        emit(
            record.url,
            renderer.render(
                "record.html.j2", record.url, record=record, content=record.html, by_id=by_id,
                source_name=Path(record.source).name, title=f"{record.id}: {record.title}",
            ),
        )
        emit(f"decisions/src/{Path(record.source).name}", (root / record.source).read_bytes())
    emit("decisions/index.html", renderer.render("records.html.j2", "decisions/index.html", records=site.records,
                                                 title="Decision records"))
    emit("decisions/feed.xml", atom_feed(site.records))
    for page in site.pages:
        if page.kind == "markdown":
            html = renderer.render("page.html.j2", page.url, title=page.title, content=page.html, page=page)
        else:
            html = renderer.render(renderer.env.from_string(page.body), page.url, title=page.title, page=page)
        emit(page.url, html)
    return out


def atom_feed(records: list[Record]) -> str:
    """An Atom feed of the records; links are relative to the feed's own URL."""
    atom = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", atom)
    feed = ET.Element(f"{{{atom}}}feed")
    ET.SubElement(feed, f"{{{atom}}}title").text = f"{SITE_TITLE}: decision records"
    ET.SubElement(feed, f"{{{atom}}}id").text = "tag:kd-tree-explorer,2026:decisions"
    ET.SubElement(feed, f"{{{atom}}}link", {"rel": "self", "href": "feed.xml"})
    ET.SubElement(feed, f"{{{atom}}}link", {"rel": "alternate", "href": "./"})
    newest = max((r.date for r in records), default=dt.date(2026, 1, 1))
    ET.SubElement(feed, f"{{{atom}}}updated").text = f"{newest.isoformat()}T00:00:00Z"
    author = ET.SubElement(feed, f"{{{atom}}}author")
    ET.SubElement(author, f"{{{atom}}}name").text = SITE_TITLE
    for record in sorted(records, key=lambda r: (r.date, r.id), reverse=True):
        entry = ET.SubElement(feed, f"{{{atom}}}entry")
        ET.SubElement(entry, f"{{{atom}}}title").text = f"{record.id}: {record.title}"
        ET.SubElement(entry, f"{{{atom}}}id").text = f"tag:kd-tree-explorer,2026:{record.id}"
        ET.SubElement(entry, f"{{{atom}}}link", {"rel": "alternate", "href": f"{record.id}/"})
        ET.SubElement(entry, f"{{{atom}}}updated").text = f"{record.date.isoformat()}T00:00:00Z"
        ET.SubElement(entry, f"{{{atom}}}summary").text = f"Status: {record.status}"
        for tag in record.tags:
            ET.SubElement(entry, f"{{{atom}}}category", {"term": tag})
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"


def htaccess() -> str:
    """Apache configuration: the CSP header (a meta tag does not reach the worker) and MIME types."""
    lines = [
        "AddType application/wasm .wasm",
        "AddType text/javascript .mjs",
        "# Needs mod_headers (a2enmod headers): without it the worker runs without its policy (DR-002).",
        "<IfModule mod_headers.c>",
    ]
    lines += [f'  Header set {k} "{v}"' for k, v in SECURITY_HEADERS.items()]
    return "\n".join([*lines, "</IfModule>", ""])


def write_dist(files: dict[str, bytes], dist: Path) -> None:
    """Replace ``dist`` with exactly ``files``; refuse any path that would leave it."""
    dist = dist.resolve()
    for path in files:
        target = (dist / path).resolve()
        if dist not in target.parents:
            raise BuildFailed([Problem(path, 1, "output path leaves dist/")])
    if dist.exists():
        shutil.rmtree(dist)
    for path in sorted(files):
        target = dist / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path])


def build(root: Path = ROOT, dist: Path | None = None) -> dict[str, bytes]:
    files = render_site(load_site(root), root)
    write_dist(files, dist or root / "dist")
    return files


# --- serving ------------------------------------------------------------------------


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serve dist/ (optionally under a prefix) with the site's security headers."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".xml": "application/atom+xml",
        ".md": "text/plain; charset=utf-8",
        ".zip": "application/zip",
        ".whl": "application/zip",
    }
    prefix = "/"
    security_headers = SECURITY_HEADERS

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_prefix__")
        return super().translate_path("/" + path[len(self.prefix):])

    def send_head(self) -> io.BufferedIOBase | None:
        try:
            return super().send_head()
        except ValueError:  # a NUL byte or an undecodable escape in the path: no such file
            self.send_error(404)
            return None

    def list_directory(self, path: str) -> None:
        """A folder without index.html is not found: the server never lists files."""
        self.send_error(404)
        return None

    def end_headers(self) -> None:
        for name, value in self.security_headers.items():
            self.send_header(name, value)
        # Revalidate every time: cheap 304s, and a new build is never served stale.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
        if self.server.verbose:
            super().log_message(format, *args)


def make_server(dist: Path, port: int = 0, prefix: str = "/", verbose: bool = False,
                handler: type[SiteHandler] = SiteHandler) -> http.server.ThreadingHTTPServer:
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    bound = type("BoundSiteHandler", (handler,), {"prefix": prefix})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(bound, directory=str(dist)))
    server.verbose = verbose
    server.prefix = prefix
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", action="store_true", help="serve dist/ on 127.0.0.1 after building")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--prefix", default="/", help="serve the site under this sub-path, e.g. /kd/")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project folder to build (default: this one)")
    args = parser.parse_args(argv)
    dist = args.root / "dist"
    try:
        files = build(args.root, dist)
    except BuildFailed as failure:
        for problem in failure.problems:
            print(problem, file=sys.stderr)
        print(f"build failed: {len(failure.problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"built {len(files)} files into dist/")
    if args.serve:
        server = make_server(dist, args.port, args.prefix, verbose=True)
        host, port = server.server_address[:2]
        print(f"serving on http://{host}:{port}{server.prefix}  (Ctrl+C to stop)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
