"""The documents cache, and the code and library versions that key every entry of it (DR-001)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from sitegen.digests import KeptEntries


class DocumentCache(KeptEntries):
    """What the last build computed from each document's text, where nothing it depends on has changed (DR-001).

    The results kept are pure functions of their inputs: a document's HTML and contents (given its
    text, URL and the records' ids), the value of its front matter, and the links and ids of a
    rendered page. An entry's key is a hash of the code that computes it (``code_inputs``) and
    every input, so a change to any of them misses. Only a document without a problem is kept, so
    a failing build always checks afresh (its front matter's value is checked afresh too).
    The file holds only the entries the last build used.
    """

    def key(self, *inputs: str) -> str:
        digest = hashlib.sha256(code_version().encode())
        for part in inputs:
            digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def get(self, key: str) -> object:
        if key in self.entries:
            self.used[key] = self.entries[key]
        return self.used.get(key)

    def put(self, key: str, value: object) -> None:
        self.used[key] = value


# The file of each library whose text changes with its version: what the cache keeps depends on them.
LIBRARY_VERSION_FILES = (("markdown", "__meta__.py"), ("yaml", "__init__.py"))


def code_inputs() -> list[Path]:
    """The files whose text decides what the documents cache keeps: ``build.py`` and every module of the generator,
    wherever a change to its code lands, and the file of Python-Markdown and of PyYAML that holds its version,
    found without importing either."""
    import importlib.util

    generator = Path(__file__).parent
    paths = [generator.parent / "build.py", *sorted(generator.glob("*.py"))]
    for package, version_file in LIBRARY_VERSION_FILES:
        spec = importlib.util.find_spec(package)
        paths.append(Path(spec.submodule_search_locations[0]) / version_file)
    return paths


@functools.cache
def code_version() -> str:
    """A hash of the code that turns a document into HTML and checks it (``code_inputs``)."""
    digest = hashlib.sha256()
    for path in code_inputs():
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
