"""The set as an Inspect task (DR-014), run through ``inspect_ai.eval`` with mockllm's scripted answers: Inspect's
scores and our report of its log give the designed outcomes, and its epochs are repeats."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log

from inspect_design import TASK_DESIGN, pyapp_json
from pyapp.bridges.inspect_scores import CHECK_NAMES

ROOT = Path(__file__).resolve().parents[2]

# inspect_ai.eval runs its own event loop, which it cannot start in a thread where one runs (the browser tests'
# Playwright keeps one), and leaves streams for the collector: it runs in a process of its own.
RUN_TASK = """
import sys
from inspect_ai import eval as inspect_eval
from inspect_design import scripted_outputs
from pyapp.bridges.inspect_task import explain_search

logs = inspect_eval(explain_search(), model="mockllm/model", model_args={"custom_outputs": scripted_outputs()},
                    epochs=2, log_dir=sys.argv[1], display="none")
print(logs[0].location)
"""


def run_task(log_dir: Path):
    path = os.pathsep.join(str(ROOT / folder) for folder in (".", "tests", "tests/support"))
    done = subprocess.run([sys.executable, "-c", RUN_TASK, str(log_dir)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return read_eval_log(done.stdout.strip().splitlines()[-1])


# The outcome and the failing check each designed answer must give; every other case is grounded.
EXPECTED = {case_id: ("not_grounded", how) for case_id, (how, _) in TASK_DESIGN.items() if how in CHECK_NAMES}
EXPECTED |= {"C07": ("model_failure", "invalid_json"), "C08": ("model_failure", "truncated")}


def test_the_task_gives_the_designed_outcomes_in_inspect_and_in_our_report(tmp_path, capsys):
    log = run_task(tmp_path / "logs")
    assert log.status == "success" and log.eval.task == "explain-eval-v2.explain-prompt-1"
    assert len(log.samples) == 40
    for sample in log.samples:
        outcome, what = EXPECTED.get(sample.id, ("grounded", None))
        scores = {name: score.value for name, score in sample.scores.items()}
        assert sample.scores["grounded"].answer == outcome, sample.id
        if outcome == "model_failure":
            assert scores == {"grounded": "I", **dict.fromkeys(CHECK_NAMES, "N")}
        else:
            assert scores == {"grounded": "C" if what is None else "I",
                              **{name: "I" if name == what else "C" for name in CHECK_NAMES}}, sample.id

    reports = pyapp_json(capsys, "report", log.location)
    assert [r["run_id"] for r in reports] == sorted(f"{log.eval.eval_id}-{epoch}" for epoch in (1, 2))
    for report in reports:
        assert report["settings"] == {"provider": "openai-compatible", "model": "mockllm/model", "max_tokens": 4000,
                                      "temperature": 0.0, "base_url": "https://mockllm.invalid"}
        assert report["regraded_differently"] == []
        for case in report["cases"]:
            outcome, what = EXPECTED.get(case["case_id"], ("grounded", None))
            assert case["outcome"] == outcome
            assert (case["failure"] if outcome == "model_failure" else (case["failed_checks"] or [None])[0]) == what
    # The two epochs are two runs of one configuration, answered alike.
    grouped = pyapp_json(capsys, "report", str(tmp_path / "logs"), "--configurations")["configurations"]
    assert [(c["k"], sorted(c["run_ids"])) for c in grouped] == [(2, [r["run_id"] for r in reports])]
    pair = ("--run", reports[0]["run_id"], "--run", reports[1]["run_id"])
    comparison = pyapp_json(capsys, "compare", str(tmp_path / "logs"), *pair)
    assert (comparison["paired"], comparison["same"], comparison["first_grounded"]) == (20, 20, 13)
