"""A model judge measured against people (DR-012): kappa against an independent computation, the three bias
probes, and judge failures that are never counted. When it is validated: test_judge_validation.py."""

from __future__ import annotations

import pytest

from eval_helpers import OTHER_SETTINGS, answer_for, call, full_run, rating
from judge_design import JUDGE_MODEL, designed_log, judgement
from kappa_reference import Z, agresti_se, sklearn_kappa
from pyapp.evaluation.agreement import agreement_report
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.judge_agreement import judge_name
from pyapp.evaluation.judge_probes import LENGTH_FLAG_POINTS, length_thirds
from pyapp.evaluation.kappa import answers_for_half_width, cohen_kappa
from pyapp.evaluation.rater_figures import CONSENSUS
from pyapp.explanation.rubric import RUBRIC, overall_verdict

JUDGE = judge_name(JUDGE_MODEL)


def table_of(pairs: list[tuple[bool, bool]]) -> list[list[int]]:
    """The 2×2 table written out independently of pyapp: rows the first's yes/no, columns the second's."""
    return [[sum(1 for a, b in pairs if a and b), sum(1 for a, b in pairs if a and not b)],
            [sum(1 for a, b in pairs if not a and b), sum(1 for a, b in pairs if not a and not b)]]


def judged(entries: list[dict], design: dict, **overrides) -> list[dict]:
    return entries + [judgement(call_id, d["judge"], time=5000.0 + i, **overrides)
                      for i, (call_id, d) in enumerate(design.items())]


def test_the_reference_tables_of_dr_012_need_these_many_answers_for_a_fifth():
    even = cohen_kappa([[40, 10], [10, 40]])  # kappa 0.6 with even marginals
    skewed = cohen_kappa([[75, 5], [5, 15]])  # kappa 0.69 with 80% yes
    assert (round(even.half_width, 3), round(skewed.half_width, 3)) == (0.157, 0.180)
    assert (answers_for_half_width(even, 0.2), answers_for_half_width(skewed, 0.2)) == (62, 82)


def the_judge(report: dict) -> dict:
    (judge,) = report["judges"]
    return judge


def check_figure(figure: dict, pairs: list[tuple[bool, bool]]) -> None:
    table = table_of(pairs)
    assert figure["table"] == table
    assert round(figure["kappa"], 4) == round(sklearn_kappa(table), 4)
    se = agresti_se(table)
    assert [round(x, 4) for x in figure["interval"]] == [round(max(-1.0, figure["kappa"] - Z * se), 4),
                                                         round(min(1.0, figure["kappa"] + Z * se), 4)]


def test_the_judges_kappa_against_each_person_equals_an_independent_computation_per_question():
    entries, design = designed_log()
    judge = the_judge(agreement_report(judged(entries, design)))
    assert [p["raters"] for p in judge["versus_people"]] == [[JUDGE, "Ann"], [JUDGE, "Bo"]]
    for pair, person in zip(judge["versus_people"], ("Ann", "Bo"), strict=True):
        assert pair["n"] == 40
        for q in pair["questions"]:
            check_figure(q, [(d["judge"][q["key"]], d[person][q["key"]]) for d in design.values()])
        check_figure(pair["overall"], [(overall_verdict(d["judge"]), overall_verdict(d[person]))
                                       for d in design.values()])


def test_the_consensus_is_where_the_people_agree_and_the_judge_is_measured_on_it():
    entries, design = designed_log()
    judge = the_judge(agreement_report(judged(entries, design)))
    pair = judge["versus_consensus"]
    assert pair["raters"] == [JUDGE, CONSENSUS]
    for q in pair["questions"]:
        key = q["key"]
        check_figure(q, [(d["judge"][key], d["Ann"][key]) for d in design.values() if d["Ann"][key] == d["Bo"][key]])
    agreed = [d for d in design.values() if overall_verdict(d["Ann"]) == overall_verdict(d["Bo"])]
    check_figure(pair["overall"], [(overall_verdict(d["judge"]), overall_verdict(d["Ann"])) for d in agreed])
    assert judge["compared"] == len(agreed) < 40


def test_the_judge_against_the_mechanical_grade():
    entries = full_run("run-a", frozenset({"C01", "C02", "C03"}))
    calls = [e for e in entries if e["type"] == "call"]
    verdicts = {e["id"]: e["case_id"] in ("C01", "C04") for e in calls}  # yes to one grounded, one not
    entries += [judgement(call_id, dict.fromkeys(RUBRIC.keys, yes)) for call_id, yes in verdicts.items()]
    grade = the_judge(agreement_report(entries))["versus_grade"]
    assert grade["table"] == [[1, 1], [2, 16]]
    assert grade["kappa"] == pytest.approx(sklearn_kappa([[1, 1], [2, 16]]))
    assert {d["case_id"] for d in grade["disagreements"]} == {"C02", "C03", "C04"}


def test_a_judge_that_says_yes_to_every_long_answer_is_shown_by_the_length_probe():
    entries, design = designed_log()
    fair = the_judge(agreement_report(judged(entries, design)))["length"]
    biased_entries = entries + [judgement(call_id, dict.fromkeys(RUBRIC.keys, True) if d["long"] else d["judge"],
                                          time=5000.0 + i) for i, (call_id, d) in enumerate(design.items())]
    biased = the_judge(agreement_report(biased_entries))["length"]
    assert not fair["flagged"] and biased["flagged"] and "long answers" in biased["note"]
    longest = biased["terciles"][2]
    assert longest["judge"]["rate"] == 1.0 and longest["people"]["rate"] < 1.0
    gap = [t["judge"]["rate"] - t["people"]["rate"] for t in biased["terciles"]]
    assert (gap[2] - gap[0]) * 100 >= LENGTH_FLAG_POINTS
    assert biased["note"].endswith(f"grows by {round((gap[2] - gap[0]) * 100, 1)} points from the shortest third to "
                                   "the longest.")  # points, never a percentage
    assert sum(t["judge"]["n"] for t in biased["terciles"]) == 40
    spans = [t["characters"] for t in biased["terciles"]]
    assert spans[0][1] < spans[1][0] and spans[1][1] < spans[2][0]  # no length in two thirds


def prose_log(lengths: list[int]) -> tuple[list[dict], list[str]]:
    """Runs of the 20-case set whose answers' prose has the given lengths in characters, rated yes by Ann."""
    entries = []
    for i, length in enumerate(lengths):
        prose = ("The search starts at the root in step 1." + " and so on" * 60)[:length]
        entries.append(call(f"run-{i // 20}", FIXED_SETS.case_ids()[i % 20], time=100.0 * (i // 20) + i % 20,
                            answer=answer_for(FIXED_SETS.case_ids()[i % 20], prose=prose)))
    calls = [e["id"] for e in entries]
    return entries + [rating(c, "Ann", time=1000.0 + i, answer=i % 2 == 0) for i, c in enumerate(calls)], calls


@pytest.mark.parametrize("reverse", [False, True], ids=["ids-ascending", "ids-descending"])
def test_answers_of_equal_length_stay_in_one_third_whatever_their_call_ids(reverse):
    lengths = [100] * 10 + [200] * 20 + [300] * 10
    ids = [f"c{i:02d}" for i in range(40)]
    thirds = length_thirds(list(zip(lengths, reversed(ids) if reverse else ids, strict=True)))
    assert [sorted({length for length, _ in third}) for third in thirds] == [[100], [200], [300]]
    assert [len(third) for third in thirds] == [10, 20, 10]
    assert [len(third) for third in length_thirds([(n, f"c{n}") for n in range(40)])] == [14, 13, 13]  # no ties


def test_a_tie_across_a_third_is_never_split_by_call_id_in_the_report():
    entries, calls = prose_log([120] * 12 + [150] * 6 + [200] * 12 + [260] * 10)
    entries += [judgement(c, dict.fromkeys(RUBRIC.keys, True)) for c in calls]
    length = the_judge(agreement_report(entries))["length"]
    # By rank alone the first third would end two answers into the 150s and the last start two into the 200s.
    assert [t["characters"] for t in length["terciles"]] == [[120, 120], [150, 200], [260, 260]]
    assert [t["judge"]["n"] for t in length["terciles"]] == [12, 18, 10]


def test_lengths_too_alike_to_probe_are_said_so_and_never_flagged():
    lengths = [157 + i % 3 for i in range(40)]  # 157 to 159 characters
    entries, calls = prose_log(lengths)
    by_length = dict(zip(calls, lengths, strict=True))
    entries += [judgement(c, {**dict.fromkeys(RUBRIC.keys, True), "answer": by_length[c] == 159}) for c in calls]
    length = the_judge(agreement_report(entries))["length"]
    assert not length["flagged"] and length["too_alike"]
    assert length["note"] == ("The answers' lengths are too alike to probe: the longest third starts at 159 "
                              "characters, less than 1.2 times the 157 where the shortest third ends.")
    assert [t["characters"] for t in length["terciles"]] == [[157, 157], [158, 158], [159, 159]]


def test_answers_written_by_the_judges_own_model_are_flagged_and_measured_apart():
    entries = full_run("run-own") + full_run("run-other", settings=OTHER_SETTINGS, start=100.0)
    calls = [e for e in entries if e["type"] == "call"]
    entries += [rating(e["id"], "Ann", time=1000.0 + i, answer=i % 3 != 0) for i, e in enumerate(calls)]
    entries += [judgement(e["id"], {**dict.fromkeys(RUBRIC.keys, True), "answer": i % 3 != 0 or i >= 20},
                          model="claude-test-1") for i, e in enumerate(calls)]
    own = the_judge(agreement_report(entries))["self_preference"]
    assert own["flagged"] and own["own_answers"] == 20
    assert own["own"]["kappa"] == pytest.approx(1.0) and own["own"]["n"] == 20
    assert own["others"]["table"] == [[13, 7], [0, 0]] and own["others"]["kappa"] == 0.0


def test_judging_again_gives_the_judges_agreement_with_itself():
    entries, design = designed_log()
    entries = judged(entries, design)
    items = list(design.items())
    flipped = {call_id for call_id, _ in items[:5]}
    entries += [judgement(call_id, {**d["judge"], "followable": not d["judge"]["followable"]}
                          if call_id in flipped else d["judge"], judging_id="judging-2", time=9000.0 + i)
                for i, (call_id, d) in enumerate(items)]
    report = the_judge(agreement_report(entries))
    same = report["consistency"]
    assert same["judgings"] == 2 and report["judgings"] == 2 and same["against"] == 1
    first = [overall_verdict(d["judge"]) for _, d in items]
    second = [overall_verdict({**d["judge"], "followable": not d["judge"]["followable"]})
              if call_id in flipped else overall_verdict(d["judge"]) for call_id, d in items]
    check_figure(same["repeats"][0]["overall"], list(zip(first, second, strict=True)))
    changed = sum(a != b for a, b in zip(first, second, strict=True))
    assert same["unchanged"]["yes"] == 40 - changed and same["unchanged"]["n"] == 40
    # The first judging's verdicts are the judge's verdicts.
    assert report["versus_people"][0]["questions"][3]["table"] == table_of(
        [(d["judge"]["followable"], d["Ann"]["followable"]) for d in design.values()])


def test_judge_failures_are_listed_and_never_counted():
    entries, design = designed_log()
    call_ids = list(design)
    entries = judged(entries, {k: design[k] for k in call_ids[3:]})
    entries += [judgement(call_ids[0], None, failure="invalid_json"), judgement(call_ids[1], None, failure="refusal"),
                judgement(call_ids[2], None, error="bad_request")]
    judge = the_judge(agreement_report(entries))
    assert judge["verdicts"] == 37 and judge["requests"] == 40
    assert [f["failure"] for f in judge["failures"]] == ["invalid_json", "refusal", "bad_request"]
    assert judge["versus_people"][0]["n"] == 37


def test_the_people_figures_are_what_they_were_without_a_judge():
    entries, design = designed_log()
    without = agreement_report(entries)
    with_judge = agreement_report(judged(entries, design))
    assert without["judges"] == [] and {k: v for k, v in with_judge.items() if k != "judges"} == {
        k: v for k, v in without.items() if k != "judges"}
