"""Pyodide's standard library and the site's wheels with precompiled ``.pyc`` files, made at build time (DR-002).

Pyodide's own start-up spends most of its time compiling standard-library modules
from the ``.py`` sources inside ``python_stdlib.zip``, and importing ``pyapp`` from its
sources compiles each of its modules in the visitor's browser. The build runs Pyodide's
own Python under Node (``stdlib_pyc.mjs``, beside this file), which calls ``precompile`` and
``precompile_wheel`` below: a zip that ``loadPyodide({stdLibURL})`` accepts, the original
with each module's ``.py`` replaced by an unchecked-hash ``.pyc`` (keeping the source
would add 2.5 MB to a first visit, for the source lines of tracebacks only), and each
wheel with each module's ``.py`` replaced the same way.
The results depend only on the Pyodide runtime, these two files and the wheels, so they
are cached under ``node_modules/.cache/stdlib-pyc/`` by their hash: an ordinary build
does not start Node, and ``npm ci`` (a new Pyodide) clears the cache with ``node_modules``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitegen.digests import FileDigests

HERE = Path(__file__).resolve().parent
NODE_SCRIPT = HERE / "stdlib_pyc.mjs"
STDLIB = "python_stdlib.zip"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


WHEEL_FOLDER = "/home/pyodide"  # where the worker unpacks the wheels: Pyodide's working folder, on sys.path


def precompile(stdlib: bytes) -> bytes:
    """The zip ``stdlib`` with each ``.py`` that compiles replaced by an unchecked-hash ``.pyc``.

    Runs under Pyodide's Python, so the bytecode has its magic number. Compiled code names its
    file as ``zipimport`` would have, inside the zip where Pyodide mounts it (``/lib/python314.zip``).
    Entries are sorted with fixed times: the same input gives the same bytes.
    """
    import importlib.util
    import zipfile
    from importlib._bootstrap_external import _code_to_hash_pyc

    archive_path = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
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


def precompile_wheel(wheel: bytes) -> bytes:
    """The wheel with each module that compiles replaced by an unchecked-hash ``.pyc`` in its place.

    Runs under Pyodide's Python, so the bytecode has its magic number; compiled code names its
    file where the worker unpacks it. As in the standard library, the sources are left out:
    unpacking a wheel is Python code in the browser too, and extracting every module twice cost
    more than half of what the bytecode saves (DR-002). RECORD lists each ``.pyc`` with its hash
    and size in place of its source; new entries have fixed times: the same wheel gives the same bytes.
    """
    import base64
    import importlib.util
    import zipfile
    from importlib._bootstrap_external import _code_to_hash_pyc

    with zipfile.ZipFile(io.BytesIO(wheel)) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    renamed: dict[str, tuple[str, bytes]] = {}  # source path -> (.pyc path, its bytes)
    for info, data in entries:
        if not info.filename.endswith(".py") or ".dist-info/" in info.filename:
            continue
        try:
            code = compile(data, f"{WHEEL_FOLDER}/{info.filename}", "exec", dont_inherit=True)
        except SyntaxError:
            continue  # left to fail at import, as it would have
        pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        renamed[info.filename] = (info.filename[:-3] + ".pyc", pyc)

    def record_line(line: str) -> str:
        path = line.split(",")[0]
        if path not in renamed:
            return line
        name, pyc = renamed[path]
        digest = base64.urlsafe_b64encode(hashlib.sha256(pyc).digest()).rstrip(b"=").decode()
        return f"{name},sha256={digest},{len(pyc)}"

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for info, data in entries:
            if info.filename in renamed:
                name, data = renamed[info.filename]
                info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
            elif info.filename.endswith(".dist-info/RECORD"):
                data = "\n".join(record_line(line) for line in data.decode().split("\n")).encode()
            out.writestr(info, data)
    return buffer.getvalue()


def cache_key(runtime: Path, digests: FileDigests | None = None) -> str:
    """The Pyodide version and a hash of every input of the generated zip.

    With ``digests``, the 2.5 MB standard library is hashed only when it changed (DR-001).
    """
    version = json.loads((runtime / "package.json").read_text(encoding="utf-8"))["version"]
    digest = hashlib.sha256()
    for path in (runtime / STDLIB, Path(__file__), NODE_SCRIPT):
        digest.update(bytes.fromhex(digests.read(path)[1]) if digests is not None
                      else hashlib.sha256(path.read_bytes()).digest())
    return f"{version}-{digest.hexdigest()[:16]}"


def generate(runtime: Path, out: Path) -> None:
    """Run ``precompile`` under the Pyodide in ``runtime`` (Node) and write the zip to ``out``."""
    _run_in_pyodide(runtime, "precompile", [(runtime / STDLIB, out)])


def generate_wheels(runtime: Path, jobs: list[tuple[Path, Path]]) -> None:
    """Run ``precompile_wheel`` under the Pyodide in ``runtime`` for each (wheel, output) pair, in one Node process."""
    _run_in_pyodide(runtime, "precompile_wheel", jobs)


def _run_in_pyodide(runtime: Path, function: str, jobs: list[tuple[Path, Path]]) -> None:
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js is needed to precompile Python for Pyodide; install it and build again.")
    paths = [str(path) for job in jobs for path in job]
    done = subprocess.run([node, str(NODE_SCRIPT), str(runtime), str(Path(__file__)), function, *paths],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not all(out.is_file() for _, out in jobs):
        raise RuntimeError(f"Precompiling Python for Pyodide failed:\n{done.stderr.strip()[-2000:]}")


def _cache_folder(runtime: Path) -> Path:
    from sitegen.caches import STDLIB_PYC_CACHE  # not at the top: Pyodide runs this file on its own (stdlib_pyc.mjs)

    return runtime.parent / STDLIB_PYC_CACHE


def precompiled_stdlib(runtime: Path) -> bytes:
    """The precompiled standard-library zip for the Pyodide in ``runtime``, from the cache when it is there."""
    return precompiled_stdlib_file(runtime).read_bytes()


def precompiled_stdlib_file(runtime: Path, digests: FileDigests | None = None) -> Path:
    """Where the cache holds the precompiled standard-library zip for the Pyodide in ``runtime``, made if missing.

    A new zip replaces the cached ones made from other inputs.
    """
    runtime = runtime.resolve()
    cached = _cache_folder(runtime) / f"{cache_key(runtime, digests)}.zip"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        generate(runtime, partial)
        partial.replace(cached)
        for stale in cached.parent.glob("*.zip"):
            if stale != cached:
                stale.unlink()
    return cached


def precompiled_wheels(runtime: Path, wheels: dict[str, bytes], digests: FileDigests | None = None) -> dict[str, bytes]:
    """Each wheel (file name -> bytes) with its modules precompiled for the Pyodide in ``runtime``, cached.

    Wheels missing from the cache are compiled in one Node process; a new one replaces the cached
    ones of the same file name made from other inputs.
    """
    runtime = runtime.resolve()
    folder = _cache_folder(runtime) / "wheels"
    key = cache_key(runtime, digests)
    cached = {name: folder / f"{key}-{hashlib.sha256(data).hexdigest()[:16]}" / name for name, data in wheels.items()}
    missing = {name: path for name, path in cached.items() if not path.is_file()}
    if missing:
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            jobs = []
            for name in missing:
                (Path(tmp) / "in" / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / "in" / name).write_bytes(wheels[name])
                jobs.append((Path(tmp) / "in" / name, Path(tmp) / name))
            generate_wheels(runtime, jobs)
            for name, path in missing.items():
                path.parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).replace(path)
        wanted = {path.parent for path in cached.values()}
        for stale in folder.iterdir():
            if stale not in wanted and any((stale / name).is_file() for name in wheels):
                shutil.rmtree(stale)
    return {name: path.read_bytes() for name, path in cached.items()}


if __name__ == "__main__":
    # python sitegen/stdlib_pyc.py OUT.zip: generate afresh, bypassing the cache.
    generate(HERE.parent / "node_modules" / "pyodide", Path(sys.argv[1]))
