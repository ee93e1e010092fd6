"""Agreement figures (DR-009): kappa against scikit-learn, its interval against a second formula, the report."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from eval_helpers import call, full_run, rating
from kappa_reference import Z, agresti_se, labels_of, sklearn_kappa
from pyapp.cli.main import main
from pyapp.evaluation.agreement import agreement_report
from pyapp.evaluation.export import export_json, parse_import
from pyapp.evaluation.kappa import FEW_ANSWERS, cohen_kappa, kappa_note
from pyapp.presentation.agreement_text import format_agreement_report

DESIGNED = {
    "moderate": [[20, 5], [10, 15]],
    "no-better-than-chance": [[25, 25], [25, 25]],
    "worse-than-chance": [[2, 12], [10, 1]],
    "all-agree-both-categories": [[12, 0], [0, 8]],
    "one-disagreement": [[19, 1], [0, 0]],  # not degenerate for the second rater only
    "three-categories": [[3, 1, 0], [2, 9, 1], [0, 2, 6]],
    "category-unused-by-both": [[10, 2, 0], [3, 9, 0], [0, 0, 0]],
    "rare-yes": [[1, 2], [1, 46]],
}


@pytest.mark.parametrize("table", list(DESIGNED.values()), ids=list(DESIGNED))
def test_kappa_matches_sklearn(table):
    first, second = labels_of(table)
    ours = cohen_kappa(table)
    if ours.single_category:
        assert ours.kappa == 0.0 and sklearn_kappa(table) == pytest.approx(0.0, abs=1e-12)
    else:
        assert ours.kappa == pytest.approx(sklearn_kappa(table), abs=1e-12)
    assert ours.n == len(first) and ours.agree == sum(a == b for a, b in zip(first, second, strict=True))
    assert ours.observed == pytest.approx(ours.agree / ours.n)


@pytest.mark.parametrize("table", [t for name, t in DESIGNED.items() if name != "one-disagreement"],
                         ids=[name for name in DESIGNED if name != "one-disagreement"])
def test_interval_is_kappa_plus_minus_z_times_the_reference_se(table):
    ours = cohen_kappa(table)
    se = agresti_se(table)
    assert ours.low == pytest.approx(max(-1.0, ours.kappa - Z * se), abs=1e-12)
    assert ours.high == pytest.approx(min(1.0, ours.kappa + Z * se), abs=1e-12)


def test_a_worked_example_by_hand():
    # Shares [[0.4, 0.1], [0.2, 0.3]]: rows 0.5, 0.5; columns 0.6, 0.4; p_o = 0.7, p_e = 0.5, kappa = 0.4.
    # The Fleiss-Cohen-Everitt terms written out by hand for this table, with 1 - kappa = 0.6:
    k = cohen_kappa([[20, 5], [10, 15]])
    assert (k.observed, k.expected) == (0.7, 0.5) and k.kappa == pytest.approx(0.4)
    se = math.sqrt((0.4 * (1 - 1.1 * 0.6) ** 2 + 0.3 * (1 - 0.9 * 0.6) ** 2
                    + 0.36 * (0.1 * (0.6 + 0.5) ** 2 + 0.2 * (0.4 + 0.5) ** 2) - (0.4 - 0.5 * 0.6) ** 2)
                   / (50 * 0.25))
    assert (k.low, k.high) == (pytest.approx(0.4 - Z * se), pytest.approx(0.4 + Z * se))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=4, max_size=4))
def test_kappa_and_interval_match_both_references_on_any_two_by_two(counts):
    table = [counts[:2], counts[2:]]
    ours = cohen_kappa(table)
    n = sum(counts)
    rows = [sum(r) for r in table]
    cols = [table[0][0] + table[1][0], table[0][1] + table[1][1]]
    if n == 0 or n in rows or n in cols:
        assert ours.single_category and ours.low is None and ours.high is None
        assert ours.kappa in (None, 0.0)
        return
    assert ours.kappa == pytest.approx(sklearn_kappa(table), abs=1e-9)
    se = agresti_se(table)
    assert ours.low == pytest.approx(max(-1.0, ours.kappa - Z * se), abs=1e-9)
    assert ours.high == pytest.approx(min(1.0, ours.kappa + Z * se), abs=1e-9)
    assert -1.0 <= ours.low <= ours.kappa <= ours.high <= 1.0


def test_all_agree_in_one_category_is_undefined_in_words():
    k = cohen_kappa([[20, 0], [0, 0]])
    assert (k.n, k.agree, k.observed, k.expected, k.kappa, k.low) == (20, 20, 1.0, 1.0, None, None)
    with pytest.warns(UndefinedMetricWarning, match="undefined"):  # scikit-learn agrees: undefined
        assert math.isnan(cohen_kappa_score([0] * 20, [0] * 20, labels=[0, 1]))
    assert "undefined" in kappa_note(k, "the verdict") and "100%" in kappa_note(k, "the verdict")


def test_all_agree_over_both_categories_is_kappa_one_with_an_interval_of_one():
    k = cohen_kappa([[12, 0], [0, 8]])
    assert (k.kappa, k.low, k.high) == (1.0, 1.0, 1.0)
    assert "too few" in kappa_note(k, "the verdict")
    assert kappa_note(cohen_kappa([[30, 0], [0, 10]]), "the verdict") is None


def test_one_rater_using_one_category_gives_kappa_zero_and_no_interval():
    k = cohen_kappa([[15, 5], [0, 0]])
    assert (k.kappa, k.low, k.high, k.single_category) == (0.0, None, None, True)
    assert "0 by construction" in kappa_note(k, "the verdict")


def test_no_answers_is_said_plainly():
    k = cohen_kappa([[0, 0], [0, 0]])
    assert (k.n, k.kappa, k.observed) == (0, None, None)
    assert kappa_note(k, "the verdict").startswith("No answer has both ratings")


@pytest.mark.parametrize("table", [[[1, 2]], [[1, 2], [3]], [[1, -1], [0, 0]], [[1, 2.0], [0, 0]],
                                   [[True, 0], [0, 1]], [[1]]],
                         ids=["one-row", "ragged", "negative", "float", "bool", "one-category"])
def test_a_table_that_is_not_one_is_refused(table):
    with pytest.raises(ValueError, match="table"):
        cohen_kappa(table)


# --------------------------------------------------------------------------- the report of a log


def rated_log():
    """Ann and Bo rate the 20 answers of a run whose C03 and C04 are not grounded; Ann also rates a repeat.

    Ann says no to everything on C03 and C05; Bo on C03, C04 and C06, and "followable" no on C07.
    """
    run_a = full_run("run-a", grounded=frozenset(f"C{i:02d}" for i in range(1, 21)) - {"C03", "C04"})
    repeat = call("run-a", "C01", time=30.0)
    ratings = []
    for i, entry in enumerate(run_a):
        case_id = entry["case_id"]
        ann_ok = case_id not in ("C03", "C05")
        ratings.append(rating(entry["id"], "Ann", ann_ok, time=100.0 + i))
        bo_ok = case_id not in ("C03", "C04", "C06")
        ratings.append(rating(entry["id"], "Bo", bo_ok, time=200.0 + i, followable=bo_ok and case_id != "C07"))
    # Ann first said C02 was not acceptable, then changed her mind: the later rating counts.
    ratings.insert(0, rating(run_a[1]["id"], "Ann", False, time=50.0))
    ratings.append(rating(repeat["id"], "Ann", False, time=300.0))
    return run_a + [repeat] + ratings


def test_two_raters_are_compared_per_question_on_the_answers_both_rated():
    report = agreement_report(rated_log())
    assert report["raters"] == ["Ann", "Bo"] and report["left_out"] == 1 and report["ratings"] == 40
    (pair,) = report["pairs"]
    assert pair["raters"] == ["Ann", "Bo"] and pair["n"] == 20
    by_key = {q["key"]: q for q in pair["questions"]}
    # Ann: no on C03, C05; Bo: no on C03, C04, C06 (and "followable" no on C07 too).
    assert by_key["pruning"]["table"] == [[16, 2], [1, 1]]
    assert by_key["followable"]["table"] == [[15, 3], [1, 1]]
    assert pair["overall"]["table"] == [[15, 3], [1, 1]]
    assert by_key["pruning"]["display"]["agreement"] == "17/20 (85.0%)"
    assert by_key["pruning"]["kappa"] == pytest.approx(sklearn_kappa([[16, 2], [1, 1]]))
    assert "too few" in by_key["pruning"]["note"]


def test_each_rater_against_the_grade_lists_the_disagreements():
    report = agreement_report(rated_log())
    ann, bo = report["versus_grade"]
    # rows: acceptable / not; columns: grounded / not grounded. C03 and C04 are not grounded.
    assert ann["table"] == [[17, 1], [1, 1]]
    assert [(d["case_id"], d["verdict"], d["outcome"]) for d in ann["disagreements"]] == [
        ("C04", "acceptable", "not_grounded"), ("C05", "not acceptable", "grounded")]
    assert bo["table"] == [[16, 0], [2, 2]]
    assert [d["case_id"] for d in bo["disagreements"]] == ["C06", "C07"]
    assert bo["kappa"] == pytest.approx(sklearn_kappa([[16, 0], [2, 2]]))


def test_one_rater_or_none_is_said_plainly():
    run = full_run("run-a")
    assert agreement_report(run)["note"] == "No counted answer has been rated yet."
    one = agreement_report(run + [rating(run[0]["id"], "Ann")])
    assert one["pairs"] == [] and one["note"].startswith("Only Ann has rated")
    assert "1 rating of counted answers by 1 rater (Ann)" in format_agreement_report(one)


def test_the_command_prints_the_report_of_an_export(tmp_path, capsys):
    log = rated_log()
    path = tmp_path / "export.json"
    path.write_text(export_json(log), encoding="utf-8")
    assert main(["agreement", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(agreement_report(parse_import(
        path.read_bytes()))))
    assert main(["agreement", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Ann and Bo: 20 answers rated by both" in text
    assert "  pruning        agree 17/20 (85.0%), kappa 0.32 (95% CI -0.27 to 0.90)" in text
    assert "    run run-a C05 (call " in text and "): not acceptable, graded grounded" in text
    assert f"at least {FEW_ANSWERS}" in text


def test_the_command_refuses_a_bad_file_in_words(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    assert main(["agreement", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nothing was imported" in err and "Error" not in err
