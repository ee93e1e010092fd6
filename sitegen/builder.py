"""The whole build: load and check the project, render the site, write it into ``dist/`` (DR-001)."""

from __future__ import annotations

from pathlib import Path

from sitegen import ROOT
from sitegen.load import load_site
from sitegen.output import write_dist
from sitegen.render import render_site


def build(root: Path = ROOT, dist: Path | None = None) -> dict[str, bytes]:
    """Build the project at ``root`` into ``dist`` (its own ``dist/`` unless given): every output file by path.

    Raises BuildFailed listing every problem of the sources; nothing is written then.
    """
    site = load_site(root)
    files = render_site(site, root)
    write_dist(files, dist or root / "dist", site.digests, site.files)
    if site.files is not None:
        site.files.save()
    return files
