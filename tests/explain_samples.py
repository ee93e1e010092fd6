"""Hand-made searches and answers for the prompt, check and grading tests (DR-005).

The searches here are written by hand, not produced by ``pyapp.search``, so the
pinned prompt hash depends only on the prompt code. ``answer_from_prompt``
reads an answer back out of a prompt's text alone, without any pyapp helper:
it is what a perfectly faithful model could write, and the fairness tests
require it to pass every check.
"""

from __future__ import annotations

import json
import math
import re

from pyapp.kdtree import TreeStats
from pyapp.search import Neighbour, SearchCounts, SearchResult
from pyapp.trace import BEST, DISTANCE, FAR_PRUNE, FAR_VISIT, NEAR, REPORT, VISIT, Step

STATS = TreeStats(size=3, depth=1, average_depth=2 / 3)
QUERY = (24.951, 60.161)


def _d(lon: float, lat: float) -> float:
    return math.hypot(QUERY[0] - lon, QUERY[1] - lat)


def _counts(steps: tuple[Step, ...]) -> SearchCounts:
    actions = [s.action for s in steps]
    return SearchCounts(actions.count(VISIT), actions.count(FAR_PRUNE), actions.count(DISTANCE))


def nearest_sample() -> SearchResult:
    """Three points: root 10 splits on lon, 20 below it on the low side, 30 on the high side."""
    d10, d30 = _d(24.94, 60.17), _d(24.95, 60.16)
    steps = (
        Step(1, VISIT, 10, 0, axis=0, split=24.94, lon=24.94, lat=60.17),
        Step(2, DISTANCE, 10, 0, distance=d10),
        Step(3, BEST, 10, 0, distance=d10),
        Step(4, NEAR, 10, 0, side="high"),
        Step(5, VISIT, 30, 1, axis=1, split=60.16, lon=24.95, lat=60.16),
        Step(6, DISTANCE, 30, 1, distance=d30),
        Step(7, BEST, 30, 1, distance=d30),
        Step(8, FAR_PRUNE, 10, 0, side="low", gap=0.011, bound=d30),
    )
    return SearchResult("nearest", "file", QUERY, None, (Neighbour(30, d30),), steps, _counts(steps), STATS)


def radius_sample(radius: float = 0.003) -> SearchResult:
    """The same three points, searched with a radius: 30 is inside, 20 is pruned away."""
    d10, d30 = _d(24.94, 60.17), _d(24.95, 60.16)
    steps = [
        Step(1, VISIT, 10, 0, axis=0, split=24.94, lon=24.94, lat=60.17),
        Step(2, DISTANCE, 10, 0, distance=d10),
        Step(3, NEAR, 10, 0, side="high"),
        Step(4, VISIT, 30, 1, axis=1, split=60.16, lon=24.95, lat=60.16),
        Step(5, DISTANCE, 30, 1, distance=d30),
    ]
    found: tuple[Neighbour, ...] = ()
    if d30 <= radius:
        steps.append(Step(6, REPORT, 30, 1, distance=d30))
        found = (Neighbour(30, d30),)
    steps.append(Step(len(steps) + 1, FAR_PRUNE, 10, 0, side="low", gap=0.011, bound=radius))
    trace = tuple(steps)
    return SearchResult("radius", "lon-sorted", QUERY, radius, found, trace, _counts(trace), STATS)


def long_sample(n_steps: int, kind: str = "radius") -> SearchResult:
    """A made-up path of ``n_steps`` steps down a deep tree; node k reports (or improves) every third node."""
    steps: list[Step] = []
    found: list[Neighbour] = []
    node = 100
    while len(steps) < n_steps:
        depth = node - 100
        lon, lat = 24.94 + depth * 1e-5, 60.17 - depth * 1e-5  # closer to the query at every depth
        d = _d(lon, lat)
        group = [
            Step(0, VISIT, node, depth, axis=depth % 2, split=(lon, lat)[depth % 2], lon=lon, lat=lat),
            Step(0, DISTANCE, node, depth, distance=d),
        ]
        if node % 3 == 0:
            group.append(Step(0, REPORT if kind == "radius" else BEST, node, depth, distance=d))
            found.append(Neighbour(node, d))
        group.append(Step(0, NEAR, node, depth, side="high"))
        if node % 2:
            group.append(Step(0, FAR_PRUNE, node, depth, side="low", gap=0.002, bound=0.001))
        else:
            group.append(Step(0, FAR_VISIT, node, depth, side="low", gap=0.0005, bound=0.001))
        for step in group:
            steps.append(
                Step(
                    len(steps) + 1,
                    step.action,
                    step.node_id,
                    step.depth,
                    step.axis,
                    step.split,
                    step.lon,
                    step.lat,
                    step.distance,
                    step.side,
                    step.gap,
                    step.bound,
                )
            )
        node += 1
    trace = tuple(steps[:n_steps])
    kept = {s.node_id for s in trace if s.action in (REPORT, BEST)}
    found = [n for n in found if n.id in kept]
    if kind == "nearest":
        result = (found[-1],) if found else ()
        return SearchResult("nearest", "lat-sorted", QUERY, None, result, trace, _counts(trace), STATS)
    found.sort(key=lambda n: (n.distance, n.id))
    return SearchResult("radius", "lat-sorted", QUERY, 0.003, tuple(found), trace, _counts(trace), STATS)


LINE = re.compile(r"^(?P<step>\d+) (?P<action>[a-z_]+) node_id=(?P<node>\d+) depth=\d+(?P<rest>.*)$")
MARKER = re.compile(
    r"^\[trace cut: (?P<hidden>\d+) more steps not shown; the whole search took (?P<total>\d+) steps\. "
    r"Totals for the whole search: result_ids=(?P<ids>\[[0-9,]*\]) distance=(?P<distance>null|[0-9.]+) "
    r"nodes_visited=(?P<visited>\d+) subtrees_pruned=(?P<pruned>\d+)\]$"
)


def parse_prompt_lines(user: str) -> tuple[list[tuple[int, str, int, str]], dict | None]:
    """The trace lines (step, action, node_id, rest) and the cut marker's fields, from the user text."""
    lines, marker = [], None
    for text in user.splitlines():
        m = LINE.match(text)
        if m:
            lines.append((int(m["step"]), m["action"], int(m["node"]), m["rest"]))
            continue
        m = MARKER.match(text)
        if m:
            assert marker is None, "two cut markers"
            marker = m.groupdict()
    return lines, marker


def answer_from_prompt(user: str) -> dict:
    """The answer a faithful reader of the prompt text would give, using only that text."""
    kind = re.search(r"^kind: (nearest|radius)\b", user, re.MULTILINE).group(1)
    lines, marker = parse_prompt_lines(user)
    cited = [
        {"step": s, "action": a, "node_id": n} for s, a, n, _ in (lines[0], lines[len(lines) // 2], lines[-1])
    ]
    if marker is not None:
        ids = json.loads(marker["ids"])
        distance = None if marker["distance"] == "null" else float(marker["distance"])
        visited, pruned = int(marker["visited"]), int(marker["pruned"])
    else:
        visited = sum(1 for _, a, _, _ in lines if a == "visit")
        pruned = sum(1 for _, a, _, _ in lines if a == "far_prune")
        found = [
            (n, float(re.search(r"distance=([0-9.]+)", rest).group(1)))
            for _, a, n, rest in lines
            if a == ("best" if kind == "nearest" else "report")
        ]
        if kind == "nearest":
            ids, distance = [found[-1][0]], found[-1][1]
        else:
            ids = [n for n, _ in found]
            distance = max((d for _, d in found), default=None)
    return {
        "walkthrough": "The search starts at the root and works down the tree.",
        "result_ids": ids,
        "distance": distance,
        "nodes_visited": visited,
        "subtrees_pruned": pruned,
        "cited_steps": cited,
    }
