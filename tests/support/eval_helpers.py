"""Audit entries for the evaluation tests and benchmark.

``answer_for`` writes the answer a faithful model would give for a case (from the
case's facts), optionally with one claim wrong; ``call`` and ``cancel`` build
entries that must pass ``pyapp.auditlog.entries.validate_entry`` (they raise otherwise, so a
change of the audit format shows up here first).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path

from pyapp.auditlog.entries import cancel_entry, decision_entry, rating_entry
from pyapp.auditlog.format import AUDIT_FORMAT, format_time
from pyapp.auditlog.validation import validate_entry
from pyapp.core.vocabulary import ANSWERED, EntryType, Outcome
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, CaseSets, case_facts, case_prompt

REPO = Path(__file__).resolve().parents[2]

SETTINGS = {"provider": "anthropic", "model": "claude-test-1", "max_tokens": 4000, "temperature": 0.0,
            "base_url": None}
OTHER_SETTINGS = {"provider": "openai", "model": "gpt-test-1", "max_tokens": 4000, "temperature": 0.0,
                  "base_url": None}
START = datetime(2026, 12, 2, 10, 0, 0, tzinfo=UTC)
WRONG_CLAIMS = ("result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps")

_ids = count(1)


def at(seconds: float) -> str:
    """An audit time ``seconds`` after START."""
    return format_time(START + timedelta(seconds=seconds))


def answer_for(case_id: str, wrong: str | None = None, prose: str = "", cite: int = 3,
               version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS) -> str:
    """A JSON answer for ``case_id`` of set ``version`` (a name ``sets`` knows) whose claims are all right,
    except ``wrong`` (WRONG_CLAIMS)."""
    facts = case_facts(sets.case(case_id, version))
    steps = facts.sent_steps[:cite]
    claims = {
        "walkthrough": prose or (
            f"The search starts at the root in step 1 and visits {facts.nodes_visited} nodes; "
            f"it prunes {facts.subtrees_pruned} subtrees. Step {steps[-1].step} is the last one cited."
        ),
        "result_ids": list(facts.result_ids),
        "distance": facts.distance,
        "nodes_visited": facts.nodes_visited,
        "subtrees_pruned": facts.subtrees_pruned,
        "cited_steps": [{"step": s.step, "action": s.action, "node_id": s.node_id} for s in steps],
    }
    if wrong == "result":
        claims["result_ids"] = [i + 1 for i in facts.result_ids] or [1]
    elif wrong == "distance":
        claims["distance"] = (facts.distance or 0.0) + 0.001
    elif wrong == "nodes_visited":
        claims["nodes_visited"] += 1
    elif wrong == "subtrees_pruned":
        claims["subtrees_pruned"] += 1
    elif wrong == "cited_steps":
        claims["cited_steps"] = [{"step": facts.steps_total + 5, "action": "visit", "node_id": 1}]
    elif wrong is not None:
        raise ValueError(wrong)
    return json.dumps(claims)


def call(run_id: str | None, case_id: str, *, outcome: str = "grounded", answer: str | None = None,
         stop: str = "end", time: float | str = 0.0, entry_id: str | None = None,
         answer_ms: float | None = 900.0,
         total_ms: float = 1000.0, error: str | None = None, status: int | None = 200,
         settings: dict | None = None, prompt_hash: str | None = None, prompt_version: str | None = None,
         eval_set_version: str = EVAL_SET_VERSION, tokens: tuple[int, int] = (5000, 600),
         retries: int = 0, message: str = "", search: dict | None = None, sets: CaseSets = FIXED_SETS) -> dict:
    """A call entry; ``outcome`` is the logged class (answered ones get a faithful answer by default).

    An own set's case needs ``sets`` that know it (``OwnCases.sets``); a set no one knows is asked as the first.
    """
    version = eval_set_version if sets.is_known(eval_set_version) else EVAL_SET_VERSION
    prompt = case_prompt(sets.case(case_id, version)) if prompt_hash is None or prompt_version is None else None
    answered = outcome in ANSWERED
    if answered and answer is None:
        answer = answer_for(case_id, version=version, sets=sets)
    if outcome == Outcome.INFRA_FAILURE:
        error = error or "server"
        status = 500 if status == 200 else status
    if outcome == Outcome.CANCELLED:
        error, status = "cancelled", None
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id or f"e{next(_ids):06d}",
        "type": EntryType.CALL,
        "time": time if isinstance(time, str) else at(time),
        "run_id": run_id,
        "case_id": case_id,
        "search": search,
        "eval_set_version": eval_set_version if run_id is not None else None,
        "prompt_version": prompt_version or prompt.version,
        "prompt_hash": prompt_hash or prompt.hash,
        "settings": dict(settings or SETTINGS),
        "status": status,
        "answer": answer if answered else None,
        "stop": stop if answered else None,
        "raw_stop_reason": stop if answered else None,
        "input_tokens": tokens[0] if answered else None,
        "output_tokens": tokens[1] if answered else None,
        "answer_ms": answer_ms,
        "total_ms": total_ms,
        "retries": retries,
        "outcome": outcome,
        "error": None if answered else error,
        "failure": None,
        "message": message,
    }
    problems = validate_entry(entry)
    if problems:
        raise ValueError("; ".join(problems))
    return entry


def cancel(run_id: str, case_id: str, *, time: float = 0.0, call_id: str | None = None) -> dict:
    return cancel_entry(f"x{next(_ids):06d}", at(time), run_id, case_id, call_id)


def decision(call_id: str, helpful: bool, note: str = "", *, time: float = 0.0) -> dict:
    return decision_entry(f"d{next(_ids):06d}", at(time), call_id, helpful, note)


def rating(call_id: str, rater: str, verdict: bool = True, *, time: float = 0.0, **answers: bool) -> dict:
    """A rating of ``call_id`` by ``rater``: every question answered ``verdict``, except those in ``answers``."""
    from pyapp.explanation.rubric import RUBRIC

    full = {key: answers.get(key, verdict) for key in RUBRIC.keys}
    return rating_entry(f"g{next(_ids):06d}", at(time), call_id, rater, RUBRIC.version, full)


def full_run(run_id: str, grounded: set[str] | frozenset[str] | None = None, *, start: float = 0.0,
             latencies: list[float] | None = None, settings: dict | None = None,
             failing: dict[str, str] | None = None, version: str = EVAL_SET_VERSION,
             sets: CaseSets = FIXED_SETS) -> list[dict]:
    """One answered call per case of set ``version`` (twenty by default; a name ``sets`` knows), grounded
    exactly for ``grounded``.

    ``grounded`` None means all; ``failing`` maps a case id to "model_failure" (a truncated answer)
    or a wrong claim name.
    """
    entries = []
    for i, case_id in enumerate(sets.case_ids(version)):
        ms = latencies[i] if latencies else 800.0 + 10 * i
        common = {"time": start + i, "answer_ms": ms, "settings": settings, "eval_set_version": version, "sets": sets}
        if grounded is None or case_id in grounded:
            entries.append(call(run_id, case_id, **common))
            continue
        how = (failing or {}).get(case_id, "distance")
        if how == "model_failure":
            entries.append(call(run_id, case_id, outcome="model_failure", answer='{"walkthrough": "The sea',
                                stop="max_tokens", **common))
        else:
            entries.append(call(run_id, case_id, outcome="not_grounded",
                                answer=answer_for(case_id, how, version=version, sets=sets), **common))
    return entries
