"""One case of one run, everything about it (pyapp.presentation.case_view, DR-008): the answer as logged,
the grade's checks, the cited steps beside the steps sent, the explorer link and the call."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from designed_logs import entries_for_the_matrix
from eval_helpers import answer_for, call, full_run, rating
from judge_design import judgement, tabled_log
from pyapp.evaluation.evalset import FIXED_SETS, case_facts
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.case_view import case_view, explorer_query
from pyapp.presentation.report import run_report

ODD = "run-20261206-120000-c0ffee"


@pytest.fixture(scope="module")
def log():
    entries = entries_for_the_matrix()
    counted = next(e for e in entries if e["run_id"] == "x2" and e["case_id"] == "C16")
    entries += [rating(counted["id"], "ann", time=900.0, pruning=False), rating(counted["id"], "bob", time=901.0)]
    return entries, rebuild(entries)


def test_a_counted_case_shows_its_answer_checks_and_call_as_the_report_grades_it(log):
    entries, built = log
    view = case_view(built.run("x2"), "C16", entries)
    row = next(c for c in run_report(built.run("x2"))["cases"] if c["case_id"] == "C16")
    counted = next(e for e in entries if e["id"] == row["entry_id"])
    assert view["answer"] == counted["answer"] and view["counted"]
    assert view["checks"] == row["checks"] and view["status"] == row["outcome"] == "not_grounded"
    assert (view["previous_case"], view["next_case"]) == ("C15", "C17")
    assert view["call"]["tokens"] == "5,000 in, 600 out" and view["call"]["stop"] == "end"
    assert [r["rater"] for r in view["ratings"]] == ["ann", "bob"]
    assert view["ratings"][0]["answers"][0]["answer"] == "no"


def test_cited_steps_sit_beside_the_steps_the_prompt_sent_and_link_the_explorer_there():
    case = FIXED_SETS.case("C05")
    wrong = full_run("w", set(), failing={"C05": "cited_steps"})
    built = rebuild(wrong)
    view = case_view(built.run("w"), "C05", wrong)
    facts = case_facts(case)
    assert view["cited"] == [{"step": facts.steps_total + 5, "cited": "visit node 1", "sent": None,
                              "matches": False, "explorer": None}]
    right = full_run("r")
    view = case_view(rebuild(right).run("r"), "C05", right)
    assert all(step["matches"] for step in view["cited"]) and len(view["cited"]) == 3
    link = parse_qs(view["cited"][1]["explorer"])
    assert link == {"order": [case.order], "kind": [str(case.search_kind)], "lon": [repr(case.lon)],
                    "lat": [repr(case.lat)], **({"radius": [repr(case.radius)]} if case.radius else {}), "step": ["2"]}
    assert float(link["lon"][0]) == case.lon  # the explorer gets the same float back


def test_cases_that_did_not_count_say_why_and_show_what_was_logged(log):
    entries, built = log
    odd = built.run(ODD)
    failed = case_view(odd, "C13", entries)
    assert failed["status"] == "model_failure" and failed["checks"] == [] and failed["detail"]
    infra = case_view(odd, "C15", entries)
    assert infra["status"] == "infrastructure_failure" and infra["answer"] is None and not infra["counted"]
    stale = case_view(odd, "C16", entries)
    assert stale["status"] == "stale_input" and stale["answer"] == answer_for("C16")
    never = case_view(odd, "C20", entries)
    assert never["call"] is None and never["next_case"] is None and never["outcome_text"] == "never asked"
    with pytest.raises(ValueError, match="no case 'C99'"):
        case_view(odd, "C99", entries)


def test_the_explorer_link_of_a_nearest_search_has_no_radius():
    case = next(c for c in FIXED_SETS.cases() if c.radius is None)
    assert "radius" not in parse_qs(explorer_query(case)) and parse_qs(explorer_query(case, 7))["step"] == ["7"]


def test_an_answer_is_kept_as_logged_whatever_it_holds():
    answer = '<script>alert(1)</script>{"walkthrough": "x"'
    entries = [call("h", "C01", outcome="model_failure", answer=answer)]
    assert case_view(rebuild(entries).run("h"), "C01", entries)["answer"] == answer


def test_a_judges_verdict_and_failure_on_the_answer_are_shown_beside_the_ratings(log):
    entries, built = log
    counted = next(e for e in entries if e["run_id"] == "x2" and e["case_id"] == "C16")
    judged = entries + [judgement(counted["id"], {"pruning": False, "answer": True, "no_invention": True,
                                                  "followable": True}),
                        judgement(counted["id"], None, failure="refusal", judging_id="judging-2")]
    view = case_view(built.run("x2"), "C16", judged, lambda: built.runs)
    first, second = (j["text"] for j in view["judged"])
    assert first.startswith("judge-test-1 (judge) [not validated], judging-1 (judge-prompt-1): not acceptable. ")
    assert "Does it say correctly why subtrees were skipped? no: Designed." in first
    assert second == ("judge-test-1 (judge) [not validated], judging-2 (judge-prompt-1): judge failure (refusal): "
                      "designed")
    assert case_view(built.run("x2"), "C16", entries)["judged"] == []


@pytest.mark.parametrize(("table", "validated"), [([[90, 8], [7, 45]], True), ([[100, 0], [0, 0]], False)],
                         ids=["kappa-0.8-on-150", "all-yes-on-100"])
def test_a_judge_measured_precisely_enough_is_shown_without_the_label(table, validated):
    entries = tabled_log(dict.fromkeys(("pruning", "answer", "no_invention", "followable"), table))
    built = rebuild(entries)
    (judged,) = case_view(built.run("run-0"), "C01", entries, lambda: built.runs)["judged"]
    assert judged["validated"] == validated
    assert judged["text"].startswith("judge-test-1 (judge), judging-1 " if validated else
                                     "judge-test-1 (judge) [not validated], judging-1 ")
