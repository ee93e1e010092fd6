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
import itertools
import json
import os
import re
import shutil
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import jinja2

from sitegen import ROOT, compression
from sitegen import service_worker as offline
from sitegen.caches import (
    EXPERIMENT_CACHE,
    EXPERIMENT_PAGE_CACHE,
    GZIP_CACHE,
    PAGE_CONTENT_CACHE,
    SERVICE_WORKER_CACHE,
    TEMPLATE_CACHE,
)
from sitegen.digests import FileDigests, write_atomically
from sitegen.documents import SITE_TITLE, Page, Record
from sitegen.hosting import CSP, host_files
from sitegen.links import Origin, broken_links, content_hash, relative_root, relative_url
from sitegen.load import Site, load_site
from sitegen.problems import BuildFailed, Problem
from sitegen.static import PYAPP_FOLDER

BOOT_TIMEOUT_MS = 60_000


# --- small pure helpers -------------------------------------------------------------


# --- phase 1: load and validate -----------------------------------------------------


# --- what a record may hold besides Markdown (DR-001) ---------------------------------

# --- phase 2: render ----------------------------------------------------------------


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
