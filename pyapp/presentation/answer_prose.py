"""An answer read as an answer: its walkthrough as paragraphs with each step it names linked into the explorer,
and its claims in a small table against what the search says (DR-008). The case view shows these first and
the answer as logged one fold away.

The page places each segment as text; a segment with ``step`` becomes a link to the explorer at that step.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pyapp.core.formatting import fmt_count
from pyapp.explanation.checks import MAX_LISTED, Facts
from pyapp.explanation.prompt import NUMBER_DECIMALS

# "step 12", "steps 3, 5 and 9", "Steps 40–42": the word, then numbers joined by commas, "and", "or", "to" or a dash.
_STEPS = re.compile(r"\b(?:[Ss]teps?)\s+\d+(?:(?:\s*,\s*|\s+(?:and|or|to)\s+|\s*[–-]\s*)\d+)*")
_NUMBER = re.compile(r"\d+")
# Each numeric claim: the check that reads it, its name on the page, its key in the answer.
_CLAIMS = (("result", "Result", "result_ids"), ("distance", "Distance", "distance"),
           ("nodes_visited", "Nodes visited", "nodes_visited"),
           ("subtrees_pruned", "Subtrees pruned", "subtrees_pruned"))


def walkthrough_paragraphs(text: str, sent: set[int], link: Callable[[int], str]) -> list[list[dict]]:
    """``text`` as paragraphs (split at blank lines, or at line ends when it has none), each a list of
    segments ``{"text"}``; a step number the prompt sent (in ``sent``) is a segment with ``step`` and
    ``explorer``, the explorer's query at that step (``link``)."""
    blocks = re.split(r"\n\s*\n", text.strip()) if "\n\n" in text.replace("\r", "") else text.strip().splitlines()
    paragraphs = []
    for block in blocks:
        block = " ".join(line.strip() for line in block.splitlines()).strip()
        if block:
            paragraphs.append(_segments(block, sent, link))
    return paragraphs


def _segments(block: str, sent: set[int], link: Callable[[int], str]) -> list[dict]:
    segments: list[dict] = []
    place = 0

    def text(upto: int) -> None:
        if upto > place:
            segments.append({"text": block[place:upto]})

    for mention in _STEPS.finditer(block):
        for number in _NUMBER.finditer(mention.group()):
            step = int(number.group())
            if step not in sent:
                continue
            start = mention.start() + number.start()
            text(start)
            segments.append({"text": number.group(), "step": step, "explorer": link(step)})
            place = start + len(number.group())
    text(len(block))
    return segments


def _said(value: object) -> str:
    """A claimed or true value as a reader compares them: a few ids listed, many counted, a distance to the
    trace's decimals."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{NUMBER_DECIMALS}f}"
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_LISTED:  # a radius search's dozens of ids: their count (the check says which differ)
            return f"{fmt_count(len(value))} points"
        return ", ".join(_said(item) for item in value) if value else "none"
    return str(value)


def claims_table(claims: object, facts: Facts, checks: list[dict]) -> list[dict]:
    """The answer's four numeric claims beside the truth, each with its check's verdict (empty when the answer
    held no claims to read: a model failure)."""
    if not isinstance(claims, dict):
        return []
    verdicts = {check["name"]: check["passed"] for check in checks}
    truth = {"result_ids": list(facts.result_ids), "distance": facts.distance,
             "nodes_visited": facts.nodes_visited, "subtrees_pruned": facts.subtrees_pruned}
    return [{"check": check, "claim": label, "claimed": _said(claims.get(key)), "truth": _said(truth[key]),
             "passed": verdicts.get(check)}
            for check, label, key in _CLAIMS]
