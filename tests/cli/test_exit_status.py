"""Every exit status of ``python -m pyapp`` (``pyapp.cli.exit_status``, the README's table), each from a real
command, and what a stopped ``run`` says to go on: the ``--continue`` line, the runs never started, and the cost
of this call beside the run's."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from cli_run import ROOT, main_in_thread, run_cli
from eval_helpers import full_run
from fake_provider import FakeProvider, faithful_reply
from pyapp.cli import exit_status
from pyapp.evaluation.export import export_json, parse_import
from pyapp.evaluation.rebuild import rebuild


def run_args(base_url: str, log, *more: str) -> list[str]:
    return ["run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", base_url,
            "--log", str(log), *more]


def test_ok_bad_input_usage_and_the_gate(tmp_path):
    export = tmp_path / "log.json"
    grounded = {f"C{i:02d}" for i in range(1, 21)}
    export.write_text(export_json(full_run("run-base", grounded) + full_run("run-new", grounded - {"C02"},
                                                                             start=100.0)), "utf-8")
    assert run_cli("report", str(export)).returncode == exit_status.OK
    (tmp_path / "junk.json").write_text("not json", "utf-8")
    assert run_cli("report", str(tmp_path / "junk.json")).returncode == exit_status.BAD_INPUT
    assert run_cli("report", str(tmp_path / "missing.json")).returncode == exit_status.BAD_INPUT
    assert run_cli("report", str(export), "--run", "run-none").returncode == exit_status.BAD_INPUT
    assert run_cli("report", str(export), "--no-such-option").returncode == exit_status.USAGE
    baseline = tmp_path / "baseline.json"
    assert run_cli("baseline", str(export), "--run", "run-base", "--output", str(baseline)).returncode == 0
    gate = run_cli("diff", str(baseline), str(export), "--run", "run-new")
    assert gate.returncode == exit_status.REJECTED and "C02  NEW FAIL" in gate.stdout


def test_every_argument_error_of_run_is_a_usage_error_before_the_log_is_read(tmp_path):
    log = tmp_path / "missing" / "runs.jsonl"  # not writable: a usage error must be said first
    url = "http://127.0.0.1:9/v1"
    for more in (["--runs", "0"], ["--concurrency", "0"], ["--concurrency", "17"], ["--set", "no-such-set"],
                 ["--max-tokens", "0"], ["--temperature", "warm"]):
        done = run_cli(*run_args(url, log, *more))
        assert done.returncode == exit_status.USAGE, (more, done.stderr)
        assert "python -m pyapp run: error:" in done.stderr and "Traceback" not in done.stderr
    keyless = run_cli("run", "--provider", "openai", "--model", "m", "--log", str(log))
    assert keyless.returncode == exit_status.USAGE and "OPENAI_API_KEY" in keyless.stderr


def test_a_log_that_cannot_be_written_is_this_machines_failure(tmp_path):
    done = run_cli(*run_args("http://127.0.0.1:9/v1", tmp_path / "missing" / "runs.jsonl"))
    assert done.returncode == exit_status.LOCAL_IO and "cannot write" in done.stderr


def test_a_refused_key_stops_the_run_and_names_the_runs_never_started(tmp_path, capsys):
    refusing = {"on": True}

    def reply(body: dict):
        return (401, {"error": {"message": "bad key"}}) if refusing["on"] else faithful_reply(body)

    log = tmp_path / "runs.jsonl"
    with FakeProvider(reply) as fake:
        assert main_in_thread(run_args(fake.base_url, log, "--runs", "3")) == exit_status.PROVIDER_REFUSED
        lines = capsys.readouterr().out.splitlines()
        [run] = rebuild(parse_import(log.read_bytes()))
        assert lines[-2] == f"From here: python -m pyapp run --continue {run.run_id} --log {log}"
        start = (f"2 runs of 3 never started: python -m pyapp run --provider openai-compatible --model fake-model "
                 f"--base-url {fake.base_url} --set explain-eval-v2 --runs 2 --max-tokens 4000 --temperature 0 "
                 f"--log {log}")
        assert lines[-1] == start
        refusing["on"] = False
        assert main_in_thread(start.split(": ", 1)[1].split()[3:]) == exit_status.OK  # the line as printed
        assert main_in_thread(["run", "--continue", run.run_id, "--log", str(log)]) == exit_status.OK
    out = capsys.readouterr().out
    runs = rebuild(parse_import(log.read_bytes()))
    assert len(runs) == 3 and all(r.complete for r in runs)
    # After a continue, what this call used and what the whole run used, each named.
    after = next(line for line in out.splitlines()[::-1] if line.startswith("after: "))
    assert after.startswith("after: this call of run: 20 calls used ")
    assert f"The whole run {run.run_id} so far: 21 calls used " in after


def test_a_provider_that_does_not_answer(tmp_path):
    done = run_cli(*run_args("http://127.0.0.1:9/v1", tmp_path / "runs.jsonl", "--concurrency", "3"))
    assert done.returncode == exit_status.PROVIDER_SILENT, done.stderr
    assert "Is the server running at that address?" in done.stdout and "CORS" not in done.stdout + done.stderr


# ``python -m pyapp`` with Ctrl-C raising KeyboardInterrupt, as from a terminal: a test session started in the
# background has SIGINT ignored, and a child inherits that.
INTERRUPTIBLE = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "runpy.run_module('pyapp', run_name='__main__', alter_sys=True)")


def test_ctrl_c_keeps_the_calls_that_ended_and_says_how_to_continue(tmp_path):
    def slow(body: dict):
        time.sleep(1.5)
        return faithful_reply(body)

    log = tmp_path / "runs.jsonl"
    with FakeProvider(slow) as fake:
        child = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE, *run_args(fake.base_url, log, "--runs", "2")],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(fake.requests("POST")) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    assert child.returncode == exit_status.INTERRUPTED, err
    [run] = rebuild(parse_import(log.read_bytes()))
    assert 2 <= len(run.graded) < 20 and "Traceback" not in err
    assert f"From here: python -m pyapp run --continue {run.run_id} --log {log}" in err.splitlines()
    assert any(line.startswith("1 run of 2 never started: python -m pyapp run ") for line in err.splitlines())


def test_no_answer_is_lost_when_the_log_fails_mid_run_with_calls_in_flight(tmp_path, capsys, monkeypatch):
    from pyapp.cli import terminal

    def slow(body: dict):
        time.sleep(0.2)
        return faithful_reply(body)

    writes = {"n": 0}
    append_whole = terminal._append_whole

    def disk_fills(path: str, data: bytes) -> None:
        writes["n"] += 1
        if writes["n"] > 6:
            raise OSError(28, "No space left on device")
        append_whole(path, data)

    monkeypatch.setattr(terminal, "_append_whole", disk_fills)
    log = tmp_path / "runs.jsonl"
    with FakeProvider(slow) as fake:
        status = main_in_thread(run_args(fake.base_url, log, "--concurrency", "8", "--runs", "3"))
        answered = len(fake.requests("POST"))
    err = capsys.readouterr().err
    assert status == exit_status.LOCAL_IO
    written = parse_import(log.read_bytes())
    kept = [json.loads(line) for line in err.splitlines() if line.startswith('{"format"')]
    assert len(written) == 6 and answered > 6 + 1  # calls were in flight when the first write failed
    assert len(written) + len(kept) == answered  # every answer the server gave: in the log or on standard error
    assert len({e["id"] for e in written + kept}) == answered
    [run_id] = {e["run_id"] for e in written + kept}
    assert f"From here: python -m pyapp run --continue {run_id} --log {log}" in err.splitlines()


def test_no_answer_is_lost_on_a_full_tmpfs(tmp_path):
    """The same on a real file system that fills: a 64 KB tmpfs, mounted where this machine allows it."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True,
                             text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or mounted.returncode})")
    try:
        def slow(body: dict):
            time.sleep(0.1)
            return faithful_reply(body)

        log = disk / "runs.jsonl"
        with FakeProvider(slow) as fake:
            done = run_cli(*run_args(fake.base_url, log, "--concurrency", "8", "--runs", "3"))
            answered = len(fake.requests("POST"))
        written = parse_import(log.read_bytes())
        kept = [json.loads(line) for line in done.stderr.splitlines() if line.startswith('{"format"')]
        assert done.returncode == exit_status.LOCAL_IO, done.stderr
        assert kept and len(written) + len(kept) == answered == len({e["id"] for e in written + kept})
    finally:
        subprocess.run(["umount", str(disk)], check=False)
