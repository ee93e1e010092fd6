"""The five checks of a walkthrough's claims, and their fairness (pyapp.explanation.checks, DR-005)."""

from __future__ import annotations

import random

import pytest

from explain_samples import answer_from_prompt, long_sample, nearest_sample, radius_sample
from pyapp.explanation import checks as C
from pyapp.explanation.prompt import MAX_STEPS, build_prompt
from pyapp.kdtree.geodata import bounding_box, load_businesses
from pyapp.kdtree.search import search
from pyapp.kdtree.tree import ORDERS


def facts_of(result) -> C.Facts:
    return C.facts_for(result, build_prompt(result))


def good_claims(result) -> dict:
    return answer_from_prompt(build_prompt(result).user)


NEAREST = nearest_sample()  # result 30 at ~0.001414214, 2 visits, 1 prune, 8 steps
RADIUS = radius_sample(0.003)  # result [30]
EMPTY = radius_sample(0.0005)  # nothing inside
LONG = long_sample(400, "radius")  # cut after 150 steps


def test_facts_of_the_samples() -> None:
    facts = facts_of(NEAREST)
    assert facts.result_ids == (30,)
    assert facts.distance == NEAREST.result[0].distance
    assert (facts.nodes_visited, facts.subtrees_pruned, facts.steps_total, facts.steps_sent) == (2, 1, 8, 8)
    assert facts_of(EMPTY).distance is None and facts_of(EMPTY).result_ids == ()
    long = facts_of(LONG)
    assert (long.steps_total, long.steps_sent) == (400, MAX_STEPS)
    assert long.nodes_visited == LONG.counts.nodes_visited
    assert long.subtrees_pruned == LONG.counts.subtrees_pruned
    assert list(long.result_ids) == sorted(n.id for n in LONG.result)


def test_the_facts_of_a_search_are_read_once_from_its_result() -> None:
    assert LONG.result_ids == tuple(sorted(n.id for n in LONG.result))
    assert LONG.reported_distance == max(n.distance for n in LONG.result)
    assert (NEAREST.result_ids, NEAREST.reported_distance) == ((30,), NEAREST.result[0].distance)
    assert (EMPTY.result_ids, EMPTY.reported_distance) == ((), None)
    assert LONG.counts is LONG.counts, "computed once, then kept"
    facts = facts_of(LONG)
    assert facts.result_ids is LONG.result_ids and facts.distance == LONG.reported_distance
    assert (facts.nodes_visited, facts.subtrees_pruned) == (LONG.counts.nodes_visited, LONG.counts.subtrees_pruned)
    marker = build_prompt(LONG).user.splitlines()[-1]
    assert f"nodes_visited={LONG.counts.nodes_visited} subtrees_pruned={LONG.counts.subtrees_pruned}]" in marker


def test_facts_need_the_prompt_of_the_same_search() -> None:
    with pytest.raises(ValueError, match="steps"):
        C.facts_for(NEAREST, build_prompt(LONG))


LAST_SENT, FIRST_CUT = LONG.trace[MAX_STEPS - 1], LONG.trace[MAX_STEPS]
LONG_IDS_DESCENDING = sorted((n.id for n in LONG.result), reverse=True)


def case(case_id: str, result, change: dict, name: str, passed: bool, words: str):
    """One check on the faithful answer with ``change`` applied; ``words`` must be in its reason."""
    return pytest.param(result, change, name, passed, words, id=case_id)


def cite(step: int, action: str, node_id: int) -> dict:
    return {"cited_steps": [{"step": step, "action": action, "node_id": node_id}]}


CASES = [
    case("nearest-right", NEAREST, {}, "result", True, "30"),
    case("nearest-wrong-id", NEAREST, {"result_ids": [10]}, "result", False,
         "claimed nearest point 10; the search found 30"),
    case("nearest-two-ids", NEAREST, {"result_ids": [30, 10]}, "result", False, "exactly one result"),
    case("nearest-no-id", NEAREST, {"result_ids": []}, "result", False, "exactly one result"),
    case("radius-right", RADIUS, {"result_ids": [30]}, "result", True, "same 1 point"),
    case("radius-unsorted-right", LONG, {"result_ids": LONG_IDS_DESCENDING}, "result", True, "same"),
    case("radius-extra-id", RADIUS, {"result_ids": [30, 10]}, "result", False, "not in the result 10"),
    case("radius-missing-id", RADIUS, {"result_ids": []}, "result", False, "missing 30"),
    case("radius-repeated-id", RADIUS, {"result_ids": [30, 30]}, "result", False, "repeated"),
    case("nearest-copied-distance", NEAREST, {}, "distance", True, "claimed 0.001414214"),
    case("nearest-too-few-digits", NEAREST, {"distance": 0.0014142}, "distance", False, "more than 1e-9"),
    case("nearest-last-digit-off", NEAREST, {"distance": 0.001414215}, "distance", False, "off by"),
    case("nearest-null", NEAREST, {"distance": None}, "distance", False, "claimed no distance"),
    case("radius-empty-null", EMPTY, {"distance": None}, "distance", True, "null"),
    case("radius-empty-zero", EMPTY, {"distance": 0.0}, "distance", False, "must be null"),
    case("radius-largest-distance", RADIUS, {"distance": 0.001414214}, "distance", True, "true distance"),
    case("visited-right", NEAREST, {"nodes_visited": 2}, "nodes_visited", True, "claimed 2 nodes visited"),
    case("visited-integral-float", NEAREST, {"nodes_visited": 2.0}, "nodes_visited", True, "claimed 2"),
    case("visited-off-by-one", NEAREST, {"nodes_visited": 3}, "nodes_visited", False,
         "claimed 3 nodes visited; the trace has 2"),
    case("visited-cut-total", LONG, {"nodes_visited": LONG.counts.nodes_visited}, "nodes_visited", True,
         "as the trace"),
    case("visited-counted-sent-only", LONG, {"nodes_visited": 30}, "nodes_visited", False, "claimed 30"),
    case("pruned-right", NEAREST, {"subtrees_pruned": 1}, "subtrees_pruned", True, "claimed 1 subtrees"),
    case("pruned-wrong", NEAREST, {"subtrees_pruned": 0}, "subtrees_pruned", False, "the trace has 1"),
    case("pruned-boolean", NEAREST, {"subtrees_pruned": True}, "subtrees_pruned", False, "True"),
    case("cited-right", NEAREST, cite(7, "best", 30), "cited_steps", True, "all 1 "),
    case("cited-none", NEAREST, {"cited_steps": []}, "cited_steps", False, "cites no steps"),
    case("cited-wrong-action", NEAREST, cite(7, "report", 30), "cited_steps", False,
         "step 7 is cited as report on node 30; the trace has best on node 30"),
    case("cited-wrong-node", NEAREST, cite(7, "best", 10), "cited_steps", False, "has best on node 30"),
    case("cited-past-end", NEAREST, cite(9, "visit", 10), "cited_steps", False, "step 9 does not exist"),
    case("cited-step-zero", NEAREST, cite(0, "visit", 10), "cited_steps", False, "does not exist"),
    case("cited-last-sent", LONG, cite(150, LAST_SENT.action, LAST_SENT.node_id), "cited_steps", True, "all"),
    case("cited-not-sent", LONG, cite(151, FIRST_CUT.action, FIRST_CUT.node_id), "cited_steps", False,
         "step 151 was not sent (only steps 1-150 were)"),
]


@pytest.mark.parametrize(("result", "change", "name", "passed", "words"), CASES)
def test_check(result, change: dict, name: str, passed: bool, words: str) -> None:
    claims = good_claims(result) | change
    verdict = C.CHECKS[name](claims, facts_of(result))
    assert verdict.name == name
    assert verdict.passed is passed, verdict.reason
    assert words in verdict.reason


def test_there_are_five_checks_each_named_as_its_verdict() -> None:
    names = ["result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps"]
    assert list(C.CHECKS) == names
    assert [verdict.name for verdict in C.run_checks({}, facts_of(NEAREST))] == names


def test_distance_tolerance_follows_the_printed_precision() -> None:
    truth = NEAREST.result[0].distance
    facts = facts_of(NEAREST)
    claims = good_claims(NEAREST)
    assert abs(claims["distance"] - truth) <= 5e-10  # what the prompt printed
    for delta, passed in [(0.9e-9, True), (-0.9e-9, True), (1.1e-9, False), (-1.1e-9, False)]:
        assert C.check_distance(claims | {"distance": truth + delta}, facts).passed is passed


# --- fairness on real searches --------------------------------------------------
#
# An answer built only from the prompt's text must pass all five checks, for cut
# and for whole traces, in every order and kind.

BOX = bounding_box()
KINDS = [("nearest", None), ("radius", 0.0005), ("radius", 0.003), ("radius", 0.00005)]


def real_cases(seed: int, n: int) -> list[tuple[str, str, float | None, float, float]]:
    rng = random.Random(seed)
    data = load_businesses()
    out = []
    for _ in range(n):
        if rng.random() < 0.3:
            b = rng.choice(data)
            lon, lat = b.lon, b.lat  # a query on a business: distance 0 and ties
        else:
            lon, lat = rng.uniform(BOX.min_lon, BOX.max_lon), rng.uniform(BOX.min_lat, BOX.max_lat)
        order = rng.choice(ORDERS)
        kind, radius = rng.choice(KINDS)
        out.append((order, kind, radius, lon, lat))
    return out


def test_an_answer_from_the_prompt_alone_passes_every_check() -> None:
    cut = whole = empty = 0
    for order, kind, radius, lon, lat in real_cases(seed=2026, n=120):
        result = search(order, kind, lon, lat, radius)
        prompt = build_prompt(result)
        claims = answer_from_prompt(prompt.user)
        verdicts = C.run_checks(claims, C.facts_for(result, prompt))
        assert all(v.passed for v in verdicts), (order, kind, radius, lon, lat, verdicts)
        cut += prompt.cut
        whole += not prompt.cut
        empty += not result.result
    assert cut >= 10 and whole >= 10 and empty >= 1, (cut, whole, empty)


def test_changing_any_one_claim_fails_exactly_its_check() -> None:
    rng = random.Random(7)
    for order, kind, radius, lon, lat in real_cases(seed=99, n=25):
        result = search(order, kind, lon, lat, radius)
        prompt = build_prompt(result)
        facts = C.facts_for(result, prompt)
        claims = answer_from_prompt(prompt.user)
        wrong_step = dict(claims["cited_steps"][0])
        wrong_step["node_id"] += 1
        changes = {
            "result": {"result_ids": claims["result_ids"] + [12345]},
            "distance": {"distance": (claims["distance"] or 0.0) + rng.choice([2e-9, 1e-6])},
            "nodes_visited": {"nodes_visited": claims["nodes_visited"] + rng.choice([-1, 1])},
            "subtrees_pruned": {"subtrees_pruned": claims["subtrees_pruned"] + rng.choice([-1, 1])},
            "cited_steps": {"cited_steps": claims["cited_steps"] + [wrong_step]},
        }
        for name, change in changes.items():
            failed = [v.name for v in C.run_checks(claims | change, facts) if not v.passed]
            assert failed == [name], (order, kind, radius, name, failed)
