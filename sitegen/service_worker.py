"""The service worker that keeps the site for offline visits (DR-002).

The build writes ``sw.js`` at the site's root from ``site_src/sw.js``, with the content hash
of every file it keeps. Any change to any kept file changes ``sw.js``, which is how browsers
learn that there is a new version of the site.
"""

from __future__ import annotations

import hashlib
import json

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
