"""Export as JSON and CSV, import with full validation, merge without duplicates (DR-006)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from eval_helpers import answer_for, call, cancel, decision, full_run
from pyapp.evaluation import export
from pyapp.evaluation.export import (
    CSV_COLUMNS,
    EXPORT_FORMAT,
    ImportFileError,
    export_csv,
    export_json,
    merge,
    parse_import,
    select_entries,
)
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.report import run_report
from pyodide_harness import pyodide_available, run_in_node

KEY = "sk-ant-api03-EXPORTsecret0123456789"


@pytest.fixture(scope="module")
def log() -> list[dict]:
    explorer = call(None, "C01", time=-10,
                    search={"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17, "radius": None})
    a = full_run("run-a", {"C01", "C02", "C03"})
    b = full_run("run-b", start=100)
    extra = [
        call("run-a", "C04", outcome="infrastructure_failure", error="overloaded", status=529, time=50),
        cancel("run-a", "C05", time=51),
        decision(a[0]["id"], True, "<script>alert('x')</script> clear", time=52),
        decision(explorer["id"], False, "explorer call", time=53),
    ]
    return [explorer, *a, *b, *extra]


def test_json_round_trip_of_all_runs(log):
    text = export_json(log)
    doc = json.loads(text)
    assert doc["format_version"] == EXPORT_FORMAT and doc["run_id"] is None
    imported = parse_import(text)
    assert imported == select_entries(log)
    assert len(imported) == len(log) - 2  # not the explorer call, nor the decision on it
    assert [run_report(r) for r in rebuild(imported)] == [run_report(r) for r in rebuild(log)]


def test_one_run_export_holds_its_calls_cancels_and_decisions(log):
    imported = parse_import(export_json(log, "run-a"))
    assert {e.get("run_id") for e in imported if e["type"] != "decision"} == {"run-a"}
    assert sum(e["type"] == "cancel" for e in imported) == 1
    assert [e["note"] for e in imported if e["type"] == "decision"] == ["<script>alert('x')</script> clear"]
    with pytest.raises(ValueError, match="no run 'run-x'"):
        export_json(log, "run-x")


def test_every_exported_call_carries_prompt_version_and_settings_and_never_the_key(log):
    text = export_json(log)
    assert KEY not in text
    for entry in json.loads(text)["entries"]:
        if entry["type"] == "call":
            assert entry["prompt_version"] and len(entry["prompt_hash"]) == 64
            assert set(entry["settings"]) == {"provider", "model", "max_tokens", "temperature", "base_url"}


def test_html_in_strings_is_kept_as_data(log):
    hostile = call("run-h", "C01", outcome="not_grounded",
                   answer='<img src=x onerror=alert(1)>{"walkthrough": "</script>"}')
    text = export_json([hostile])
    assert parse_import(text) == [hostile]
    assert "<img src=x onerror=alert(1)>" in json.loads(text)["entries"][0]["answer"]


def test_merge_appends_only_new_entries(log):
    imported = parse_import(export_json(log))
    assert merge(log, imported) == []
    half = log[: len(log) // 2]
    new = merge(half, imported)
    assert [e["id"] for e in new] == [e["id"] for e in imported if e not in half]
    assert merge([], imported) == imported


def test_merge_refuses_a_changed_entry(log):
    imported = parse_import(export_json(log))
    changed = dict(imported[3])
    changed["answer_ms"] = 1.0
    before = list(log)
    with pytest.raises(ImportFileError, match=f"Entry {changed['id']} is already in the audit log"):
        merge(log, [*imported[:3], changed])
    assert log == before


# --------------------------------------------------------------------------- bad files


def _doc(entries, **head) -> str:
    body = {"format": "kd-tree-explorer-audit", "format_version": 1, "eval_set_version": "explain-eval-v2",
            "run_id": None, "entries": entries}
    body.update(head)
    return json.dumps(body)


GOOD = full_run("run-g")
BROKEN = dict(GOOD[1], answer_ms="fast")

BAD_FILES = [
    ("empty", "  \n", "The file is empty"),
    ("not-json", "hello", "not valid JSON (Expecting value at line 1, column 1)"),
    ("truncated", export_json(GOOD)[:5000], "ends too early"),
    ("truncated-between", export_json(GOOD)[:-4], "ends too early"),
    ("nan", _doc([]).replace("[]", "[NaN]"), "NaN is not a JSON number"),
    ("repeated-key", '{"format": 1, "format": 2}', 'the key "format" appears twice'),
    ("deep", '{"entries": ' + "[" * 100_000 + "]" * 100_000 + "}", "more than 8 deep"),
    ("deep-unclosed", "[" * 1_000_000, "more than 8 deep"),
    ("list", "[]", "not an evaluation export"),
    ("other-format", _doc([], format="something-else"), "not an evaluation export"),
    ("newer", _doc([], format_version=2), "newer version of the site"),
    ("version-text", _doc([], format_version="1"), "no whole-number format_version"),
    ("unknown-field", _doc([], extra=1), "unknown fields extra"),
    ("entries-object", _doc({}), "entries must be a list"),
    ("bad-entry", _doc([GOOD[0], BROKEN]), "1 of 2 entries are not valid audit entries"),
    ("junk-entry", _doc([GOOD[0], "x", 3]), "2 of 3 entries"),
    ("duplicate-id", _doc([GOOD[0], GOOD[0]]), "entry 2 (id e"),
    ("other-run", _doc(GOOD[:2], run_id="run-z"), "is of run run-g, but the export holds run run-z only"),
    ("orphan-decision", _doc([decision("nosuchcall", True)]), "decision on a call that is not in the file"),
    ("not-utf8", b'{"format": "\xff"}', "not UTF-8"),
]


@pytest.mark.parametrize("text, fragment", [(t, f) for _, t, f in BAD_FILES],
                         ids=[i for i, _, _ in BAD_FILES])
def test_a_bad_file_gets_a_clear_error(text, fragment):
    with pytest.raises(ImportFileError) as caught:
        parse_import(text)
    message = str(caught.value)
    assert fragment in message
    assert len(message) < 2000
    assert "Traceback" not in message


def test_size_bounds(monkeypatch):
    text = export_json(GOOD)
    monkeypatch.setattr(export, "MAX_IMPORT_CHARS", len(text) - 1)
    with pytest.raises(ImportFileError, match="an import takes at most"):
        parse_import(text)
    with pytest.raises(ImportFileError, match="an import takes at most"):
        parse_import(text.encode("utf-8"))
    monkeypatch.setattr(export, "MAX_IMPORT_CHARS", len(text))
    monkeypatch.setattr(export, "MAX_IMPORT_ENTRIES", 19)
    with pytest.raises(ImportFileError, match="20 entries; an import takes at most 19"):
        parse_import(text)


def test_a_huge_answer_is_refused_by_the_audit_rules():
    too_long = dict(GOOD[0], answer="x" * 1_000_001)
    with pytest.raises(ImportFileError, match="answer: is longer than 1,000,000 bytes"):
        parse_import(_doc([too_long]))


def test_bytes_with_a_byte_order_mark_are_read():
    assert parse_import(("\ufeff" + export_json(GOOD)).encode("utf-8")) == GOOD


# --------------------------------------------------------------------------- CSV


def test_csv_has_fixed_columns_and_one_row_per_call(log):
    extra = [
        call("run-a", "C01", answer_ms=5.0, time=60),  # a repeat
        call("run-a", "C06", prompt_hash="a" * 64, time=61),  # stale
        call("run-a", "C07", outcome="not_grounded", answer="=HYPERLINK(\"http://x\")", time=62),
    ]
    rows = list(csv.reader(io.StringIO(export_csv(log + extra, "run-a"))))
    assert tuple(rows[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in rows[1:]]
    run_calls = [e for e in log + extra if e["type"] == "call" and e["run_id"] == "run-a"]
    assert len(body) == len(run_calls)
    role = {r["entry_id"]: r["counted_as"] for r in body}
    assert role[extra[0]["id"]] == "repeat" and role[extra[1]["id"]] == "stale_input"
    assert role[log[1]["id"]] == "counted"
    assert list(role.values()).count("infrastructure_failure") == 1
    by_case = {r["case_id"]: r for r in body if r["counted_as"] == "counted"}
    hostile = next(r for r in body if r["entry_id"] == extra[2]["id"])
    assert hostile["answer"] == "'=HYPERLINK(\"http://x\")"
    assert by_case["C04"]["graded_outcome"] == "not_grounded"
    assert by_case["C04"]["failed_checks"] == "distance"
    assert by_case["C01"]["provider"] == "anthropic"
    assert by_case["C01"]["prompt_version"] == "explain-prompt-1"


def test_csv_latencies_have_one_decimal_rounded_half_up():
    entries = [call("run-ms", "C01", answer_ms=131.49999999999818, total_ms=1234.25, time=0),
               call("run-ms", "C02", answer_ms=None, total_ms=0.04, outcome="infrastructure_failure", time=1),
               call("run-ms", "C03", answer_ms=900.0, total_ms=1000.0, time=2)]
    rows = list(csv.DictReader(io.StringIO(export_csv(entries, "run-ms"))))
    assert [(r["answer_ms"], r["total_ms"]) for r in rows] == [
        ("131.5", "1234.3"), ("", "0.0"), ("900.0", "1000.0")]


def test_csv_of_all_runs_keeps_explorer_calls_out(log):
    rows = list(csv.reader(io.StringIO(export_csv(log))))
    assert {r[0] for r in rows[1:]} == {"run-a", "run-b"}
    assert answer_for("C01") in {r[-1] for r in rows}


@pytest.mark.skipif(not pyodide_available(), reason="needs node and the Pyodide npm package")
def test_pyodide_survives_hostile_nesting(tmp_path):
    script = """
import json
from pyapp.evaluation.export import ImportFileError, parse_import
from pyapp.evaluation.rebuild import rebuild
out = []
for text in ("[" * 1000000, '{"entries": ' + "[" * 200000 + "]" * 200000 + "}"):
    try:
        parse_import(text)
    except ImportFileError as exc:
        out.append(str(exc))
entry = json.loads(ENTRY)
out.append(rebuild([entry])[0].cases[0].grade.failure)
json.dumps(out)
"""
    deep = call("r", "C01", outcome="model_failure", answer="[" * 100_000)
    out = json.loads(run_in_node(f"ENTRY = {json.dumps(json.dumps(deep))}\n" + script, tmp_path))
    assert len(out) == 3 and all("more than 8 deep" in m for m in out[:2]) and out[2] == "invalid_json"


def test_explorer_export_holds_the_explorer_calls_and_their_decisions_only(log):
    exported = json.loads(export_json(log, explorer=True))["entries"]
    assert [(e["type"], e.get("run_id"), e.get("note")) for e in exported] == [
        ("call", None, None), ("decision", None, "explorer call")]
    assert parse_import(export_json(log, explorer=True)) == exported


def test_a_log_line_nested_deep_is_refused_before_any_line_is_parsed():
    first = export.log_line(full_run("run-a")[0])
    for deep in ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "]]]]]]]]]]\n" + "[" * 100_000 + "\n"):
        with pytest.raises(ImportFileError) as refused:
            parse_import(first + deep)
        assert "more than 8 deep" in str(refused.value) or "not valid JSON" in str(refused.value)
