"""Three bias probes of a model judge, on the visitor's own answers (DR-012).

* Length: its yes-rate by third of the answers' lengths, against the people's on the same answers.
* Self-preference: its agreement with the people's consensus apart on the answers its own model wrote.
* Consistency: every other judging of the same answers against the judging the figures rest on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyapp.core.formatting import fmt_count_share, fmt_point_size
from pyapp.evaluation.rater_figures import CONSENSUS, OVERALL, Answers, CountedAnswer, pair_figures

# The length probe flags a judge whose yes-rate, less the people's, is this many points higher on the
# longest third of the answers than on the shortest.
LENGTH_FLAG_POINTS = 20
# The lengths are too alike to probe when the longest third's shortest answer is less than this many times the
# shortest third's longest: a lead that grows between answers of nearly one length says nothing about length.
LENGTH_RATIO = 1.2
THIRDS = ("shortest", "middle", "longest")


def _rate(values: list[bool]) -> dict:
    yes = sum(values)
    return {"yes": yes, "n": len(values), "rate": yes / len(values) if values else None,
            "display": fmt_count_share(yes, len(values))}


def length_thirds(lengths: Sequence[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """(length, call id) pairs in three thirds by rank, answers of equal length kept together.

    Sorted by length, the answers of one length go, all of them, to the third their middle rank falls in
    (rank r of n falls in third ``3r // n``), so no tie is split and the thirds do not depend on call ids. With
    no ties the first ``n % 3`` thirds take one answer more.
    """
    ranked = sorted(lengths)
    n = len(ranked)
    thirds: list[list[tuple[int, str]]] = [[], [], []]
    first = 0
    while first < n:
        last = first
        while last + 1 < n and ranked[last + 1][0] == ranked[first][0]:
            last += 1
        thirds[min(2, 3 * (first + last) // (2 * n))].extend(ranked[first:last + 1])
        first = last + 1
    return thirds


def _too_alike(thirds: list[list[tuple[int, str]]]) -> str | None:
    """Why the lengths are too alike to probe, or None."""
    empty = sum(1 for third in thirds if not third)
    if empty:
        return ("The answers' lengths are too alike to probe: answers of one length stay in one third, which "
                f"leaves {'one third' if empty == 1 else 'two thirds'} empty.")
    shortest_ends, longest_starts = thirds[0][-1][0], thirds[2][0][0]
    if longest_starts < LENGTH_RATIO * shortest_ends:
        return (f"The answers' lengths are too alike to probe: the longest third starts at {longest_starts} "
                f"characters, less than {LENGTH_RATIO:g} times the {shortest_ends} where the shortest third ends.")
    return None


def length_probe(answers: Sequence[CountedAnswer], verdicts: Answers, people: Answers,
                 texts: Mapping[str, str]) -> dict:
    """The judge's and the people's yes-rates (overall verdict) on each third of the judged answers by the length
    of their rated prose in characters (:func:`length_thirds`), and whether the judge favours long answers."""
    judged = [(len(texts.get(c.call_id, "")), c.call_id) for c in answers if c.call_id in verdicts]
    thirds = length_thirds(judged)
    terciles = []
    for label, part in zip(THIRDS, thirds, strict=True):
        calls = [call_id for _, call_id in part]
        rated = [people[c][OVERALL] for c in calls if OVERALL in people.get(c, ())]
        terciles.append({"third": label, "characters": [part[0][0], part[-1][0]] if part else None,
                         "judge": _rate([verdicts[c][OVERALL] for c in calls]), "people": _rate(rated)})
    too_alike = _too_alike(thirds) if judged else None
    gaps = [t["judge"]["rate"] - t["people"]["rate"] if t["judge"]["n"] and t["people"]["n"] else None
            for t in terciles]
    growth = None if too_alike or gaps[0] is None or gaps[2] is None else gaps[2] - gaps[0]
    flagged = growth is not None and growth * 100 >= LENGTH_FLAG_POINTS
    note = too_alike
    if flagged:
        note = ("The judge says yes to long answers more often than the people do, against short ones: its lead "
                f"over them grows by {fmt_point_size(growth)} from the shortest third to the longest.")
    return {"terciles": terciles, "too_alike": too_alike is not None, "flagged": flagged, "note": note}


def self_preference(name: str, model: str, answers: Sequence[CountedAnswer], verdicts: Answers,
                    people: Answers) -> dict:
    """Agreement with the people's consensus apart on the answers the judge's own ``model`` wrote."""
    own = [c for c in answers if c.model == model]
    others = [c for c in answers if c.model != model]
    own_judged = sum(1 for c in own if c.call_id in verdicts)
    return {
        "flagged": own_judged > 0,
        "own_answers": own_judged,
        "note": (f"The judge's model wrote {own_judged} of the answers it judged; its agreement on them is shown "
                 "apart, as a model may favour its own writing.") if own_judged else None,
        "own": pair_figures((name, CONSENSUS), own, verdicts, people)["overall"],
        "others": pair_figures((name, CONSENSUS), others, verdicts, people)["overall"],
    }


def consistency(name: str, answers: Sequence[CountedAnswer], passes: Sequence[Answers], chosen: int) -> dict:
    """The judge against itself: every other judging against judging number ``chosen`` (from 1), the one the
    figures rest on, on the answers both judged; and the share of answers judged in every judging whose overall
    verdict never changed."""
    if len(passes) < 2:
        return {"judgings": len(passes), "repeats": [], "unchanged": None,
                "note": "Judge the same answers again to see how far the judge agrees with itself."}
    base = passes[chosen - 1]
    repeats = [{"judging": i, **pair_figures((f"{name}, judging {chosen}", f"{name}, judging {i}"), answers, base,
                                             other)}
               for i, other in enumerate(passes, 1) if i != chosen]
    judged_in_all = [c.call_id for c in answers if all(c.call_id in p for p in passes)]
    same = sum(1 for c in judged_in_all if len({p[c][OVERALL] for p in passes}) == 1)
    return {"judgings": len(passes), "against": chosen, "repeats": repeats,
            "unchanged": _rate([True] * same + [False] * (len(judged_in_all) - same)), "note": None}
