"""The service worker that keeps the site for offline visits (DR-002).

The build writes ``sw.js`` at the site's root from ``site_src/sw.js``, with the content hash
of every file it keeps. Any change to any kept file changes ``sw.js``, which is how browsers
learn that there is a new version of the site.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from sitegen.caches import SERVICE_WORKER_CACHE
from sitegen.digests import write_atomically

SERVICE_WORKER = "sw.js"
# Written for hosts, not fetched by pages: their configuration and the gzip copies they may send
# in place of a file; and Pyodide's own standard library, which the site replaces by its
# precompiled one (DR-002).
NOT_KEPT = ("_headers", ".htaccess", ".gz", "/python_stdlib.zip")


def kept_files(files: dict[str, bytes]) -> dict[str, str]:
    """The content hash of every file the service worker keeps, by its path from the site's root."""
    return {path: hashlib.sha256(data).hexdigest()[:12] for path, data in sorted(files.items())
            if not path.endswith(NOT_KEPT) and path != SERVICE_WORKER}


def service_worker(source: str, files: dict[str, bytes]) -> str:
    """``source`` with the kept files and the version they make written in."""
    kept = kept_files(files)
    listing = json.dumps(kept, indent=1)
    version = hashlib.sha256(listing.encode()).hexdigest()[:12]
    return source.replace("{} /* FILES */", listing).replace("/* VERSION */", version)


def cached_service_worker(root: Path, source: str, out: dict[str, bytes], digests: dict[str, str]) -> str:
    """``service_worker``'s text, kept under a hash of this module, the worker's source and each output's path and
    SHA-256: what it writes is a function of the files' bytes, which it would hash again (DR-001)."""
    key = hashlib.sha256(Path(__file__).read_bytes() + b"\0" + source.encode())
    for path in sorted(out):
        key.update(f"\0{path}\0{digests[path]}".encode())
    cached = root / SERVICE_WORKER_CACHE / f"{key.hexdigest()[:24]}.js"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    text = service_worker(source, out)
    if cached.parent.is_dir():
        shutil.rmtree(cached.parent)  # the workers of earlier sites
    cached.parent.mkdir(parents=True)
    write_atomically(cached, text.encode("utf-8"))
    return text
