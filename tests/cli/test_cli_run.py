"""``python -m pyapp run`` against the fake provider as a process of its own on loopback (DR-008)."""

from __future__ import annotations

import json

import pytest

from cli_run import KEY, run_cli, start_fake, stop_fake
from eval_helpers import full_run
from fake_provider import USAGE, FakeProvider
from live_call import run_async
from pyapp.auditlog.validation import validate_entry
from pyapp.cli.terminal import LogFile, urllib_transport
from pyapp.evaluation.cost import actual_usage, run_size
from pyapp.evaluation.evalset import FIXED_SETS, LARGE_SET_VERSION
from pyapp.evaluation.export import ImportFileError, export_json, log_line, parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.report import run_report
from pyapp.providers.client import NetworkError
from pyapp.providers.wire import HttpRequest


def test_run_appends_one_valid_entry_a_line_through_the_pages_client_and_grading(terminal_log):
    log, done = terminal_log
    lines = log.read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    assert len(entries) == 40 and all(validate_entry(e) == [] for e in entries)
    assert lines == [log_line(e).rstrip("\n") for e in entries]
    runs = list(rebuild(entries))
    assert [len(r.graded) for r in runs] == [20, 20]
    # Every third request got a wrong count of visited nodes, so about a third are not grounded.
    assert sum(1 for r in runs for c in r.graded if c.outcome == "not_grounded") == 13
    assert {e["model_reported"] for e in entries} == {"fake-model"}
    assert [r.fingerprints for r in runs] == [("fp_1",), ("fp_1", "fp_2")]
    assert all(e["settings"]["base_url"].startswith("http://127.0.0.1:") for e in entries)


def test_the_key_comes_from_the_environment_and_is_written_nowhere(terminal_log):
    log, done = terminal_log
    assert KEY not in log.read_text(encoding="utf-8") and KEY not in done.stdout + done.stderr
    refused = run_cli("run", "--provider", "anthropic", "--model", "m", "--log", str(log.parent / "x.jsonl"))
    assert refused.returncode == 2  # what the environment must give: a usage error
    assert refused.stderr.endswith("python -m pyapp run: error: set the API key in the environment variable "
                                   "ANTHROPIC_API_KEY (it is never an argument)\n")
    assert not (log.parent / "x.jsonl").exists()


def test_run_prints_the_estimate_before_and_the_actual_usage_after(terminal_log):
    log, done = terminal_log
    entries = parse_import(log.read_bytes())
    run_ids = [r.run_id for r in rebuild(entries)]
    out = done.stdout.splitlines()
    assert out[0] == f"before: {run_size(2, 4000, 1.0, 2.0)['display']}"
    assert out[-1] == f"after: {actual_usage(entries, run_ids, 1.0, 2.0)['display']}"
    calls = 40
    tokens_in, tokens_out = USAGE["prompt_tokens"] * calls, USAGE["completion_tokens"] * calls
    assert f"{tokens_in:,} input and {tokens_out:,} output tokens" in out[-1]
    assert f"cost {(tokens_in * 1 + tokens_out * 2) / 1e6:.4f}" in out[-1]
    assert [line for line in out[1:-1]] == [f"Run {r} has an answer for every case it asked." for r in run_ids]


def test_report_reads_the_log_like_an_export_and_flags_the_drift(terminal_log, tmp_path):
    log, _ = terminal_log
    entries = parse_import(log.read_bytes())
    export = tmp_path / "export.json"
    export.write_text(export_json(entries), encoding="utf-8")
    from_log = run_cli("report", str(log), "--json")
    from_export = run_cli("report", str(export), "--json")
    assert from_log.returncode == 0 and from_log.stdout == from_export.stdout
    assert json.loads(from_log.stdout) == json.loads(json.dumps([run_report(r) for r in rebuild(entries)]))
    grouped = run_cli("report", str(log), "--configurations").stdout
    assert "DRIFT: 2 different system fingerprints (fp_1, fp_2)" in grouped


def test_a_second_run_appends_to_the_same_log_and_a_file_that_is_not_a_log_is_left_alone(fake_server, tmp_path):
    log = tmp_path / "log.jsonl"
    args = ("run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake_server,
            "--log", str(log))
    assert run_cli(*args).returncode == 0
    assert run_cli(*args).returncode == 0
    assert len(rebuild(parse_import(log.read_bytes()))) == 2
    export = tmp_path / "export.json"
    export.write_text(export_json(full_run("run-1")), encoding="utf-8")
    before = export.read_bytes()
    refused = run_cli(*args[:-1], str(export))
    assert refused.returncode == 1 and "is not a log written by run" in refused.stderr
    assert export.read_bytes() == before


def test_a_server_that_is_down_stops_the_run_after_three_calls_and_says_so(tmp_path):
    process, base_url = start_fake()
    stop_fake(process)
    log = tmp_path / "down.jsonl"
    done = run_cli("run", "--provider", "openai-compatible", "--model", "m", "--base-url", base_url,
                   "--log", str(log))
    assert done.returncode == 5  # the provider did not answer
    assert "stopped after 3 of 20 cases: 3 calls in a row got no answer" in done.stdout
    entries = parse_import(log.read_bytes())
    assert [e["outcome"] for e in entries] == ["infrastructure_failure"] * 3
    assert all(e["error"] == "network" and e["retries"] == 2 for e in entries)


def test_the_transport_returns_error_statuses_and_never_follows_a_redirect():
    seen = []

    def reply(body: dict) -> dict:
        seen.append(body)
        return {"error": {"message": "no"}}

    with FakeProvider(reply) as fake:
        transport = urllib_transport()
        request = HttpRequest("POST", fake.base_url + "/nowhere", {"content-type": "application/json"}, "{}",
                              "openai-compatible")
        answer = run_async(transport(request))
        assert answer.status == 404 and json.loads(answer.body) == {"error": {"message": "no route /v1/nowhere"}}
    with pytest.raises(NetworkError):
        run_async(urllib_transport()(request))  # the server is gone: connection refused


def test_the_redirect_handler_refuses_to_follow():
    from pyapp.cli.terminal import _NoRedirects

    assert _NoRedirects().redirect_request(None, None, 302, "Found", {}, "https://elsewhere.example/") is None


@pytest.mark.parametrize("text, message", [
    ('{"format":1,"type":"call"}\n{"format":1,', "Line 2, the last, is cut off"),
    ('{"format":1,"type":"call"}\nnot json\n{}\n', "Line 2 of the log is not valid JSON"),
    ('{"format":1,"type":"cancel"}\n', "1 of 1 entries are not valid audit entries"),
], ids=["cut", "bad-line", "invalid-entry"])
def test_a_bad_log_is_refused_whole_in_words(text, message):
    with pytest.raises(ImportFileError, match=message):
        parse_import(text.encode("utf-8"))


def test_a_log_file_refuses_to_write_an_entry_holding_the_key(tmp_path):
    log = LogFile(str(tmp_path / "log.jsonl"))
    log.key = KEY
    entry = full_run("run-1")[0]
    with pytest.raises(RuntimeError, match="held the API key"):
        run_async(log.append([{**entry, "message": f"echo {KEY}"}]))
    assert not (tmp_path / "log.jsonl").exists()
    run_async(log.append([entry]))
    assert LogFile(str(tmp_path / "log.jsonl")).entries == [entry]


def test_a_named_key_variable_must_be_set(tmp_path):
    done = run_cli("run", "--provider", "openai-compatible", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                   "--key-env", "NOT_SET_ANYWHERE", "--log", str(tmp_path / "x.jsonl"))
    assert done.returncode == 2 and "environment variable NOT_SET_ANYWHERE" in done.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_run_asks_the_larger_set_when_told_and_refuses_an_unknown_one_in_words(fake_server, tmp_path):
    log = tmp_path / "larger.jsonl"
    done = run_cli("run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake_server,
                   "--set", LARGE_SET_VERSION, "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"before: {run_size(1, 4000, set_version=LARGE_SET_VERSION)['display']}"
    [run] = rebuild(parse_import(log.read_bytes()))
    assert run.eval_set_version == LARGE_SET_VERSION
    assert sorted(c.case_id for c in run.graded) == sorted(FIXED_SETS.case_ids(LARGE_SET_VERSION))
    assert len(run.graded) == 80
    unknown = run_cli("run", "--provider", "openai-compatible", "--model", "m", "--base-url", fake_server,
                      "--set", "explain-eval-v9", "--log", str(tmp_path / "own.jsonl"))
    assert unknown.returncode == 2 and unknown.stderr.endswith(
        "python -m pyapp run: error: no evaluation set 'explain-eval-v9'; the sets are explain-eval-v2, "
        "explain-eval-x80\n")
