"""A log read a line at a time (pyapp.evaluation.log_stream) is refused exactly as the same file read whole, and
runs rebuilt lean (RunIndex with lean, what the command line reads logs with) give the figures of a full
rebuild."""

from __future__ import annotations

import io
import json

import pytest

from designed_logs import entries_for_the_matrix
from eval_helpers import call, cancel, decision
from log_files import bad_logs, lines_of, log_bytes, own_set_log
from pyapp.cli.main import main
from pyapp.evaluation import log_stream
from pyapp.evaluation.export import ImportFileError, log_line, parse_import
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_stream import CutOff, log_entries, opens_a_log
from pyapp.evaluation.rebuild import RunIndex, rebuild
from pyapp.presentation.case_matrix import case_matrix
from pyapp.presentation.report import run_report
from synthetic_logs import synthetic_log


def streamed(data: bytes) -> list[dict]:
    return list(log_entries(io.BytesIO(data)))


def logs() -> list[list[dict]]:
    """Runs of every kind a figure reads: repeats, stale calls, failures, cancels, verdicts, an own set."""
    matrix = entries_for_the_matrix()
    first_call = next(e for e in matrix if e["type"] == "call" and e["outcome"] == "grounded")
    extra = [decision(first_call["id"], False, "too long", time=900),
             call(first_call["run_id"], first_call["case_id"], time=901),  # a repeat: never counted
             cancel(first_call["run_id"], "C20", time=902)]
    return [matrix + extra, synthetic_log(700), own_set_log()]


@pytest.mark.parametrize("entries", logs(), ids=["designed", "synthetic", "own-set"])
def test_a_log_read_lean_gives_the_figures_of_a_full_rebuild(entries):
    full = rebuild(entries)
    index = RunIndex(Grader(remember=False), validated=True, lean=True)
    lean = index.add(streamed(log_bytes(entries))).rebuilt()
    assert [run_report(r) for r in lean] == [run_report(r) for r in full]
    assert case_matrix(list(lean)) == case_matrix(list(full))
    held = [item[2] for items in index._by_run.values() for item in items]
    assert held and all(e.get("answer") is None for e in held if e.get("grade") is not None)
    assert sum(e.get("grade") is not None for e in held) > 0


def test_a_lean_grader_keeps_no_answer_text():
    grader = Grader(remember=False)
    RunIndex(grader, validated=True, lean=True).add(synthetic_log(200)).rebuilt()
    assert grader.outcomes() == {}


def test_the_entries_streamed_are_those_parse_import_reads():
    data = log_bytes(synthetic_log(300))
    assert streamed(data) == parse_import(data)
    assert streamed(b"\xef\xbb\xbf" + data + b"\n  \n") == parse_import(b"\xef\xbb\xbf" + data + b"\n  \n")


@pytest.mark.parametrize("block", [100, 3_000, 1_000_000])
def test_the_lines_are_read_alike_in_blocks_of_any_size(monkeypatch, block):
    """Blocks shorter than a line, of about one line, and of the whole log; line breaks of either kind, blank
    lines between and after the entries, and a last line without its break."""
    monkeypatch.setattr(log_stream, "BLOCK_BYTES", block)
    lines = lines_of(synthetic_log(9))
    data = b"".join(lines[:3]) + b"\n   \n" + b"".join(line.replace(b"\n", b"\r\n") for line in lines[3:6]) \
        + b"".join(lines[6:]).rstrip(b"\n")
    for variant in (data, data + b"\n\n \t\n", b"\xef\xbb\xbf" + data):
        assert streamed(variant) == parse_import(variant)
    bad = b"".join(lines[:3]) + b"\n \n" + b"".join(lines[3:7]) + b"{not json}\n" + lines[8]
    with pytest.raises(ImportFileError, match="Line 10 of the log") as stream:
        streamed(bad)
    with pytest.raises(ImportFileError) as whole:
        parse_import(bad)
    assert str(stream.value) == str(whole.value)


def test_a_log_is_told_from_an_export_by_its_first_line():
    entries = synthetic_log(5)
    assert opens_a_log(io.BytesIO(log_bytes(entries)))
    handle = io.BytesIO(b'{\n  "format": "kd-tree-explorer-audit"\n}\n')
    assert not opens_a_log(handle) and handle.tell() == 0


@pytest.mark.parametrize("name", list(bad_logs()))
def test_a_bad_log_streamed_is_refused_with_the_words_of_the_whole_read(name):
    data = bad_logs()[name]
    with pytest.raises(ImportFileError) as whole:
        parse_import(data)
    with pytest.raises(ImportFileError) as stream:
        streamed(data)
    assert str(stream.value) == str(whole.value)


def test_a_cut_last_line_is_said_with_where_it_starts_after_every_whole_line_is_checked():
    lines = lines_of(synthetic_log(12))
    data = b"".join(lines[:11]) + lines[11][:-30]
    with pytest.raises(CutOff) as cut:
        streamed(data)
    assert (cut.value.end.line, cut.value.end.start, cut.value.entries_before) == (12, len(b"".join(lines[:11])), 11)
    bad_before = b"".join(lines[:3]) + log_line(dict(synthetic_log(12)[3], time="now")).encode() + data[
        len(b"".join(lines[:4])):]
    with pytest.raises(ImportFileError, match="1 of 11 entries are not valid"):
        streamed(bad_before)


def test_the_bounds_of_an_import_hold_for_a_streamed_log(monkeypatch):
    data = log_bytes(synthetic_log(30))
    monkeypatch.setattr(log_stream, "MAX_IMPORT_ENTRIES", 29)
    with pytest.raises(ImportFileError, match="more than 29 entries"):
        streamed(data)
    monkeypatch.setattr(log_stream, "MAX_IMPORT_CHARS", len(data) - 1)
    with pytest.raises(ImportFileError, match="an import takes at most"):
        streamed(data)


def test_report_reads_a_log_and_an_export_of_the_same_runs_alike(tmp_path, capsys):
    from pyapp.evaluation.export import export_json

    entries = entries_for_the_matrix()
    log = tmp_path / "runs.jsonl"
    log.write_bytes(log_bytes(entries))
    export = tmp_path / "runs.json"
    export.write_text(export_json(entries))
    outputs = []
    for path in (log, export):
        assert main(["report", str(path), "--json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] == [run_report(r) for r in rebuild(entries)]


def test_no_field_of_a_valid_entry_of_any_kind_takes_a_value_nested_too_deeply():
    """What lets the line reader walk the nesting of invalid entries only (log_stream._take)."""
    from agreement_log import rated_log
    from judge_design import judgement
    from pyapp.auditlog.entries import plan_entry
    from pyapp.auditlog.validation import validate_entry
    from pyapp.evaluation.export import MAX_IMPORT_DEPTH

    call_entry = call("r1", "C01")
    verdict = dict.fromkeys(("pruning", "answer", "no_invention", "followable"), True)
    plan = plan_entry("p1", "2026-12-01T10:00:00.000Z", "0123abcd", "4567cdef", "lower-bound-below:+0")
    valid = [call_entry, cancel("r1", "C01"), decision(call_entry["id"], True), *rated_log()[-1:],
             judgement(call_entry["id"], verdict), judgement(call_entry["id"], None, error="network"),
             *own_set_log()[:1], plan]
    deep = json.loads("[" * (MAX_IMPORT_DEPTH + 1) + "]" * (MAX_IMPORT_DEPTH + 1))
    assert {entry["type"] for entry in valid} == {"call", "cancel", "decision", "rating", "judgement", "own_case",
                                                  "plan"}
    for entry in valid:
        assert validate_entry(entry) == []
        for key in entry:
            assert validate_entry({**entry, key: deep}), (entry["type"], key)
