"""An answer read as prose (pyapp.presentation.answer_prose): paragraphs whose step numbers link into the
explorer when the prompt sent that step, and the claims against the truth with their checks' verdicts."""

from __future__ import annotations

import pytest

from designed_logs import entries_for_the_matrix
from pyapp.evaluation.evalset import case_facts
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.answer_prose import claims_table, walkthrough_paragraphs
from pyapp.presentation.case_view import case_view


def link(step: int) -> str:
    return f"at={step}"


def linked(paragraph: list[dict]) -> list[int]:
    return [segment["step"] for segment in paragraph if "step" in segment]


@pytest.mark.parametrize(("text", "steps"), [
    ("It starts in step 1.", [1]),
    ("Steps 3, 5 and 9 decide it.", [3, 5, 9]),
    ("steps 40–42 and step 7", [40, 42, 7]),
    ("Step 200 was never sent; step 2 was.", [2]),
    ("It visits 88 nodes in 3 steps.", []),
    ("The first step is 1.", []),
], ids=["one", "a list", "a range and another", "not sent", "a count, not a step", "no number after the word"])
def test_a_step_number_the_prompt_sent_is_linked_and_nothing_else(text, steps):
    [paragraph] = walkthrough_paragraphs(text, set(range(1, 151)), link)
    assert linked(paragraph) == steps
    assert "".join(segment["text"] for segment in paragraph) == text  # nothing lost, nothing added
    assert all(segment["explorer"] == link(segment["step"]) for segment in paragraph if "step" in segment)


def test_paragraphs_split_at_blank_lines_or_else_at_line_ends():
    assert len(walkthrough_paragraphs("One.\nStill one.\n\nTwo.\n\n\nThree.", set(), link)) == 3
    assert [p[0]["text"] for p in walkthrough_paragraphs("One.\nTwo.\n", set(), link)] == ["One.", "Two."]
    assert walkthrough_paragraphs("  \n\n ", set(), link) == []


def test_the_claims_stand_against_the_truth_with_each_checks_verdict():
    entries = entries_for_the_matrix()
    built = rebuild(entries)
    result = next(r for r in built.run("x2").cases if r.case_id == "C16")
    facts = case_facts(result.case)
    checks = [check.to_json() for check in result.grade.checks]
    rows = claims_table(result.grade.claims, facts, checks)
    assert [row["check"] for row in rows] == ["result", "distance", "nodes_visited", "subtrees_pruned"]
    verdicts = {check["name"]: check["passed"] for check in checks}
    assert all(row["passed"] == verdicts[row["check"]] for row in rows)
    distance = rows[1]
    assert distance["truth"] == f"{facts.distance:.9f}" and distance["claimed"] != distance["truth"]
    assert not distance["passed"]
    assert rows[0]["truth"] == f"{len(facts.result_ids)} points"  # dozens of ids are counted, not listed
    assert claims_table(None, facts, []) == []


def test_the_case_view_carries_the_prose_and_the_claims_and_a_failure_has_neither():
    entries = entries_for_the_matrix()
    built = rebuild(entries)
    view = case_view(built.run("x2"), "C16", entries)
    assert view["prose"] and linked(view["prose"][0]) == [1, 3]
    assert len(view["claims"]) == 4
    failed = case_view(built.run("run-20261206-120000-c0ffee"), "C13", entries)
    assert failed["status"] == "model_failure" and failed["prose"] == [] and failed["claims"] == []
