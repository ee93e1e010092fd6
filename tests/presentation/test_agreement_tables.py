"""The agreement figures as the page's tables: strings made in Python from the command line's report (DR-009)."""

from __future__ import annotations

import json

from agreement_log import rated_log
from live_call import run_async
from pyapp import browser
from pyapp.evaluation.agreement import agreement_report
from pyapp.presentation.agreement_tables import agreement_tables


def test_one_table_per_pair_with_agreement_kappa_and_n_per_question():
    view = agreement_tables(agreement_report(rated_log()))
    assert view["who"] == "80 rating(s) of counted answers by 2 rater(s) (Ann, Bo); 0 left out (not on a counted " \
                          "answer of a run)."
    (pair,) = view["pairs"]
    assert pair["heading"] == "Ann and Bo: 40 answer(s) rated by both"
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
