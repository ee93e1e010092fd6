"""What the pages show that pyapp computes, cached under a hash of pyapp's files (DR-001, DR-010).

Importing and running pyapp takes from several hundred milliseconds to seconds; a build with
pyapp unchanged reads the results back instead. Each goes through JSON either way, so a build from
the cache gives the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from sitegen import ROOT
from sitegen.caches import EXPERIMENT_CACHE, EXPERIMENT_PAGE_CACHE, PAGE_CONTENT_CACHE
from sitegen.links import content_hash, relative_url


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
def page_content(root: Path, name: str) -> dict:
    """A page's fixed content from ``pyapp.presentation.page_content``, computed by the functions the worker calls,
    so it shows before Python starts (DR-002).

    Kept in the project's ``.cache/page-content`` under a hash of pyapp's files: importing and running pyapp would
    otherwise add several hundred milliseconds to every build. The value goes through JSON either way,
    so a build from the cache gives the same bytes.
    """
    cached = root / PAGE_CONTENT_CACHE / f"{name}-{pyapp_digest()[:16]}.json"
    if not cached.exists():
        from pyapp.presentation import page_content as content

        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(getattr(content, name)()), encoding="utf-8")
    return json.loads(cached.read_text(encoding="utf-8"))


def experiment_figures(root: Path) -> dict:
    """The experiments page's figures for the default seed (DR-010), cached by a hash of pyapp's code and data.

    They take seconds to compute and change only when pyapp does, so a build reads them back when
    neither its modules nor its data file changed. JSON keeps every float by its repr, so the cached
    figures are the computed ones to the last digit.
    """
    from pyapp.experiment import orders as experiment

    cache = root / EXPERIMENT_CACHE / f"{pyapp_digest()[:24]}.json"
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
    from pyapp.presentation.experiment_page import figures_html

    figures = experiment_figures(root)
    section = {"html": figures_html(figures, relative_url("explorer/index.html", url)), "digest": figures["digest"],
               "seed": figures["seed"], "per_kind": figures["per_kind"], "queries": figures["text"]["queries"]}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(section), encoding="utf-8")
    return section
