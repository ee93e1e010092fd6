"""A model judge measured against the people who rated the same answers, before anyone trusts it (DR-012).

Each judge (a model asked with today's judge prompt on today's rubric) is measured on one judging, never on a
mix: by default the first complete one (it has an entry, a verdict or a judge failure, on every counted answer of
each run it judged), else the first; another can be named. On that judging's verdicts alone, the report gives:

* its kappa, per question and overall with the 2×2 tables, against each person, against the people's consensus
  (the strict majority of those who rated an answer; a split leaves that answer out of that question) and, for
  the overall verdict, against the mechanical grade;
* whether it is validated, how many more answers each question needs, and the answers to rate next
  (:mod:`pyapp.evaluation.judge_validation`);
* the judging's judge failures (no reply, or a reply that is not a verdict), listed and never rated;
* three bias probes (:mod:`pyapp.evaluation.judge_probes`); the other judgings feed the consistency probe.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from pyapp.core.formatting import counted
from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.judge_probes import consistency, length_probe, self_preference
from pyapp.evaluation.judge_validation import rate_next, validation
from pyapp.evaluation.rater_figures import (
    CONSENSUS,
    Answers,
    CountedAnswer,
    consensus,
    pair_figures,
    versus_grade,
    with_verdict,
)
from pyapp.evaluation.runs import Run
from pyapp.explanation.judge import JUDGE_PROMPT_VERSION
from pyapp.explanation.rubric import RUBRIC, explanation_text


@dataclass(frozen=True)
class Judging:
    """One judging of a judge, on the counted answers: its verdicts (the latest on a call counts), its judge
    failures (entries), how many answers it asked about, and whether it asked about every counted answer of each
    run it judged."""

    judging_id: str
    number: int
    verdicts: dict[str, dict[str, bool]]
    failures: list[dict]
    asked: int
    left_out: int
    complete: bool

    def to_json(self, of: int) -> dict:
        said = (f"{counted(len(self.verdicts), 'verdict')} and {counted(len(self.failures), 'judge failure')} on "
                f"{counted(self.asked, 'answer')}")
        return {"judging_id": self.judging_id, "number": self.number, "verdicts": len(self.verdicts),
                "failures": len(self.failures), "asked": self.asked, "complete": self.complete,
                "display": f"{self.judging_id} ({self.number} of {of}): {said}"
                           + ("" if self.complete else ", stopped short of its runs' counted answers")}


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


def judgings(found: Sequence[dict], answers: Sequence[CountedAnswer]) -> list[Judging]:
    """The judgings of one judge's entries, in the order they started (module doc)."""
    run_of = {c.call_id: c.run_id for c in answers}
    per_run = Counter(run_of.values())
    started: dict[str, str] = {}
    latest: dict[str, dict[str, tuple[str, dict[str, bool]]]] = {}
    failures: dict[str, list[dict]] = {}
    asked: dict[str, set[str]] = {}
    left_out: Counter[str] = Counter()
    for entry in found:  # one pass: a long log holds tens of thousands of judgements
        judging, call_id, given = entry["judging_id"], entry["call_id"], entry["answers"]
        started[judging] = min(started.get(judging, entry["time"]), entry["time"])
        if call_id not in run_of:
            left_out[judging] += given is not None
            continue
        asked.setdefault(judging, set()).add(call_id)
        if given is None:
            failures.setdefault(judging, []).append(entry)
            continue
        verdicts = latest.setdefault(judging, {})
        previous = verdicts.get(call_id)
        if previous is None or entry["time"] >= previous[0]:
            verdicts[call_id] = (entry["time"], given)
    passes = []
    for number, judging in enumerate(sorted(started, key=lambda j: (started[j], j)), 1):
        calls = asked.get(judging, set())
        passes.append(Judging(
            judging, number,
            {call_id: with_verdict(given) for call_id, (_, given) in latest.get(judging, {}).items()},
            failures.get(judging, []), len(calls), left_out[judging],
            bool(calls) and len(calls) == sum(per_run[r] for r in {run_of[c] for c in calls})))
    return passes


def chosen_judging(passes: Sequence[Judging], named: Collection[str] = ()) -> Judging:
    """The judging a judge's figures rest on: the one named, else the first complete one, else the first."""
    return next((p for p in passes if p.judging_id in named), None) or next(
        (p for p in passes if p.complete), passes[0])


def _judgings_by_model(found_by_model: Mapping[str, Sequence[dict]], answers: Sequence[CountedAnswer],
                       named: Collection[str]) -> dict[str, list[Judging]]:
    """Model -> its judgings, models in name order; ``ValueError`` for a named judging that is no judging of a
    judge, or for two named judgings of one judge."""
    by_model = {model: judgings(found, answers) for model, found in sorted(found_by_model.items())}
    known = {p.judging_id: model for model, passes in by_model.items() for p in passes}
    for judging in named:
        if judging not in known:
            raise ValueError(f"no judging {judging!r} of a judge under today's prompt and rubric in the log")
    for model in by_model:
        mine = [j for j in named if known[j] == model]
        if len(mine) > 1:
            raise ValueError(f"{mine[0]!r} and {mine[1]!r} are judgings of one judge; name one of them")
    return by_model


def _measured(passes: Sequence[Judging], chosen: Judging, name: str, answers: Sequence[CountedAnswer],
              by_rater: Mapping[str, Answers], people: Answers) -> tuple[dict, dict, list[CountedAnswer]]:
    """A judging against the people's consensus, whether that validates its judge, and the answers to rate next."""
    versus_consensus = pair_figures((name, CONSENSUS), answers, chosen.verdicts, people)
    rated = {call_id for given in by_rater.values() for call_id in given}
    unrated = sum(1 for c in answers if c.call_id in chosen.verdicts and c.call_id not in rated)
    checked = validation(versus_consensus, chosen.judging_id, unrated)
    return versus_consensus, checked, rate_next(answers, chosen.verdicts, rated, checked["questions"])


def validated_judges(entries: Sequence[dict], answers: Sequence[CountedAnswer],
                     by_rater: Mapping[str, Answers]) -> dict[str, bool]:
    """Judge name -> whether its default judging validates it (module doc)."""
    people = consensus(by_rater)
    validated = {}
    for model, passes in _judgings_by_model(judge_entries(entries), answers, ()).items():
        name = judge_name(model)
        validated[name] = _measured(passes, chosen_judging(passes), name, answers, by_rater, people)[1]["validated"]
    return validated


def rate_next_for(entries: Sequence[dict], answers: Sequence[CountedAnswer], by_rater: Mapping[str, Answers],
                  judge: str, judging: str | None = None) -> list[CountedAnswer]:
    """The answers to rate next, likely to validate ``judge`` (a judge's name) soonest, on ``judging`` (its
    default judging when None), as its report names them; ``ValueError`` for a judge or judging not in the log."""
    named = () if judging is None else (judging,)
    for model, passes in _judgings_by_model(judge_entries(entries), answers, named).items():
        if judge_name(model) == judge:
            return _measured(passes, chosen_judging(passes, named), judge, answers, by_rater,
                             consensus(by_rater))[2]
    raise ValueError(f"no judge {judge!r} in the log")


def judge_reports(entries: Sequence[dict], runs: Sequence[Run], answers: Sequence[CountedAnswer],
                  by_rater: Mapping[str, Answers], named: Collection[str] = ()) -> list[dict]:
    """The report of every judge in ``entries`` (module doc), judges in model-name order; each rests on its
    judging in ``named``, if one is, else on its default. ``ValueError`` for a name that is no judging."""
    found_by_model = judge_entries(entries)
    by_model = _judgings_by_model(found_by_model, answers, named)
    if not by_model:
        return []
    people = consensus(by_rater)
    texts = {r.entry_id: explanation_text(r.answer or "") for run in runs for r in run.graded}
    return [_judge_report(model, passes, len(found_by_model[model]), named, answers, by_rater, people, texts)
            for model, passes in by_model.items()]


def _judging_note(chosen: Judging, passes: Sequence[Judging], named: Collection[str]) -> str:
    if chosen.judging_id in named:
        why = "as named"
    elif chosen.complete:
        why = "the first judging to ask about every counted answer of its runs"
    else:
        why = "the first judging, as none asked about every counted answer of its runs"
    note = f"The figures rest on {chosen.judging_id} ({chosen.number} of {len(passes)}), {why}."
    if len(passes) > 1:
        note += " The other judgings are compared with it for consistency; each can be shown on its own."
    return note


def _rate_next_note(order: Sequence[CountedAnswer], chosen: Judging, validated: bool) -> str | None:
    if validated:
        return None
    if not order:
        return (f"Every answer judged in {chosen.judging_id} has a person's rating: more answers must be judged "
                "to be compared.")
    return (f"{counted(len(order), 'answer')} judged in {chosen.judging_id} {'has' if len(order) == 1 else 'have'} "
            "no person's rating. Rated in this order, they are likely to narrow the intervals soonest: first those "
            "the judge said \"no\" to on more of the questions not yet measured precisely enough, then in run and "
            "case order. Whoever rates them sees the answers only, never the judge's verdicts.")


def _judge_report(model: str, passes: list[Judging], requests: int, named: Collection[str],
                  answers: Sequence[CountedAnswer], by_rater: Mapping[str, Answers], people: Answers,
                  texts: Mapping[str, str]) -> dict:
    name = judge_name(model)
    chosen = chosen_judging(passes, named)
    verdicts = chosen.verdicts
    versus_consensus, checked, order = _measured(passes, chosen, name, answers, by_rater, people)
    return {
        "judge": name,
        "model": model,
        "requests": requests,
        "judgings": len(passes),
        "judging": chosen.to_json(len(passes)),
        "each_judging": [p.to_json(len(passes)) for p in passes],
        "judging_note": _judging_note(chosen, passes, named),
        "verdicts": len(verdicts),
        "left_out": chosen.left_out,
        "failures": [{"call_id": e["call_id"], "judging_id": e["judging_id"], "time": e["time"],
                      "failure": e["failure"] or e["error"], "message": e["message"]} for e in chosen.failures],
        "compared": versus_consensus["n"],
        "validated": checked["validated"],
        "label": checked["label"],
        "why_not": checked["why_not"],
        "validation_note": checked["note"],
        "precision": {key: checked[key] for key in ("half_width", "least_answers", "questions", "still_needed")},
        "rate_next": {"judging_id": chosen.judging_id, "note": _rate_next_note(order, chosen, checked["validated"]),
                      "answers": [{"run_id": c.run_id, "case_id": c.case_id, "call_id": c.call_id} for c in order]},
        "versus_people": [pair_figures((name, person), answers, verdicts, by_rater[person])
                          for person in sorted(by_rater)],
        "versus_consensus": versus_consensus,
        "versus_grade": versus_grade(name, answers, verdicts),
        "length": length_probe(answers, verdicts, people, texts),
        "self_preference": self_preference(name, model, answers, verdicts, people),
        "consistency": consistency(name, answers, [p.verdicts for p in passes], chosen.number),
    }
