"""``python -m pyapp agreement`` on a judged log (DR-012): it says which judging a judge's figures rest on, takes
another with ``--judging``, and names how precisely each question is measured and the answers to rate next."""

from __future__ import annotations

import json

from eval_helpers import full_run
from judge_design import judgement, tabled_log
from pyapp.cli.main import main
from pyapp.evaluation.export import log_line
from pyapp.explanation.rubric import RUBRIC

WIDE_120 = [[96, 6], [8, 10]]


def judged_twice(tmp_path):
    """120 answers rated by Ann and judged (judging-1), 20 more no person rated, and all 140 judged again."""
    unrated = full_run("run-x", start=1000.0)
    entries = tabled_log(dict.fromkeys(RUBRIC.keys, WIDE_120)) + unrated
    entries += [judgement(c["id"], {**dict.fromkeys(RUBRIC.keys, True), "answer": i % 4 != 0}, time=4000.0 + i)
                for i, c in enumerate(unrated)]
    calls = [e["id"] for e in entries if e["type"] == "call"]
    entries += [judgement(c, dict.fromkeys(RUBRIC.keys, True), judging_id="judging-2", time=8000.0 + i)
                for i, c in enumerate(calls)]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(log_line(e) for e in entries), encoding="utf-8")
    return log, [c["id"] for c in unrated]


def test_the_text_names_the_judging_the_precision_per_question_and_the_answers_to_rate_next(tmp_path, capsys):
    log, unrated = judged_twice(tmp_path)
    assert main(["agreement", str(log)]) == 0
    out = capsys.readouterr().out
    assert ("judge judge-test-1 (judge): 140 verdicts and 0 judge failures in judging-1 [not validated: the "
            "interval is still too wide (±0.22 on 4 questions, widest on \"Does it say correctly why subtrees were "
            "skipped?\"; ±0.20 wanted)]") in out
    assert "  The figures rest on judging-1 (1 of 2), the first judging to ask about every counted answer" in out
    assert "    pruning         120 answers   ±0.22  25 more needed  too wide" in out
    assert ("At today's agreement, 25 more answers compared with the people's consensus would bring every "
            "question's interval within ±0.20.") in out
    assert "run-x C01, run-x C05, run-x C09, run-x C13, run-x C17, run-x C02, run-x C03" in out  # "no" first


def test_json_names_the_queue_in_full_and_another_judging_is_taken_when_named(tmp_path, capsys):
    log, unrated = judged_twice(tmp_path)
    assert main(["agreement", str(log), "--json"]) == 0
    (judge,) = json.loads(capsys.readouterr().out)["judges"]
    order = [a["call_id"] for a in judge["rate_next"]["answers"]]
    assert sorted(order) == sorted(unrated) and order[:5] == unrated[0:20:4]
    assert main(["agreement", str(log), "--json", "--judging", "judging-2"]) == 0
    (second,) = json.loads(capsys.readouterr().out)["judges"]
    assert second["judging"]["judging_id"] == "judging-2"
    assert second["judging_note"].startswith("The figures rest on judging-2 (2 of 2), as named.")
    assert second["why_not"] == 'the judge rated every answer "yes" on every question, so agreement cannot be measured'
    assert main(["agreement", str(log), "--judging", "judging-7"]) != 0
    assert "no judging 'judging-7' of a judge" in capsys.readouterr().err
