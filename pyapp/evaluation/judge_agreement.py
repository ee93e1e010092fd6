"""A model judge measured against the people who rated the same answers, before anyone trusts it (DR-012).

For each judge (a model asked with today's judge prompt on today's rubric) the report gives:

* its kappa, per question and overall with the 2×2 tables, against each person, against the
  people's consensus (the strict majority of those who rated an answer; a split leaves that
  answer out of that question) and, for the overall verdict, against the mechanical grade;
* ``validated``: whether it has been compared with the consensus on at least
  :data:`VALIDATION_ANSWERS` answers. Below that its verdicts are labelled "not validated";
  above it they are still a signal shown beside the grounded rate, never part of it;
* three bias probes on the visitor's own answers: its yes-rate by answer-length tercile against
  the people's on the same answers, its agreement on answers written by its own model apart from
  the rest, and its agreement with itself when asked again (a later judging of the same answers).

A judge's verdict on an answer is the one from its earliest judging that gave one; judge
failures (no reply, or a reply that is not a verdict) are counted and listed, never rated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyapp.core.formatting import fmt_percent
from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.rater_figures import OVERALL, Answers, CountedAnswer, pair_figures, versus_grade, with_verdict
from pyapp.evaluation.runs import Run
from pyapp.explanation.judge import JUDGE_PROMPT_VERSION
from pyapp.explanation.rubric import RUBRIC, explanation_text

# Answers compared with the people's consensus before a judge's verdicts lose the "not validated" label.
# At 100 answers the kappa interval's half-width is at most 0.2 for the two reference tables of DR-012
# (0.157 for kappa 0.6 with even marginals, 0.180 for kappa 0.69 with 80% yes); at 80 the second is 0.201.
VALIDATION_ANSWERS = 100
NOT_VALIDATED = "not validated"
CONSENSUS = "people's consensus"
# The length probe flags a judge whose yes-rate, less the people's, is this many points higher on the
# longest third of the answers than on the shortest.
LENGTH_FLAG_POINTS = 20


def judge_name(model: str) -> str:
    """How a judge is named among the raters: by its model, marked as a judge so no person's name can match."""
    return f"{model} (judge)"


def judge_entries(entries: Sequence[dict]) -> dict[str, list[dict]]:
    """Model -> its judgement entries under today's judge prompt and rubric, in log order."""
    found: dict[str, list[dict]] = {}
    for entry in entries:
        if (entry["type"] == EntryType.JUDGEMENT and entry["prompt_version"] == JUDGE_PROMPT_VERSION
                and entry["rubric_version"] == RUBRIC.version):
            found.setdefault(entry["settings"]["model"], []).append(entry)
    return found


def judgings(found: Sequence[dict]) -> list[dict[str, dict[str, bool]]]:
    """Each judging's verdicts (call id -> answers with the overall verdict), earliest judging first; within
    one judging the latest verdict on a call counts."""
    started: dict[str, str] = {}
    verdicts: dict[str, dict[str, tuple[str, dict[str, bool]]]] = {}
    for entry in found:
        judging = entry["judging_id"]
        started[judging] = min(started.get(judging, entry["time"]), entry["time"])
        if entry["answers"] is None:
            continue
        given = verdicts.setdefault(judging, {})
        previous = given.get(entry["call_id"])
        if previous is None or entry["time"] >= previous[0]:
            given[entry["call_id"]] = (entry["time"], with_verdict(entry["answers"]))
    order = sorted(started, key=lambda j: (started[j], j))
    return [{call: answers for call, (_, answers) in verdicts.get(j, {}).items()} for j in order]


def consensus(by_rater: Mapping[str, Answers]) -> dict[str, dict[str, bool]]:
    """Call id -> the people's strict-majority answer per question and overall (a split is left out)."""
    votes: dict[str, dict[str, list[int]]] = {}
    for answers in by_rater.values():
        for call_id, given in answers.items():
            tally = votes.setdefault(call_id, {})
            for key, yes in given.items():
                counts = tally.setdefault(key, [0, 0])
                counts[0 if yes else 1] += 1
    return {call_id: {key: yes > no for key, (yes, no) in tally.items() if yes != no}
            for call_id, tally in votes.items()}


def judge_reports(entries: Sequence[dict], runs: Sequence[Run], answers: Sequence[CountedAnswer],
                  by_rater: Mapping[str, Answers]) -> list[dict]:
    """The report of every judge in ``entries`` (module doc), judges in model-name order."""
    found_by_model = judge_entries(entries)
    if not found_by_model:
        return []
    counted = {c.call_id for c in answers}
    people = consensus(by_rater)
    texts = {r.entry_id: explanation_text(r.answer or "") for run in runs for r in run.graded}
    return [_judge_report(model, found, answers, counted, by_rater, people, texts)
            for model, found in sorted(found_by_model.items())]


def first_verdicts(passes: Sequence[Answers]) -> dict[str, dict[str, bool]]:
    """Call id -> a judge's verdict on it: the one from its earliest judging that gave one (module doc)."""
    verdicts: dict[str, dict[str, bool]] = {}
    for judged in passes:
        for call_id, given in judged.items():
            verdicts.setdefault(call_id, given)
    return verdicts


def _counted_passes(found: Sequence[dict], counted: set[str]) -> list[dict[str, dict[str, bool]]]:
    return [{c: v for c, v in p.items() if c in counted} for p in judgings(found)]


def validated_judges(entries: Sequence[dict], answers: Sequence[CountedAnswer],
                     by_rater: Mapping[str, Answers]) -> dict[str, bool]:
    """Judge name -> whether it has been compared with the people's consensus on enough answers."""
    counted = {c.call_id for c in answers}
    people = consensus(by_rater)
    return {judge_name(model): sum(1 for call_id in first_verdicts(_counted_passes(found, counted))
                                   if OVERALL in people.get(call_id, ())) >= VALIDATION_ANSWERS
            for model, found in judge_entries(entries).items()}


def _judge_report(model: str, found: list[dict], answers: Sequence[CountedAnswer], counted: set[str],
                  by_rater: Mapping[str, Answers], people: Answers, texts: Mapping[str, str]) -> dict:
    name = judge_name(model)
    passes = _counted_passes(found, counted)
    verdicts = first_verdicts(passes)
    failures = [{"call_id": e["call_id"], "judging_id": e["judging_id"], "time": e["time"],
                 "failure": e["failure"] or e["error"], "message": e["message"]}
                for e in found if e["answers"] is None]
    versus_consensus = pair_figures((name, CONSENSUS), answers, verdicts, people)
    compared = versus_consensus["n"]
    validated = compared >= VALIDATION_ANSWERS
    return {
        "judge": name,
        "model": model,
        "requests": len(found),
        "verdicts": len(verdicts),
        "left_out": sum(1 for e in found if e["answers"] is not None and e["call_id"] not in counted),
        "failures": failures,
        "judgings": len(passes),
        "compared": compared,
        "validated": validated,
        "label": None if validated else NOT_VALIDATED,
        "validation_note": _validation_note(compared, validated),
        "versus_people": [pair_figures((name, person), answers, verdicts, by_rater[person])
                          for person in sorted(by_rater)],
        "versus_consensus": versus_consensus,
        "versus_grade": versus_grade(name, answers, verdicts),
        "length": length_probe(answers, verdicts, people, texts),
        "self_preference": self_preference(model, answers, verdicts, people),
        "consistency": consistency(name, answers, passes),
    }


def _validation_note(compared: int, validated: bool) -> str:
    if validated:
        return (f"Compared with the people on {compared} answers (at least {VALIDATION_ANSWERS} needed). Its "
                "verdicts are a signal beside the grounded rate, never part of it.")
    return (f"Not validated: compared with the people's consensus on {compared} of the {VALIDATION_ANSWERS} "
            "answers needed before its verdicts mean anything.")


def _rate(values: list[bool]) -> dict:
    yes = sum(values)
    return {"yes": yes, "n": len(values), "rate": yes / len(values) if values else None,
            "display": f"{yes}/{len(values)}" + (f" ({fmt_percent(yes / len(values))})" if values else "")}


def length_probe(answers: Sequence[CountedAnswer], verdicts: Answers, people: Answers,
                 texts: Mapping[str, str]) -> dict:
    """The judge's and the people's yes-rates (overall verdict) on each third of the judged answers by length.

    Lengths are the characters of the prose that is rated; ties in length are split by call id, so the thirds
    are the same on every reading. The first ``n % 3`` thirds take one answer more.
    """
    judged = sorted((len(texts.get(c.call_id, "")), c.call_id) for c in answers if c.call_id in verdicts)
    size, extra = divmod(len(judged), 3)
    terciles, start = [], 0
    for index, label in enumerate(("shortest", "middle", "longest")):
        part = judged[start:start + size + (index < extra)]
        start += len(part)
        calls = [call_id for _, call_id in part]
        judge = _rate([verdicts[c][OVERALL] for c in calls])
        rated = [people[c][OVERALL] for c in calls if OVERALL in people.get(c, ())]
        terciles.append({"third": label, "characters": [part[0][0], part[-1][0]] if part else None,
                         "judge": judge, "people": _rate(rated)})
    gaps = [t["judge"]["rate"] - t["people"]["rate"] if t["judge"]["n"] and t["people"]["n"] else None
            for t in terciles]
    flagged = gaps[0] is not None and gaps[2] is not None and (gaps[2] - gaps[0]) * 100 >= LENGTH_FLAG_POINTS
    return {"terciles": terciles, "flagged": flagged,
            "note": ("The judge says yes to long answers more often than the people do, against short ones: "
                     f"its lead over them grows by {fmt_percent(gaps[2] - gaps[0])} from the shortest third to "
                     "the longest.") if flagged else None}


def self_preference(model: str, answers: Sequence[CountedAnswer], verdicts: Answers, people: Answers) -> dict:
    """Agreement with the people's consensus apart on the answers the judge's own model wrote."""
    own = [c for c in answers if c.model == model]
    others = [c for c in answers if c.model != model]
    name = judge_name(model)
    own_judged = sum(1 for c in own if c.call_id in verdicts)
    return {
        "flagged": own_judged > 0,
        "own_answers": own_judged,
        "note": (f"The judge's model wrote {own_judged} of the answers it judged; its agreement on them is shown "
                 "apart, as a model may favour its own writing.") if own_judged else None,
        "own": pair_figures((name, CONSENSUS), own, verdicts, people)["overall"],
        "others": pair_figures((name, CONSENSUS), others, verdicts, people)["overall"],
    }


def consistency(name: str, answers: Sequence[CountedAnswer], passes: Sequence[Answers]) -> dict:
    """The judge against itself: each later judging against the first, on the answers both judged."""
    if len(passes) < 2:
        return {"judgings": len(passes), "repeats": [], "unchanged": None,
                "note": "Judge the same answers again to see how far the judge agrees with itself."}
    repeats = [{"judging": i, **pair_figures((f"{name}, judging 1", f"{name}, judging {i}"), answers, passes[0],
                                             later)}
               for i, later in enumerate(passes[1:], 2)]
    judged_in_all = [c.call_id for c in answers if all(c.call_id in p for p in passes)]
    same = sum(1 for c in judged_in_all if len({p[c][OVERALL] for p in passes}) == 1)
    return {"judgings": len(passes), "repeats": repeats,
            "unchanged": _rate([True] * same + [False] * (len(judged_in_all) - same)), "note": None}

