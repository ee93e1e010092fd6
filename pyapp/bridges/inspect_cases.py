"""A case of a set as an Inspect sample's parts (DR-014): the prompt as sent, the facts the checks use as the
target, and the metadata that names the case; the same for an exported run and for the task."""

from __future__ import annotations

import json

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from pyapp.bridges.inspect_names import trace_digest
from pyapp.evaluation.evalset import Case, case_facts, case_prompt


def case_input(case: Case) -> list[ChatMessage]:
    """The system and user messages the site sends for ``case``, exactly."""
    prompt = case_prompt(case)
    return [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.user)]


def case_target(case: Case) -> str:
    """The facts the five checks compare an answer with, as JSON."""
    facts = case_facts(case)
    return json.dumps({
        "kind": facts.kind,
        "result_ids": list(facts.result_ids),
        "distance": facts.distance,
        "nodes_visited": facts.nodes_visited,
        "subtrees_pruned": facts.subtrees_pruned,
        "steps_total": facts.steps_total,
        "sent_steps": [[s.step, s.action, s.node_id] for s in facts.sent_steps],
    }, separators=(",", ":"))


def case_metadata(case: Case, set_version: str, order_in_set: int) -> dict:
    """What names the case: its id, set, place in the set, insertion order, kind, trace digest and prompt."""
    prompt = case_prompt(case)
    return {"case_id": case.case_id, "set": set_version, "position": order_in_set, "order": case.order,
            "kind": case.kind, "trace_digest": trace_digest(case), "prompt_version": prompt.version,
            "prompt_hash": prompt.hash}
