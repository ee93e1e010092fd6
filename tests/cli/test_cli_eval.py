"""``python -m pyapp evalset | prompt | report | compare``: the page's numbers from an export (§9, DR-006)."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import main_in_thread
from eval_helpers import call, full_run
from pyapp.cli.main import main
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt, evalset_summary, evalset_table
from pyapp.evaluation.export import export_json
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.report import run_report
from pyapp.presentation.run_comparison import compare_report
from pyapp.presentation.terminal_text import format_prompt

ROOT = Path(__file__).resolve().parents[2]
IDS = [f"C{i:02d}" for i in range(1, 21)]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyapp", *args], cwd=ROOT, capture_output=True, text=True,
                          check=check, timeout=120)


@pytest.fixture(scope="module")
def export_file(tmp_path_factory) -> tuple[Path, list[dict]]:
    entries = full_run("run-a", set(IDS[:18]), latencies=[700.0 + 13 * i for i in range(20)])
    entries += full_run("run-b", set(IDS[:17]), start=100, failing={"C20": "model_failure"})
    entries.append(call("run-b", "C05", outcome="infrastructure_failure", error="overloaded", status=529,
                        time=200))
    entries.append(call("run-b", "C06", prompt_hash="e" * 64, time=201))
    path = tmp_path_factory.mktemp("export") / "export.json"
    path.write_text(export_json(entries), encoding="utf-8")
    return path, entries


def as_json(value) -> object:
    return json.loads(json.dumps(value))


def test_evalset_lists_twenty_cases_and_the_long_trace_count():
    out = cli("evalset").stdout
    assert re.findall(r"^(C\d\d) ", out, re.M) == IDS
    over = evalset_summary()["over_limit"]
    assert f"{over} of 20 traces are longer than the 150 steps a prompt sends" in out
    for row in evalset_table():
        assert row["why_it_matters"] in out


def test_evalset_json_is_the_table(capsys):
    assert main(["evalset", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == as_json({"summary": evalset_summary(), "cases": evalset_table()})


def test_prompt_prints_exactly_the_case_prompt():
    prompt = case_prompt(FIXED_SETS.case("C07"))
    out = cli("prompt", "C07").stdout
    assert out == format_prompt("C07", prompt)
    head, rest = out.split("\n", 1)
    assert head == f"# C07: prompt {prompt.version}, sha256 {prompt.hash}"
    system, user = rest.removeprefix("=== system ===\n").split("=== user ===\n")
    assert system == prompt.system and user == prompt.user


def test_prompt_json(capsys):
    assert main(["prompt", "C11", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    prompt = case_prompt(FIXED_SETS.case("C11"))
    assert (data["system"], data["user"], data["hash"]) == (prompt.system, prompt.user, prompt.hash)


def test_report_json_equals_the_library_report(export_file):
    path, entries = export_file
    out = cli("report", str(path), "--run", "run-b", "--json").stdout
    expected = run_report(rebuild(entries).run("run-b"))
    assert json.loads(out) == as_json(expected)
    assert expected["graded"] == 20 and len(expected["stale"]) == 1  # the stale call came after an answer
    assert len(expected["infrastructure_failures"]) == 1


def test_report_of_every_run(export_file, capsys):
    path, entries = export_file
    assert main(["report", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == as_json([run_report(r) for r in rebuild(entries)])
    assert main(["report", str(path)]) == 0
    text = capsys.readouterr().out
    for r in rebuild(entries):
        assert run_report(r)["display"]["grounded"] in text
        assert run_report(r)["display"]["latency"] in text


def test_compare_json_and_text_equal_the_library(export_file):
    path, entries = export_file
    built = rebuild(entries)
    expected = compare_report(built.run("run-a"), built.run("run-b"), group_runs(list(built)))
    assert expected["plot"]["difference"] == expected["difference"]  # drawn against the runs' floor
    out = cli("compare", str(path), "--run", "run-a", "--run", "run-b", "--json").stdout
    assert json.loads(out) == as_json(expected)
    text = cli("compare", str(path), "--run", "run-a", "--run", "run-b").stdout
    assert expected["display"]["difference"] in text and expected["summary"] in text
    assert expected["table"] == {"a": 17, "b": 1, "c": 0, "d": 2}
    assert "difference: -5.0 points, second minus first (95% CI -23.0 to +11.7)" in text


@pytest.mark.parametrize("args, code, fragment", [
    (["report", "/no/such/file.json"], 1, "cannot read /no/such/file.json"),
    (["report", "{path}", "--run", "run-z"], 1, "no run 'run-z'"),
    (["compare", "{path}", "--run", "run-a"], 2, "needs --run exactly twice"),
    (["prompt", "C21"], 1, "no case 'C21'"),
    (["report", "{bad}"], 1, "ends too early"),
], ids=["missing-file", "unknown-run", "one-run", "unknown-case", "truncated-file"])
def test_errors_are_one_clear_line(export_file, tmp_path, args, code, fragment):
    path, _ = export_file
    bad = tmp_path / "bad.json"
    bad.write_text(path.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    done = cli(*[a.format(path=path, bad=bad) for a in args], check=False)
    assert done.returncode == code
    assert fragment in done.stderr and "Traceback" not in done.stderr


def test_a_command_reads_with_the_collector_paused_but_run_keeps_it(tmp_path, monkeypatch, capsys):
    from pyapp.cli import report, terminal

    path = tmp_path / "export.json"
    path.write_text(export_json(full_run("run-a")), "utf-8")
    seen = []

    def watched(run):
        seen.append(gc.isenabled())
        return run_report(run)

    async def no_calls(*args, **kwargs):
        seen.append(gc.isenabled())
        return []

    monkeypatch.setattr(report, "run_report", watched)
    monkeypatch.setattr(terminal, "run_set", no_calls)
    assert main(["report", str(path)]) == 0 and gc.isenabled()
    assert main_in_thread(["run", "--provider", "openai-compatible", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--log", str(tmp_path / "runs.jsonl")]) == 0
    assert seen == [False, True] and gc.isenabled()
    capsys.readouterr()
