"""Gzip copies of the site's compressible files, written beside them as ``name.gz`` (DR-002).

A host that compresses as it sends (nginx's ``gzip on``, at level 1 by default) spends a
first visit's CPU on it, on the same cores the browser needs to start Python. With nginx's
``gzip_static on`` it sends the copy instead. Each copy is made once, at level 9, and kept in
``.cache/gzip`` under the SHA-256 of the file it holds, so a rebuild compresses only what
changed (DR-001); ``mtime=0`` keeps the copies byte-identical between builds.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from sitegen.digests import FileDigests, write_atomically
from sitegen.hosting import COMPRESSED_SUFFIXES

SUFFIX = ".gz"
LEVEL = 9


def gzip_copies(files: dict[str, bytes], digests: dict[str, str], cache: Path,
                known: FileDigests) -> dict[str, tuple[bytes, str]]:
    """``path.gz``'s bytes and their SHA-256 for every compressible file in ``files`` that gzip makes smaller.

    ``digests`` holds each file's SHA-256; ``known``, the digests kept between builds. The copies of files no
    longer built are removed from ``cache``.
    """
    copies: dict[str, tuple[bytes, str]] = {}
    used: set[str] = set()
    for path, data in sorted(files.items()):
        if not path.endswith(COMPRESSED_SUFFIXES):
            continue
        kept = cache / f"{digests[path]}{SUFFIX}"
        if not kept.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            write_atomically(kept, gzip.compress(data, LEVEL, mtime=0))
        used.add(kept.name)
        compressed, digest = known.read(kept)  # not hashed again while the copy is unchanged
        if len(compressed) < len(data):
            copies[path + SUFFIX] = (compressed, digest)
    if cache.is_dir():
        for entry in cache.iterdir():
            if entry.name not in used:
                entry.unlink()
    return copies
