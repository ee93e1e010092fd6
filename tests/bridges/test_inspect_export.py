"""Runs exported as Inspect eval logs and read back (DR-014): Inspect's own reader opens every file, each
sample's scores are the grades ``report`` prints, and the figures read back are the figures exported."""

from __future__ import annotations

import io
import zipfile

from inspect_ai.log import read_eval_log

from cli_run import KEY
from inspect_design import designed_entries, pyapp, pyapp_json, write_log
from pyapp.bridges.inspect_scores import CHECK_NAMES


def exported(tmp_path, capsys, entries=None):
    log = write_log(entries or designed_entries(), tmp_path / "runs.jsonl")
    status, out, err = pyapp(capsys, "export", str(log), "--format", "inspect", "--output", str(tmp_path / "out"))
    assert status == 0, err
    assert out.startswith("wrote 2 Inspect logs into ")
    return log, tmp_path / "out"


def test_every_sample_scores_as_report_json_says(tmp_path, capsys):
    log, folder = exported(tmp_path, capsys)
    reports = {r["run_id"]: r for r in pyapp_json(capsys, "report", str(log))}
    files = sorted(folder.glob("*.eval"))
    assert [f.name for f in files] == ["run-a-0001.eval", "run-b-0002.eval"]
    for file in files:
        inspect_log = read_eval_log(str(file))
        report = reports[inspect_log.eval.eval_id]
        assert inspect_log.eval.task == "explain-eval-v2.explain-prompt-1"
        cases = {c["case_id"]: c for c in report["cases"]}
        assert len(inspect_log.samples) == 20
        for sample in inspect_log.samples:
            case = cases[sample.id]
            assert sample.metadata["case_id"] == case["case_id"] and sample.metadata["kind"] == case["kind"]
            if case["status"] == "infrastructure_failure":
                assert sample.error is not None and sample.scores is None
                continue
            assert sample.scores["grounded"].answer == case["outcome"]
            assert sample.scores["grounded"].value == ("C" if case["outcome"] == "grounded" else "I")
            passed = {check["name"]: check["passed"] for check in case["checks"]}
            assert {name: sample.scores[name].value for name in CHECK_NAMES} == (
                {name: "C" if passed[name] else "I" for name in CHECK_NAMES} if passed else dict.fromkeys(
                    CHECK_NAMES, "N"))
            assert abs(sample.output.time * 1000 - case["answer_ms"]) < 1e-9
        grounded = next(s for s in inspect_log.results.scores if s.name == "grounded")
        assert grounded.metrics["accuracy"].value == report["grounded_share"]


def test_round_trip_gives_the_same_report_and_comparison(tmp_path, capsys):
    log, folder = exported(tmp_path, capsys)
    assert pyapp_json(capsys, "report", str(folder)) == pyapp_json(capsys, "report", str(log))
    one_file = str(folder / "run-a-0001.eval")
    assert pyapp_json(capsys, "report", one_file) == [pyapp_json(capsys, "report", str(log), "--run", "run-a-0001")]
    pair = ("--run", "run-a-0001", "--run", "run-b-0002")
    assert pyapp_json(capsys, "compare", str(folder), *pair) == pyapp_json(capsys, "compare", str(log), *pair)
    assert pyapp_json(capsys, "report", str(folder), "--matrix") == pyapp_json(capsys, "report", str(log), "--matrix")


def test_a_run_of_the_command_line_keeps_its_settings_and_never_its_key(terminal_log, tmp_path, capsys):
    log, _ = terminal_log
    folder = tmp_path / "out"
    status, _, err = pyapp(capsys, "export", str(log), "--format", "inspect", "--output", str(folder))
    assert status == 0, err
    for file in folder.glob("*.eval"):
        with zipfile.ZipFile(io.BytesIO(file.read_bytes())) as archive:
            assert not any(KEY.encode() in archive.read(name) for name in archive.namelist())
        spec = read_eval_log(str(file), header_only=True).eval
        assert spec.model == "openai/fake-model" and spec.model_base_url.startswith("http://127.0.0.1:")
        assert (spec.model_generate_config.max_tokens, spec.model_generate_config.temperature) == (4000, 0.0)
    assert pyapp_json(capsys, "report", str(folder)) == pyapp_json(capsys, "report", str(log))


def test_a_baseline_of_a_run_read_back_is_the_baseline_of_the_log_and_gates_alike(tmp_path, capsys):
    log, folder = exported(tmp_path, capsys)
    from_log, from_folder = tmp_path / "from-log.json", tmp_path / "from-folder.json"
    for source, output in ((log, from_log), (folder, from_folder)):
        status, _, err = pyapp(capsys, "baseline", str(source), "--run", "run-a-0001", "--output", str(output))
        assert status == 0, err
    assert pyapp(capsys, "baseline", str(folder), "--verify", str(from_log))[0] == 0
    assert pyapp(capsys, "baseline", str(log), "--verify", str(from_folder))[0] == 0
    diffs = [pyapp(capsys, "diff", str(from_log), str(source), "--run", "run-b-0002", "--json")
             for source in (log, folder)]
    assert diffs[0] == diffs[1]
    assert diffs[0][0] in (0, 3)
