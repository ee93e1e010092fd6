"""Links between the site's pages, all relative, and the check that each one reaches a file of the site (DR-001).

Every URL the site writes is relative, so ``dist/`` works from any static server and any sub-path.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass

from sitegen.allowlist import HtmlChecker, url_scheme
from sitegen.document_cache import DocumentCache
from sitegen.documents import Page, Record
from sitegen.problems import Problem, source_line


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
    """The 12 hex digits of SHA-256 that name a file's content in the URLs linking to it (``?v=``)."""
    return hashlib.sha256(data).hexdigest()[:12]


@dataclass(frozen=True)
class Origin:
    """Where a link was written: the file, its line, and the link as written there."""

    path: str
    line: int
    written: str


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
