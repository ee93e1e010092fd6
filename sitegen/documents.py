"""The site's documents: decision records and pages, read from their files and checked (DR-001).

A record is ``decisions/DR-NNN-slug.md`` with front matter and the sections every record has; a
page is a Markdown file or a template under ``site_src/pages/``. What a document's body holds
(its links, its HTML, its lists) is checked once it is converted (``load``).
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from sitegen.document_cache import DocumentCache
from sitegen.front_matter import front_matter_data, key_line, parse_date, split_front_matter
from sitegen.problems import Problem

# The site's title, and the description of every page whose front matter gives none of its own.
SITE_TITLE = "K-d Tree Explorer"
SITE_DESCRIPTION = ("How a k-d tree answers nearest-neighbour and radius searches, step by step, over real "
                    "business locations in Helsinki; with AI explanations checked against the search.")
STATUSES = ("Proposed", "Accepted", "Superseded", "Deprecated")
RECORD_SECTIONS = ("Context", "Decision", "Options considered", "Why", "What happened", "What I'd change")
RECORD_FILE = re.compile(r"^(DR-\d{3,})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
FRONT_MATTER_KEYS = {"id", "title", "status", "date", "supersedes", "superseded-by", "tags"}


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
    contents: tuple[tuple[str, str], ...] = ()  # (id, text) of each section heading, filled in by load_site

    @property
    def url(self) -> str:
        return f"decisions/{self.id}/index.html"

    @property
    def summary(self) -> str:
        """The first paragraph of the record's Context as plain text, for the feed."""
        match = re.search(r'<h2 id="context">.*?</h2>\s*<p>(.*?)</p>', self.html, flags=re.DOTALL)
        if match is None:
            return f"Status: {self.status}"
        return " ".join(html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).split())


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
    description: str = SITE_DESCRIPTION  # the page's meta description (front matter 'description')


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


def _id_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def load_record(path: Path, root: Path, cache: DocumentCache | None = None) -> tuple[Record | None, list[Problem]]:
    rel = path.relative_to(root).as_posix()
    text, problems = read_source(path, rel)
    if text is None:
        return None, problems
    front, body, body_line, problems = split_front_matter(text, rel)
    if front is None:
        return None, problems
    meta, error = front_matter_data(front, cache)
    if error is not None:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        return None, [Problem(rel, line, f"front matter is not valid YAML: {getattr(error, 'problem', error)}")]
    if not isinstance(meta, dict):
        return None, [Problem(rel, 2, "front matter must be a mapping of keys to values")]

    for key in sorted(set(meta) - FRONT_MATTER_KEYS, key=repr):  # keys may be numbers, dates or text
        problems.append(Problem(rel, key_line(front, key), f"unknown front matter key {key!r}"))
    for key in ("id", "title", "status", "date"):
        if key not in meta:
            problems.append(Problem(rel, 1, f"front matter lacks {key!r}"))
    if problems:
        return None, problems

    name = RECORD_FILE.match(path.name)
    record_id = meta["id"]
    if not isinstance(record_id, str) or not re.fullmatch(r"DR-\d{3,}", record_id):
        problems.append(Problem(rel, key_line(front, "id"), f"id {record_id!r} is not of the form DR-NNN"))
    elif name is None or name.group(1) != record_id:
        problems.append(Problem(rel, key_line(front, "id"), f"file name must be '{record_id}-slug.md'"))
    if not isinstance(meta["title"], str) or not meta["title"].strip():
        problems.append(Problem(rel, key_line(front, "title"), "title must be a non-empty string"))
    if meta["status"] not in STATUSES:
        problems.append(
            Problem(rel, key_line(front, "status"), f"unknown status {meta['status']!r}; use one of {STATUSES}")
        )
    date = parse_date(meta["date"])
    if date is None:
        message = "date must be a date of the calendar, written YYYY-MM-DD"
        problems.append(Problem(rel, key_line(front, "date"), message))
    tags = _id_list(meta.get("tags"))
    supersedes = _id_list(meta.get("supersedes"))
    superseded_by = _id_list(meta.get("superseded-by"))
    for key, value in (("tags", tags), ("supersedes", supersedes), ("superseded-by", superseded_by)):
        if value is None:
            problems.append(Problem(rel, key_line(front, key), f"{key} must be a string or a list of strings"))
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
        key_lines={key: key_line(front, key) for key in FRONT_MATTER_KEYS},
    )
    return record, []


def load_pages(src: Path, root: Path, cache: DocumentCache | None = None) -> tuple[list[Page], list[Problem]]:
    pages, problems = [], []
    for path in sorted((src / "pages").rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        stem = path.relative_to(src / "pages").with_suffix("").as_posix()
        # 404.html sits at the root, where hosts look for it; its links are written for the root.
        url = f"{stem}.html" if stem in ("index", "404") else f"{stem}/index.html"
        text, found = read_source(path, rel)
        if text is None:
            problems += found
            continue
        front, body, body_line, found = split_front_matter(text, rel)
        meta = {}
        if front is not None:
            meta, error = front_matter_data(front, cache)
            meta = meta or {}
            if error is not None:
                found.append(Problem(rel, 2, f"front matter is not valid YAML: {error}"))
        if not isinstance(meta, dict) or not isinstance(meta.get("title"), str):
            found.append(Problem(rel, 1, "page front matter needs a 'title'"))
        elif not isinstance(meta.get("description", ""), str):
            found.append(Problem(rel, key_line(front, "description"), "a page's 'description' must be text"))
        problems += found
        if found:
            continue
        kind = "markdown" if path.suffix == ".md" else "template"
        scripts = tuple(meta.get("scripts", ()))
        page = Page(rel, url, meta["title"], kind, body, body_line, scripts)
        if meta.get("description", "").strip():
            page.description = " ".join(meta["description"].split())
        pages.append(page)
    return pages, problems
