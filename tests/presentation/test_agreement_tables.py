"""The agreement figures as the page's tables: strings made in Python from the command line's report (DR-009)."""

from __future__ import annotations

import json

from agreement_log import rated_log
from eval_helpers import full_run
from judge_design import judgement, tabled_log
from live_call import run_async
from pyapp import browser
from pyapp.evaluation.agreement import agreement_report
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.agreement_tables import agreement_tables


def test_one_table_per_pair_with_agreement_kappa_and_n_per_question():
    view = agreement_tables(agreement_report(rated_log()))
    assert view["who"] == "80 ratings of counted answers by 2 raters (Ann, Bo); 0 left out (not on a counted " \
                          "answer of a run)."
    (pair,) = view["pairs"]
    assert pair["heading"] == "Ann and Bo: 40 answers rated by both"
    assert pair["columns"] == ["Question", "Agreement", "Kappa (95% interval)", "n"]
    rows = {row[0]: row[1:] for row in pair["rows"]}
    assert rows["Does it invent no step?"] == ["40/40 (100.0%)", "undefined", "40"]
    assert rows["Does it name the right answer?"] == ["35/40 (87.5%)", "0.00", "40"]  # Ann: yes to all 40
    assert rows["Could a learner follow it?"][0] == "39/40 (97.5%)"
    assert [row[0] for row in pair["rows"]][-1] == "Overall verdict"
    assert any("undefined" in note for note in pair["notes"])
    assert any("0 by construction" in note for note in pair["notes"])


def test_each_rater_gets_a_two_by_two_table_kappa_and_the_disagreeing_answers():
    ann, bo = agreement_tables(agreement_report(rated_log()))["versus"]
    assert ann["rows"] == [["acceptable", "36", "3"], ["not acceptable", "1", "0"]]
    assert bo["rows"] == [["acceptable", "34", "1"], ["not acceptable", "3", "2"]]
    assert ann["figures"].startswith("Agreement 36/40 (90.0%); kappa -")
    assert "95% CI" in bo["figures"]
    assert [d[:2] for d in ann["disagreements"]] == [["run-a", "C02"], ["run-b", "C03"], ["run-b", "C05"],
                                                    ["run-b", "C09"]]
    assert ann["disagreements"][0][3:] == ["acceptable", "not grounded"]
    assert ann["disagreements"][1][3:] == ["not acceptable", "grounded"]
    assert [d[:2] for d in bo["disagreements"]] == [["run-a", "C11"], ["run-b", "C09"], ["run-b", "C12"],
                                                   ["run-b", "C19"]]


def test_no_rating_yet_is_said_in_words():
    view = agreement_tables(agreement_report([]))
    assert view["note"] == "No counted answer has been rated yet." and view["pairs"] == view["versus"] == []


def test_the_page_gets_the_tables_of_the_logs_report(worker):
    entries = rated_log()
    worker.stored.extend(json.dumps(e) for e in entries)
    answer = json.loads(run_async(browser.handle("agreement", "{}")))
    assert answer["ok"] and answer["value"]["tables"] == json.loads(json.dumps(
        agreement_tables(agreement_report(entries))))


def judged_log() -> list[dict]:
    """120 answers rated by Ann and judged too imprecisely to validate the judge, 20 more judged and not rated,
    and a second judging of all 140 that says yes to everything."""
    unrated = full_run("run-x", start=1000.0)
    entries = tabled_log(dict.fromkeys(RUBRIC.keys, [[96, 6], [8, 10]])) + unrated
    entries += [judgement(c["id"], {**dict.fromkeys(RUBRIC.keys, True), "answer": i % 4 != 0}, time=4000.0 + i)
                for i, c in enumerate(unrated)]
    calls = [e["id"] for e in entries if e["type"] == "call"]
    return entries + [judgement(c, dict.fromkeys(RUBRIC.keys, True), judging_id="judging-2", time=8000.0 + i)
                      for i, c in enumerate(calls)]


def test_a_judges_heading_names_its_judging_and_says_not_validated_and_why():
    (judge,) = agreement_tables(agreement_report(judged_log()))["judges"]
    assert judge["heading"] == "judge-test-1 (judge): 140 verdicts and 0 judge failures in judging-1"
    assert judge["label"] == ('not validated: the interval is still too wide (±0.22 on 4 questions, widest on "Does '
                              'it say correctly why subtrees were skipped?"; ±0.20 wanted)')
    assert judge["judgings"] == [["judging-1", "judging-1 (1 of 2): 140 verdicts and 0 judge failures on 140 answers"],
                                 ["judging-2", "judging-2 (2 of 2): 140 verdicts and 0 judge failures on 140 answers"]]
    assert judge["precision"]["columns"] == ["Question", "Answers compared", "Half-width of the interval",
                                             "More answers needed", "Status"]
    assert judge["precision"]["rows"][0] == ["Does it say correctly why subtrees were skipped?", "120", "±0.22", "25",
                                             "too wide"]
    assert judge["precision"]["rate_button"] == "Rate these 20 answers"
    assert [v["heading"] for v in judge["versus"]] == ["Against Ann: 120 answers with both verdicts",
                                                       "Against the people's consensus: 120 answers with both verdicts"]
    assert judge["consistency"].startswith("Over 2 judgings the overall verdict was the same every time on ")
    assert "Judging 2 against judging 1, the one the figures rest on: agreement " in judge["consistency"]


def test_the_page_gets_the_judging_it_names_and_the_queue_agreement_names(worker):
    entries = judged_log()
    worker.stored.extend(json.dumps(e) for e in entries)
    answer = json.loads(run_async(browser.handle("agreement", json.dumps({"judgings": ["judging-2"]}))))
    assert answer["ok"] and answer["value"]["tables"] == json.loads(json.dumps(
        agreement_tables(agreement_report(entries, judgings=["judging-2"]))))
    (judge,) = answer["value"]["report"]["judges"]
    assert judge["judging"]["judging_id"] == "judging-2"
    assert [a["case_id"] for a in judge["rate_next"]["answers"]] == [f"C{n:02d}" for n in range(1, 21)]  # no "no"
    default = agreement_report(entries)["judges"][0]["rate_next"]["answers"]
    queue = json.loads(run_async(browser.handle("judge_rating_queue", json.dumps(
        {"judge": "judge-test-1 (judge)", "judging": "judging-1", "rater": "Cy"}))))["value"]
    assert [i["call_id"] for i in queue["items"]] == [a["call_id"] for a in default]
    assert queue["items"][0]["title"] == "C01 of run-x"
