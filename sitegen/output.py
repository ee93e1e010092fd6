"""Writing the site: ``dist/`` made to hold exactly the build's output, written only where it changed (DR-001)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sitegen.digests import FileDigests
from sitegen.problems import BuildFailed, Problem


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
