"""Inspect eval logs of this project's task read back as audit call entries (DR-014), so that the rebuild grades
their answers again with our checks, exactly as for our own log.

Each sample becomes one call entry: its answer text, case, set, settings, usage, latencies and time; a sample
with an error is an infrastructure failure. A log holds one run, or one run per epoch. ``inspect_ai`` is
imported when a log is read, never when this module is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pyapp.auditlog.entries import call_entry
from pyapp.auditlog.validation import valid_id
from pyapp.bridges.inspect_names import (
    DEFAULT_MAX_TOKENS,
    is_inspect_log,
    milliseconds,
    require_inspect,
    settings_of,
    stop_of,
    task_set,
)
from pyapp.core.vocabulary import ANSWERED, ErrorClass, Outcome
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.explanation.prompt import prompt_hash
from pyapp.providers.client import CallOutcome
from pyapp.providers.settings import Settings
from pyapp.providers.wire import Reply

_SUFFIXES = (".eval", ".json")


@dataclass(frozen=True)
class _SentPrompt:
    version: str
    hash: str


def inspect_entries(path: str) -> list[dict]:
    """The call entries of the Inspect log ``path``, or of every Inspect log in the folder ``path``.

    ``ValueError`` in one sentence for a folder without logs, a file Inspect cannot read, or a log of
    another task (naming it).
    """
    require_inspect()
    grader = Grader()
    entries: list[dict] = []
    for file in _log_files(path):
        entries += _log_entries(file, grader)
    return entries


def _log_files(path: str) -> list[str]:
    folder = Path(path)
    if not folder.is_dir():
        return [path]
    files = sorted(str(p) for p in folder.rglob("*") if p.suffix in _SUFFIXES and p.is_file()
                   and is_inspect_log(str(p)))
    if not files:
        raise ValueError(f"{path} holds no Inspect logs (.eval or .json files)")
    return files


def _read(file: str) -> Any:
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(file)
    except Exception as exc:  # noqa: BLE001 - Inspect raises many kinds for a damaged file; each is one sentence
        reason = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise ValueError(f"{file} is not an Inspect log that can be read: {reason}") from None


def _log_entries(file: str, grader: Grader) -> list[dict]:
    log = _read(file)
    spec = log.eval
    named = task_set(spec.task)
    if named is None:
        raise ValueError(f"{file} is a log of the task {spec.task[:80]!r}, not of this project's explanation "
                         "task (named for a set and a prompt version, e.g. explain-eval-x80.explain-prompt-1)")
    set_version, prompt_version = named
    config = log.plan.config.merge(spec.model_generate_config)  # the command line over the task's own
    settings = Settings.from_dict(settings_of(spec.model, spec.model_base_url,
                                              config.max_tokens or DEFAULT_MAX_TOKENS, config.temperature))
    epochs = spec.config.epochs or 1
    entries = []
    for sample in log.samples or ():
        run_id = _an_id(spec.eval_id if epochs == 1 else f"{spec.eval_id}-{sample.epoch}", file)
        entries.append(_entry(sample, run_id, set_version, prompt_version, settings, spec.created, file, grader))
    return entries


def _entry(sample: Any, run_id: str, set_version: str, prompt_version: str, settings: Settings, created: str,
           file: str, grader: Grader) -> dict:
    case_id = str(sample.metadata.get("case_id", sample.id))
    system, user = _prompt_texts(sample.input)
    outcome = _outcome(sample)
    return call_entry(
        entry_id=_an_id(sample.uuid or f"{sample.id}:{sample.epoch}", f"{file}:{sample.id}:{sample.epoch}"),
        time=_audit_time(sample.completed_at or sample.started_at or created),
        run_id=run_id,
        case_id=_an_id(case_id, case_id),
        eval_set_version=set_version,
        prompt=_SentPrompt(prompt_version, prompt_hash(system, user)),
        settings=settings,
        outcome=outcome,
        grade_outcome=_logged_outcome(sample, outcome, case_id, set_version, grader),
        failure=sample.metadata.get("failure"),
    )


def _outcome(sample: Any) -> CallOutcome:
    meta = sample.metadata
    status = meta.get("status") if isinstance(meta.get("status"), int) else None
    retries = meta.get("retries") if isinstance(meta.get("retries"), int) else len(sample.error_retries or ())
    output = sample.output
    answer_ms = milliseconds(output.time, meta.get("answer_ms"))
    total_ms = milliseconds(sample.total_time, meta.get("total_ms")) or answer_ms or 0.0
    if sample.error is not None:
        error = meta.get("error")
        error = error if error in (*ErrorClass, Outcome.CANCELLED) else ErrorClass.SERVER
        # An exported failure keeps the log's own message; Inspect's is the whole sentence the report would make.
        message = meta["message"] if isinstance(meta.get("message"), str) else sample.error.message
        kept_ms = meta.get("answer_ms")  # a failed call may have had a response (an HTTP error) after some time
        kept_ms = kept_ms if isinstance(kept_ms, float | int) and not isinstance(kept_ms, bool) else None
        return CallOutcome(status, None, error, message, kept_ms, total_ms, retries, False)
    choice = output.choices[0] if output.choices else None
    inspect_reason = choice.stop_reason if choice is not None else "unknown"
    usage = output.usage
    reply = Reply(
        text=output.completion,
        stop=stop_of(inspect_reason),
        input_tokens=usage.input_tokens if usage is not None else None,
        output_tokens=usage.output_tokens if usage is not None else None,
        raw_stop_reason=(output.metadata or {}).get("raw_stop_reason", inspect_reason),
        model=output.model or None,
        system_fingerprint=meta.get("system_fingerprint"),
    )
    return CallOutcome(status, reply, None, str(meta.get("message") or ""),
                       answer_ms, total_ms, retries, False)


def _logged_outcome(sample: Any, outcome: CallOutcome, case_id: str, set_version: str, grader: Grader) -> str:
    """The outcome the log says the call had: Inspect's own ``grounded`` score when it holds one, else ours."""
    if outcome.reply is None:
        return Outcome.CANCELLED if outcome.error == Outcome.CANCELLED else Outcome.INFRA_FAILURE
    score = (sample.scores or {}).get("grounded")
    said = (score.metadata or {}).get("outcome") if score is not None else None
    if said in ANSWERED:
        return said
    case = FIXED_SETS.by_id(set_version).get(case_id)
    if case is None:
        return Outcome.MODEL_FAILURE  # a case the set lacks is stale input, never graded
    return grader.grade(case, outcome.reply.text, outcome.reply.stop, set_version).outcome


def _prompt_texts(prompt: Any) -> tuple[str, str]:
    """The system and user texts a sample's input sent (the hash of a prompt of ours covers both)."""
    if isinstance(prompt, str):
        return "", prompt
    texts = {message.role: message.text for message in reversed(prompt)}
    return texts.get("system", ""), texts.get("user", "")


def _an_id(value: str, seed: str) -> str:
    """``value`` when it is a valid audit id, else a stable one made from ``seed``."""
    return value if valid_id(value) else hashlib.sha256(seed.encode("utf-8")).hexdigest()[:32]


def _audit_time(stamp: str) -> datetime:
    when = datetime.fromisoformat(stamp)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
