"""When a model judge is validated (DR-012): by the precision of every question's kappa against the people's
consensus on one judging, never by a count alone; how many more answers it needs, against a computation written
afresh; which answers to rate next; and figures that never mix two judgings."""

from __future__ import annotations

import json
from itertools import count

import pytest

from eval_helpers import full_run, rating
from judge_design import designed_log, judgement, tabled_log
from kappa_reference import Z, agresti_se, sklearn_kappa
from pyapp.evaluation.agreement import agreement_report
from pyapp.evaluation.rating import judge_queue
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.rubric import RUBRIC, overall_verdict
from pyapp.presentation.agreement_text import format_agreement_report
from pyapp.presentation.judge_tables import judge_tables

ALL_YES_100 = [[100, 0], [0, 0]]
KAPPA_08_150 = [[90, 8], [7, 45]]  # kappa 0.78, half-width 0.105
WIDE_120 = [[96, 6], [8, 10]]  # kappa 0.52, half-width 0.219


def the_judge(entries: list[dict], judgings: tuple[str, ...] = ()) -> dict:
    (judge,) = agreement_report(entries, judgings=judgings)["judges"]
    return judge


def each(table: list[list[int]]) -> dict[str, list[list[int]]]:
    return dict.fromkeys(RUBRIC.keys, table)


def answers_needed_afresh(table: list[list[int]], half_width: float = 0.2) -> int:
    """The fewest answers N at which a table with ``table``'s shares has z·SE <= ``half_width``: N searched upward,
    the table's cells scaled to N, and the SE in Agresti's form (tests/support/kappa_reference.py)."""
    n = sum(map(sum, table))
    for answers in count(1):
        scaled = [[cell * answers / n for cell in row] for row in table]
        if Z * agresti_se(scaled) <= half_width:
            return answers
    raise AssertionError("unreachable")


def test_a_hundred_answers_all_rated_yes_do_not_validate_the_judge_and_it_says_why():
    judge = the_judge(tabled_log(each(ALL_YES_100)))
    assert judge["compared"] == 100 and not judge["validated"]
    assert judge["label"] == "not validated"
    assert judge["why_not"] == 'no answer rated "no" on any question, so agreement cannot be measured'
    assert [q["status"] for q in judge["precision"]["questions"]] == ["not measurable"] * 4
    assert all(q["more"] is None for q in judge["precision"]["questions"])
    (view,) = judge_tables([judge])
    assert view["label"] == 'not validated: no answer rated "no" on any question, so agreement cannot be measured'
    assert "[not validated: no answer rated" in format_agreement_report(agreement_report(tabled_log(each(ALL_YES_100))))


def test_a_judge_at_kappa_0_8_on_150_answers_is_validated():
    judge = the_judge(tabled_log(each(KAPPA_08_150)))
    assert judge["validated"] and judge["label"] is None and judge["why_not"] is None
    for q in judge["precision"]["questions"]:
        assert q["n"] == 150 and q["status"] == "precise" and q["more"] == 0
        assert round(q["half_width"], 4) == round(Z * agresti_se(KAPPA_08_150), 4)
    assert round(judge["versus_consensus"]["questions"][0]["kappa"], 4) == round(sklearn_kappa(KAPPA_08_150), 4)
    assert judge["validation_note"].startswith("Validated on judging-1: ")
    assert judge["rate_next"]["note"] is None
    (view,) = judge_tables([judge])
    assert view["label"] == ""


def test_a_wide_interval_on_120_answers_does_not_validate_and_its_width_is_given():
    judge = the_judge(tabled_log(each(WIDE_120)))
    assert not judge["validated"]
    width = Z * agresti_se(WIDE_120)
    assert width > 0.2 and f"±{width:.2f}" == "±0.22"
    assert judge["why_not"] == ('the interval is still too wide (±0.22 on 4 questions, widest on "Does it say '
                                'correctly why subtrees were skipped?"; ±0.20 wanted)')


def test_too_few_answers_is_a_reason_even_when_the_interval_is_narrow():
    judge = the_judge(tabled_log(each([[15, 0], [0, 10]])))  # perfect agreement: the formula's SE is 0
    assert not judge["validated"]
    assert judge["why_not"] == "too few answers (25 compared with the people's consensus, at least 30 needed)"
    assert [q["more"] for q in judge["precision"]["questions"]] == [5] * 4


@pytest.mark.parametrize("table", [WIDE_120, [[60, 9], [7, 14]], [[20, 4], [3, 3]], [[140, 3], [4, 6]]],
                         ids=["wide-120", "moderate-90", "few-30", "rare-no-153"])
def test_the_answers_still_needed_equal_a_search_written_afresh(table):
    judge = the_judge(tabled_log(each(table)))
    n = sum(map(sum, table))
    expected = max(answers_needed_afresh(table), 30) - n
    assert expected > 0
    for q in judge["precision"]["questions"]:
        assert (q["needed"], q["more"]) == (answers_needed_afresh(table), expected)
        assert q["display"]["more"] == f"{expected:,}"
    assert f"{expected} more answers compared with the people's consensus" in judge["precision"]["still_needed"]


def test_the_answers_to_rate_next_are_the_judged_ones_no_person_rated_those_the_judge_said_no_to_first():
    unrated = full_run("run-x", start=1000.0)  # 20 answers no person has rated
    entries = tabled_log(each(WIDE_120)) + unrated
    said = {c["id"]: {**dict.fromkeys(RUBRIC.keys, True), **({"answer": False, "pruning": False} if i % 5 == 0 else
                                                               {"followable": False} if i % 5 == 1 else {})}
            for i, c in enumerate(unrated)}
    entries += [judgement(call_id, answers, time=4000.0 + i) for i, (call_id, answers) in enumerate(said.items())]
    entries += [rating(unrated[-1]["id"], "Bo", time=4500.0)]  # rated by a person: no longer waiting
    judge = the_judge(entries)
    expected = sorted(unrated[:-1], key=lambda c: -sum(not yes for yes in said[c["id"]].values()))
    assert [a["call_id"] for a in judge["rate_next"]["answers"]] == [c["id"] for c in expected]
    assert [a["case_id"] for a in judge["rate_next"]["answers"][:4]] == ["C01", "C06", "C11", "C16"]
    assert judge["rate_next"]["note"].startswith("19 answers judged in judging-1 have no person's rating.")
    queue = judge_queue(list(rebuild(entries)), entries, "Cy", judge["judge"])
    assert [i["call_id"] for i in queue["items"]] == [c["id"] for c in expected]
    shown = json.dumps(queue["items"])
    assert '"answers"' not in shown and "judging-1" not in shown and "acceptable" not in shown


def test_figures_against_people_rest_on_one_judging_never_on_a_mix():
    entries, design = designed_log()
    calls = list(design)
    failed, rest = calls[:3], calls[3:]
    entries += [judgement(c, None, failure="invalid_json", time=5000.0 + i) for i, c in enumerate(failed)]
    entries += [judgement(c, design[c]["judge"], time=5010.0 + i) for i, c in enumerate(rest)]
    flipped = {c: {k: not v for k, v in design[c]["judge"].items()} for c in calls}
    entries += [judgement(c, flipped[c], judging_id="judging-2", time=9000.0 + i) for i, c in enumerate(calls)]

    first = the_judge(entries)
    assert first["judging"]["judging_id"] == "judging-1" and first["verdicts"] == 37
    assert [f["judging_id"] for f in first["failures"]] == ["judging-1"] * 3
    assert first["judging_note"].startswith("The figures rest on judging-1 (1 of 2), the first judging to ask about "
                                            "every counted answer of its runs.")
    for pair, person in zip(first["versus_people"], ("Ann", "Bo"), strict=True):
        assert pair["n"] == 37
        assert pair["overall"]["table"] == table_of([(overall_verdict(design[c]["judge"]),
                                                      overall_verdict(design[c][person])) for c in rest])

    second = the_judge(entries, ("judging-2",))
    assert second["judging"]["judging_id"] == "judging-2" and second["verdicts"] == 40 and second["failures"] == []
    assert second["versus_people"][0]["overall"]["table"] == table_of(
        [(overall_verdict(flipped[c]), overall_verdict(design[c]["Ann"])) for c in calls])
    assert second["consistency"]["against"] == 2 and second["consistency"]["repeats"][0]["judging"] == 1


def test_by_default_the_first_complete_judging_counts_not_one_that_stopped():
    entries, design = designed_log()
    calls = list(design)
    entries += [judgement(c, design[c]["judge"], judging_id="judging-a", time=5000.0 + i)
                for i, c in enumerate(calls[:10])]  # stopped after 10 of run-a's 20 answers
    entries += [judgement(c, design[c]["judge"], judging_id="judging-b", time=6000.0 + i) for i, c in enumerate(calls)]
    judge = the_judge(entries)
    assert judge["judging"]["judging_id"] == "judging-b" and judge["verdicts"] == 40
    assert [j["complete"] for j in judge["each_judging"]] == [False, True]
    assert judge["each_judging"][0]["display"] == ("judging-a (1 of 2): 10 verdicts and 0 judge failures on 10 "
                                                   "answers, stopped short of its runs' counted answers")


def test_a_judging_that_is_not_in_the_log_is_refused_in_words():
    entries = tabled_log(each(KAPPA_08_150))
    with pytest.raises(ValueError, match="no judging 'judging-9' of a judge"):
        agreement_report(entries, judgings=("judging-9",))


def table_of(pairs: list[tuple[bool, bool]]) -> list[list[int]]:
    return [[sum(a and b for a, b in pairs), sum(a and not b for a, b in pairs)],
            [sum(b and not a for a, b in pairs), sum(not a and not b for a, b in pairs)]]


def test_the_rating_queue_for_a_judge_holds_no_grade_and_starts_nothing_when_none_waits():
    entries = full_run("run-a")
    entries += [rating(e["id"], "Ann", time=100.0 + i) for i, e in enumerate(entries)]
    entries += [judgement(e["id"], dict.fromkeys(RUBRIC.keys, True)) for e in entries if e["type"] == "call"]
    queue = judge_queue(list(rebuild(entries)), entries, "Cy", "judge-test-1 (judge)")
    assert queue == {"items": [], "status": "No answer judge-test-1 (judge) judged is waiting for a person's rating."}
