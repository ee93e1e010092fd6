"""Pyodide's standard library with precompiled ``.pyc`` files, made at build time (DR-002).

Pyodide's own start-up spends most of its time compiling standard-library modules
from the ``.py`` sources inside ``python_stdlib.zip``. ``precompiled_stdlib`` runs
Pyodide's own Python under Node (``tools/stdlib_pyc.mjs``), which calls ``precompile``
below, and returns a zip that ``loadPyodide({stdLibURL})`` accepts: the original
with each module's ``.py`` replaced by an unchecked-hash ``.pyc`` (keeping the source
would add 2.5 MB to a first visit, for the source lines of tracebacks only). The
result depends only on the Pyodide runtime and these two files, so it is cached
under ``node_modules/.cache/stdlib-pyc/`` by their hash: an ordinary build does not
start Node, and ``npm ci`` (a new Pyodide) clears the cache with ``node_modules``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_SCRIPT = HERE / "tools" / "stdlib_pyc.mjs"
STDLIB = "python_stdlib.zip"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def precompile(stdlib: bytes, archive_path: str) -> bytes:
    """The zip ``stdlib`` with each ``.py`` that compiles replaced by an unchecked-hash ``.pyc``.

    Runs under Pyodide's Python, so the bytecode has its magic number. ``archive_path``
    is where Pyodide mounts the zip (``/lib/python314.zip``): compiled code names its
    file as ``zipimport`` would have. Entries are
    sorted with fixed times: the same input gives the same bytes.
    """
    import importlib.util
    from importlib._bootstrap_external import _code_to_hash_pyc

    entries: dict[str, bytes] = {}
    with zipfile.ZipFile(io.BytesIO(stdlib)) as source:
        for info in source.infolist():
            data = source.read(info)
            if not info.filename.endswith(".py"):
                entries[info.filename] = data
                continue
            try:
                code = compile(data, f"{archive_path}/{info.filename}", "exec", dont_inherit=True)
            except SyntaxError:
                entries[info.filename] = data  # left as source, as Pyodide would meet it
                continue
            pyc = _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            entries[info.filename[:-3] + ".pyc"] = bytes(pyc)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.external_attr = (0o40755 if name.endswith("/") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, entries[name])
    return buffer.getvalue()


def cache_key(runtime: Path) -> str:
    """The Pyodide version and a hash of every input of the generated zip."""
    version = json.loads((runtime / "package.json").read_text(encoding="utf-8"))["version"]
    digest = hashlib.sha256()
    for data in ((runtime / STDLIB).read_bytes(), Path(__file__).read_bytes(), NODE_SCRIPT.read_bytes()):
        digest.update(hashlib.sha256(data).digest())
    return f"{version}-{digest.hexdigest()[:16]}"


def generate(runtime: Path, out: Path) -> None:
    """Run ``precompile`` under the Pyodide in ``runtime`` (Node) and write the zip to ``out``."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js is needed to precompile Pyodide's standard library; install it and build again.")
    done = subprocess.run([node, str(NODE_SCRIPT), str(runtime), str(Path(__file__)), str(out)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"Precompiling Pyodide's standard library failed:\n{done.stderr.strip()[-2000:]}")


def precompiled_stdlib(runtime: Path) -> bytes:
    """The precompiled standard-library zip for the Pyodide in ``runtime``, from the cache when it is there.

    A new zip replaces the cached ones made from other inputs.
    """
    runtime = runtime.resolve()
    cached = runtime.parent / ".cache" / "stdlib-pyc" / f"{cache_key(runtime)}.zip"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        generate(runtime, partial)
        partial.replace(cached)
        for stale in cached.parent.glob("*.zip"):
            if stale != cached:
                stale.unlink()
    return cached.read_bytes()


if __name__ == "__main__":
    # python stdlib_pyc.py OUT.zip: generate afresh, bypassing the cache.
    generate(HERE / "node_modules" / "pyodide", Path(sys.argv[1]))
