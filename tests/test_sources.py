"""The sources cite what is in the repository: decision records that exist, never a specification that is not."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("pyapp", "sitegen", "tests", "site_src", "bench", "tools", "decisions", ".ci")
SUFFIXES = {".py", ".mjs", ".js", ".html", ".md", ".j2", ".css", ".toml"}
SOURCES = sorted(
    [path for path in REPO.iterdir() if path.is_file() and (path.suffix in SUFFIXES or path.name == "Makefile")]
    + [path for folder in FOLDERS for path in (REPO / folder).rglob("*") if path.is_file()
       and (path.suffix in SUFFIXES or folder == ".ci") and "snapshots" not in path.parts]
)
RECORDS = {match.group(0) for path in (REPO / "decisions").glob("DR-*.md")
           for match in [re.match(r"DR-\d{3}", path.name)] if match}


def _lines(pattern: str, left_out: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in (p for p in SOURCES if p.relative_to(REPO).parts[0] not in left_out):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(pattern, line):
                found.append(f"{path.relative_to(REPO)}:{number}: {match.group(0)}")
    return found


def test_sources_are_found():
    named = {path.relative_to(REPO).as_posix() for path in SOURCES}
    assert {"build.py", "Makefile", "README.md", "pyapp/cli/main.py", "bench/bench_engines.py",
            "sitegen/stdlib_pyc.mjs", "site_src/static/js/worker.mjs", "site_src/templates/base.html.j2",
            ".ci/run"} <= named
    assert {"DR-001", "DR-006"} <= RECORDS


def test_no_source_cites_a_specification_outside_the_repository():
    assert _lines(r"\bSPEC\b") == []


def test_every_decision_record_the_code_cites_exists():
    # tests/ is left out: the build's tests cite records that do not exist on purpose; and so are the
    # records, which the build checks itself, outside code (DR-001).
    cited = _lines(r"\bDR-\d{3}\b", ("tests", "decisions"))
    assert cited and [hit for hit in cited if hit.rsplit(": ", 1)[1] not in RECORDS] == []
