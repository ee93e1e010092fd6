"""The precompiled standard library (DR-002): reproducible, Pyodide's own bytecode, really used, same results."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pyodide_harness import run_in_node
from sitegen import ROOT, stdlib_pyc
from sitegen.links import content_hash
from sitegen.static import pyodide_folder
from sitegen.wheel import build_wheel

RUNTIME = ROOT / "node_modules" / "pyodide"
STDLIB_PYC = f"{pyodide_folder(RUNTIME)}/python_stdlib.pyc.zip"

CLI_SAMPLE = [
    ["trace", "--order", "median-first", "--kind", "nearest", "--lon", "24.944", "--lat", "60.170", "--json"],
    ["trace", "--order", "shuffled", "--kind", "radius", "--radius", "0.003", "--lon", "24.9450000", "--lat",
     "60.1700000", "--json"],
    ["evalset"],
    ["prompt", "C07", "--json"],
]

IN_PYODIDE = """
import contextlib, io, json, sys
from pyapp.cli.main import main

def cli(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    return out.getvalue()

json.dumps({
    "outputs": [cli(argv) for argv in SAMPLE],
    "files": {name: sys.modules[name].__file__ for name in ("json", "argparse", "dataclasses", "random")},
})
"""


def run_in_pyodide(tmp_path: Path, stdlib: Path, code: str) -> str:
    return run_in_node(code, tmp_path, stdlib=stdlib).strip().splitlines()[-1]


def test_two_generations_are_byte_identical_and_match_the_build(tmp_path, dist):
    stdlib_pyc.generate(RUNTIME, tmp_path / "first.zip")
    stdlib_pyc.generate(RUNTIME, tmp_path / "second.zip")
    first = (tmp_path / "first.zip").read_bytes()
    assert first == (tmp_path / "second.zip").read_bytes()
    assert first == (dist / STDLIB_PYC).read_bytes()


def fake_runtime(tmp_path: Path, stdlib: bytes) -> Path:
    runtime = tmp_path / "node_modules" / "pyodide"
    runtime.mkdir(parents=True)
    (runtime / "package.json").write_bytes((RUNTIME / "package.json").read_bytes())
    (runtime / stdlib_pyc.STDLIB).write_bytes(stdlib)
    return runtime


def test_a_cached_zip_is_used_without_node_and_a_changed_stdlib_is_not(tmp_path, monkeypatch):
    runtime = fake_runtime(tmp_path, b"stock stdlib")
    made = []

    def generate(runtime: Path, out: Path) -> None:
        made.append(runtime)
        out.write_bytes(b"precompiled " + (runtime / stdlib_pyc.STDLIB).read_bytes())

    monkeypatch.setattr(stdlib_pyc, "generate", generate)
    assert stdlib_pyc.precompiled_stdlib(runtime) == b"precompiled stock stdlib"
    assert stdlib_pyc.precompiled_stdlib(runtime) == b"precompiled stock stdlib"
    assert len(made) == 1
    (runtime / stdlib_pyc.STDLIB).write_bytes(b"another stdlib")
    assert stdlib_pyc.precompiled_stdlib(runtime) == b"precompiled another stdlib"
    assert len(made) == 2
    cached = sorted(p.name for p in (tmp_path / "node_modules" / ".cache" / "stdlib-pyc").iterdir())
    assert cached == [f"{stdlib_pyc.cache_key(runtime)}.zip"]
    assert cached[0].startswith(json.loads((RUNTIME / "package.json").read_text())["version"] + "-")


def test_bytecode_is_pyodides_own_with_unchecked_hashes(tmp_path, dist):
    magic = run_in_pyodide(tmp_path, RUNTIME / "python_stdlib.zip",
                           "import importlib.util; importlib.util.MAGIC_NUMBER.hex()")
    assert magic != importlib.util.MAGIC_NUMBER.hex()  # CPython 3.11's would not do
    with zipfile.ZipFile(dist / STDLIB_PYC) as archive, zipfile.ZipFile(RUNTIME / "python_stdlib.zip") as stock:
        pycs = {name: archive.read(name) for name in archive.namelist() if name.endswith(".pyc")}
        sources = {name for name in stock.namelist() if name.endswith(".py")}
        left_as_source = {name for name in archive.namelist() if name.endswith(".py")}
    assert len(pycs) > 500
    assert {data[:4].hex() for data in pycs.values()} == {magic}
    # Flags 0b01: hash-based, source not checked, so no timestamp or source is needed at import.
    assert {int.from_bytes(data[4:8], "little") for data in pycs.values()} == {1}
    assert {name[:-1] for name in pycs} | left_as_source == sources
    assert "json/__init__.py" not in left_as_source


def test_pyodide_imports_the_bytecode_and_pyapp_answers_as_on_cpython(tmp_path, dist):
    code = IN_PYODIDE.replace("SAMPLE", repr(CLI_SAMPLE))
    result = json.loads(run_in_pyodide(tmp_path, dist / STDLIB_PYC, code))
    assert set(result["files"].values()) == {
        f"/lib/python314.zip/{name}" for name in ("json/__init__.pyc", "argparse.pyc", "dataclasses.pyc",
                                                   "random.pyc")}
    for argv, output in zip(CLI_SAMPLE, result["outputs"], strict=True):
        expected = subprocess.run([sys.executable, "-m", "pyapp", *argv], capture_output=True, text=True, check=True)
        assert output == expected.stdout, argv


@pytest.mark.browser
@pytest.mark.parametrize("path", ["explorer/", "ai-eval/"], ids=["explorer", "ai-eval"])
def test_page_worker_boots_from_the_precompiled_stdlib(watched, site, dist, path):
    requested = []
    # Not the service worker's: registered at "Python ready", it keeps the same file under its plain name (DR-002).
    watched.context.on("requestfinished",
                       lambda request: request.service_worker is None and requested.append(request.url))
    watched.page.goto(site.url + path)
    watched.page.wait_for_selector("#python-status[data-state='ready']", timeout=90_000)
    stdlibs = [url.removeprefix(site.url) for url in requested if "python_stdlib" in url]
    # The worker that makes the start-up snapshot, once the page is idle, may ask for the same URL.
    assert set(stdlibs) == {f"{STDLIB_PYC}?v={content_hash((dist / STDLIB_PYC).read_bytes())}"}


# The sample run from the site's wheels, with where pyapp's modules came from and the bytecode's magic number.
FROM_SITE_WHEELS = IN_PYODIDE.replace("json.dumps({", """json.dumps({
    "magic": importlib.util.MAGIC_NUMBER.hex(),
    "pyapp": sorted({module.__file__ for name, module in sys.modules.items() if name.startswith("pyapp.")}),
    """).replace("import contextlib,", "import importlib.util, contextlib,")


def test_site_wheels_hold_pyodides_bytecode_in_place_of_the_sources_and_answer_as_on_cpython(tmp_path, dist):
    wheels = {path.name: path.read_bytes() for path in sorted([*(dist / "app").glob("*.whl"),
                                                                *(dist / "wheels").glob("*.whl")])}
    code = FROM_SITE_WHEELS.replace("SAMPLE", repr(CLI_SAMPLE))
    result = json.loads(run_in_node(code, tmp_path, stdlib=dist / STDLIB_PYC, wheels=wheels).strip().splitlines()[-1])
    for argv, output in zip(CLI_SAMPLE, result["outputs"], strict=True):
        expected = subprocess.run([sys.executable, "-m", "pyapp", *argv], capture_output=True, text=True, check=True)
        assert output == expected.stdout, argv
    # Imported from the wheel's zip on sys.path, as the worker does (DR-002).
    pyapp_wheel = next(name for name in wheels if name.startswith("kd_tree_explorer-"))
    assert result["pyapp"] and all(path.startswith(f"/lib/wheels/{pyapp_wheel}/pyapp/") and path.endswith(".pyc")
                                   for path in result["pyapp"])
    assert len(wheels) >= 2
    for name, data in wheels.items():
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            record = archive.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode().splitlines()
            pycs = [n for n in names if n.endswith(".pyc")]
            assert pycs and not [n for n in names if n.endswith(".py") and ".dist-info/" not in n], name
            for pyc in pycs:
                data = archive.read(pyc)
                assert data[:4].hex() == result["magic"], pyc
                assert int.from_bytes(data[4:8], "little") == 1, pyc  # hash-based, source not checked
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert f"{pyc},sha256={digest},{len(data)}" in record, pyc


def test_precompiled_wheels_are_byte_identical_and_cached(tmp_path, dist):
    name = next((dist / "app").glob("*.whl")).name
    source = {name: build_wheel(ROOT)[1]}
    made = stdlib_pyc.precompiled_wheels(RUNTIME, source)  # from the cache the dist fixture's build filled
    assert made[name] == (dist / "app" / name).read_bytes()
    (tmp_path / "in.whl").write_bytes(source[name])
    stdlib_pyc.generate_wheels(RUNTIME, [(tmp_path / "in.whl", tmp_path / "out.whl")])
    assert (tmp_path / "out.whl").read_bytes() == made[name]


SNAPSHOT_IMPORTS = """
import json, sys
import pyapp.browser
pyapp.browser.import_operation_modules()
json.dumps(sorted(name for name in sys.modules if name.startswith("pyapp")))
"""


def test_the_snapshot_worker_imports_every_module_but_the_command_lines_from_the_site_wheel(tmp_path, dist):
    """import_operation_modules finds pyapp's modules in the precompiled wheel's zip as on CPython (DR-002)."""
    wheels = {path.name: path.read_bytes() for path in sorted([*(dist / "app").glob("*.whl"),
                                                                *(dist / "wheels").glob("*.whl")])}
    loaded = json.loads(run_in_node(SNAPSHOT_IMPORTS, tmp_path, stdlib=dist / STDLIB_PYC, wheels=wheels)
                        .strip().splitlines()[-1])
    package = ROOT / "pyapp"
    expected = sorted(
        ".".join(("pyapp", *path.relative_to(package).with_suffix("").parts)).removesuffix(".__init__")
        for path in package.rglob("*.py")
        if path.relative_to(package).parts[0] not in ("cli", "bridges", "__main__.py"))
    assert loaded == expected
