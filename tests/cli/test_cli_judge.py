"""``python -m pyapp judge`` against a fake judge server on 127.0.0.1 (DR-012): the designed verdicts come back
through the prompt, HTTP, the audited client and the log, and ``agreement`` measures them."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_run import main_in_thread
from fake_provider import FakeProvider
from judge_design import JUDGE_MODEL, designed_judge, designed_log, length_biased_judge
from kappa_reference import sklearn_kappa
from pyapp.evaluation.export import export_json, log_line, parse_import
from pyapp.evaluation.judge_agreement import judge_name

KEY = "sk-judge-terminal-secret-0123456789"


def write_log(path: Path, entries: list[dict]) -> None:
    path.write_text("".join(log_line(e) for e in entries), encoding="utf-8")


def cli(*args: str) -> tuple[int, str, str]:
    """``python -m pyapp ARGS`` in this process, in a thread of its own (``main_in_thread``: ``judge`` starts an
    event loop, which cannot start beside the one a browser test leaves in the main thread)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main_in_thread(list(args))
        except SystemExit as exited:  # argparse's usage errors
            status = exited.code
    return status, out.getvalue(), err.getvalue()


def judge(log: Path, reply: Callable, *extra: str) -> tuple[int, str, str, FakeProvider]:
    with FakeProvider(reply) as fake:
        done = cli("judge", str(log), "--provider", "openai-compatible", "--model", JUDGE_MODEL,
                   "--base-url", fake.base_url, "--key-env", "JUDGE_KEY", *extra)
    return (*done, fake)


def agreement(log: Path) -> dict:
    status, out, _ = cli("agreement", str(log), "--json")
    assert status == 0
    (judge_report,) = json.loads(out)["judges"]
    return judge_report


@pytest.fixture
def designed(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", KEY)
    entries, design = designed_log(tags={0: "judge-invalid", 1: "judge-refuse", 2: "judge-http-400"})
    log = tmp_path / "log.jsonl"
    write_log(log, entries)
    return log, design


def test_the_judges_kappa_per_question_equals_an_independent_computation(designed):
    log, design = designed
    status, out, err, fake = judge(log, designed_judge)
    assert status == 0 and "before: Judging sends 40 calls" in out
    assert "after: 40 calls used 58,500 input" in out  # 39 replies of 1,500 tokens; the HTTP 400 had none
    assert len(fake.requests("POST")) == 40
    report = agreement(log)
    assert report["judge"] == judge_name(JUDGE_MODEL) and report["verdicts"] == 37
    judged = list(design.values())[3:]
    for pair, person in zip(report["versus_people"], ("Ann", "Bo"), strict=True):
        for q in pair["questions"]:
            pairs = [(d["judge"][q["key"]], d[person][q["key"]]) for d in judged]
            table = [[sum(a and b for a, b in pairs), sum(a and not b for a, b in pairs)],
                     [sum(b and not a for a, b in pairs), sum(not a and not b for a, b in pairs)]]
            assert q["table"] == table
            assert round(q["kappa"], 4) == round(sklearn_kappa(table), 4)
    assert report["label"] == "not validated"


def test_invalid_json_a_refusal_and_an_http_error_are_logged_judge_failures_and_nothing_is_counted(designed):
    log, design = designed
    status, _, err, _ = judge(log, designed_judge)
    assert status == 0
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    judgements = [e for e in entries if e["type"] == "judgement"]
    first_three = list(design)[:3]
    failed = {e["call_id"]: e for e in judgements if e["answers"] is None}
    assert set(failed) == set(first_three)
    assert [failed[c]["failure"] or failed[c]["error"] for c in first_three] == [
        "invalid_json", "refusal", "bad_request"]
    assert failed[first_three[0]]["reply"] == '{"pruning": {"answer": "yes"'
    assert all(e["reasons"] is None for e in failed.values())
    assert err.count("judge failure (") == 3
    report = agreement(log)
    assert [f["failure"] for f in report["failures"]] == ["invalid_json", "refusal", "bad_request"]
    assert all(p["n"] == 37 for p in report["versus_people"])


def test_a_judge_that_says_yes_to_every_long_answer_is_shown_by_the_length_probe(designed):
    log, _ = designed
    judge(log, length_biased_judge)
    length = agreement(log)["length"]
    assert length["flagged"] and length["terciles"][2]["judge"]["rate"] == 1.0


def test_judging_again_measures_the_judge_against_itself(designed):
    log, _ = designed
    status, out, _, fake = judge(log, designed_judge, "--repeat", "2")
    assert status == 0 and len(fake.requests("POST")) == 80 and out.count("asked about all 40 answers") == 2
    same = agreement(log)["consistency"]
    assert same["judgings"] == 2 and same["unchanged"]["yes"] == same["unchanged"]["n"] == 37


def test_the_key_is_in_no_entry_export_or_output_even_when_the_judge_echoes_it(designed):
    log, _ = designed

    def echoing(body: dict) -> dict:
        reply = designed_judge(body)
        if isinstance(reply, dict) and reply["choices"][0]["message"]["content"]:
            verdict = json.loads(reply["choices"][0]["message"]["content"])
            verdict["pruning"]["reason"] = f"The key is {KEY}."
            reply["choices"][0]["message"]["content"] = json.dumps(verdict)
        return reply

    status, out, err, fake = judge(log, echoing)
    assert status == 0
    assert all(seen.headers["authorization"] == f"Bearer {KEY}" for seen in fake.requests("POST"))
    text = log.read_text(encoding="utf-8")
    assert KEY not in text and KEY not in out + err
    entries = parse_import(text)
    assert KEY not in export_json(entries)
    scrubbed = [e for e in entries if e["type"] == "judgement" and e["answers"] is not None]
    assert scrubbed and all(KEY not in e["reasons"]["pruning"] for e in scrubbed)
    assert KEY not in json.dumps(agreement(log))


def test_judge_entries_travel_in_exports_and_a_bad_one_is_refused_whole(designed, tmp_path):
    log, _ = designed
    judge(log, designed_judge)
    entries = parse_import(log.read_text(encoding="utf-8"))
    export = export_json(entries)
    assert sum(e["type"] == "judgement" for e in parse_import(export)) == 40
    one_run = parse_import(export_json(entries, "run-a"))
    assert sum(e["type"] == "judgement" for e in one_run) == 20
    bad = [dict(e) for e in entries]
    target = next(e for e in bad if e["type"] == "judgement" and e["answers"] is not None)
    target["answers"] = {**target["answers"], "pruning": "maybe"}
    path = tmp_path / "bad.jsonl"
    write_log(path, bad)
    status, _, err = cli("agreement", str(path))
    assert status == 1 and "nothing was imported" in err.lower() and "answers" in err


def test_the_command_checks_its_inputs_before_asking(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    log = tmp_path / "log.jsonl"
    write_log(log, designed_log()[0])
    with FakeProvider(designed_judge) as fake:
        status, _, err = cli("judge", str(log), "--provider", "openai", "--model", "gpt-judge")
        assert status == 2 and "OPENAI_API_KEY" in err  # what the environment must give: a usage error
        status, _, err = cli("judge", str(log), "--provider", "openai-compatible", "--model", "m",
                             "--base-url", fake.base_url, "--runs", "run-x")
        assert status == 1 and "no run 'run-x' in the log" in err
        assert not fake.requests("POST")
    assert cli("judge", str(log), "--provider", "openai-compatible", "--model", "m", "--base-url", "x",
               "--repeat", "0")[0] == 2


def test_judging_one_run_changes_no_figure_of_the_runs(designed):
    log, _ = designed
    before = [cli("report", str(log), *extra)[1] for extra in (["--json"], ["--configurations", "--json"],
                                                               ["--matrix", "--json"])]
    status, out, _, fake = judge(log, designed_judge, "--runs", "run-b")
    assert status == 0 and len(fake.requests("POST")) == 20 and "asked about all 20 answers" in out
    after = [cli("report", str(log), *extra)[1] for extra in (["--json"], ["--configurations", "--json"],
                                                              ["--matrix", "--json"])]
    assert after == before
    assert agreement(log)["verdicts"] == 20
