"""pyapp's wheel: what pyproject.toml defines, nothing else, byte for byte the same each build (DR-002)."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from pathlib import Path

from site_project import SMALL_PYPROJECT
from sitegen import ROOT
from sitegen.static import PYAPP_FOLDER
from sitegen.wheel import build_wheel, wheel_contents

FILES = {
    "pyapp/__init__.py": True,
    "pyapp/cli.py": True,
    "pyapp/schema.json": True,
    "pyapp/data/places.csv": True,
    "pyapp/data/places.csv.sha256": True,
    "pyapp/notes.txt": False,  # matches no pattern
    "pyapp/__pycache__/cli.cpython-311.pyc": False,
    "pyapp/inner/__init__.py": True,  # a package found under pyapp
    "pyapp/inner/model.py": True,
    "pyapp/inner/notes.txt": True,  # its own package data
    "pyapp/inner/data/places.csv": False,  # the patterns of pyapp, not of pyapp.inner
    "pyapp/sub/inner.py": False,  # not a package: no __init__.py
    "other/__init__.py": False,  # a package, but not included
    "tools/regen.py": False,
}


def small_project(root: Path) -> Path:
    (root / "pyproject.toml").write_text(SMALL_PYPROJECT, encoding="utf-8")
    for path in FILES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(path.encode())
    return root


def test_wheel_holds_exactly_the_files_pyproject_defines(tmp_path):
    name, wheel = build_wheel(small_project(tmp_path))
    assert name == "small_site-0.1-py3-none-any.whl"
    names = zipfile.ZipFile(io.BytesIO(wheel)).namelist()
    assert [n for n in names if not n.startswith("small_site-0.1.dist-info/")] == sorted(
        path for path, shipped in FILES.items() if shipped)
    assert names[-3:] == [f"small_site-0.1.dist-info/{n}" for n in ("METADATA", "WHEEL", "RECORD")]


def test_wheel_record_lists_every_file_with_its_hash(tmp_path):
    archive = zipfile.ZipFile(io.BytesIO(build_wheel(small_project(tmp_path))[1]))
    record = archive.read("small_site-0.1.dist-info/RECORD").decode().splitlines()
    assert len(record) == len(archive.namelist())
    for line in record[:-1]:
        path, digest, size = line.split(",")
        data = archive.read(path)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert int(size) == len(data)
    assert record[-1] == "small_site-0.1.dist-info/RECORD,,"


def test_wheel_is_byte_identical_whatever_the_files_times(tmp_path):
    first = build_wheel(small_project(tmp_path))[1]
    for path in FILES:
        (tmp_path / path).touch()
    assert build_wheel(tmp_path)[1] == first


def test_site_ships_the_real_package_with_its_data(dist):
    wheel = next((dist / PYAPP_FOLDER).glob("kd_tree_explorer-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    # Each module precompiled by Pyodide's Python in place of its source (DR-002).
    assert {"pyapp/__init__.pyc", "pyapp/browser/__init__.pyc", "pyapp/explanation/answer_schema.json",
            "pyapp/kdtree/data/businesses.csv"} <= names
    assert {p.relative_to(ROOT).as_posix() + "c" for p in (ROOT / "pyapp").rglob("*.py")
            if p.parent.name != "bridges"} <= names
    assert not any(name.startswith("pyapp/bridges/") for name in names)


def test_site_wheel_leaves_out_the_bridge_to_inspect():
    """pyapp.bridges needs inspect_ai, which never enters the page: the site's wheel has no module of it (DR-014)."""
    files = wheel_contents(ROOT)[1]
    assert "pyapp/cli/main.py" in files and "pyapp/evaluation/rebuild.py" in files
    assert [path for path in files if "bridges" in path] == []
