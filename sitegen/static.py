"""The files the site copies as they are: its assets, the Pyodide runtime, pyapp's wheel and the vendored
wheels, with the standard library and the wheels precompiled when a page runs Python (DR-002)."""

from __future__ import annotations

import hashlib
import json
import posixpath
import shutil
import zlib
from pathlib import Path

from sitegen import stdlib_pyc
from sitegen import wheel as pyapp_wheel
from sitegen.caches import WHEEL_CACHE
from sitegen.digests import FileDigests, write_atomically
from sitegen.problems import BuildFailed, Problem

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYAPP_FOLDER = "app"  # pyapp's wheel; wheels/ holds the vendored ones


def pyodide_folder(runtime: Path) -> str:
    """Where the site keeps Pyodide: a folder named by its version, so hosts may cache it for ever (DR-002)."""
    version = json.loads((runtime / "package.json").read_text(encoding="utf-8"))["version"]
    return f"pyodide/{version}"


def collect_static(root: Path, known: FileDigests) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every file copied as is: site assets, the Pyodide runtime, pyapp's wheel, vendored wheels; and the
    SHA-256 of each file whose bytes are a source file's, from ``known`` when it holds them (DR-001)."""
    files: dict[str, bytes] = {}
    digests: dict[str, str] = {}

    def copy(output: str, source: Path) -> None:
        files[output], digests[output] = known.read(source)

    for path in sorted((root / "site_src" / "static").rglob("*")):
        if path.is_file():
            copy("static/" + path.relative_to(root / "site_src" / "static").as_posix(), path)
    runtime = root / "node_modules" / "pyodide"
    missing = [name for name in PYODIDE_FILES if not (runtime / name).is_file()]
    if missing:
        raise BuildFailed([Problem("package.json", 1, f"Pyodide runtime missing {missing}: run 'npm ci' first")])
    folder = pyodide_folder(runtime)
    for name in PYODIDE_FILES:
        copy(f"{folder}/{name}", runtime / name)
    if not (root / "pyproject.toml").is_file():
        raise BuildFailed([Problem("pyproject.toml", 1, "missing: it defines the package the site ships")])
    name, wheel = wheel_of_pyapp(root)
    wheels = {f"{PYAPP_FOLDER}/{name}": wheel}
    for path in sorted((root / "vendor").glob("*.whl")):
        wheels[f"wheels/{path.name}"] = path.read_bytes()
    worker = "static/js/worker.mjs"
    if worker in files:  # a site with Python pages: the worker loads the precompiled stdlib by its hash (DR-002)
        stdlib = f"{folder}/python_stdlib.pyc.zip"
        copy(stdlib, stdlib_pyc.precompiled_stdlib_file(runtime, known))
        files[worker] = (files[worker].replace(b"STDLIB_PYC_HASH", digests[stdlib][:12].encode())
                         .replace(b"PYODIDE_FOLDER", folder.encode()))
        del digests[worker]  # no longer the source file's bytes
        # And the wheels with their modules precompiled too, so importing pyapp compiles nothing (DR-002).
        by_name = stdlib_pyc.precompiled_wheels(runtime, {posixpath.basename(p): data for p, data in wheels.items()},
                                                known)
        wheels = {path: by_name[posixpath.basename(path)] for path in wheels}
    files.update(wheels)
    schema = root / "pyapp" / "explanation" / "answer_schema.json"
    if schema.is_file():
        copy("answer-schema.json", schema)
    return files, digests


def wheel_of_pyapp(root: Path) -> tuple[str, bytes]:
    """pyapp's wheel as ``build_wheel`` makes it, kept in ``.cache/wheel`` under a hash of every file it holds,
    the code that zips it and zlib's version: compressing it took a tenth of a build (DR-001)."""
    name, contents = pyapp_wheel.wheel_contents(root)
    digest = hashlib.sha256(Path(pyapp_wheel.__file__).read_bytes() + zlib.ZLIB_RUNTIME_VERSION.encode())
    for path, data in contents.items():
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(data).digest())
    cached = root / WHEEL_CACHE / digest.hexdigest()[:24] / name
    if cached.is_file():
        return name, cached.read_bytes()
    wheel = pyapp_wheel.zip_wheel(contents)
    if cached.parent.parent.is_dir():
        shutil.rmtree(cached.parent.parent)  # the wheels of earlier inputs
    cached.parent.mkdir(parents=True)
    write_atomically(cached, wheel)
    return name, wheel
