"""The five deterministic checks of an AI walkthrough's claims (DR-005).

Each check compares one claim of a schema-valid answer with ``Facts``: what the
search itself says, limited to what the prompt showed. A check never needs a
fact the prompt did not carry: the totals of a cut trace are printed in the cut
marker, and only the steps sent may be cited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from pyapp.core.formatting import counted, fmt_decimals
from pyapp.core.jsontypes import is_json_integer
from pyapp.core.vocabulary import SearchKind
from pyapp.explanation.prompt import NUMBER_DECIMALS, Prompt
from pyapp.kdtree.search import SearchResult

# The prompt prints distances rounded to NUMBER_DECIMALS decimals, so a copied
# value is off by at most half a unit in the last place (5e-10). The tolerance
# is one full unit in that place: it accepts any faithful copy and nothing a
# digit further off.
DISTANCE_TOLERANCE = 10.0**-NUMBER_DECIMALS
MAX_LISTED = 5
MAX_DISTANCE = 1e300
# Verdicts kept per search (Facts.verdicts); the set's twenty cases keep at most this many each.
MAX_VERDICTS_KEPT = 4_096


@dataclass(frozen=True)
class SentStep:
    """What a cited step is compared with: the step number, its action and node."""

    step: int
    action: str
    node_id: int


@dataclass(frozen=True)
class Facts:
    """What the checks compare claims with, for one search and the prompt built for it."""

    kind: str
    result_ids: tuple[int, ...]
    distance: float | None
    nodes_visited: int
    subtrees_pruned: int
    steps_total: int
    sent_steps: tuple[SentStep, ...]

    @property
    def steps_sent(self) -> int:
        return len(self.sent_steps)

    @cached_property
    def sent_by_number(self) -> dict[int, SentStep]:
        """The sent steps by number, built once per search (grading a log reuses one Facts per case)."""
        return {s.step: s for s in self.sent_steps}

    @cached_property
    def verdicts(self) -> dict[tuple, tuple[CheckResult, ...]]:
        """The verdicts on the claims already checked against these facts (:func:`run_checks`)."""
        return {}


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict on one answer, with a reason a visitor can read."""

    name: str
    passed: bool
    reason: str

    def to_json(self) -> dict:
        return {"name": self.name, "passed": self.passed, "reason": self.reason}


def facts_for(result: SearchResult, prompt: Prompt) -> Facts:
    """The facts for ``result`` as shown by ``prompt``, which must be built from it."""
    steps = result.trace
    if prompt.steps_total != len(steps):
        raise ValueError(f"the prompt describes {prompt.steps_total} steps but the search has {len(steps)}")
    return Facts(
        kind=result.kind,
        result_ids=result.result_ids,
        distance=result.reported_distance,
        nodes_visited=result.counts.nodes_visited,
        subtrees_pruned=result.counts.subtrees_pruned,
        steps_total=len(steps),
        sent_steps=tuple(SentStep(s.index, s.action, s.node_id) for s in steps[: prompt.steps_sent]),
    )


def check_result(claims: dict, facts: Facts) -> CheckResult:
    """Pass when the claimed ids are the search's result (sorted, for a radius search)."""
    claimed = _ints(claims.get("result_ids"))
    name = "result"
    if claimed is None:
        return CheckResult(name, False, "the answer gives no list of whole-number result ids")
    truth = list(facts.result_ids)
    if facts.kind == SearchKind.NEAREST:
        if len(claimed) != 1:
            return CheckResult(
                name, False, f"a nearest search has exactly one result; the answer claims {len(claimed)} ids"
            )
        if claimed == truth:
            return CheckResult(name, True, f"claimed the nearest point {claimed[0]}, as the search found")
        return CheckResult(
            name, False, f"claimed nearest point {claimed[0]}; the search found {_id_list(truth)}"
        )
    if sorted(claimed) == truth:
        return CheckResult(name, True, f"claimed the same {counted(len(truth), 'point')} the search reported")
    missing = sorted(set(truth) - set(claimed))
    extra = sorted(set(claimed) - set(truth))
    parts = [f"claimed {counted(len(claimed), 'id')}; the search reported {counted(len(truth), 'point')}"]
    if missing:
        parts.append(f"missing {_id_list(missing)}")
    if extra:
        parts.append(f"not in the result {_id_list(extra)}")
    if not missing and not extra:
        parts.append("some ids are repeated")
    return CheckResult(name, False, "; ".join(parts))


def check_distance(claims: dict, facts: Facts) -> CheckResult:
    """Pass when the claimed distance is within DISTANCE_TOLERANCE of the truth, or both are null."""
    claimed = claims.get("distance")
    name = "distance"
    truth = facts.distance
    if claimed is None or isinstance(claimed, bool) or not isinstance(claimed, (int, float)):
        if truth is None and claimed is None:
            return CheckResult(name, True, "no point lies within the radius, and the answer says null")
        return CheckResult(name, False, f"claimed no distance; the true distance is {_num(truth)}")
    if truth is None:
        return CheckResult(
            name, False, f"claimed {claimed!r}; no point lies within the radius, so it must be null"
        )
    if not -MAX_DISTANCE <= claimed <= MAX_DISTANCE:  # grading refuses these first; a float() here would overflow
        return CheckResult(name, False, f"claimed a number out of range; the true distance is {_num(truth)}")
    error = abs(float(claimed) - truth)
    if error <= DISTANCE_TOLERANCE:
        return CheckResult(name, True, f"claimed {claimed!r}; the true distance is {_num(truth)}")
    return CheckResult(
        name,
        False,
        f"claimed {claimed!r}; the true distance is {_num(truth)} (off by {error:.3g}, more than 1e-9)",
    )


def check_nodes_visited(claims: dict, facts: Facts) -> CheckResult:
    """Pass when the claimed count equals the number of visit steps of the whole search."""
    return _count_check("nodes_visited", claims.get("nodes_visited"), facts.nodes_visited, "nodes visited")


def check_subtrees_pruned(claims: dict, facts: Facts) -> CheckResult:
    """Pass when the claimed count equals the number of far_prune steps of the whole search."""
    return _count_check(
        "subtrees_pruned", claims.get("subtrees_pruned"), facts.subtrees_pruned, "subtrees pruned"
    )


def check_cited_steps(claims: dict, facts: Facts) -> CheckResult:
    """Pass when at least one step is cited and each matches a sent step's number, action and node."""
    name = "cited_steps"
    cited = claims.get("cited_steps")
    if not isinstance(cited, list) or not cited:
        return CheckResult(name, False, "the answer cites no steps; at least one is needed")
    sent = facts.sent_by_number
    problems: list[str] = []
    for item in cited:
        step = item.get("step") if isinstance(item, dict) else None
        if not is_json_integer(step):
            problems.append(f"a cited step has no whole step number ({step!r})")
            continue
        step = int(step)
        truth = sent.get(step)
        if truth is None:
            if 1 <= step <= facts.steps_total:
                problems.append(f"step {step} was not sent (only steps 1-{facts.steps_sent} were)")
            else:
                problems.append(f"step {step} does not exist (the trace has {facts.steps_total} steps)")
            continue
        action, node_id = item.get("action"), item.get("node_id")
        if action != truth.action or not is_json_integer(node_id) or int(node_id) != truth.node_id:
            problems.append(
                f"step {step} is cited as {action} on node {node_id}; the trace has {truth.action} on node "
                f"{truth.node_id}"
            )
    if not problems:
        return CheckResult(name, True, f"all {counted(len(cited), 'cited step')} match the trace")
    shown = "; ".join(problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    return CheckResult(name, False, f"{len(problems)} of {len(cited)} cited steps are wrong: {shown}{more}")


# The five checks by the name their verdicts carry; each one's rule is its docstring.
CHECKS: dict[str, Callable[[dict, Facts], CheckResult]] = {
    "result": check_result,
    "distance": check_distance,
    "nodes_visited": check_nodes_visited,
    "subtrees_pruned": check_subtrees_pruned,
    "cited_steps": check_cited_steps,
}


def run_checks(claims: dict, facts: Facts, key: tuple | None = None) -> tuple[CheckResult, ...]:
    """All five checks, in the order of ``CHECKS``.

    The checks read the ids, the distance, the counts and the cited steps, never the prose, and answers to one
    case repeat those far more often than their prose (the first 20,000 lines of the synthetic log of 100,000
    calls hold 80 distinct sets of them among 17,768 answers): the verdicts on claims already checked are kept
    with the facts (DR-006). ``key`` is what :func:`pyapp.explanation.schema.plain_claims` found the claims to be,
    if it did.
    """
    if not key:
        key = _claims_key(claims)
    if key is None:
        return tuple(check(claims, facts) for check in CHECKS.values())
    kept = facts.verdicts
    found = kept.get(key)
    if found is None:
        if len(kept) >= MAX_VERDICTS_KEPT:
            kept.clear()
        found = kept[key] = tuple(check(claims, facts) for check in CHECKS.values())
    return found


def _claims_key(claims: object) -> tuple | None:
    """What the checks read of ``claims``, as a key that only the same claims share (1, 1.0 and true are equal in
    Python, so the types are in it), or None for claims that are not of the plain kinds a valid answer holds."""
    try:
        ids, distance = claims["result_ids"], claims["distance"]
        counts = claims["nodes_visited"], claims["subtrees_pruned"]
        steps = claims["cited_steps"]
        cited = tuple([(step["step"], step["action"], step["node_id"]) for step in steps])
    except (KeyError, TypeError):
        return None
    if type(ids) is not list or type(steps) is not list or not set(map(type, ids)) <= _INT \
            or not set(map(type, (*counts, *(field for step in cited for field in step)))) <= _INT_OR_TEXT \
            or type(distance) not in _NUMBER_OR_NULL:
        return None
    return tuple(ids), distance, type(distance), counts, cited


_INT = {int}
_INT_OR_TEXT = {int, str}
_NUMBER_OR_NULL = {int, float, type(None)}


def _count_check(name: str, claimed: object, truth: int, what: str) -> CheckResult:
    if not is_json_integer(claimed):
        return CheckResult(name, False, f"claimed {claimed!r} {what}; the trace has {truth}")
    if int(claimed) == truth:
        return CheckResult(name, True, f"claimed {truth} {what}, as the trace has")
    return CheckResult(name, False, f"claimed {int(claimed)} {what}; the trace has {truth}")


def _ints(value: object) -> list[int] | None:
    if not isinstance(value, list):
        return None
    if set(map(type, value)) <= {int}:  # the usual case, checked in C, without the per-item checks below
        return list(value)
    if not all(is_json_integer(v) for v in value):
        return None
    return [int(v) for v in value]


def _num(x: float | None) -> str:
    return "null" if x is None else fmt_decimals(x, NUMBER_DECIMALS + 3)


def _id_list(ids: list[int]) -> str:
    shown = ", ".join(str(i) for i in ids[:MAX_LISTED])
    more = f" and {len(ids) - MAX_LISTED} more" if len(ids) > MAX_LISTED else ""
    return shown + more
