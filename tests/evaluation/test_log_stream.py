"""A log read a line at a time (pyapp.evaluation.log_stream) is refused exactly as the same file read whole, and
runs rebuilt lean (RunIndex with lean, what the command line reads logs with) give the figures of a full
rebuild."""

from __future__ import annotations

import io
import json

import pytest

from designed_logs import entries_for_the_matrix
from eval_helpers import call, cancel, decision, full_run
from pyapp.auditlog.entries import own_case_entry
from pyapp.cli.main import main
from pyapp.evaluation import log_stream
from pyapp.evaluation.export import ImportFileError, log_line, parse_import
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_stream import CutOff, log_entries, opens_a_log
from pyapp.evaluation.own_cases import OwnCases
from pyapp.evaluation.rebuild import RunIndex, rebuild
from pyapp.presentation.case_matrix import case_matrix
from pyapp.presentation.report import run_report
from synthetic_logs import synthetic_log


def log_bytes(entries: list[dict]) -> bytes:
    return "".join(log_line(e) for e in entries).encode()


def streamed(data: bytes) -> list[dict]:
    return list(log_entries(io.BytesIO(data)))


def own_set_log() -> list[dict]:
    searches = [{"order": "shuffled", "kind": "nearest", "lon": 24.944, "lat": 60.17, "radius": None},
                {"order": "file", "kind": "radius", "lon": 24.95, "lat": 60.168, "radius": 0.003}]
    owns = [own_case_entry(f"own{i:04d}", f"2026-12-01T10:00:0{i}.000Z", s) for i, s in enumerate(searches)]
    mine = OwnCases()
    for entry in owns:
        mine.add(entry)
    return owns + full_run("mine", {"O01"}, start=50, version=mine.name, sets=mine.sets)


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


def test_a_log_is_told_from_an_export_by_its_first_line():
    entries = synthetic_log(5)
    assert opens_a_log(io.BytesIO(log_bytes(entries)))
    handle = io.BytesIO(b'{\n  "format": "kd-tree-explorer-audit"\n}\n')
    assert not opens_a_log(handle) and handle.tell() == 0


def _lines(entries: list[dict]) -> list[bytes]:
    return [log_line(e).encode() for e in entries]


def bad_logs() -> dict[str, bytes]:
    entries = synthetic_log(40)
    lines = _lines(entries)
    invalid = dict(entries[3], time="yesterday")
    second_bad = dict(entries[7], answer_ms=-1)
    repeated = dict(entries[9], id=entries[2]["id"])
    stray = decision("nowhere", True, time=5)
    deep = json.dumps(dict(entries[4], search={"a": [[[[[[[[[1]]]]]]]]]})).encode() + b"\n"
    big = dict(entries[5], input_tokens=2**60)
    return {
        "not JSON in the middle": b"".join(lines[:5] + [b"{not json}\n"] + lines[5:]),
        "invalid entries": b"".join(lines[:3] + _lines([invalid]) + lines[4:7] + _lines([second_bad]) + lines[8:]),
        "an id repeated": b"".join(lines[:9] + _lines([repeated]) + lines[10:]),
        "a verdict on a call not in the file": b"".join(lines[:6] + _lines([stray]) + lines[6:]),
        "a NUL byte": b"".join(lines[:6] + [lines[6].replace(b'"type"', b'"ty\x00pe"')] + lines[7:]),
        "not UTF-8": b"".join(lines[:6] + [lines[6].replace(b"Answer", b"Answ\xff")] + lines[7:]),
        "too deep": b"".join(lines[:4] + [deep] + lines[5:]),
        "a number out of range": b"".join(lines[:5] + _lines([big]) + lines[6:]),
        "a bad line before a cut one": b"".join(lines[:5] + [b"{not json}\n"] + lines[5:]) + lines[0][:40],
    }


@pytest.mark.parametrize("name", list(bad_logs()))
def test_a_bad_log_streamed_is_refused_with_the_words_of_the_whole_read(name):
    data = bad_logs()[name]
    with pytest.raises(ImportFileError) as whole:
        parse_import(data)
    with pytest.raises(ImportFileError) as stream:
        streamed(data)
    assert str(stream.value) == str(whole.value)


def test_a_cut_last_line_is_said_with_where_it_starts_after_every_whole_line_is_checked():
    lines = _lines(synthetic_log(12))
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
