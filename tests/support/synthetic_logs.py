"""Long audit logs made up for measuring and for tests: runs of the twenty cases with answers of about two
kilobytes quoting each case's real trace, in the mix bench/bench_rebuild.py describes, from a seed."""

from __future__ import annotations

import json
import random

from eval_helpers import call, cancel
from pyapp.evaluation.evalset import FIXED_SETS, case_facts, case_search

SEED = 7
MODELS = (
    {"provider": "anthropic", "model": "claude-bench", "max_tokens": 4000, "temperature": 0.0,
     "base_url": None},
    {"provider": "openai", "model": "gpt-bench", "max_tokens": 4000, "temperature": 0.2, "base_url": None},
)
PHRASES = ("then", "next", "after that", "so", "and then", "following this", "at this point")


def walkthrough(case_id: str, rng: random.Random, serial: int) -> str:
    """About a kilobyte of prose quoting the first steps of the case's real trace."""
    steps = case_search(FIXED_SETS.case(case_id)).trace[:14]
    parts = [f"Answer {serial}. The search for {case_id} begins at the root."]
    for s in steps:
        joiner = rng.choice(PHRASES)
        extra = ""
        if s.distance is not None:
            extra = f" at distance {s.distance:.9f}"
        elif s.gap is not None:
            extra = f" because the gap {s.gap:.9f} is compared with {s.bound:.9f}"
        parts.append(f"Step {s.index}: {joiner}, the search takes a {s.action} step on node {s.node_id} "
                     f"at depth {s.depth}{extra}.")
    return " ".join(parts)


def answer(case_id: str, rng: random.Random, serial: int, wrong: str | None) -> str:
    facts = case_facts(FIXED_SETS.case(case_id))
    cited = facts.sent_steps[:: max(1, facts.steps_sent // 4)][:4]
    claims = {
        "walkthrough": walkthrough(case_id, rng, serial),
        "result_ids": list(facts.result_ids),
        "distance": facts.distance,
        "nodes_visited": facts.nodes_visited + (1 if wrong == "nodes" else 0),
        "subtrees_pruned": facts.subtrees_pruned - (1 if wrong == "pruned" else 0),
        "cited_steps": [{"step": s.step, "action": s.action, "node_id": s.node_id} for s in cited],
    }
    if wrong == "distance":
        claims["distance"] = round((facts.distance or 0.0) * 1.01, 9)
    return json.dumps(claims)


def synthetic_log(n_calls: int, seed: int = SEED) -> list[dict]:
    """``n_calls`` entries (calls, a few cancels) over runs of the twenty cases; the mix is in the doc."""
    rng = random.Random(seed)
    ids = list(FIXED_SETS.case_ids())
    entries: list[dict] = []
    clock = 0.0
    run = 0
    serial = 0
    while len(entries) < n_calls:
        run += 1
        run_id = f"bench-{run:05d}"
        settings = MODELS[run % 2]
        for case_id in ids:
            for _attempt in range(3):
                clock += rng.uniform(1.0, 20.0)
                serial += 1
                roll = rng.random()
                ms = round(rng.lognormvariate(8.0, 0.4), 1)
                common = {"time": clock, "settings": settings, "answer_ms": ms, "total_ms": ms + 5.0,
                          "entry_id": f"{run_id}-{serial}"}
                if roll < 0.05:
                    entries.append(call(run_id, case_id, outcome="infrastructure_failure", error="overloaded",
                                        status=529, retries=3, **common))
                    continue  # asked again within the run
                if roll < 0.07:
                    entries.append(call(run_id, case_id, outcome="cancelled", **common))
                    entries.append(cancel(run_id, case_id, time=clock + 0.5))
                    continue
                if roll < 0.10:
                    text = answer(case_id, rng, serial, None)[: rng.randint(50, 400)]
                    entries.append(call(run_id, case_id, outcome="model_failure", answer=text,
                                        stop="max_tokens", **common))
                elif roll < 0.25:
                    wrong = rng.choice(("nodes", "pruned", "distance"))
                    entries.append(call(run_id, case_id, outcome="not_grounded",
                                        answer=answer(case_id, rng, serial, wrong), **common))
                else:
                    entries.append(call(run_id, case_id, answer=answer(case_id, rng, serial, None), **common))
                if rng.random() < 0.03:  # a repeated call for an answered case: never counted
                    serial += 1
                    entries.append(call(run_id, case_id, answer=answer(case_id, rng, serial, None),
                                        **{**common, "entry_id": f"{run_id}-{serial}", "time": clock + 1}))
                break
    return entries[:n_calls]
