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
import html
import html.parser
import itertools
import json
import os
import posixpath
import re
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from sitegen import compression, stdlib_pyc
from sitegen import service_worker as offline
from sitegen import wheel as pyapp_wheel
from sitegen.caches import (
    DOCUMENT_CACHE,
    EXPERIMENT_CACHE,
    EXPERIMENT_PAGE_CACHE,
    FILE_DIGESTS,
    GZIP_CACHE,
    PAGE_CONTENT_CACHE,
    SERVICE_WORKER_CACHE,
    TEMPLATE_CACHE,
    WHEEL_CACHE,
)
from sitegen.digests import FileDigests, write_atomically
from sitegen.document_cache import DocumentCache
from sitegen.documents import SITE_TITLE, Page, Record, load_pages, load_record
from sitegen.hosting import CSP, host_files
from sitegen.problems import BuildFailed, Problem, prose_line, source_line
from sitegen.supersedes import link_records

ROOT = Path(__file__).resolve().parent
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYAPP_FOLDER = "app"  # pyapp's wheel; wheels/ holds the vendored ones
BOOT_TIMEOUT_MS = 60_000


@dataclass
class Site:
    records: list[Record]
    pages: list[Page]
    static: dict[str, bytes] = field(default_factory=dict)  # output path -> bytes
    cache: DocumentCache | None = None  # what the last build computed, or None to compute everything
    files: FileDigests | None = None  # the digests of files read or written, kept between builds
    # output path -> SHA-256 (hex): the static files' from collect_static, every output's once render_site is done
    digests: dict[str, str] = field(default_factory=dict)


# --- small pure helpers -------------------------------------------------------------


def relative_root(url: str) -> str:
    """Path from the page at ``url`` (e.g. ``decisions/DR-001/index.html``) to the site root."""
    depth = url.count("/")
    return "../" * depth if depth else "./"


def record_href(record_id: str, from_url: str) -> str:
    """Relative link from the page at ``from_url`` to the record ``record_id``."""
    return relative_url(f"decisions/{record_id}/index.html", from_url)


def relative_url(target: str, from_url: str) -> str:
    """Relative link from the page at ``from_url`` to the output path ``target``.

    What ``posixpath.relpath`` gives, without the two calls to ``os.getcwd`` it makes each time; a path
    that is absolute or climbs out of the site goes to it, as the answer then depends on the folder.
    """
    start, path = posixpath.normpath(posixpath.dirname(from_url) or "."), posixpath.normpath(target)
    if not target or start.startswith(("/", "..")) or path.startswith(("/", "..")):
        link = posixpath.relpath(target, posixpath.dirname(from_url) or ".")
    else:
        start_parts, path_parts = [p for p in start.split("/") if p != "."], [p for p in path.split("/") if p != "."]
        common = 0
        while common < min(len(start_parts), len(path_parts)) and start_parts[common] == path_parts[common]:
            common += 1
        link = "/".join([".."] * (len(start_parts) - common) + path_parts[common:]) or "."
    if link.endswith("index.html"):
        link = link[: -len("index.html")] or "./"
    return link


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


# --- phase 1: load and validate -----------------------------------------------------


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
    """Collect the links (href, src) and ids of rendered HTML and, with ``check_markup``, what it holds
    beyond the allowed tags, attributes and URLs.

    Comments, declarations and unfinished tags are refused outright: browsers and this parser
    do not always agree where they end (``<!-->``, ``<![CDATA[``), and markup hidden from one is
    live in the other. Markdown escapes every ``<`` of text, so a raw one left in the data is
    markup this parser gave up on.
    """

    def __init__(self, check_markup: bool = True) -> None:
        super().__init__(convert_charrefs=False)
        self.check_markup = check_markup
        self.links: list[tuple[str, int]] = []  # (href or src, its line in the HTML)
        self.ids: set[str] = set()
        self.refused: list[tuple[str, tuple[str, ...]]] = []  # (message, expressions to find it in the source)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((value, self.getpos()[0]))
            elif name == "id" and value:
                self.ids.add(value)
        if not self.check_markup:
            return
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
        if self.check_markup and "<" in data:
            unfinished = data[data.index("<"):][:20]
            self.refused.append((f"unfinished HTML {unfinished!r}", (re.escape(unfinished),)))

    def handle_comment(self, data: str) -> None:
        if self.check_markup:
            self.refused.append(("HTML comments are not allowed", (r"<!",)))

    def handle_decl(self, decl: str) -> None:
        if self.check_markup:
            self.refused.append(("declarations such as <!...> are not allowed", (r"<!",)))

    unknown_decl = handle_decl

    def handle_pi(self, data: str) -> None:
        if self.check_markup:
            self.refused.append(("processing instructions <?...> are not allowed", (r"<\?",)))


@dataclass(frozen=True)
class PageLinks:
    links: tuple[tuple[str, int], ...]  # (href or src, its line in the HTML)
    ids: frozenset[str]


def read_html(text: str, cache: DocumentCache | None = None) -> PageLinks:
    """The links and ids of a rendered page (its markup is the templates', not checked)."""
    key = cache.key("rendered", text) if cache is not None else ""
    kept = cache.get(key) if cache is not None else None
    if isinstance(kept, dict):
        return PageLinks(tuple((href, line) for href, line in kept["links"]), frozenset(kept["ids"]))
    reader = HtmlChecker(check_markup=False)
    reader.feed(text)
    reader.close()
    if cache is not None:
        cache.put(key, {"links": reader.links, "ids": sorted(reader.ids)})
    return PageLinks(tuple(reader.links), frozenset(reader.ids))


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


LIST_MARKER = re.compile(r"([-*+]|\d+\.)\s")


def list_indent_problems(document: Record | Page) -> list[Problem]:
    """A problem for each list whose Markdown Python-Markdown reads otherwise than it looks (DR-001).

    Python-Markdown nests a block in a list item only when it is indented by four spaces: with
    fewer, a nested list is flattened into its parent, and a table or paragraph after a blank line
    ends the list. And a block nested after a blank line takes every line up to the next blank
    line, so the items that follow it without one run together into a paragraph with literal dashes.
    """
    problems, in_list, nested, after_blank, fenced = [], False, False, False, False
    for number, line in enumerate(document.body.split("\n"), start=document.body_line):
        if re.match(r"\s{0,3}(```|~~~)", line):
            fenced = not fenced
        if fenced or not line.strip():
            after_blank = not fenced and not line.strip()
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            marker = bool(LIST_MARKER.match(line))
            if marker and in_list and nested and not after_blank:
                message = "this list item follows a block nested in the item before it: put a blank line before it"
                problems.append(Problem(document.source, number, message))
            in_list, nested = marker, False
        elif in_list and indent < 4 and (after_blank or LIST_MARKER.match(line.lstrip())):
            message = (f"this line inside a list item is indented by {indent} space(s); indent it by 4, "
                       "or Python-Markdown ends or flattens the list here")
            problems.append(Problem(document.source, number, message))
        elif in_list and after_blank:
            nested = True
        after_blank = False
    return problems


def load_site(root: Path = ROOT) -> Site:
    """Read and validate everything; raise BuildFailed listing every problem."""
    problems: list[Problem] = []
    records: list[Record] = []
    seen: dict[str, str] = {}
    cache = DocumentCache(root / DOCUMENT_CACHE)
    for path in sorted((root / "decisions").glob("*.md")):
        record, found = load_record(path, root, cache)
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
    pages, found = load_pages(root / "site_src", root, cache)
    problems += found
    ids = {r.id for r in records}
    all_ids = hashlib.sha256(" ".join(sorted(ids)).encode()).hexdigest()  # once, not once per document
    markdown_renderer = None  # made only when a document is not in the cache
    for document in [*records, *(page for page in pages if page.kind == "markdown")]:
        key = cache.key("document", document.url, all_ids, document.body)
        kept = cache.get(key)
        if isinstance(kept, dict):
            document.html = kept["html"]
            if isinstance(document, Record):
                document.contents = tuple(tuple(section) for section in kept["contents"])
            continue
        markdown_renderer = markdown_renderer or MarkdownRenderer(ids)
        document.html, missing = markdown_renderer.convert(document.body, document.url)
        if isinstance(document, Record):
            document.contents = markdown_renderer.sections()
        found = [Problem(document.source, prose_line(document, mention), f"reference to missing record {mention}")
                 for mention in missing]
        found += refused_html(document)
        found += list_indent_problems(document)
        if not found:
            contents = document.contents if isinstance(document, Record) else ()
            cache.put(key, {"html": document.html, "contents": contents})
        problems += found
    site = Site(records, pages, cache=cache, files=FileDigests(root / FILE_DIGESTS))
    try:
        site.static, site.digests = collect_static(root, site.files)
    except BuildFailed as failure:
        problems += failure.problems
    if problems:
        raise BuildFailed(problems)
    return site


def pyodide_folder(runtime: Path) -> str:
    """Where the site keeps Pyodide: a folder named by its version, so hosts may cache it for ever (DR-002)."""
    version = json.loads((runtime / "package.json").read_text(encoding="utf-8"))["version"]
    return f"pyodide/{version}"


def collect_static(root: Path, known: FileDigests) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every file copied as is: site assets, the Pyodide runtime, pyapp's wheel, vendored wheels; and the
    SHA-256 of each file whose bytes are a source file's, from ``known`` when it holds them (DR-001)."""
    files: dict[str, bytes] = {}
    digests: dict[str, str] = {}

    def copy(output: str, source: Path) -> None:
        files[output], digests[output] = known.read(source)

    for path in sorted((root / "site_src" / "static").rglob("*")):
        if path.is_file():
            copy("static/" + path.relative_to(root / "site_src" / "static").as_posix(), path)
    runtime = root / "node_modules" / "pyodide"
    missing = [name for name in PYODIDE_FILES if not (runtime / name).is_file()]
    if missing:
        raise BuildFailed([Problem("package.json", 1, f"Pyodide runtime missing {missing}: run 'npm ci' first")])
    folder = pyodide_folder(runtime)
    for name in PYODIDE_FILES:
        copy(f"{folder}/{name}", runtime / name)
    if not (root / "pyproject.toml").is_file():
        raise BuildFailed([Problem("pyproject.toml", 1, "missing: it defines the package the site ships")])
    name, wheel = wheel_of_pyapp(root)
    wheels = {f"{PYAPP_FOLDER}/{name}": wheel}
    for path in sorted((root / "vendor").glob("*.whl")):
        wheels[f"wheels/{path.name}"] = path.read_bytes()
    worker = "static/js/worker.mjs"
    if worker in files:  # a site with Python pages: the worker loads the precompiled stdlib by its hash (DR-002)
        stdlib = f"{folder}/python_stdlib.pyc.zip"
        copy(stdlib, stdlib_pyc.precompiled_stdlib_file(runtime, known))
        files[worker] = (files[worker].replace(b"STDLIB_PYC_HASH", digests[stdlib][:12].encode())
                         .replace(b"PYODIDE_FOLDER", folder.encode()))
        del digests[worker]  # no longer the source file's bytes
        # And the wheels with their modules precompiled too, so importing pyapp compiles nothing (DR-002).
        by_name = stdlib_pyc.precompiled_wheels(runtime, {posixpath.basename(p): data for p, data in wheels.items()},
                                                known)
        wheels = {path: by_name[posixpath.basename(path)] for path in wheels}
    files.update(wheels)
    schema = root / "pyapp" / "answer_schema.json"
    if schema.is_file():
        copy("answer-schema.json", schema)
    return files, digests


def wheel_of_pyapp(root: Path) -> tuple[str, bytes]:
    """pyapp's wheel as ``build_wheel`` makes it, kept in ``.cache/wheel`` under a hash of every file it holds,
    the code that zips it and zlib's version: compressing it took a tenth of a build (DR-001)."""
    name, contents = pyapp_wheel.wheel_contents(root)
    digest = hashlib.sha256(Path(pyapp_wheel.__file__).read_bytes() + zlib.ZLIB_RUNTIME_VERSION.encode())
    for path, data in contents.items():
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(data).digest())
    cached = root / WHEEL_CACHE / digest.hexdigest()[:24] / name
    if cached.is_file():
        return name, cached.read_bytes()
    wheel = pyapp_wheel.zip_wheel(contents)
    if cached.parent.parent.is_dir():
        shutil.rmtree(cached.parent.parent)  # the wheels of earlier inputs
    cached.parent.mkdir(parents=True)
    write_atomically(cached, wheel)
    return name, wheel


# --- phase 2: render ----------------------------------------------------------------


class MarkdownRenderer:
    """One Markdown converter, reset to a clean state before each document."""

    def __init__(self, ids: set[str]) -> None:
        import markdown  # only when a document is not in the cache (DR-001)

        from sitegen.record_links import RecordLinkExtension

        self.record_links = RecordLinkExtension(ids, record_href)
        self.md = markdown.Markdown(
            extensions=["tables", "fenced_code", "toc", "attr_list", self.record_links],
            # An aligned column gets align="…", not style="…", which the CSP would block (DR-001).
            extension_configs={"tables": {"use_align_attribute": True}},
            output_format="html",
        )

    def convert(self, text: str, url: str) -> tuple[str, list[str]]:
        """The HTML of the document at ``url``, and the DR-NNN mentions in its prose that name no record."""
        self.md.reset()
        self.record_links.page_url = url
        return self.md.convert(text), self.record_links.missing

    def sections(self) -> tuple[tuple[str, str], ...]:
        """The (id, text) of each second-level heading of the last document converted, for its contents."""
        found, tokens = [], list(self.md.toc_tokens)
        while tokens:
            token = tokens.pop(0)
            if token["level"] == 2:
                found.append((token["id"], token["name"]))
            tokens[:0] = token["children"]
        return tuple(found)


@dataclass(frozen=True)
class Origin:
    """Where a link was written: the file, its line, and the link as written there."""

    path: str
    line: int
    written: str


class Renderer:
    """The Jinja2 templates, with the helpers every page gets (root, asset, link).

    ``asset()`` and ``link()`` note the template line that called them, so a broken link
    they made is reported there; an asset that does not exist is a problem at once.
    """

    def __init__(self, root: Path, static: dict[str, bytes], digests: dict[str, str] | None = None):
        self.root = root
        cache = root / TEMPLATE_CACHE
        cache.mkdir(parents=True, exist_ok=True)
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(root / "site_src" / "templates"),
            # Compiled templates are kept between builds, keyed by each template's source checksum.
            bytecode_cache=jinja2.FileSystemBytecodeCache(str(cache)),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
        )
        self.static = static
        self.hashes = {path: digest[:12] for path, digest in (digests or {}).items()}  # static path -> content hash
        self.origins: dict[tuple[str, str], Origin] = {}  # (page url, link as written) -> template line
        self.lines: dict[tuple[jinja2.Template, int], int] = {}  # (template, compiled code's line) -> its line
        self.paths: dict[str, str] = {}  # template file -> its path in the project
        self.problems: list[Problem] = []

    def caller(self, page: Page | None, written: str) -> Origin:
        """The template line calling ``asset()`` or ``link()`` (a template page's own body is in the page's file)."""
        frame = sys._getframe(2)
        while frame is not None:
            template = frame.f_globals.get("__jinja_template__")
            if template is not None:
                line = self.template_line(template, frame.f_lineno)
                if template.name is None and page is not None:  # a template page's own body
                    return Origin(page.source, page.body_line + line - 1, written)
                return Origin(self.template_path(template.filename), line, written)
            frame = frame.f_back
        return Origin("site_src/templates", 1, written)

    def template_line(self, template: jinja2.Template, compiled_line: int) -> int:
        """The template's line for a line of its compiled code; Jinja reads its line table afresh on each call."""
        if (template, compiled_line) not in self.lines:
            self.lines[template, compiled_line] = template.get_corresponding_lineno(compiled_line)
        return self.lines[template, compiled_line]

    def page_template(self, page: Page) -> jinja2.Template:
        """A template page's own body, compiled as ``from_string`` would, through the bytecode cache."""
        cache = self.env.bytecode_cache
        bucket = cache.get_bucket(self.env, page.source, None, page.body)
        if bucket.code is None:
            bucket.code = self.env.compile(page.body)
            cache.set_bucket(bucket)
        return self.env.template_class.from_code(self.env, bucket.code, self.env.make_globals(None))

    def asset_hash(self, path: str) -> str:
        """Hashed once a build: every page asks for the same assets, the 4.5 MB precompiled stdlib among them."""
        if path not in self.hashes:
            self.hashes[path] = content_hash(self.static[path])
        return self.hashes[path]

    def template_path(self, filename: str) -> str:
        """A template file's path in the project, resolved once a build."""
        if filename not in self.paths:
            self.paths[filename] = Path(filename).resolve().relative_to(self.root.resolve()).as_posix()
        return self.paths[filename]

    def render(self, template: str | Page, url: str, **context) -> str:
        """Render a template file by name, or a template page's own body."""
        page = template if isinstance(template, Page) else None
        root = relative_root(url)

        def asset(path: str) -> str:
            if path not in self.static:
                origin = self.caller(page, path)
                self.problems.append(Problem(origin.path, origin.line, f"asset {path!r} is not a file of the site"))
                return root + path
            # Content-hashed query strings let hosts cache assets without serving stale ones.
            href = f"{root}{path}?v={self.asset_hash(path)}"
            if (url, href) not in self.origins:
                self.origins[url, href] = self.caller(page, path)
            return href

        def link(target: str) -> str:
            href = relative_url(target, url)
            if (url, href) not in self.origins:
                self.origins[url, href] = self.caller(page, target)
            return href

        wheels = json.dumps([asset(path) for path in sorted(self.static) if path.startswith("wheels/")])
        pyapp = asset(next(path for path in sorted(self.static) if path.startswith(f"{PYAPP_FOLDER}/")))
        compiled = self.page_template(page) if page is not None else self.env.get_template(template)
        return compiled.render(
            root=root, asset=asset, link=link, url=url, csp=CSP, site_title=SITE_TITLE,
            boot_timeout_ms=BOOT_TIMEOUT_MS, wheels=wheels, pyapp=pyapp, page_content=page_content, **context,
        )


@functools.cache
def pyapp_digest() -> str:
    """A hash of pyapp's files, code and data: what the build keeps of pyapp's results is cached under it."""
    package = ROOT / "pyapp"
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def page_content(name: str) -> dict:
    """A page's fixed content from ``pyapp.page_content``, computed by the functions the worker calls,
    so it shows before Python starts (DR-002).

    Kept in ``.cache/page-content`` under a hash of pyapp's files: importing and running pyapp would
    otherwise add several hundred milliseconds to every build. The value goes through JSON either way,
    so a build from the cache gives the same bytes.
    """
    cached = ROOT / PAGE_CONTENT_CACHE / f"{name}-{pyapp_digest()[:16]}.json"
    if not cached.exists():
        from pyapp import page_content as content

        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(getattr(content, name)()), encoding="utf-8")
    return json.loads(cached.read_text(encoding="utf-8"))


def experiment_figures(root: Path) -> dict:
    """The experiments page's figures for the default seed (DR-010), cached by a hash of pyapp's code and data.

    They take seconds to compute and change only when pyapp does, so a build reads them back when
    neither its modules nor its data file changed. JSON keeps every float by its repr, so the cached
    figures are the computed ones to the last digit.
    """
    from pyapp import experiment

    package = Path(experiment.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted([*package.glob("*.py"), *package.glob("data/*")]):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    cache = root / EXPERIMENT_CACHE / f"{digest.hexdigest()[:24]}.json"
    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    figures = experiment.run_experiment()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(figures), encoding="utf-8")
    return figures


def experiment_section(root: Path, url: str) -> dict:
    """What the experiments page places: the figures' markup, the digest, and the settings behind them.

    Kept under a hash of pyapp's files and the page's URL: making the markup imports most of pyapp
    (DR-001), which a build with nothing changed need not do.
    """
    cache = root / EXPERIMENT_PAGE_CACHE / f"{pyapp_digest()[:24]}-{content_hash(url.encode())}.json"
    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    from pyapp.experiment_page import figures_html

    figures = experiment_figures(root)
    section = {"html": figures_html(figures, relative_url("explorer/index.html", url)), "digest": figures["digest"],
               "seed": figures["seed"], "per_kind": figures["per_kind"], "queries": figures["text"]["queries"]}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(section), encoding="utf-8")
    return section


def wrap_tables(text: str) -> str:
    """Put each table of rendered Markdown in a focusable region that scrolls sideways on a narrow
    screen, so the page never does; its label, unique on the page, numbers it and names its columns."""
    number = itertools.count(1)

    def wrap(match: re.Match) -> str:
        headers = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", match.group(0), re.DOTALL)]
        label = f"Table {next(number)}: " + ", ".join(h.strip() for h in headers)
        return (f'<div class="table-wrap" tabindex="0" role="region" aria-label="{label.replace(chr(34), "&quot;")}">'
                f"{match.group(0)}</div>")

    return re.sub(r"<table>.*?</table>", wrap, text, flags=re.DOTALL)


def render_site(site: Site, root: Path = ROOT) -> dict[str, bytes]:
    """Every output file of the site, by path relative to dist/."""
    renderer = Renderer(root, site.static, site.digests)
    out: dict[str, bytes] = {}

    def emit(path: str, data: bytes | str) -> None:
        if path in out:
            raise BuildFailed([Problem(path, 1, "two sources write this output path")])
        out[path] = data.encode("utf-8") if isinstance(data, str) else data

    for path, data in site.static.items():
        emit(path, data)
    for path, text in host_files().items():
        emit(path, text)
    by_id = {r.id: r for r in site.records}
    for record in site.records:
        emit(
            record.url,
            renderer.render(
                "record.html.j2", record.url, record=record, content=wrap_tables(record.html), by_id=by_id,
                source_name=Path(record.source).name, title=f"{record.id}: {record.title}",
                description=textwrap.shorten(record.summary, 200, placeholder="…"),
            ),
        )
        emit(f"decisions/src/{Path(record.source).name}", (root / record.source).read_bytes())
    emit("decisions/index.html", renderer.render("records.html.j2", "decisions/index.html", records=site.records,
                                                 title="Decision records",
                                                 description="Every design decision of the site, why it was "
                                                             "made, and what was measured afterwards."))
    emit("decisions/feed.xml", atom_feed(site.records))
    for page in site.pages:
        if page.kind == "markdown":
            html = renderer.render("page.html.j2", page.url, title=page.title, content=wrap_tables(page.html),
                                   description=page.description)
        else:
            # Only a page that asks for the experiment's figures computes them (DR-010).
            html = renderer.render(page, page.url, title=page.title, description=page.description,
                                   experiment=functools.partial(experiment_section, root, page.url))
        emit(page.url, html)
    for path, data in out.items():
        if path not in site.digests:
            site.digests[path] = hashlib.sha256(data).hexdigest()
    worker_source = root / "site_src" / offline.SERVICE_WORKER
    if worker_source.is_file():  # last: it lists every other file (DR-002)
        emit(offline.SERVICE_WORKER, service_worker(root, worker_source.read_text(encoding="utf-8"), out, site.digests))
        site.digests[offline.SERVICE_WORKER] = hashlib.sha256(out[offline.SERVICE_WORKER]).hexdigest()
    # After the service worker, which keeps none of them: the gzip copies hosts may send as they are (DR-002).
    for path, (data, digest) in compression.gzip_copies(out, site.digests, root / GZIP_CACHE, site.files).items():
        emit(path, data)
        site.digests[path] = digest
    documents = {document.url: document for document in [*site.records, *site.pages]}
    problems = renderer.problems + broken_links(out, documents, renderer.origins, site.cache)
    if problems:
        raise BuildFailed(problems)
    if site.cache is not None:
        site.cache.save()
    return out


def service_worker(root: Path, source: str, out: dict[str, bytes], digests: dict[str, str]) -> str:
    """``offline.service_worker``'s text, kept under a hash of ``sitegen/service_worker.py``, the worker's
    source and each output's path and SHA-256: what it writes is a function of the files' bytes, which it would hash
    again (DR-001)."""
    key = hashlib.sha256(Path(offline.__file__).read_bytes() + b"\0" + source.encode())
    for path in sorted(out):
        key.update(f"\0{path}\0{digests[path]}".encode())
    cached = root / SERVICE_WORKER_CACHE / f"{key.hexdigest()[:24]}.js"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    text = offline.service_worker(source, out)
    if cached.parent.is_dir():
        shutil.rmtree(cached.parent)  # the workers of earlier sites
    cached.parent.mkdir(parents=True)
    write_atomically(cached, text.encode("utf-8"))
    return text


def broken_links(out: dict[str, bytes], documents: dict[str, Record | Page],
                 origins: dict[tuple[str, str], Origin], cache: DocumentCache | None = None) -> list[Problem]:
    """Every href and src of every rendered page that does not reach a file the build writes (or an id in it).

    A problem is reported where the link was written: the template line that called ``link()``
    or ``asset()``, else the line of the page's source holding it, else the rendered page's line.
    """
    pages = {path: read_html(data.decode("utf-8"), cache) for path, data in out.items() if path.endswith(".html")}
    problems = []
    for url, reader in pages.items():
        for href, rendered_line in reader.links:
            fault = None if url_scheme(href) else link_fault(href, url, out, pages)
            if fault is None:
                continue
            origin = origins.get((url, href))
            document = documents.get(url)
            if origin is None and document is not None and href in document.body:
                origin = Origin(document.source, source_line(document, (re.escape(href),)), href)
            if origin is None:
                message = f"{fault.format(href)}, written by the templates of this page"
                problems.append(Problem(url, rendered_line, message))
            else:
                problems.append(Problem(origin.path, origin.line, fault.format(origin.written)))
    return list(dict.fromkeys(problems))  # a template line at fault is reported once, not once per page


def link_fault(href: str, from_url: str, out: dict[str, bytes], pages: dict[str, PageLinks]) -> str | None:
    """Why the link ``href`` without a scheme on the page ``from_url`` reaches nothing, or None if it does.

    The reason is a pattern: ``{}`` stands for the link as written in its source.
    """
    if href.startswith(("/", "\\")):
        return "absolute link {!r}: links must be relative"
    path, _, fragment = href.partition("#")
    path = path.split("?")[0]
    target = from_url
    if path:
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(from_url), path))
        candidates = (resolved, posixpath.normpath(posixpath.join(resolved, "index.html")))
        target = next((t for t in candidates if t in out), None)
        if resolved.startswith("..") or target is None:
            return "broken internal link {!r}"
    if fragment and target in pages and fragment not in pages[target].ids:
        return f"broken internal link {{!r}}: {target} has no id {fragment!r}"
    return None


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
        ET.SubElement(entry, f"{{{atom}}}summary").text = record.summary
        for tag in record.tags:
            ET.SubElement(entry, f"{{{atom}}}category", {"term": tag})
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"


def write_dist(files: dict[str, bytes], dist: Path, digests: dict[str, str] | None = None,
               known: FileDigests | None = None) -> None:
    """Make ``dist`` hold exactly ``files``; refuse any path that would leave it.

    Whatever is not an output goes; a file that already holds its output's bytes is left as it is, so
    a rebuild neither deletes nor writes again the 16 MB of the Pyodide runtime (DR-001). With each
    output's SHA-256 in ``digests``, a file ``known`` holds a settled digest of is not read back.
    """
    dist = dist.resolve()
    for path in files:
        target = (dist / path).resolve()
        if dist not in target.parents:
            raise BuildFailed([Problem(path, 1, "output path leaves dist/")])
    if dist.exists() and not dist.is_dir():
        dist.unlink()
    folders = {parent.as_posix() for path in files for parent in Path(path).parents}
    for folder, subfolders, names in os.walk(dist, topdown=False):  # deepest first; never into a link
        here = Path(folder)
        for name in names:
            if (here / name).relative_to(dist).as_posix() not in files or (here / name).is_symlink():
                (here / name).unlink()
        for name in subfolders:
            if (here / name).is_symlink():
                (here / name).unlink()
            elif (here / name).relative_to(dist).as_posix() not in folders:
                shutil.rmtree(here / name)
    for path in sorted(files):
        target = dist / path
        data = files[path]
        if known is not None and digests is not None:
            if known.holds(target, data, digests[path]):
                continue
        elif target.is_file() and target.stat().st_size == len(data) and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def build(root: Path = ROOT, dist: Path | None = None) -> dict[str, bytes]:
    site = load_site(root)
    files = render_site(site, root)
    write_dist(files, dist or root / "dist", site.digests, site.files)
    if site.files is not None:
        site.files.save()
    return files


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
        from sitegen import serve  # http.server only when serving

        serve.serve_forever(dist, args.port, args.prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
