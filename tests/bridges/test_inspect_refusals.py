"""What the bridge to Inspect AI refuses, each in one line (DR-014), and the command line without the extra."""

from __future__ import annotations

import subprocess
import sys

from inspect_ai.log import read_eval_log, write_eval_log

from cli_run import ROOT
from eval_helpers import full_run
from inspect_design import pyapp, write_log


def exported(tmp_path, capsys):
    """A run exported: a function, not a fixture, so that it runs in the test's own thread (conftest.py)."""
    log = write_log(full_run("run-a-0001", {"C01", "C02"}), tmp_path / "runs.jsonl")
    status, _, err = pyapp(capsys, "export", str(log), "--format", "inspect", "--output", str(tmp_path / "out"))
    assert status == 0, err
    return tmp_path / "out" / "run-a-0001.eval"


def refusal(capsys, *args: str) -> str:
    status, out, err = pyapp(capsys, *args)
    assert (status, out) == (1, "")
    assert err.count("\n") == 1, err
    return err


def test_a_log_of_another_task_is_refused_naming_it(tmp_path, capsys):
    other = read_eval_log(str(exported(tmp_path, capsys)))
    other.eval.task = "theory_of_mind"
    write_eval_log(other, str(tmp_path / "other.json"))
    for command in (("report", str(tmp_path / "other.json")), ("compare", str(tmp_path / "other.json"), "--run",
                                                                 "a", "--run", "b")):
        err = refusal(capsys, *command)
        assert "is a log of the task 'theory_of_mind', not of this project's explanation task" in err


def test_a_corrupt_file_is_refused_in_one_line(tmp_path, capsys):
    broken = tmp_path / "broken.eval"
    broken.write_bytes(exported(tmp_path, capsys).read_bytes()[:2000])
    assert refusal(capsys, "report", str(broken)).startswith(f"error: {broken} is not an Inspect log that can be read")


def test_an_empty_folder_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    err = refusal(capsys, "report", str(tmp_path / "empty"), "--matrix")
    assert err == f"error: {tmp_path / 'empty'} holds no Inspect logs (.eval or .json files)\n"


# python -m pyapp as it runs where inspect_ai is not installed.
WITHOUT_INSPECT = ("import sys\nsys.modules['inspect_ai'] = None\nfrom pyapp.cli.main import main\n"
                   "sys.exit(main(sys.argv[1:]))")


def test_without_the_extra_the_command_line_works_and_export_says_what_to_install(tmp_path):
    def without(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", WITHOUT_INSPECT, *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=120)

    assert without("--help").returncode == 0
    done = without("export", str(write_log(full_run("r1"), tmp_path / "runs.jsonl")), "--format", "inspect",
                   "--output", str(tmp_path / "out"))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "error: reading or writing Inspect logs needs Inspect AI: pip install '.[inspect]'\n"
    assert not (tmp_path / "out").exists()
