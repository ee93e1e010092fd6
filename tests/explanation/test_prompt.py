"""The walkthrough prompt: its cut rule, its hash and its version (pyapp.explanation.prompt, DR-005)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

import pytest

from explain_samples import long_sample, nearest_sample, parse_prompt_lines, prompt_fingerprint, radius_sample
from pyapp.core.vocabulary import Action
from pyapp.explanation import prompt as P
from pyapp.explanation.schema import load_schema
from pyapp.kdtree.geodata import bounding_box
from pyapp.kdtree.search import search
from pyapp.kdtree.trace import Step
from pyapp.kdtree.tree import ORDERS

# Every prompt version with the fingerprint of its text, oldest first.
#
# How to change the prompt: edit pyapp/explanation/prompt.py (or the schema it embeds), set
# PROMPT_VERSION to a new string ("explain-prompt-2", ...), append a row here with
# the value printed by
#     .venv/bin/python tests/support/explain_samples.py
# and update PINNED_SAMPLE_HASH below with the value the failing test shows.
# Never edit an old row: logged answers carry those versions.
PROMPT_HISTORY = [
    ("explain-prompt-1", "e10aab19d81f3e392e2006981b6c56965d612274a916a325bb1e112af977820e"),
]
# sha256 of the canonical prompt for explain_samples.nearest_sample().
PINNED_SAMPLE_HASH = "365e4ad64b8f4030aa067b7f523e5dc8e1a542c7c6ece7a9dd178c37112acf3b"


def canonical_sha256(system: str, user: str) -> str:
    """The hash as DR-005 defines it, written out independently of pyapp.explanation.prompt."""
    body = json.dumps(
        {"system": system, "user": user}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def test_prompt_version_matches_its_fingerprint() -> None:
    assert {P.PROMPT_VERSION: prompt_fingerprint()} == dict(PROMPT_HISTORY[-1:]), (
        "the prompt changed: give it a new PROMPT_VERSION and append a row to PROMPT_HISTORY"
    )


def test_prompt_history_never_reuses_a_version_or_text() -> None:
    versions = [v for v, _ in PROMPT_HISTORY]
    fingerprints = [f for _, f in PROMPT_HISTORY]
    assert len(set(versions)) == len(versions)
    assert len(set(fingerprints)) == len(fingerprints)


def test_fingerprint_sees_a_one_character_change(monkeypatch: pytest.MonkeyPatch) -> None:
    before = prompt_fingerprint()
    monkeypatch.setattr(P, "CUT_MARKER", P.CUT_MARKER.replace("trace cut", "trace cut off"))
    assert prompt_fingerprint() != before


def test_fingerprint_sees_a_number_format_change(monkeypatch: pytest.MonkeyPatch) -> None:
    before = prompt_fingerprint()
    monkeypatch.setattr(P, "NUMBER_DECIMALS", 8)
    assert prompt_fingerprint() != before


def test_hash_is_sha256_of_canonical_json() -> None:
    prompt = P.build_prompt(nearest_sample())
    assert prompt.hash == canonical_sha256(prompt.system, prompt.user)
    assert prompt.hash == PINNED_SAMPLE_HASH


def test_hash_is_stable_and_depends_on_the_search() -> None:
    first = P.build_prompt(nearest_sample())
    assert P.build_prompt(nearest_sample()) == first
    moved = dataclasses.replace(nearest_sample(), query=(24.951, 60.1610001))
    assert P.build_prompt(moved).hash != first.hash


def test_prompt_embeds_the_published_schema_and_version() -> None:
    prompt = P.build_prompt(nearest_sample())
    start = prompt.system.index("{", prompt.system.index("JSON Schema of the answer:"))
    assert json.loads(prompt.system[start:]) == load_schema()
    assert prompt.version == P.PROMPT_VERSION


def test_schema_actions_are_the_trace_actions() -> None:
    action = load_schema()["properties"]["cited_steps"]["items"]["properties"]["action"]
    assert tuple(action["enum"]) == tuple(Action)


def test_every_step_field_is_printed_or_deliberately_left_out() -> None:
    always = {"index", "action", "node_id", "depth"}
    names = {f.name for f in dataclasses.fields(Step)}
    assert names == always | set(P.LINE_FIELDS), "a new Step field: decide whether the prompt prints it"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.1 + 0.2, "0.300000000"),
        (24.9528524, "24.952852400"),
        (1 / 3e4, "0.000033333"),
        (5e-10, "0.000000001"),
        (4.9e-10, "0.000000000"),
        (0.003, "0.003000000"),
    ],
    ids=["float-noise", "coordinate", "small-distance", "half-up", "below-half", "radius"],
)
def test_numbers_are_printed_with_nine_decimals(x: float, text: str) -> None:
    assert P.format_number(x) == text


def test_step_line_format() -> None:
    step = Step(3, Action.FAR_PRUNE, 7, 1, side="high", gap=0.001, bound=0.0005)
    assert P.trace_line(step) == "3 far_prune node_id=7 depth=1 side=high gap=0.001000000 bound=0.000500000"
    visit = Step(1, Action.VISIT, 10, 0, axis=0, split=24.94, lon=24.94, lat=60.17)
    assert P.trace_line(visit) == (
        "1 visit node_id=10 depth=0 axis=lon split=24.940000000 lon=24.940000000 lat=60.170000000"
    )


@pytest.mark.parametrize(
    ("n_steps", "cut"),
    [(8, False), (P.MAX_STEPS, False), (P.MAX_STEPS + 1, True), (437, True)],
    ids=["short", "exactly-150", "151", "long"],
)
@pytest.mark.parametrize("kind", ["nearest", "radius"])
def test_cut_rule(n_steps: int, cut: bool, kind: str) -> None:
    result = long_sample(n_steps, kind)
    prompt = P.build_prompt(result)
    lines, marker = parse_prompt_lines(prompt.user)
    assert prompt.steps_total == n_steps
    assert prompt.steps_sent == len(lines) == min(n_steps, P.MAX_STEPS)
    assert [step for step, _, _, _ in lines] == list(range(1, prompt.steps_sent + 1))
    assert prompt.cut is cut
    if not cut:
        assert marker is None
        assert f"Trace: all {n_steps} steps" in prompt.user
        return
    assert f"Trace: the first {P.MAX_STEPS} of {n_steps} steps" in prompt.user
    assert marker is not None
    assert int(marker["total"]) == n_steps
    assert int(marker["hidden"]) == n_steps - P.MAX_STEPS
    assert json.loads(marker["ids"]) == sorted(n.id for n in result.result)
    assert float(marker["distance"]) == pytest.approx(max(n.distance for n in result.result), abs=5e-10)
    assert int(marker["visited"]) == result.counts.nodes_visited
    assert int(marker["pruned"]) == result.counts.subtrees_pruned
    # The marker is the last line of the trace section.
    assert prompt.user.rstrip("\n").splitlines()[-1].startswith("[trace cut:")


def test_empty_radius_result_is_printed_as_null_in_the_marker() -> None:
    base = long_sample(200, "radius")
    empty = dataclasses.replace(base, result=())
    _, marker = parse_prompt_lines(P.build_prompt(empty).user)
    assert marker["ids"] == "[]" and marker["distance"] == "null"


def test_search_and_tree_summary_are_in_the_prompt() -> None:
    user = P.build_prompt(radius_sample(0.0005)).user
    assert "kind: radius (every point within radius 0.000500000 of the query)" in user
    assert "query: lon=24.951000000 lat=60.161000000" in user
    assert "insertion order: lon-sorted" in user
    assert "points: 3\n" in user and "depth: 1 " in user and "average depth: 0.666666667" in user
    assert "root: node_id=10 splits on lon at 24.940000000" in user


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="kind"):
        P.build_prompt(dataclasses.replace(nearest_sample(), kind="knn"))


# --- real searches ------------------------------------------------------------

BOX = bounding_box()


def real_searches(n_queries: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n_queries):
        lon, lat = rng.uniform(BOX.min_lon, BOX.max_lon), rng.uniform(BOX.min_lat, BOX.max_lat)
        for order in ORDERS:
            yield search(order, "nearest", lon, lat)
            yield search(order, "radius", lon, lat, 0.0005)
            yield search(order, "radius", lon, lat, 0.003)


def test_real_prompts_respect_the_cut_and_the_stated_prune_rule() -> None:
    seen_cut = seen_whole = 0
    for result in real_searches(4, seed=5):
        prompt = P.build_prompt(result)
        lines, marker = parse_prompt_lines(prompt.user)
        assert len(lines) == prompt.steps_sent == min(len(result.trace), P.MAX_STEPS)
        assert (marker is not None) is (len(result.trace) > P.MAX_STEPS)
        seen_cut += marker is not None
        seen_whole += marker is None
        # The system text tells the model how far_visit and far_prune relate gap and bound.
        for step in result.trace:
            if step.action == "far_visit":
                assert step.gap <= step.bound
            elif step.action == Action.FAR_PRUNE:
                assert step.gap > step.bound
    assert seen_cut and seen_whole
