"""Hostile numbers and texts from a model, a provider or an import never break grading, the log or the page.

Every number is range-checked and every text checked for lone surrogates before any
arithmetic (DR-006): a hostile answer is a model failure with a reason, a hostile
import is refused whole, and a hostile stored entry is skipped and counted.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_helpers import SETTINGS, answer_for, call, cancel, decision, full_run
from judge_design import judgement
from live_call import explain_case
from pyapp.auditlog.format import MAX_ANSWER_BYTES
from pyapp.auditlog.validation import validate_entry
from pyapp.cli import exit_status
from pyapp.cli import main as cli
from pyapp.core.vocabulary import ModelFailure, Outcome
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, case_facts
from pyapp.evaluation.export import UTF8_ONLY, ImportFileError, export_csv, export_json, merge, parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.grading import grade_answer
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.report import run_report, runs_overview
from pyapp.presentation.run_comparison import SAME_RUN, compare_report
from pyapp.providers.client import HttpResponse
from pyapp.providers.settings import Settings

HUGE = 10**400
LONG_DIGITS = 10**4000


def hostile_answer(case_id: str = "C01", **claims: object) -> str:
    answer = json.loads(answer_for(case_id))
    answer.update(claims)
    return json.dumps(answer)


def export_text(entries: list[dict], run_id: str | None = None, *, ascii: bool = True) -> str:  # noqa: A002
    return json.dumps({"format": "kd-tree-explorer-audit", "format_version": 1,
                       "eval_set_version": EVAL_SET_VERSION, "run_id": run_id, "entries": entries},
                      ensure_ascii=ascii)


# --------------------------------------------------------------------------- grading


def test_a_distance_of_400_digits_is_a_schema_mismatch_with_a_reason():
    grade = grade_answer(hostile_answer(distance=HUGE), "end", case_facts(FIXED_SETS.case("C01")))
    assert (grade.outcome, grade.failure) == (Outcome.MODEL_FAILURE, ModelFailure.SCHEMA_MISMATCH)
    assert "distance is a number out of range" in grade.detail
    assert len(grade.detail) < 300


def test_a_number_of_5000_digits_is_invalid_json_in_words_not_pythons():
    text = answer_for("C01").replace('"nodes_visited": ', '"nodes_visited": ' + "9" * 5000 + ", \"x\": ")
    grade = grade_answer(text, "end", case_facts(FIXED_SETS.case("C01")))
    assert grade.outcome == Outcome.MODEL_FAILURE
    assert "too many digits" in grade.detail and "set_int_max_str_digits" not in grade.detail


@pytest.mark.parametrize("claims", [
    {"result_ids": [2**60]}, {"nodes_visited": -HUGE}, {"cited_steps": [{"step": HUGE, "action": "visit",
                                                                         "node_id": 1}]},
    {"walkthrough": "step 1 \ud800"}, {"distance": 1e308}, {"distance": -1e308},
], ids=["id-beyond-2^53", "negative-huge-count", "huge-step", "surrogate-prose", "max-float", "min-float"])
def test_hostile_claims_are_graded_without_error(claims):
    grade = grade_answer(hostile_answer(**claims), "end", case_facts(FIXED_SETS.case("C01")))
    assert grade.outcome in (Outcome.MODEL_FAILURE, "not_grounded")
    json.dumps(grade.to_json())


# Infinity and NaN too: Python's json module reads 1e400 as infinity, and a caller may pass any float.
HOSTILE_LEAVES = [HUGE, -HUGE, 2**1024, 2**53, -(2**53), 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan,
                  "\ud800", "a\udfffb", "NaN", "Infinity", "1e400", "", "x" * 300]
any_text = st.text() | st.text(st.characters(categories=["Cs", "Ll", "Nd"]), max_size=6)  # Cs: lone surrogates
json_values = st.recursive(
    st.sampled_from(HOSTILE_LEAVES) | st.none() | st.booleans() | st.integers()
    | st.integers(min_value=-HUGE, max_value=HUGE) | st.floats(allow_nan=False, allow_infinity=False) | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)
CLAIM_KEYS = ("walkthrough", "result_ids", "distance", "nodes_visited", "subtrees_pruned", "cited_steps")


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(CLAIM_KEYS + ("extra",)), value=json_values, stop=st.sampled_from(["end", "other"]))
def test_grading_never_raises_on_a_hostile_claim(key, value, stop):
    answer = json.loads(answer_for("C01"))  # a nearest search: its distance check does arithmetic
    answer[key] = value
    grade = grade_answer(json.dumps(answer), stop, case_facts(FIXED_SETS.case("C01")))
    assert grade.outcome in ("grounded", "not_grounded", Outcome.MODEL_FAILURE)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_grading_never_raises_on_any_text(text):
    assert grade_answer(text, "end", case_facts(FIXED_SETS.case("C02"))).outcome == Outcome.MODEL_FAILURE


# --------------------------------------------------------------------------- validate_entry


@pytest.mark.parametrize("field, value", [
    ("total_ms", HUGE), ("answer_ms", 10**309), ("input_tokens", HUGE), ("status", -HUGE),
    ("message", "bad \ud800 text"), ("answer", "\udc00"), ("failure", "x\ud800"),
], ids=["total_ms", "answer_ms", "tokens", "status", "message-surrogate", "answer-surrogate",
        "failure-surrogate"])
def test_validate_entry_reports_a_hostile_field_instead_of_raising(field, value):
    entry = call("run-1", "C01", outcome="not_grounded")
    entry[field] = value
    problems = validate_entry(entry)
    assert problems and problems[0].startswith(field)
    assert all(len(p) < 200 for p in problems)


@pytest.mark.parametrize("temperature", [HUGE, -HUGE, 10**309], ids=["huge", "negative", "just-above-float"])
def test_validate_entry_reports_a_huge_temperature_instead_of_raising(temperature):
    entry = call("run-1", "C01")
    entry["settings"]["temperature"] = temperature
    assert validate_entry(entry) == ["settings.temperature: is a number out of range (beyond 2^53)"]


def test_an_id_with_a_final_line_break_is_not_an_id():
    entry = call("run-1", "C01")
    entry["id"] += "\n"
    assert validate_entry(entry) == [
        "id: must be 1-64 letters, digits or _.:- (starting with a letter or digit)"]


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_validate_entry_never_raises_on_any_json_value(value):
    assert isinstance(validate_entry(value), list)


VALID = [call("run-1", "C01"), call(None, "C01", search={"order": "file", "kind": "nearest", "lon": 24.9,
                                                          "lat": 60.1, "radius": None}),
         decision("e1", True, "fine"), cancel("run-1", "C02"),
         judgement("e1", dict.fromkeys(RUBRIC.keys, True)), judgement("e1", None, failure="invalid_json"),
         judgement("e1", None, error="bad_request")]


FIELDS = [(base, (key,)) for base in VALID for key in base] + [
    (base, (key, inner)) for base in VALID for key, value in base.items() if isinstance(value, dict)
    for inner in value]


@settings(max_examples=500, deadline=None)
@given(field=st.sampled_from(FIELDS), value=st.sampled_from(HOSTILE_LEAVES) | json_values)
def test_validate_entry_never_raises_on_an_entry_with_a_hostile_field(field, value):
    base, path = field
    entry = json.loads(json.dumps(base))
    target = entry
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert isinstance(validate_entry(entry), list)


# --------------------------------------------------------------------------- calls at call time


def anthropic_reply(claims_text: str, tokens: tuple[object, object] = (1000, 200)) -> HttpResponse:
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": claims_text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}}
    return HttpResponse(200, {}, json.dumps(body))


def explain_live(response: HttpResponse, case_id: str = "C01") -> tuple[dict, object]:
    appended, explained = explain_case(response, Settings.from_dict(SETTINGS), "sk-ant-test-key-0123456789",
                                       case_id, run_id="run-live-1")
    assert appended == [explained.entry]
    return explained.entry, explained.grade


@pytest.mark.parametrize("claims, tokens", [
    ({"distance": HUGE}, (1000, 200)),
    ({"walkthrough": "Step 1 \ud800 visits the root."}, (1000, 200)),
    ({}, (HUGE, 200)),
], ids=["huge-distance", "surrogate", "huge-token-count"])
def test_a_hostile_reply_is_logged_as_one_call(claims, tokens):
    text = hostile_answer(**claims)
    if "walkthrough" in claims:  # the surrogate itself, not its JSON escape, as a provider's JSON would give it
        text = text.replace("\\ud800", "\ud800")
    entry, grade = explain_live(anthropic_reply(text, tokens))
    assert validate_entry(entry) == []
    assert entry["outcome"] == grade.outcome
    assert rebuild([entry])[0].graded[0].outcome == entry["outcome"]
    if claims.get("distance") == HUGE:
        assert entry["outcome"] == Outcome.MODEL_FAILURE and "distance is a number out of range" in entry["failure"]
    if tokens[0] == HUGE:
        assert entry["input_tokens"] is None and "token count out of range" in entry["message"]


def test_an_answer_over_1_mb_is_graded_as_stored_at_call_time_and_on_rebuild():
    """A grounded answer padded past 1 MB: the log keeps 1 MB, and that cut text is what both grades see."""
    text = hostile_answer(walkthrough="The search visits the root in step 1. " + "x" * 1_100_000)
    entry, grade = explain_live(anthropic_reply(text))
    assert len(entry["answer"].encode()) == MAX_ANSWER_BYTES
    assert "keeps and grades its first 1,000,000" in entry["message"]
    again = rebuild([entry])[0].graded[0]
    assert (entry["outcome"], grade.outcome, again.outcome) == (Outcome.MODEL_FAILURE,) * 3
    assert grade.detail == again.grade.detail


def test_a_grounded_answer_with_trailing_padding_past_1_mb_stays_grounded_both_times():
    text = answer_for("C01") + " " * 1_100_000
    entry, grade = explain_live(anthropic_reply(text))
    assert (entry["outcome"], rebuild([entry])[0].graded[0].outcome) == ("grounded", "grounded")


# --------------------------------------------------------------------------- the log and imports


def test_a_stored_entry_with_a_huge_number_is_skipped_and_counted():
    good = full_run("run-good")
    bad = call("run-bad", "C01")
    bad["total_ms"] = HUGE
    rebuilt = rebuild([*good, bad])
    assert [r.run_id for r in rebuilt] == ["run-good"] and rebuilt.skipped == 1
    assert "total_ms: is a number out of range" in rebuilt.problems[0]
    assert runs_overview(rebuilt.runs)[0]["grounded"] == 20


def test_an_import_with_a_huge_distance_answer_is_a_model_failure_and_the_page_data_still_builds():
    entries = full_run("run-a")
    entries[0]["answer"] = hostile_answer("C01", distance=HUGE)
    imported = parse_import(export_text(entries).encode())
    new = merge([], imported)
    rebuilt = rebuild(new, validated=True)
    report = run_report(rebuilt.run("run-a"))
    assert (report["grounded"], report["model_failures"]) == (19, 1)
    assert "out of range" in report["cases"][0]["detail"]
    assert export_csv(new)


@pytest.mark.parametrize("field, value, said", [
    ("total_ms", LONG_DIGITS // 10**100, "total_ms: is a number out of range"),
    ("message", "\ud800", "message: holds characters that are not valid Unicode"),
], ids=["3900-digit-number", "lone-surrogate"])
def test_an_import_with_a_hostile_field_is_refused_whole_with_a_short_message(field, value, said):
    entries = full_run("run-a")
    entries[5][field] = value
    with pytest.raises(ImportFileError) as caught:
        parse_import(export_text(entries).encode())
    message = str(caught.value)
    assert said in message and "nothing was imported" in message
    assert len(message) < 400 and "0000000" not in message


def test_a_4000_digit_format_version_is_not_echoed():
    text = export_text([]).replace('"format_version": 1', '"format_version": ' + str(LONG_DIGITS)[:4000])
    with pytest.raises(ImportFileError) as caught:
        parse_import(text.encode())
    assert len(str(caught.value)) < 200


def test_a_5000_digit_number_in_a_file_is_refused_in_words():
    text = export_text([]).replace('"format_version": 1', '"format_version": ' + "7" * 5000)
    with pytest.raises(ImportFileError) as caught:
        parse_import(text.encode())
    assert "too many digits" in str(caught.value) and "sys." not in str(caught.value)


def _log_text(entries: list[dict]) -> str:
    return "".join(json.dumps(e) + "\n" for e in entries)


@pytest.mark.parametrize("make", [
    lambda: export_text([]).replace('"format_version": 1', '"format_version": 0'),
    lambda: export_text([]).replace('"format_version": 1', '"format_version": 2'),
    lambda: export_text(full_run("run-a")),
    lambda: _log_text(full_run("run-a")),
    lambda: b"\xff" + export_text([]).encode(),
    lambda: export_text([]).replace('"entries": []', '"entries": {}'),
], ids=["format-0", "newer-format", "too-many-entries", "too-many-lines", "not-utf8", "entries-not-a-list"])
def test_a_refused_import_says_nothing_was_imported_once(make, monkeypatch):
    """The page shows the refusal as it is, so the sentence itself must say that nothing was imported."""
    monkeypatch.setattr("pyapp.evaluation.export.MAX_IMPORT_ENTRIES", 10)
    with pytest.raises(ImportFileError) as caught:
        parse_import(make())
    assert str(caught.value).lower().count("nothing was imported") == 1, str(caught.value)


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "utf-16-le", "cp1252"])
def test_only_utf8_is_imported(encoding):
    entries = full_run("run-a")
    entries[0]["message"] = "Café ä"
    with pytest.raises(ImportFileError) as caught:
        parse_import(export_text(entries, ascii=False).encode(encoding))
    assert str(caught.value) == UTF8_ONLY


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-bom", "bom"])
def test_utf8_with_or_without_a_byte_order_mark_is_imported(bom):
    entries = full_run("run-a")
    entries[0]["message"] = "Café ä"
    assert parse_import(bom + export_text(entries, ascii=False).encode()) == entries


def test_an_imported_export_reexported_imports_again():
    entries = full_run("run-a") + [decision("e1", True, "naïve ✓ 🙂")]
    entries[-1]["call_id"] = entries[0]["id"]
    imported = parse_import(export_text(entries).encode())
    again = export_json(imported, "run-a")
    assert parse_import(again.encode("utf-8")) == imported


# --------------------------------------------------------------------------- the command line


def write(tmp_path, entries) -> str:
    path = tmp_path / "export.json"
    path.write_text(export_text(entries), encoding="utf-8")
    return str(path)


def test_report_and_compare_on_a_huge_distance_answer_print_no_traceback(tmp_path, capsys):
    entries = full_run("run-a") + full_run("run-b", start=100)
    entries[0]["answer"] = hostile_answer("C01", distance=HUGE)
    path = write(tmp_path, entries)
    assert cli.main(["report", path, "--run", "run-a", "--json"]) == 0
    assert "distance is a number out of range" in json.loads(capsys.readouterr().out)["cases"][0]["detail"]
    assert cli.main(["report", path]) == 0
    assert "C01  near-business file         model_failure  schema_mismatch" in capsys.readouterr().out
    assert cli.main(["compare", path, "--run", "run-a", "--run", "run-b", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["table"] == {"a": 19, "b": 0, "c": 1, "d": 0}


def test_compare_refuses_a_run_compared_with_itself(tmp_path, capsys):
    path = write(tmp_path, full_run("run-a"))
    with pytest.raises(SystemExit) as caught:
        cli.main(["compare", path, "--run", "run-a", "--run", "run-a"])
    assert caught.value.code == 2
    assert SAME_RUN in capsys.readouterr().err


def test_the_page_refuses_a_run_compared_with_itself_in_the_command_lines_words():
    """The page's comparison is compare_report, through the worker's compare_runs."""
    run = rebuild(full_run("run-a")).run("run-a")
    with pytest.raises(ValueError, match=SAME_RUN):
        compare_report(run, run)


def test_an_import_error_is_printed_as_a_sentence(tmp_path, capsys):
    path = tmp_path / "latin.json"
    path.write_bytes(export_text([]).replace("[]", '[{"note": "caf\u00e9"}]').encode("latin-1"))
    assert cli.main(["report", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {UTF8_ONLY}\n"


def test_a_reader_that_stops_early_gets_no_broken_pipe_error():
    """Over 400 kB of trace into a pipe whose reader leaves after one line."""
    command = [sys.executable, "-m", "pyapp", "trace", "--order", "median-first", "--kind", "radius",
               "--radius", "0.05", "--lon", "24.944", "--lat", "60.170"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.readline().startswith(b"radius search")
    child.stdout.close()
    status = child.wait(timeout=60)
    err = child.stderr.read().decode()
    child.stderr.close()
    assert "BrokenPipeError" not in err and "Traceback" not in err
    assert status == exit_status.BROKEN_PIPE


def test_an_answer_whose_grading_fails_counts_as_a_model_failure_and_the_report_still_builds():
    """The net under grading: grade_answer is total (tests above), but one answer must never stop the page."""
    from pyapp.evaluation.grader import UNGRADABLE, Grader

    def broken(answer, stop, facts):
        raise ArithmeticError("a bug")

    entries = full_run("run-net")
    entries[0]["answer"] = hostile_answer("C01")
    report = run_report(rebuild(entries, grader=Grader(grade=broken))[0])
    assert report["cases"][0]["outcome"] == Outcome.MODEL_FAILURE
    assert report["cases"][0]["detail"] == UNGRADABLE and "Error" not in UNGRADABLE
