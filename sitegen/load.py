"""Phase 1 of the build: read and validate every record and page, and collect every problem (DR-001).

Only a clean model is rendered (``render``). What each document's text gives is kept in the
documents cache, so a rebuild converts and checks only the documents that changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from sitegen import ROOT
from sitegen.allowlist import refused_html
from sitegen.caches import DOCUMENT_CACHE, FILE_DIGESTS
from sitegen.convert import MarkdownRenderer, list_indent_problems
from sitegen.digests import FileDigests
from sitegen.document_cache import DocumentCache
from sitegen.documents import Page, Record, load_pages, load_record
from sitegen.problems import BuildFailed, Problem, prose_line
from sitegen.static import collect_static
from sitegen.supersedes import link_records


@dataclass
class Site:
    records: list[Record]
    pages: list[Page]
    static: dict[str, bytes] = field(default_factory=dict)  # output path -> bytes
    cache: DocumentCache | None = None  # what the last build computed, or None to compute everything
    files: FileDigests | None = None  # the digests of files read or written, kept between builds
    # output path -> SHA-256 (hex): the static files' from collect_static, every output's once render_site is done
    digests: dict[str, str] = field(default_factory=dict)


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
