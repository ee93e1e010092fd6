"""Phase 2 of the build: every output file of the site, rendered from the model phase 1 checked (DR-001).

Pages are Jinja2 templates; each gets ``root``, ``asset()`` and ``link()``, so every URL it writes is
relative and every link it makes can be traced back to the template line that made it. The link
check runs on the rendered pages, once every output is known.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import sys
import textwrap
from pathlib import Path

import jinja2

from sitegen import ROOT, compression, demo_log
from sitegen.caches import GZIP_CACHE, TEMPLATE_CACHE
from sitegen.documents import SITE_TITLE, Page
from sitegen.feed import atom_feed
from sitegen.hosting import CSP, host_files
from sitegen.links import Origin, broken_links, content_hash, relative_root, relative_url
from sitegen.load import Site
from sitegen.problems import BuildFailed, Problem
from sitegen.pyapp_content import experiment_section, page_content
from sitegen.service_worker import SERVICE_WORKER, cached_service_worker
from sitegen.static import PYAPP_FOLDER

BOOT_TIMEOUT_MS = 60_000


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
            boot_timeout_ms=BOOT_TIMEOUT_MS, wheels=wheels, pyapp=pyapp,
            page_content=functools.partial(page_content, self.root), **context,
        )


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
    if demo_log.wanted(out):  # the evaluation page's demo: a log a scripted model writes through pyapp
        emit(demo_log.DEMO_LOG, demo_log.cached_demo_log(root))
    for path, data in out.items():
        if path not in site.digests:
            site.digests[path] = hashlib.sha256(data).hexdigest()
    worker_source = root / "site_src" / SERVICE_WORKER
    if worker_source.is_file():  # last: it lists every other file (DR-002)
        source = worker_source.read_text(encoding="utf-8")
        emit(SERVICE_WORKER, cached_service_worker(root, source, out, site.digests))
        site.digests[SERVICE_WORKER] = hashlib.sha256(out[SERVICE_WORKER]).hexdigest()
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
