"""The prompt that asks a model to explain one search (DR-005).

The prompt has two parts: ``system`` (what to do, how to read the trace, the
answer schema) and ``user`` (the search, a tree summary and at most
``MAX_STEPS`` trace lines). A longer trace is cut, and a marker line after the
last step sent states the full step count and the totals the checks compare
with, so no check ever needs a step the model did not see.

Every number is printed with ``NUMBER_DECIMALS`` decimals (``format(x, ".9f")``,
correctly rounded on every Python), which is what the distance tolerance in
``pyapp.explanation.checks`` is derived from.

Any change to the text or layout below must come with a new ``PROMPT_VERSION``;
``tests/explanation/test_prompt.py`` pins the fingerprint of the current version
(``tests/support/explain_samples.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pyapp.core.formatting import fmt_decimals
from pyapp.core.vocabulary import Action, SearchKind
from pyapp.explanation.schema import schema_text
from pyapp.kdtree.search import SearchResult
from pyapp.kdtree.trace import AXIS_NAMES, Step

PROMPT_VERSION = "explain-prompt-1"
MAX_STEPS = 150
NUMBER_DECIMALS = 9

SYSTEM_TEMPLATE = """\
You explain one search in a k-d tree to a learner who is new to k-d trees.

The user message describes the search, summarises the tree and lists the search's trace: \
its numbered steps, one per line, in the order the search took them. The trace is the ground truth: \
use only facts it states.

How the tree and the search work:
- Points are (longitude, latitude) in degrees; distances are Euclidean in those degrees.
- Each node holds one business point; a node's id is that point's id. A node splits on one axis: \
lon at even depths, lat at odd depths (the root has depth 0). Points with a smaller coordinate on that \
axis are in the node's low subtree, points with an equal or larger one in its high subtree.
- A nearest search keeps the closest point found so far and skips the far side of a split when the \
gap between the query and the splitting line is larger than the best distance so far. A radius search \
reports every point within the radius and skips the far side when the gap is larger than the radius.

Each trace line reads `<step> <action> node_id=<id> depth=<depth> ...`. The actions:
- visit: the search enters the node; axis and split give its splitting line, lon and lat its point.
- distance: the distance from the query to the node's point.
- best: (nearest search) the node's point becomes the closest so far, at that distance.
- report: (radius search) the node's point lies within the radius, at that distance.
- near: the child on the query's side of the split (low or high) is searched first.
- far_visit: the other child is searched too, because gap <= bound.
- far_prune: the other child is skipped, because gap > bound.
gap is the distance from the query to the node's splitting line; bound is the best distance so far \
(nearest search) or the radius (radius search). Every number is printed with 9 decimals.

Answer with one JSON object that fits the JSON Schema below and nothing else: no Markdown, \
no code fence, no text before or after it.
- walkthrough: plain text (no Markdown, no HTML) that takes the learner through the search in order \
and names the step numbers it talks about.
- result_ids: nearest search: the id of the one nearest point. Radius search: the ids of all points \
reported within the radius, or [] if there are none.
- distance: nearest search: the distance from the query to the result. Radius search: the largest \
distance among the reported points, or null if there are none. Copy the number as printed.
- nodes_visited: how many visit steps the whole search took.
- subtrees_pruned: how many far_prune steps the whole search took.
- cited_steps: at least one step the walkthrough relies on, each with its step number, action and \
node_id exactly as in its trace line.
When the trace is cut, only the steps shown can be cited, and the line after the last step shown \
gives the totals of the whole search.

JSON Schema of the answer:
{schema}
"""

USER_TEMPLATE = """\
Search
{search_line}
query: lon={query_lon} lat={query_lat}
insertion order: {order}

Tree
points: {size}
depth: {depth} (the deepest node's depth; the root has depth 0)
average depth: {average_depth}
root: {root_line}

Trace: {trace_heading}
{trace_lines}
"""

SEARCH_LINE = {
    SearchKind.NEAREST: "kind: nearest (the one point closest to the query)",
    SearchKind.RADIUS: "kind: radius (every point within radius {radius} of the query)",
}
ROOT_LINE = "node_id={node_id} splits on {axis} at {split}"
NO_ROOT_LINE = "none (the tree is empty)"
HEADING_ALL = "all {total} steps"
HEADING_CUT = "the first {sent} of {total} steps"
CUT_MARKER = (
    "[trace cut: {hidden} more steps not shown; the whole search took {total} steps. "
    "Totals for the whole search: result_ids={result_ids} distance={distance} "
    "nodes_visited={nodes_visited} subtrees_pruned={subtrees_pruned}]"
)
NO_STEPS_LINE = "(no steps)"
NULL = "null"

# Step fields printed after ``node_id`` and ``depth``, in this order; a field of
# pyapp.kdtree.trace.Step that is missing here is deliberately left out of the prompt.
LINE_FIELDS = ("axis", "split", "lon", "lat", "distance", "side", "gap", "bound")

@dataclass(frozen=True)
class Prompt:
    """The exact text sent for one search, and what a check needs to know about it.

    ``hash`` is the sha256 hex digest of :func:`canonical_prompt_bytes`.
    """

    system: str
    user: str
    steps_sent: int
    steps_total: int
    version: str
    hash: str

    @property
    def cut(self) -> bool:
        return self.steps_sent < self.steps_total

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "hash": self.hash,
            "steps_sent": self.steps_sent,
            "steps_total": self.steps_total,
            "system": self.system,
            "user": self.user,
        }


def format_number(x: float) -> str:
    """A number as the prompt prints it: fixed point, ``NUMBER_DECIMALS`` decimals."""
    return fmt_decimals(x, NUMBER_DECIMALS)


def trace_line(step: Step) -> str:
    """One trace line as the prompt sends it.

    For example ``3 far_prune node_id=7 depth=1 side=high gap=0.001000000 bound=0.000500000``.
    """
    parts = [str(step.index), step.action, f"node_id={step.node_id}", f"depth={step.depth}"]
    for name in LINE_FIELDS:
        value = getattr(step, name)
        if value is None:
            continue
        if name == "axis":
            text = AXIS_NAMES[value]
        elif isinstance(value, str):
            text = value
        else:
            text = format_number(value)
        parts.append(f"{name}={text}")
    return " ".join(parts)


def canonical_prompt_bytes(system: str, user: str) -> bytes:
    """The bytes the prompt hash covers: canonical JSON of both parts, UTF-8."""
    body = {"system": system, "user": user}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def prompt_hash(system: str, user: str) -> str:
    return hashlib.sha256(canonical_prompt_bytes(system, user)).hexdigest()


def build_prompt(result: SearchResult) -> Prompt:
    """The prompt for one search result."""
    if result.kind not in SEARCH_LINE:
        raise ValueError(f"unknown search kind {result.kind!r}")
    system = SYSTEM_TEMPLATE.format(schema=schema_text().strip())
    steps = tuple(result.trace)
    sent = steps[:MAX_STEPS]
    lines = [trace_line(step) for step in sent] or [NO_STEPS_LINE]
    if len(sent) < len(steps):
        heading = HEADING_CUT.format(sent=len(sent), total=len(steps))
        distance = result.reported_distance
        lines.append(
            CUT_MARKER.format(
                hidden=len(steps) - len(sent),
                total=len(steps),
                result_ids=json.dumps(list(result.result_ids), separators=(",", ":")),
                distance=NULL if distance is None else format_number(distance),
                nodes_visited=result.counts.nodes_visited,
                subtrees_pruned=result.counts.subtrees_pruned,
            )
        )
    else:
        heading = HEADING_ALL.format(total=len(steps))
    stats = result.tree
    user = USER_TEMPLATE.format(
        search_line=SEARCH_LINE[result.kind].format(
            radius=format_number(result.radius) if result.kind == SearchKind.RADIUS else ""
        ),
        query_lon=format_number(result.query[0]),
        query_lat=format_number(result.query[1]),
        order=result.order,
        size=stats.size,
        depth=stats.depth,
        average_depth=format_number(stats.average_depth),
        root_line=_root_line(steps),
        trace_heading=heading,
        trace_lines="\n".join(lines),
    )
    return Prompt(
        system=system,
        user=user,
        steps_sent=len(sent),
        steps_total=len(steps),
        version=PROMPT_VERSION,
        hash=prompt_hash(system, user),
    )


def _root_line(steps: tuple[Step, ...]) -> str:
    # Every search starts by visiting the root, so the first step describes it.
    if not steps or steps[0].action != Action.VISIT:
        return NO_ROOT_LINE
    root = steps[0]
    return ROOT_LINE.format(node_id=root.node_id, axis=AXIS_NAMES[root.axis], split=format_number(root.split))
