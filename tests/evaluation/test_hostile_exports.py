"""Generated hostile exports through the import path and the command line: no uncaught exception (DR-006).

Each example is a valid-looking export of two runs, a decision, a rating, a cancel
entry, a plan, an explorer call and a model judge's verdict and failure, with one to
three hostile values put into random fields: huge integers, floats at the edges,
literal overflowing numbers, lone surrogates, text that looks like a number, nested
junk, wrong types, missing and unknown keys, and hostile claims inside a model's answer. The file is a JSON export
or, as the page and the command line also read, a log of one entry a line. Whatever
the file, the import either refuses it with a message a person can read, or every
view the page and the command line build from it works, and every answer is graded
by the grader itself, never by the net under it (pyapp.evaluation.grader.UNGRADABLE).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from eval_helpers import answer_for, at, call, cancel, decision, rating
from judge_design import judgement
from pyapp.auditlog.entries import plan_entry
from pyapp.auditlog.format import CALL_KEYS
from pyapp.cli import main as cli
from pyapp.evaluation.agreement import agreement_report
from pyapp.evaluation.evalset import EVAL_SET_VERSION
from pyapp.evaluation.export import ImportFileError, export_csv, export_json, merge, parse_import
from pyapp.evaluation.grader import UNGRADABLE
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.report import run_report, runs_overview
from pyapp.presentation.run_comparison import compare_report

pytestmark = pytest.mark.slow

HUGE = 10**400
RAW = {"__raw_1e400__": "1e400", "__raw_neg__": "-1E+999", "__raw_400_digits__": "9" * 400,
       "__raw_4400_digits__": "8" * 4400, "__raw_minus_zero__": "-0"}
HOSTILE = [HUGE, -HUGE, 2**53 + 1, -(2**63), 1e308, -1e308, 5e-324, -0.0, "\ud800", "ok \udfff", "NaN",
           "Infinity", "-1e400", "9" * 400, "", " ", "x" * 5000, True, None, [], {}, [[[[1]]]],
           {"a": {"b": {"c": HUGE}}}, *RAW]
any_text = st.text(max_size=12) | st.text(st.characters(categories=["Cs", "Lu", "Nd", "Zs"]), max_size=6)
junk = st.recursive(
    st.sampled_from(HOSTILE) | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=8,
)
hostile_value = st.sampled_from(HOSTILE) | junk
CLAIMS = ("walkthrough", "result_ids", "distance", "nodes_visited", "subtrees_pruned", "cited_steps")


def _run(run_id: str, start: float) -> list[dict]:
    entries = [call(run_id, case_id, time=start + i) for i, case_id in enumerate(("C01", "C02", "C03", "C06"))]
    entries.append(call(run_id, "C04", outcome="not_grounded", answer=answer_for("C04", "distance"),
                        time=start + 5))
    entries.append(call(run_id, "C05", outcome="infrastructure_failure", time=start + 6))
    return entries


BASE = _run("run-a", 0) + _run("run-b", 100)
BASE.append(decision(BASE[0]["id"], True, "clear"))
BASE.append(rating(BASE[1]["id"], "Ann", time=105))
BASE.append(cancel("run-b", "C07", time=110))
BASE.append(plan_entry("plan-1", at(115), "0d215187", "f8a851bd", "lower-bound-below:+0", "a plan"))
BASE.append(call(None, "C01", time=120, search={"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17,
                                               "radius": None}))
BASE.append(judgement(BASE[1]["id"], {"pruning": True, "answer": True, "no_invention": False, "followable": True},
                      time=125))
BASE.append(judgement(BASE[2]["id"], None, failure="schema_mismatch", time=126))
# Already in the visitor's log: another run and two of the file's entries, so merge meets both cases.
EXISTING = _run("run-z", 200) + BASE[:2]


@st.composite
def mutation(draw):
    where = draw(st.sampled_from(["field", "field", "nested", "claim", "claim", "claim", "claim", "head", "drop",
                                  "add"]))
    index = draw(st.integers(0, len(BASE) - 1))
    return where, index, draw(st.sampled_from(CALL_KEYS + ("note", "helpful", "call_id", "x", "y", "rule", "answers",
                                                           "reasons", "judging_id", "reply"))), \
        draw(st.sampled_from(CLAIMS + ("extra",))), draw(hostile_value)


def _apply(doc: dict, change: tuple) -> None:
    where, index, key, claim, value = change
    # A copy: HOSTILE's dicts are shared by every example, and a later change may nest into this one.
    value = copy.deepcopy(value)
    entries = doc.get("entries")
    entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
    if where == "head":
        doc[("format_version", "run_id", "eval_set_version", "entries")[index % 4]] = value
    elif not isinstance(entry, dict):
        return  # an earlier change replaced the entries or this entry
    elif where == "drop":
        entry.pop(key, None)
    elif where == "add":
        entry[str(key) + "_x"] = value
    elif where == "nested" and isinstance(entry.get("answers"), dict):
        entry["answers" if index % 2 else "reasons"]["no_invention"] = value
    elif where == "nested" and isinstance(entry.get("settings"), dict):
        entry["settings"][("temperature", "max_tokens", "model", "base_url")[index % 4]] = value
    elif where == "claim" and isinstance(entry.get("answer"), str):
        try:
            claims = json.loads(entry["answer"])
        except ValueError:
            claims = {}
        if isinstance(claims, dict):
            claims[claim] = value
        entry["answer"] = _dumps(claims)
    else:
        entry[key] = value


def _dumps(value: object, ascii_only: bool = True) -> str:
    text = json.dumps(value, ensure_ascii=ascii_only)
    for marker, raw in RAW.items():
        text = text.replace(json.dumps(marker), raw)
    return text


def _files(changes: list[tuple], ascii_only: bool) -> tuple[bytes, bytes | None]:
    """The export, and the log of the same entries (None when a change hit the export's own fields)."""
    doc = {"format": "kd-tree-explorer-audit", "format_version": 1, "eval_set_version": EVAL_SET_VERSION,
           "run_id": None, "entries": json.loads(json.dumps(BASE))}
    for change in changes:
        _apply(doc, change)
    # A lone surrogate cannot be UTF-8: written as its JSON escape, as a JSON writer would.
    export = _dumps(doc, ascii_only).encode("utf-8", "backslashreplace")
    if any(where == "head" for where, *_ in changes):
        return export, None
    log = "".join(_dumps(entry, ascii_only) + "\n" for entry in doc["entries"])
    return export, log.encode("utf-8", "backslashreplace")


def _readable(message: str) -> None:
    assert message and len(message) < 2_000 and "Error:" not in message and "Traceback" not in message
    message.encode("utf-8")  # valid Unicode: it can be printed and shown


def _refusal(message: str) -> None:
    """A refused import: readable, and saying itself that nothing was imported (the page shows it as it is)."""
    _readable(message)
    assert "nothing was imported" in message.lower()


def _page_views(imported: list[dict]) -> None:
    """What the page builds after an import: merge, the runs list, each run, a comparison, the exports."""
    try:
        new = merge(EXISTING, imported)
    except ImportFileError as exc:
        event("refused by merge")
        _refusal(str(exc))
        return
    event("imported")
    log = EXISTING + new
    rebuilt = rebuild(log)
    json.dumps(runs_overview(rebuilt.runs), allow_nan=False)
    for run in rebuilt:
        report = run_report(run)
        json.dumps(report, allow_nan=False)
        assert all(case["detail"] != UNGRADABLE for case in report["cases"]), "grading raised on an answer"
    if len(rebuilt) > 1:
        json.dumps(compare_report(rebuilt[0], rebuilt[-1]), allow_nan=False)
    json.dumps(agreement_report(log, list(rebuilt)), allow_nan=False)
    export_json(log).encode("utf-8")
    export_csv(log).encode("utf-8")


def _command_line(folder: Path, data: bytes) -> None:
    path = folder / "export.json"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        statuses = (cli.main(["report", str(path)]),
                    cli.main(["compare", str(path), "--run", "run-a", "--run", "run-b", "--json"]),
                    cli.main(["agreement", str(path)]))
    assert set(statuses) <= {0, 1}
    out.getvalue().encode("utf-8")
    if err.getvalue():
        _readable(err.getvalue())


@settings(max_examples=1_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.lists(mutation(), min_size=1, max_size=3), ascii_only=st.booleans())
def test_a_hostile_export_is_refused_or_read_without_an_uncaught_exception(changes, ascii_only):
    data, log = _files(changes, ascii_only)
    imported = _parsed(data)
    if imported is not None:
        _page_views(imported)
    with tempfile.TemporaryDirectory() as folder:
        _command_line(Path(folder), data)
    if log is not None:  # the same entries as a log are refused or imported just the same
        assert _parsed(log) == imported


def _parsed(data: bytes) -> list[dict] | None:
    try:
        return parse_import(data)
    except ImportFileError as exc:
        event("refused by parse_import")
        _refusal(str(exc))
        return None
