"""Runs and configurations named on the command line by the short forms it prints: a run by the end of its id,
a configuration by its letter (DR-008). One letter per configuration in every view of a log; a name that could
mean two runs is refused, naming both."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from cli_run import main_in_thread
from eval_helpers import OTHER_SETTINGS, SETTINGS, full_run
from fake_provider import FakeProvider
from judge_design import verdict_text
from pyapp.evaluation.baseline import baseline_of, baseline_text
from pyapp.evaluation.configurations import configuration_for, group_runs
from pyapp.evaluation.export import log_line, parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.repeat_report import configuration_compare_report

IDS = [f"C{i:02d}" for i in range(1, 21)]
# Two runs of claude-test-1, and before them one of gpt-test-1: the oldest run's configuration is A, whatever
# the order of the file. "b2c3" ends the ids of runs of both; "00d1" only the second claude run's.
X_FIRST = "run-20261206-100000-a1b2c3"
X_SECOND = "run-20261206-110000-9f00d1"
Y_ONLY = "run-20261206-090000-ffb2c3"
X_ID = configuration_for(SETTINGS).id
Y_ID = configuration_for(OTHER_SETTINGS).id


def designed_entries() -> list[dict]:
    return (full_run(X_FIRST, start=100) + full_run(X_SECOND, set(IDS[:15]), start=200)
            + full_run(Y_ONLY, set(IDS[:18]), start=0, settings=OTHER_SETTINGS))


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[str, str]:
    """The log (JSON lines, as run writes it) and a baseline of the first claude run."""
    folder = tmp_path_factory.mktemp("names")
    entries = designed_entries()
    log = folder / "runs.jsonl"
    log.write_text("".join(log_line(entry) for entry in entries), encoding="utf-8")
    baseline = folder / "baseline.json"
    baseline.write_text(baseline_text(baseline_of([rebuild(entries).run(X_FIRST)])), encoding="utf-8")
    return str(log), str(baseline)


def cli(*args: str) -> tuple[int, str, str]:
    """``python -m pyapp ARGS`` in this process (in a thread of its own, as ``judge`` needs): status, out, err."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main_in_thread(list(args))
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


def cli_json(*args: str) -> object:
    status, out, err = cli(*args, "--json")
    assert status == 0, err
    return json.loads(out)


def test_a_configuration_has_one_letter_in_the_matrix_the_configurations_and_the_comparison(files):
    log, _ = files
    named = {Y_ID: ("A", "A · gpt-test-1"), X_ID: ("B", "B · claude-test-1")}
    listed = cli_json("report", log, "--configurations")["configurations"]
    assert [(g["id"], g["letter"], g["config_name"]) for g in listed] == [(Y_ID, *named[Y_ID]), (X_ID, *named[X_ID])]
    (section,) = cli_json("report", log, "--matrix")["sets"]
    assert [(g["configuration"], g["name"], g["letter"], g["config_name"]) for g in section["groups"]] == [
        (Y_ID, "A", *named[Y_ID]), (X_ID, "B", *named[X_ID])]
    compared = cli_json("compare", log, "--config", "B", "--config", "A")
    assert [(side["id"], side["letter"], side["config_name"]) for side in (compared["x"], compared["y"])] == [
        (X_ID, *named[X_ID]), (Y_ID, *named[Y_ID])]
    # The text says the same names.
    assert f"configuration A · gpt-test-1 ({Y_ID}): openai gpt-test-1" in cli("report", log, "--configurations")[1]
    text = cli("compare", log, "--config", "B", "--config", "A")[1]
    assert text.startswith(f"X B · claude-test-1 ({X_ID}): anthropic claude-test-1")
    assert f"\nY A · gpt-test-1 ({Y_ID}): openai gpt-test-1" in text
    matrix = cli("report", log, "--matrix")[1].splitlines()
    assert matrix[3].startswith(f"  A  {Y_ID}  openai gpt-test-1") and matrix[4].startswith(f"  B  {X_ID}  ")
    assert matrix[5].split() == ["A", "B"] and matrix[6].split() == ["#1", "#1", "#2"]


@pytest.mark.parametrize("name", ["B", X_ID, "B · claude-test-1", X_SECOND, "9f00d1", "00d1", "a1b2c3"],
                         ids=["letter", "id", "name", "run-id", "short-id", "end-of-id", "other-run"])
def test_compare_config_takes_a_letter_an_id_a_name_or_a_name_of_one_of_its_runs(files, name):
    log, _ = files
    built = rebuild(parse_import(Path(log).read_bytes()))
    expected = configuration_compare_report(group_runs(list(built)), X_ID, Y_ID)
    assert cli_json("compare", log, "--config", name, "--config", "ffb2c3") == json.loads(json.dumps(expected))


@pytest.mark.parametrize("args", [
    ["report", "{log}", "--run", "{second}"],
    ["report", "{log}", "--run", "{second}", "--json"],
    ["compare", "{log}", "--run", "{first}", "--run", "{second}"],
    ["compare", "{log}", "--run", "{y}", "--run", "{second}", "--json"],
    ["baseline", "{log}", "--run", "{first}", "--run", "{second}"],
    ["diff", "{baseline}", "{log}", "--run", "{second}", "--json"],
    ["diff", "{baseline}", "{log}", "--run", "{second}"],
], ids=["report", "report-json", "compare", "compare-json", "baseline", "diff-json", "diff"])
def test_a_run_named_by_its_short_id_or_the_end_of_its_id_is_the_run(files, args):
    log, baseline = files
    short = {"first": "a1b2c3", "second": "00d1", "y": "ffb2c3"}  # two short ids, and a shorter end
    whole = {"first": X_FIRST, "second": X_SECOND, "y": Y_ONLY}
    by_short, by_id = ([a.format(log=log, baseline=baseline, **names) for a in args] for names in (short, whole))
    status, out, err = cli(*by_short)
    assert (status, out, err) == cli(*by_id)
    assert status in (0, 3) and out and not err


def test_the_end_of_an_id_names_that_run_and_no_other(files):
    log, baseline = files
    assert cli_json("report", log, "--run", "00d1")["run_id"] == X_SECOND
    compared = cli_json("compare", log, "--run", "ffb2c3", "--run", "a1b2c3")
    assert (compared["first"], compared["second"]) == (Y_ONLY, X_FIRST)
    status, out, _ = cli("diff", baseline, log, "--run", "00d1")
    assert status == 3 and out.count("NEW FAIL") == 5  # the second claude run grounds 15 cases, the baseline 20


AMBIGUOUS = [
    ["report", "{log}", "--run", "b2c3"],
    ["compare", "{log}", "--run", "b2c3", "--run", "00d1"],
    ["compare", "{log}", "--run", "00d1", "--run", "b2c3"],
    ["compare", "{log}", "--config", "b2c3", "--config", "A"],
    ["baseline", "{log}", "--run", "b2c3"],
    ["diff", "{baseline}", "{log}", "--run", "b2c3"],
    ["judge", "{log}", "--provider", "openai-compatible", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
     "--runs", "b2c3"],
]


@pytest.mark.parametrize("args", AMBIGUOUS, ids=["report", "compare-first", "compare-second", "compare-config",
                                                 "baseline", "diff", "judge"])
def test_the_end_of_two_runs_ids_is_refused_naming_both(files, args):
    log, baseline = files
    status, out, err = cli(*[a.format(log=log, baseline=baseline) for a in args])
    assert status == 2 and out == ""
    said = err.splitlines()[-1]
    assert said.startswith(f"python -m pyapp {args[0]}: error: 'b2c3' is the end of 2 runs' ids: ")
    # Each candidate by its whole id, its short id and its place, oldest first.
    assert said.endswith(f"{Y_ONLY} (ffb2c3, #1 of A); {X_FIRST} (a1b2c3, #1 of B); give more of the id")
    assert "Traceback" not in err


def test_a_letter_that_is_also_a_run_of_another_configuration_is_refused(tmp_path):
    log = tmp_path / "runs.jsonl"
    entries = full_run("B", start=0) + full_run("y", start=100, settings=OTHER_SETTINGS)
    log.write_text("".join(log_line(entry) for entry in entries), encoding="utf-8")
    status, _, err = cli("compare", str(log), "--config", "B", "--config", "y")
    assert status == 2
    assert err.endswith(f"error: 'B' names 2 configurations: A · claude-test-1 ({X_ID}); B · gpt-test-1 ({Y_ID}); "
                        "name one by its id\n")
    assert cli("compare", str(log), "--config", "A", "--config", "y")[0] == 0  # its letter names the run's own


@pytest.mark.parametrize(("args", "status", "said"), [
    (["report", "{log}", "--run", "run-20261206"], 1,
     "no run 'run-20261206' in the log: name a run by its id or the end of it (runs: ffb2c3, a1b2c3, 9f00d1)"),
    (["compare", "{log}", "--config", "Q", "--config", "A"], 1,
     f"no configuration or run 'Q' in the log: name a configuration by its letter or id, or by one of its runs "
     f"(configurations: A · gpt-test-1 ({Y_ID}), B · claude-test-1 ({X_ID}))"),
    (["compare", "{log}", "--config", "a", "--config", "B"], 1, "no configuration or run 'a'"),
    (["compare", "{log}", "--run", "00d1", "--run", X_SECOND], 2, "Choose two different runs"),
    (["baseline", "{log}", "--run", "a1b2c3", "--run", X_FIRST], 2, "each --run must name a different run"),
    (["compare", "{log}", "--config", "A", "--config", "ffb2c3"], 1, "both names are the same configuration"),
], ids=["a-start-is-no-name", "unknown-configuration", "letters-are-capitals", "same-run-twice", "same-run-in-baseline",
        "same-configuration"])
def test_names_that_mean_nothing_or_the_same_thing_twice(files, args, status, said):
    log, baseline = files
    done, out, err = cli(*[a.format(log=log, baseline=baseline) for a in args])
    assert (done, out) == (status, "")
    assert said in err and "Traceback" not in err


def test_judge_judges_the_run_its_short_id_names(tmp_path):
    log = tmp_path / "runs.jsonl"
    entries = designed_entries()
    log.write_text("".join(log_line(entry) for entry in entries), encoding="utf-8")
    calls = {e["id"] for e in entries if e["run_id"] == X_SECOND}

    def reply(body: dict) -> dict:
        return {"id": "chatcmpl-judge", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": verdict_text(dict.fromkeys(RUBRIC.keys, True))}}],
                "usage": {"prompt_tokens": 1500, "completion_tokens": 120}}

    with FakeProvider(reply) as fake:
        status, _, err = cli("judge", str(log), "--provider", "openai-compatible", "--model", "judge-1",
                             "--base-url", fake.base_url, "--runs", "00d1")
    assert status == 0, err
    judged = [e for e in parse_import(log.read_bytes()) if e["type"] == "judgement"]
    assert len(calls) == 20 and {e["call_id"] for e in judged} == calls


def test_run_continue_takes_a_runs_short_id_too(files, tmp_path):
    log = tmp_path / "runs.jsonl"
    log.write_text(Path(files[0]).read_text(encoding="utf-8"), encoding="utf-8")
    status, out, _ = cli("run", "--continue", "a1b2c3", "--log", str(log))
    assert status == 0 and out == f"Run {X_FIRST} has an answer for every case; nothing to ask.\n"
    status, _, err = cli("run", "--continue", "b2c3", "--log", str(log))
    assert status == 2 and X_FIRST in err and Y_ONLY in err  # the end of two runs' ids names neither
