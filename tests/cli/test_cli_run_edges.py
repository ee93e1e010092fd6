"""``python -m pyapp run`` at its edges: files it cannot write, a run that stops and is continued, entries read
back from standard error, and the visitor's own cases from the log (DR-006, DR-009)."""

from __future__ import annotations

import json

import pytest

from cli_run import main_in_thread, run_cli
from eval_helpers import at, full_run
from fake_provider import FakeProvider, faithful_reply
from pyapp.auditlog.entries import own_case_entry
from pyapp.cli import exit_status
from pyapp.cli.main import main
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import log_line, parse_import
from pyapp.evaluation.own_cases import own_cases_of
from pyapp.evaluation.rebuild import rebuild


def run_args(base_url: str, log, *more: str) -> list[str]:
    return ["run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", base_url,
            "--log", str(log), *more]


@pytest.mark.parametrize("where", ["missing-folder", "a-folder", "under-a-file"])
def test_a_log_that_cannot_be_written_is_said_before_any_request(tmp_path, capsys, where):
    (tmp_path / "file").write_text("x", "utf-8")
    log = {"missing-folder": tmp_path / "missing" / "runs.jsonl", "a-folder": tmp_path,
           "under-a-file": tmp_path / "file" / "runs.jsonl"}[where]
    verb = "write" if where == "missing-folder" else "read"  # the others are found when the log is read, first
    with FakeProvider() as fake:  # a log that cannot be written is this machine's (6), one that cannot be read input's
        assert main_in_thread(run_args(fake.base_url, log)) == (exit_status.LOCAL_IO if verb == "write" else 1)
        assert fake.requests("POST") == []
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot {verb} {log}: ") and "Traceback" not in err


def test_a_baseline_that_cannot_be_written_is_said_before_the_log_is_read(tmp_path, capsys):
    output = tmp_path / "missing" / "baseline.json"
    assert main(["baseline", str(tmp_path / "no-such-log.jsonl"), "--run", "r", "--output", str(output)]) == 6
    assert capsys.readouterr().err == f"error: cannot write {output}: No such file or directory\n"


def test_an_answer_that_cannot_be_written_goes_to_standard_error_and_is_read_back(fake_server, tmp_path):
    log = tmp_path / "runs.jsonl"
    full = run_cli(*run_args(fake_server, log), file_size_limit=4_000)  # a disk that fills after a few entries
    assert full.returncode == exit_status.LOCAL_IO, full.stderr
    kept = [line for line in full.stderr.splitlines() if line.startswith('{"format"')]
    written = parse_import(log.read_bytes()) if log.read_bytes() else []  # whole lines only, never part of one
    assert len(kept) == 1 and 0 < len(written) < 20
    assert f"error: cannot write {log}: File too large. The run stopped." in full.stderr
    [run_id] = {e["run_id"] for e in written}
    assert full.stderr.splitlines()[-1] == f"From here: python -m pyapp run --continue {run_id} --log {log}"
    assert f"python -m pyapp run --recover FILE --log {log}" in full.stderr
    saved = tmp_path / "stderr.txt"
    saved.write_text(full.stderr, "utf-8")  # progress lines and all, as a shell's 2> keeps them
    back = run_cli("run", "--recover", str(saved), "--log", str(log))
    assert (back.returncode, back.stdout) == (0, f"added 1 entry to {log}\n"), back.stderr
    entries = parse_import(log.read_bytes())
    assert entries == [*written, json.loads(kept[0])] and entries[-1]["outcome"] == "grounded"
    again = run_cli("run", "--recover", str(saved), "--log", str(log))
    assert again.stdout == f"added 0 entries to {log}; 1 was there already\n"
    [run] = rebuild(parse_import(log.read_bytes()))
    assert [c.case_id for c in run.graded] == [e["case_id"] for e in entries]


def test_recover_refuses_a_file_without_entries_or_with_a_bad_one_and_writes_nothing(tmp_path):
    log, saved = tmp_path / "runs.jsonl", tmp_path / "stderr.txt"
    saved.write_text("C01 (1 of 20): grounded\n", "utf-8")
    done = run_cli("run", "--recover", str(saved), "--log", str(log))
    assert done.returncode == 1 and "holds no audit entry" in done.stderr and not log.exists()
    saved.write_text('{"format":1,"type":"call"}\n', "utf-8")
    done = run_cli("run", "--recover", str(saved), "--log", str(log))
    assert done.returncode == 1 and "not valid audit entries" in done.stderr and not log.exists()


def test_a_stopped_run_says_why_once_and_last_and_continue_asks_what_the_page_would(tmp_path, capsys):
    rejected = {"on": True}

    def reply(body: dict):
        return (401, {"error": {"message": "bad key"}}) if rejected["on"] else faithful_reply(body)

    log = tmp_path / "runs.jsonl"
    with FakeProvider(reply) as fake:
        assert main_in_thread(run_args(fake.base_url, log)) == exit_status.PROVIDER_REFUSED  # a 401
        out, err = capsys.readouterr()
        [run] = rebuild(parse_import(log.read_bytes()))
        assert (out + err).count("stopped after") == 1
        lines = out.splitlines()
        assert lines[-1] == f"From here: python -m pyapp run --continue {run.run_id} --log {log}"
        assert "stopped after 1 of 20 cases" in lines[-2]
        assert lines[-3].startswith("after: ")
        rejected["on"] = False
        asked_before = len(fake.requests("POST"))
        with pytest.raises(SystemExit):  # a continued run keeps its settings
            main_in_thread(["run", "--continue", run.run_id, "--model", "other", "--log", str(log)])
        assert "leave out --model" in capsys.readouterr().err
        assert main_in_thread(["run", "--continue", run.run_id, "--log", str(log)]) == 0
        asked = [json.loads(seen.body) for seen in fake.requests("POST")[asked_before:]]
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("before: 1 run sends 20 calls")
    assert len(asked) == 20 and {a["model"] for a in asked} == {"fake-model"}
    [after] = rebuild(parse_import(log.read_bytes()))
    assert after.run_id == run.run_id and after.complete and len(after.graded) == 20
    assert main_in_thread(["run", "--continue", run.run_id, "--log", str(log)]) == 0
    assert capsys.readouterr().out == f"Run {run.run_id} has an answer for every case; nothing to ask.\n"


def test_run_asks_the_own_cases_the_log_holds(tmp_path, capsys):
    searches = [{"order": "shuffled", "kind": "nearest", "lon": 24.944, "lat": 60.17, "radius": None},
                {"order": "file", "kind": "radius", "lon": 24.95, "lat": 60.168, "radius": 0.003}]
    own = [own_case_entry(f"own{i}", at(i), s) for i, s in enumerate(searches)]
    log = tmp_path / "runs.jsonl"
    log.write_text("".join(log_line(e) for e in own), "utf-8")
    mine = own_cases_of(own)
    with FakeProvider() as fake:
        assert main_in_thread(run_args(fake.base_url, log, "--set", "own")) == 0
        assert len(fake.requests("POST")) == 2
    entries = parse_import(log.read_bytes())
    [run] = rebuild(entries)
    assert run.eval_set_version == mine.name and [c.outcome for c in run.graded] == ["grounded"] * 2
    assert not FIXED_SETS.is_known(mine.name)
    assert main_in_thread(run_args("http://127.0.0.1:9/v1", tmp_path / "empty.jsonl", "--set", "own")) == 1
    assert f"{tmp_path / 'empty.jsonl'} holds none of your own cases" in capsys.readouterr().err
    assert main_in_thread(run_args("http://127.0.0.1:9/v1", log, "--set", "own-0123abcd")) == 1
    assert "no set of your own cases named own-0123abcd in this log" in capsys.readouterr().err


def test_a_new_run_does_not_read_the_log_it_appends_to_and_a_continued_run_does(tmp_path, capsys):
    # A new run of a fixed set needs nothing the log holds, so a long log does not hold up its first call
    # (DR-008); a bad line inside the log is found by whatever reads it, with its number.
    log = tmp_path / "runs.jsonl"
    lines = [log_line(e) for e in full_run("run-1")]
    lines[2] = lines[2].replace('"type":"call"', '"type" "call"')
    log.write_text("".join(lines), "utf-8")
    with FakeProvider() as fake:
        assert main_in_thread(run_args(fake.base_url, log)) == 0
        assert len(fake.requests("POST")) == 20
        capsys.readouterr()
        assert main_in_thread(["run", "--continue", "run-1", "--log", str(log)]) == 1
        assert len(fake.requests("POST")) == 20
    assert "cannot be appended to: Line 3 of the log is not valid JSON" in capsys.readouterr().err
