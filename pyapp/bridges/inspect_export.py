"""Runs of an audit log as Inspect eval logs, one log per run (DR-014), made with inspect_ai's own types and
written by its own writer.

A case with a counted answer is a sample holding that call: the prompt as sent, the answer as received, today's
grade as scores, the reported usage and the latencies. A case whose latest call failed (infrastructure, or
cancelled) is a sample with an error. Stale calls, repeats and never-asked cases are not samples: the log keeps
them, the export does not.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.log._log import EvalError
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, GenerateConfig, ModelOutput, ModelUsage

from pyapp.bridges.inspect_cases import case_input, case_metadata, case_target
from pyapp.bridges.inspect_names import inspect_model, inspect_stop, seconds, task_name
from pyapp.bridges.inspect_scores import SCORE_NAMES, grade_scores
from pyapp.core.vocabulary import CaseStatus, EntryType, Outcome
from pyapp.evaluation.evalset import is_own_set
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import CaseResult, Run
from pyapp.explanation.prompt import PROMPT_VERSION

# Inspect samples of these cases: a counted answer, or a failure that left the case without one.
_SAMPLED = (CaseStatus.GRADED, CaseStatus.INFRA_FAILURE, CaseStatus.CANCELLED)


def export_runs(entries: list[dict], folder: Path) -> tuple[list[Path], list[str]]:
    """Write one ``.eval`` log per run of ``entries`` into ``folder``; the paths written, and a line for each
    run left out (runs of the visitor's own cases, whose searches only the log that holds them knows)."""
    by_id = {entry["id"]: entry for entry in entries}
    folder.mkdir(parents=True, exist_ok=True)
    written, left_out = [], []
    for run in rebuild(entries, validated=True):
        if is_own_set(run.eval_set_version):
            left_out.append(f"run {run.run_id} is of your own cases ({run.eval_set_version}); not exported")
            continue
        path = folder / f"{run.run_id}.eval"
        write_eval_log(run_log(run, by_id), str(path))
        written.append(path)
    return written, left_out


def run_log(run: Run, by_id: dict[str, dict]) -> EvalLog:
    """The Inspect eval log of ``run``; ``by_id`` holds the log's entries by id."""
    settings = run.settings or {}
    model, base_url = inspect_model(settings) if settings else ("none/none", None)
    samples = [_sample(case, position, by_id[case.entry_id], model)
               for position, case in enumerate(run.cases, start=1) if case.status in _SAMPLED]
    spec = EvalSpec(
        eval_id=run.run_id,
        run_id=run.run_id,
        created=_inspect_time(run.started),
        task=task_name(run.eval_set_version, PROMPT_VERSION),
        task_version=PROMPT_VERSION,
        task_args={"set": run.eval_set_version},
        dataset=EvalDataset(name=run.eval_set_version, samples=len(run.cases),
                            sample_ids=[c.case_id for c in run.cases]),
        model=model,
        model_base_url=base_url,
        model_generate_config=GenerateConfig(max_tokens=settings.get("max_tokens"),
                                             temperature=settings.get("temperature")),
        config=EvalConfig(epochs=1),
        metadata={"source": "kd-tree-explorer audit log", "mixed_settings": run.mixed_settings},
    )
    usage = ModelUsage(input_tokens=run.input_tokens, output_tokens=run.output_tokens,
                       total_tokens=run.input_tokens + run.output_tokens)
    return EvalLog(
        status="success" if run.complete else "error",
        eval=spec,
        results=_results(run, len(samples)),
        stats=EvalStats(started_at=_inspect_time(run.started), completed_at=_inspect_time(run.last),
                        model_usage={model: usage}),
        error=None if run.complete else _error(f"{len(run.cases) - len(run.graded)} of {len(run.cases)} cases "
                                               "have no counted answer"),
        samples=samples,
    )


def _sample(case: CaseResult, position: int, entry: dict, model: str) -> EvalSample:
    metadata = {**case_metadata(case.case, case.eval_set_version, position), **_call_metadata(entry)}
    common = {"id": case.case_id, "epoch": 1, "input": case_input(case.case), "target": case_target(case.case),
              "metadata": metadata, "uuid": entry["id"], "completed_at": _inspect_time(entry["time"])}
    if entry["type"] == EntryType.CANCEL or entry["outcome"] in (Outcome.INFRA_FAILURE, Outcome.CANCELLED):
        return EvalSample(**common, output=ModelOutput(model=model, error=case.detail),
                          total_time=seconds(entry.get("total_ms")), error=_error(case.detail))
    usage = _usage(entry)
    answer = ChatMessageAssistant(content=entry["answer"], model=entry.get("model_reported"), source="generate")
    output = ModelOutput(
        model=entry.get("model_reported") or "",
        choices=[ChatCompletionChoice(message=answer, stop_reason=inspect_stop(entry["stop"]))],
        completion=entry["answer"],
        usage=usage,
        time=seconds(entry["answer_ms"]),
        metadata={"raw_stop_reason": entry["raw_stop_reason"]},
    )
    return EvalSample(**common, messages=[*common["input"], answer], output=output, scores=grade_scores(case.grade),
                      model_usage={} if usage is None else {model: usage}, total_time=seconds(entry["total_ms"]))


def _call_metadata(entry: dict) -> dict:
    """What a call entry holds that Inspect has no field for."""
    if entry["type"] == EntryType.CANCEL:
        return {"error": Outcome.CANCELLED, "status": None, "retries": 0, "message": "", "answer_ms": None,
                "total_ms": None}
    return {key: entry.get(key) for key in ("error", "status", "retries", "message", "failure", "system_fingerprint",
                                            "answer_ms", "total_ms")}


def _usage(entry: dict) -> ModelUsage | None:
    tokens_in, tokens_out = entry["input_tokens"], entry["output_tokens"]
    if tokens_in is None and tokens_out is None:
        return None
    return ModelUsage(input_tokens=tokens_in or 0, output_tokens=tokens_out or 0,
                      total_tokens=(tokens_in or 0) + (tokens_out or 0))


def _results(run: Run, sampled: int) -> EvalResults:
    graded = run.graded
    per_answer = [grade_scores(c.grade) for c in graded]
    scores = []
    for name in SCORE_NAMES:
        values = [found[name].value for found in per_answer]
        share = values.count("C") / len(values) if values else 0.0
        scores.append(EvalScore(name=name, scorer=name, scored_samples=len(values),
                                unscored_samples=sampled - len(values),
                                metrics={"accuracy": EvalMetric(name="accuracy", value=share)}))
    return EvalResults(total_samples=len(run.cases), completed_samples=len(graded), scores=scores)


def _error(message: str) -> EvalError:
    return EvalError(message=message, traceback="", traceback_ansi="")


def _inspect_time(stamp: str) -> str:
    """An audit time (``...T10:00:00.000Z``) as Inspect writes times: ISO 8601 with the offset."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).isoformat(timespec="milliseconds")
