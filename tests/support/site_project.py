"""A small project for the site generator's tests: two records, one page, the real templates (DR-001)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitegen import ROOT, load
from sitegen.problems import BuildFailed
from sitegen.render import render_site
from sitegen.static import PYODIDE_FILES

RECORD = """---
id: {id}
title: {title}
status: {status}
date: 2026-11-0{day}
{extra}---
## Context

{body}

## Decision

Decided.

## Options considered

Some.

## Why

Because.

## What happened

Measured.

## What I'd change

Little.
"""


def write_record(root: Path, id: str, slug: str = "thing", status: str = "Accepted", body: str = "Text.",
                 extra: str = "", day: int = 1, title: str = "A decision") -> Path:
    path = root / "decisions" / f"{id}-{slug}.md"
    path.write_text(RECORD.format(id=id, title=title, status=status, body=body, extra=extra, day=day),
                    encoding="utf-8")
    return path


SMALL_PYPROJECT = """[project]
name = "Small.Site"
version = "0.1"

[tool.setuptools.packages.find]
include = ["pyapp*"]

[tool.setuptools.package-data]
pyapp = ["data/*", "*.json"]
"pyapp.inner" = ["*.txt"]
"""


def small_project(tmp_path: Path) -> Path:
    """A small project: two records, one page, the real templates, a stand-in Pyodide runtime."""
    root = tmp_path / "project"
    (root / "decisions").mkdir(parents=True)
    shutil.copytree(ROOT / "site_src" / "templates", root / "site_src" / "templates")
    # The templates' assets and the service worker; the pages that load scripts are not part of this project.
    shutil.copytree(ROOT / "site_src" / "static" / "css", root / "site_src" / "static" / "css")
    (root / "site_src" / "static" / "js").mkdir()
    shutil.copy(ROOT / "site_src" / "static" / "js" / "start.js", root / "site_src" / "static" / "js")
    shutil.copy(ROOT / "site_src" / "sw.js", root / "site_src")
    (root / "site_src" / "pages").mkdir()
    (root / "site_src" / "pages" / "index.md").write_text(
        "---\ntitle: Home\n---\n# Home\n\nSee DR-001 and [the records](decisions/).\n", encoding="utf-8")
    for name, title in (("explorer", "Explorer"), ("experiments", "Experiments"), ("ai-eval", "AI evaluation")):
        # the navigation's other pages
        (root / "site_src" / "pages" / f"{name}.md").write_text(f"---\ntitle: {title}\n---\n# {title}\n",
                                                                 encoding="utf-8")
    runtime = root / "node_modules" / "pyodide"
    runtime.mkdir(parents=True)
    for name in PYODIDE_FILES:
        (runtime / name).write_bytes(name.encode())
    (runtime / "package.json").write_text('{"version": "0.0.1"}', encoding="utf-8")
    (root / "pyapp").mkdir()
    (root / "pyapp" / "__init__.py").write_text("__version__ = '0'\n", encoding="utf-8")
    (root / "pyproject.toml").write_text(SMALL_PYPROJECT, encoding="utf-8")
    write_record(root, "DR-001", "first", body="Later DR-002 builds on this. `DR-001` in code stays.")
    write_record(root, "DR-002", "second", body="See [the first](../DR-001/).", day=2)
    return root


def problems_of(root: Path) -> list[str]:
    """Every problem of the project, from loading or, once it loads, from rendering."""
    with pytest.raises(BuildFailed) as failure:
        render_site(load.load_site(root), root)
    return [str(p) for p in failure.value.problems]


def rewrite(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def each_breakage(rows: list[tuple]) -> pytest.MarkDecorator:
    """Parametrize ``breakage`` and ``expected`` over (id, breakage, expected problem) rows, named by their ids."""
    return pytest.mark.parametrize(("breakage", "expected"), [(b, e) for _, b, e in rows], ids=[i for i, _, _ in rows])


def assert_build_reports(project: Path, breakage, expected: str) -> None:
    """After ``breakage(project)`` the build reports a problem containing ``expected`` (file and line)."""
    breakage(project)
    problems = problems_of(project)
    assert any(expected in p for p in problems), problems
