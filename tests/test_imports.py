"""The code's imports (DR-011): no cycle in pyapp or the site generator, and tests that share code through
tests/support, never by importing one another or the conftest."""

from __future__ import annotations

import re
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", ["pyapp", "sitegen"])
def test_no_module_imports_itself_round_a_cycle(package):
    # grimp counts imports under TYPE_CHECKING and inside functions too: a cycle there is still a tangle.
    graph = grimp.build_graph(package)
    cycles = [f"{module} -> {imported}" for module in sorted(graph.modules)
              for imported in sorted(graph.find_modules_directly_imported_by(module))
              if graph.chain_exists(importer=imported, imported=module)]
    assert cycles == []


def test_tests_share_code_through_support_only():
    pattern = re.compile(r"^\s*(from|import)\s+(conftest|test_\w+)\b", re.MULTILINE)
    found = [f"{path.relative_to(REPO)}: {match.group(0).strip()}"
             for path in sorted((REPO / "tests").rglob("*.py"))
             for match in pattern.finditer(path.read_text(encoding="utf-8"))]
    assert found == []
