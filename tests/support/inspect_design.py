"""Designed logs and answers for the tests of the bridge to Inspect AI (DR-014), and the command line run in this
process with its output parsed."""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai.model import ModelOutput, ModelUsage

from eval_helpers import OTHER_SETTINGS, answer_for, call, full_run
from pyapp.cli.main import main
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt

WRONG = ("result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps")


def designed_entries() -> list[dict]:
    """Two runs of two configurations: every wrong claim, a truncated answer, a reply that is not JSON and an
    infrastructure failure in the first; other cases wrong in the second; odd latencies in both."""
    first = full_run("run-a-0001", set(FIXED_SETS.case_ids()[:12]),
                     failing={"C13": "model_failure", **{f"C{14 + i}": how for i, how in enumerate(WRONG)}},
                     latencies=[812.3456789 + 7.1 * i for i in range(20)])
    first[18] = call("run-a-0001", "C19", outcome="model_failure", answer="here is the walkthrough", time=18.25)
    first[19] = call("run-a-0001", "C20", outcome="infrastructure_failure", time=19.5, message="the server fell over")
    second = full_run("run-b-0002", set(FIXED_SETS.case_ids()[4:]), start=100, settings=OTHER_SETTINGS,
                      latencies=[1000.0 / 3 + i for i in range(20)])
    return first + second


def write_log(entries: list[dict], path: Path) -> Path:
    """``entries`` as the JSON lines ``run`` appends."""
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def pyapp(capsys, *args: str) -> tuple[int, str, str]:
    """``python -m pyapp ARGS`` in this process: its status, standard output and standard error."""
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def pyapp_json(capsys, *args: str):
    status, out, err = pyapp(capsys, *args, "--json")
    assert status == 0, err
    return json.loads(out)


# What the scripted model answers each case of the task's test with; the other cases get a grounded answer.
TASK_DESIGN = {
    "C02": ("result", "stop"), "C03": ("distance", "stop"), "C04": ("nodes_visited", "stop"),
    "C05": ("subtrees_pruned", "stop"), "C06": ("cited_steps", "stop"), "C07": ("not json", "stop"),
    "C08": (None, "max_tokens"),
}


def scripted_outputs():
    """mockllm's custom outputs as a function of the prompt, so the answers do not hang on the order of calls."""
    by_user = {case_prompt(c).user: c.case_id for c in FIXED_SETS.cases()}

    def output(messages, tools, tool_choice, config) -> ModelOutput:
        case_id = by_user[messages[-1].text]
        how, stop = TASK_DESIGN.get(case_id, (None, "stop"))
        text = "The answer is C07." if how == "not json" else answer_for(case_id, how if how in WRONG else None)
        made = ModelOutput.from_content(model="mockllm/model", content=text, stop_reason=stop)
        # Reported usage keeps mockllm from counting tokens with a tokenizer it would download.
        made.usage = ModelUsage(input_tokens=5000 + int(case_id[1:]), output_tokens=600, total_tokens=5600)
        return made

    return output
