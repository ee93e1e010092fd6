"""What the evaluation page's demo shows: the script its scripted models, people and judge follow.

Two configurations (two scripted models behind an OpenAI-compatible server on loopback), three runs each of
the twenty-case set, in which every kind of outcome happens and some cases flip between repeats; two people
rating the first run's answers on the rubric, disagreeing on some; two judgings of those answers by a scripted
judge. :mod:`sitegen.demo_model` plays the models, :mod:`sitegen.demo_log` writes the log. Nothing here imports
pyapp, so a build that finds the log in its cache never does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

# What the scripted model does with a case. The first three answer faithfully (graded grounded, the second too
# tersely to learn from, the third giving a skip the wrong reason); the next six slip on one or two claims (not
# grounded); then three model failures (a reply cut at the token limit is one too, which the model's token limit
# decides); the last four fail at the server, the first two for good (an infrastructure failure), the other
# two once, before a faithful answer.
FAITHFUL, TERSE, WRONG_WHY = "faithful", "terse", "wrong-reason-for-a-skip"
VISITED, PRUNED, DISTANCE, RESULT = "wrong-nodes-visited", "wrong-subtrees-pruned", "wrong-distance", "wrong-result"
CITED, SHOWN_ONLY = "cited-step-not-in-trace", "counted-only-the-steps-shown"
INVALID_JSON, SCHEMA, REFUSAL = "text-around-the-json", "count-as-text", "refusal"
SERVER_DOWN, UNREACHABLE, BUSY_ONCE, RATE_LIMITED_ONCE = "server-down", "unreachable", "busy-once", "rate-limited-once"

SLIPS = (VISITED, PRUNED, DISTANCE, RESULT, CITED, SHOWN_ONLY)
MODEL_FAILURES = (INVALID_JSON, SCHEMA, REFUSAL)
DOWN = (SERVER_DOWN, UNREACHABLE)
BEHAVIOURS = (FAITHFUL, TERSE, WRONG_WHY, *SLIPS, *MODEL_FAILURES, *DOWN, BUSY_ONCE, RATE_LIMITED_ONCE)

BASE_URL = "http://127.0.0.1:8080/v1"
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TAG = "de0"  # in every run and judging id, where pyapp puts three random bytes


def at(hours: int, minutes: int) -> datetime:
    """A time of the demo's day."""
    return START.replace(hour=hours, minute=minutes)


@dataclass(frozen=True)
class Configuration:
    """One scripted model with its settings; ``script`` says, per case, what it does in each run (started at
    ``starts``); ``label`` names its runs (``a`` gives a1, a2, a3)."""

    label: str
    model: str
    max_tokens: int
    temperature: float
    starts: tuple[datetime, ...]
    script: Mapping[str, tuple[str, ...]]


# Model a answers within 4,000 tokens and slips now and then; model b gets 800, so its answers listing a
# radius search's hundreds of points are cut at the token limit, and it fails in more ways.
CONFIGURATIONS = (
    Configuration("a", "scripted-demo-a", 4000, 0.0, (at(9, 0), at(9, 20), at(9, 40)), {
        "C01": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C02": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C03": (VISITED, VISITED, VISITED),
        "C04": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C05": (WRONG_WHY, FAITHFUL, FAITHFUL),
        "C06": (DISTANCE, FAITHFUL, FAITHFUL),
        "C07": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C08": (SHOWN_ONLY, SHOWN_ONLY, SHOWN_ONLY),
        "C09": (FAITHFUL, BUSY_ONCE, FAITHFUL),
        "C10": (CITED, FAITHFUL, CITED),
        "C11": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C12": (TERSE, FAITHFUL, FAITHFUL),
        "C13": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C14": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C15": (RESULT, FAITHFUL, FAITHFUL),
        "C16": (FAITHFUL, FAITHFUL, INVALID_JSON),
        "C17": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C18": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C19": (PRUNED, FAITHFUL, FAITHFUL),
        "C20": (FAITHFUL, UNREACHABLE, FAITHFUL),
    }),
    Configuration("b", "scripted-demo-b", 800, 0.7, (at(10, 0), at(10, 20), at(10, 40)), {
        "C01": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C02": (DISTANCE, FAITHFUL, DISTANCE),
        "C03": (SHOWN_ONLY, SHOWN_ONLY, SHOWN_ONLY),
        "C04": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C05": (FAITHFUL, TERSE, FAITHFUL),
        "C06": (DISTANCE, DISTANCE, DISTANCE),
        "C07": (VISITED, FAITHFUL, VISITED),
        "C08": (SHOWN_ONLY, SHOWN_ONLY, REFUSAL),
        "C09": (FAITHFUL, CITED, FAITHFUL),
        "C10": (CITED, CITED, CITED),
        "C11": (FAITHFUL, RESULT, FAITHFUL),
        "C12": (FAITHFUL, FAITHFUL, SCHEMA),
        "C13": (INVALID_JSON, FAITHFUL, FAITHFUL),
        "C14": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C15": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C16": (PRUNED, FAITHFUL, FAITHFUL),
        "C17": (FAITHFUL, FAITHFUL, FAITHFUL),
        "C18": (REFUSAL, FAITHFUL, FAITHFUL),
        "C19": (FAITHFUL, FAITHFUL, RATE_LIMITED_ONCE),
        "C20": (FAITHFUL, SERVER_DOWN, FAITHFUL),
    }),
)
RATED = CONFIGURATIONS[0]  # the people rate, and the judge judges, the answers of its first run

# Each person rates the first run's answers, starting then; what they answer "no" to, by the behaviour of the
# answer (every other question: yes), and the note they leave. They agree on most answers; Aino is stricter
# about the distance, the count of skips, and a walkthrough that counts only the steps shown.
RATERS = {"Aino": at(14, 0), "Ben": at(15, 0)}
PEOPLE_NO: dict[str, dict[str, tuple[str, ...]]] = {
    "Aino": {TERSE: ("followable",), WRONG_WHY: ("pruning",), DISTANCE: ("answer",), RESULT: ("answer",),
             CITED: ("pruning", "no_invention"), PRUNED: ("pruning",), SHOWN_ONLY: ("followable",)},
    "Ben": {TERSE: ("followable",), WRONG_WHY: ("pruning",), RESULT: ("answer",), CITED: ("no_invention",)},
}
NOTES = {
    WRONG_WHY: "The skip is explained by which side the query is on, not by the gap and the best distance.",
    DISTANCE: "The right point, but the distance is the first candidate's.",
    RESULT: "It leaves out a point the search reported.",
    CITED: "It says a far side was skipped where the trace searches it.",
    PRUNED: "One skip too many.",
    TERSE: "Too short to learn from.",
    SHOWN_ONLY: "It counts only the steps shown, which a learner would take for the whole search.",
}

JUDGE_MODEL = "scripted-demo-judge"
JUDGINGS = (at(16, 0), at(16, 30))
JUDGE_CUT_SHORT = ("C17",)  # the first judging's reply about it stops at the token limit: a judge failure
# The questions the scripted judge answers "no" to, by the behaviour of the answer it reads, in each judging
# (every other question: yes). It catches a wrong answer, an invented step and counts of the steps shown taken
# for the whole search, misses a wrong count (the rubric asks about the prose) and is lenient on a terse answer;
# on the wrong reason for a skip it changes its mind.
JUDGE_NO: dict[str, tuple[tuple[str, ...], ...]] = {
    WRONG_WHY: ((), ("pruning",)),
    SHOWN_ONLY: (("followable",), ("followable",)),
    DISTANCE: (("answer",), ("answer",)),
    RESULT: (("answer",), ("answer",)),
    CITED: (("no_invention", "pruning"), ("no_invention",)),
}


def run_id(config: Configuration, number: int) -> str:
    """The id of run ``number`` (from 1) of ``config``, shaped as pyapp shapes run ids."""
    return f"run-{config.starts[number - 1]:%Y%m%d-%H%M%S}-{TAG}{config.label}{number:02d}"


def judging_id(number: int) -> str:
    """The id of judging ``number`` (from 1), shaped as pyapp shapes judging ids."""
    return f"judging-{JUDGINGS[number - 1]:%Y%m%d-%H%M%S}-{TAG}j{number:02d}"
