"""The project as pip installs it: the generator builds the site from an installed copy, and the site's wheel
leaves the generator out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECT_FILES = ("build.py", "pyproject.toml")
PROJECT_FOLDERS = ("sitegen", "pyapp", "decisions", "site_src", "vendor")


def files_of(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_the_sites_wheel_leaves_the_generator_out(dist):
    wheel = next((dist / "app").glob("kd_tree_explorer-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.startswith("pyapp/") for name in names)
    assert [name for name in names if name.startswith("sitegen/")] == []


def test_a_non_editable_install_builds_the_same_site(tmp_path, dist):
    project = tmp_path / "project"  # what pip installs from, and the project the installed builder builds
    for name in PROJECT_FOLDERS:
        shutil.copytree(REPO / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in PROJECT_FILES:
        shutil.copy(REPO / name, project / name)
    (project / "node_modules").symlink_to(REPO / "node_modules")
    elsewhere = tmp_path / "elsewhere"  # the working folder: neither the repository nor the copy is importable
    elsewhere.mkdir()
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    def run(*command: str | Path) -> str:
        done = subprocess.run([str(part) for part in command], cwd=elsewhere, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    run(sys.executable, "-m", "venv", tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", project)  # with its dependencies, from PyPI
    where = json.loads(run(python, "-c", "import build, json, sitegen, sysconfig; print(json.dumps("
                                         "[sysconfig.get_path('purelib'), build.__file__, sitegen.__file__]))"))
    site_packages = Path(where[0])
    assert Path(where[1]).parent == site_packages and Path(where[2]).parent.parent == site_packages
    assert (site_packages / "sitegen" / "stdlib_pyc.mjs").is_file()  # the generator's package data
    installed = {path.name for path in (site_packages / "sitegen").glob("*.py")}
    assert installed == {path.name for path in (REPO / "sitegen").glob("*.py")}

    run(python, "-m", "build", "--root", project)
    assert not (site_packages / ".cache").exists()  # the build's caches are the project's
    built = files_of(project / "dist")
    assert {"index.html", "decisions/index.html", "decisions/DR-001/index.html", "explorer/index.html",
            "sw.js"} <= set(built)
    assert built == files_of(dist)  # byte for byte the site the repository builds
