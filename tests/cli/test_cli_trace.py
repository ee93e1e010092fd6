"""``python -m pyapp trace``: the same search as the page, as text or JSON (§9)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pyapp.cli.main import main
from pyapp.kdtree.search import search
from pyapp.kdtree.tree import ORDERS

ROOT = Path(__file__).resolve().parents[2]


def test_json_via_subprocess_matches_library():
    proc = subprocess.run(
        [sys.executable, "-m", "pyapp", "trace", "--order", "shuffled", "--kind", "radius",
         "--radius", "0.0005", "--lon", "24.944", "--lat", "60.17", "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    data = json.loads(proc.stdout)
    assert data == json.loads(json.dumps(search("shuffled", "radius", 24.944, 60.17, 0.0005).to_json()))
    assert data["kind"] == "radius" and data["radius"] == 0.0005 and len(data["result"]) == 2


@pytest.mark.parametrize("order", ORDERS)
def test_json_via_main(order, capsys):
    argv = ["trace", "--order", order, "--kind", "nearest", "--lon", "24.944", "--lat", "60.17", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    expected = search(order, "nearest", 24.944, 60.17)
    assert data["result"] == {"id": expected.result[0].id, "distance": expected.result[0].distance}
    assert data["order"] == order and len(data["trace"]) == len(expected.trace)


def test_text_output_lists_result_and_every_step(capsys):
    argv = ["trace", "--order", "median-first", "--kind", "nearest", "--lon", "24.944", "--lat", "60.17"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    expected = search("median-first", "nearest", 24.944, 60.17)
    assert out[0].startswith("nearest search, order median-first")
    assert f"trace: {len(expected.trace)} steps" in out
    step_lines = out[-len(expected.trace):]
    assert [line.split()[:2] for line in step_lines] == [[str(s.index), s.action] for s in expected.trace]
    assert any(str(expected.result[0].id) in line and "Ateneum Bistro" in line for line in out)
    prune = next(line for line in step_lines if "far_prune" in line)
    assert " > bound " in prune


@pytest.mark.parametrize(
    "argv",
    [
        ["trace", "--order", "random", "--kind", "nearest", "--lon", "1", "--lat", "2"],
        ["trace", "--order", "file", "--kind", "radius", "--lon", "1", "--lat", "2"],
        ["trace", "--order", "file", "--kind", "nearest", "--radius", "0.1", "--lon", "1", "--lat", "2"],
        ["trace", "--order", "file", "--kind", "nearest", "--lon", "1"],
        [],
    ],
    ids=["unknown-order", "radius-missing", "radius-with-nearest", "lat-missing", "no-subcommand"],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_invalid_radius_is_an_error(capsys):
    argv = ["trace", "--order", "file", "--kind", "radius", "--radius", "-1", "--lon", "1", "--lat", "2"]
    assert main(argv) == 1
    assert "radius must be" in capsys.readouterr().err


def test_order_choices_come_from_the_tree():
    proc = subprocess.run([sys.executable, "-m", "pyapp", "trace", "--help"], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert "{" + ",".join(ORDERS) + "}" in proc.stdout.replace("\n", "").replace(" ", "")
