"""The sources cite what is in the repository: decision records that exist, never a specification that is not."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    path for folder in ("pyapp", "tests", "site_src") for path in (REPO / folder).rglob("*")
    if path.suffix in {".py", ".mjs", ".js", ".html", ".md"} and "snapshots" not in path.parts
)
RECORDS = {match.group(0) for path in (REPO / "decisions").glob("DR-*.md")
           for match in [re.match(r"DR-\d{3}", path.name)] if match}


def _lines(pattern: str, folders: tuple[str, ...] = ("pyapp", "tests", "site_src")) -> list[str]:
    found = []
    for path in (p for p in SOURCES if p.relative_to(REPO).parts[0] in folders):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(pattern, line):
                found.append(f"{path.relative_to(REPO)}:{number}: {match.group(0)}")
    return found


def test_sources_are_found():
    assert len(SOURCES) > 50 and {"DR-001", "DR-006"} <= RECORDS


def test_no_source_cites_a_specification_outside_the_repository():
    assert _lines(r"\bSPEC\b") == []


def test_every_decision_record_the_code_cites_exists():
    # tests/ is left out: the build's tests cite records that do not exist on purpose.
    cited = _lines(r"\bDR-\d{3}\b", ("pyapp", "site_src"))
    assert cited and [hit for hit in cited if hit.rsplit(": ", 1)[1] not in RECORDS] == []
