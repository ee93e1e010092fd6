"""Logs as bytes for the tests of reading a log a line at a time (tests/evaluation): whole ones, one of the
visitor's own cases, and bad ones of every kind an import refuses, and what reading one gives."""

from __future__ import annotations

import json

from eval_helpers import decision, full_run
from pyapp.auditlog.entries import own_case_entry
from pyapp.evaluation.entry_checks import ImportFileError
from pyapp.evaluation.export import log_line
from pyapp.evaluation.graded_lines import read_graded
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_stream import CutOff, log_lines
from pyapp.evaluation.own_cases import OwnCases
from pyapp.evaluation.rebuild import RunIndex
from pyapp.presentation.report import run_report
from synthetic_logs import synthetic_log


def log_bytes(entries: list[dict]) -> bytes:
    return "".join(log_line(e) for e in entries).encode()


def lines_of(entries: list[dict]) -> list[bytes]:
    return [log_line(e).encode() for e in entries]


def own_set_log() -> list[dict]:
    searches = [{"order": "shuffled", "kind": "nearest", "lon": 24.944, "lat": 60.17, "radius": None},
                {"order": "file", "kind": "radius", "lon": 24.95, "lat": 60.168, "radius": 0.003}]
    owns = [own_case_entry(f"own{i:04d}", f"2026-12-01T10:00:0{i}.000Z", s) for i, s in enumerate(searches)]
    mine = OwnCases()
    for entry in owns:
        mine.add(entry)
    return owns + full_run("mine", {"O01"}, start=50, version=mine.name, sets=mine.sets)


def bad_logs() -> dict[str, bytes]:
    entries = synthetic_log(40)
    lines = lines_of(entries)
    invalid = dict(entries[3], time="yesterday")
    second_bad = dict(entries[7], answer_ms=-1)
    repeated = dict(entries[9], id=entries[2]["id"])
    stray = decision("nowhere", True, time=5)
    deep = json.dumps(dict(entries[4], search={"a": [[[[[[[[[1]]]]]]]]]})).encode() + b"\n"
    big = dict(entries[5], input_tokens=2**60)
    return {
        "not JSON in the middle": b"".join(lines[:5] + [b"{not json}\n"] + lines[5:]),
        "invalid entries": b"".join(lines[:3] + lines_of([invalid]) + lines[4:7] + lines_of([second_bad]) + lines[8:]),
        "an id repeated": b"".join(lines[:9] + lines_of([repeated]) + lines[10:]),
        "a verdict on a call not in the file": b"".join(lines[:6] + lines_of([stray]) + lines[6:]),
        "a NUL byte": b"".join(lines[:6] + [lines[6].replace(b'"type"', b'"ty\x00pe"')] + lines[7:]),
        "not UTF-8": b"".join(lines[:6] + [lines[6].replace(b"Answer", b"Answ\xff")] + lines[7:]),
        "too deep": b"".join(lines[:4] + [deep] + lines[5:]),
        "too deep and not JSON": b"".join(lines[:4] + [b'{"a": [[[[[[[[[1 2]]]]]]]]]}\n'] + lines[5:]),
        "too deep for the parser": b"".join(lines[:4] + [b"[" * 100_000 + b"]" * 100_000 + b"\n"] + lines[5:]),
        "a number out of range": b"".join(lines[:5] + lines_of([big]) + lines[6:]),
        "a bad line before a cut one": b"".join(lines[:5] + [b"{not json}\n"] + lines[5:]) + lines[0][:40],
    }


def read_all(path: str, batches) -> dict:
    """What reading the log at ``path`` with ``batches`` (a map, :func:`pyapp.evaluation.log_stream.log_lines`)
    gives: the entries with their grades and every run's report, or the refusal."""
    index = RunIndex(Grader(remember=False), validated=True, lean=True)
    taken = []
    try:
        with open(path, "rb") as handle:
            for entry, graded in log_lines(handle, read_graded, batches):
                taken.append([entry, graded])
                index.add_read([(entry, graded)])
    except (ImportFileError, CutOff) as exc:
        return {"refused": f"{type(exc).__name__}: {exc}"}
    return {"entries": taken, "reports": [run_report(run) for run in index.rebuilt()]}
