"""Hand-made searches and answers for the prompt, check and grading tests (DR-005).

The searches here are written by hand, not produced by ``pyapp.kdtree.search``, so the
pinned prompt hash and the prompt's fingerprint (which ``tests/explanation/test_prompt.py``
pins per ``PROMPT_VERSION``) depend only on the prompt code. ``answer_from_prompt``
reads an answer back out of a prompt's text alone, without any pyapp helper:
it is what a perfectly faithful model could write, and the fairness tests
require it to pass every check.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

from pyapp.core.vocabulary import Action, SearchKind
from pyapp.explanation import prompt as P
from pyapp.kdtree.search import Neighbour, SearchResult
from pyapp.kdtree.trace import Step
from pyapp.kdtree.tree import TreeStats

STATS = TreeStats(size=3, depth=1, average_depth=2 / 3)
QUERY = (24.951, 60.161)


def _d(lon: float, lat: float) -> float:
    return math.hypot(QUERY[0] - lon, QUERY[1] - lat)


def nearest_sample() -> SearchResult:
    """Three points: root 10 splits on lon, 20 below it on the low side, 30 on the high side."""
    d10, d30 = _d(24.94, 60.17), _d(24.95, 60.16)
    steps = (
        Step(1, Action.VISIT, 10, 0, axis=0, split=24.94, lon=24.94, lat=60.17),
        Step(2, Action.DISTANCE, 10, 0, distance=d10),
        Step(3, Action.BEST, 10, 0, distance=d10),
        Step(4, Action.NEAR, 10, 0, side="high"),
        Step(5, Action.VISIT, 30, 1, axis=1, split=60.16, lon=24.95, lat=60.16),
        Step(6, Action.DISTANCE, 30, 1, distance=d30),
        Step(7, Action.BEST, 30, 1, distance=d30),
        Step(8, Action.FAR_PRUNE, 10, 0, side="low", gap=0.011, bound=d30),
    )
    return SearchResult("nearest", "file", QUERY, None, (Neighbour(30, d30),), steps, STATS)


def radius_sample(radius: float = 0.003) -> SearchResult:
    """The same three points, searched with a radius: 30 is inside, 20 is pruned away."""
    d10, d30 = _d(24.94, 60.17), _d(24.95, 60.16)
    steps = [
        Step(1, Action.VISIT, 10, 0, axis=0, split=24.94, lon=24.94, lat=60.17),
        Step(2, Action.DISTANCE, 10, 0, distance=d10),
        Step(3, Action.NEAR, 10, 0, side="high"),
        Step(4, Action.VISIT, 30, 1, axis=1, split=60.16, lon=24.95, lat=60.16),
        Step(5, Action.DISTANCE, 30, 1, distance=d30),
    ]
    found: tuple[Neighbour, ...] = ()
    if d30 <= radius:
        steps.append(Step(6, Action.REPORT, 30, 1, distance=d30))
        found = (Neighbour(30, d30),)
    steps.append(Step(len(steps) + 1, Action.FAR_PRUNE, 10, 0, side="low", gap=0.011, bound=radius))
    trace = tuple(steps)
    return SearchResult("radius", "lon-sorted", QUERY, radius, found, trace, STATS)


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
            Step(0, Action.VISIT, node, depth, axis=depth % 2, split=(lon, lat)[depth % 2], lon=lon, lat=lat),
            Step(0, Action.DISTANCE, node, depth, distance=d),
        ]
        if node % 3 == 0:
            group.append(Step(0, Action.REPORT if kind == "radius" else Action.BEST, node, depth, distance=d))
            found.append(Neighbour(node, d))
        group.append(Step(0, Action.NEAR, node, depth, side="high"))
        if node % 2:
            group.append(Step(0, Action.FAR_PRUNE, node, depth, side="low", gap=0.002, bound=0.001))
        else:
            group.append(Step(0, Action.FAR_VISIT, node, depth, side="low", gap=0.0005, bound=0.001))
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
    kept = {s.node_id for s in trace if s.action in (Action.REPORT, Action.BEST)}
    found = [n for n in found if n.id in kept]
    if kind == "nearest":
        result = (found[-1],) if found else ()
        return SearchResult("nearest", "lat-sorted", QUERY, None, result, trace, STATS)
    found.sort(key=lambda n: (n.distance, n.id))
    return SearchResult("radius", "lat-sorted", QUERY, 0.003, tuple(found), trace, STATS)


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


# --------------------------------------------------------------------------- the prompt's fingerprint
def templates() -> tuple[str, ...]:
    """Every template of the prompt, read when called (so a test may change one)."""
    return (
        P.SYSTEM_TEMPLATE,
        P.USER_TEMPLATE,
        P.SEARCH_LINE[SearchKind.NEAREST],
        P.SEARCH_LINE[SearchKind.RADIUS],
        P.ROOT_LINE,
        P.NO_ROOT_LINE,
        P.HEADING_ALL,
        P.HEADING_CUT,
        P.CUT_MARKER,
        P.NO_STEPS_LINE,
        P.NULL,
        " ".join(P.LINE_FIELDS),
    )


def sample_steps(count: int) -> tuple[Step, ...]:
    """A made-up trace that uses every action and every printed field."""
    steps: list[Step] = []
    node = 1
    while len(steps) < count:
        depth = len(steps) // 7
        axis = depth % 2
        i = len(steps)
        steps += [
            Step(i + 1, Action.VISIT, node, depth, axis=axis, split=24.9 + node / 1e4, lon=24.9 + node / 1e4,
                 lat=60.17),
            Step(i + 2, Action.DISTANCE, node, depth, distance=node / 3e4),
            Step(i + 3, Action.BEST, node, depth, distance=node / 3e4),
            Step(i + 4, Action.REPORT, node, depth, distance=node / 3e4),
            Step(i + 5, Action.NEAR, node, depth, side="low"),
            Step(i + 6, Action.FAR_VISIT, node, depth, side="high", gap=1 / 7e4, bound=2 / 7e4),
            Step(i + 7, Action.FAR_PRUNE, node, depth, side="high", gap=3 / 7e4, bound=2 / 7e4),
        ]
        node += 1
    return tuple(steps[:count])


def sample_searches() -> tuple[SearchResult, ...]:
    """Three searches: one short nearest, two radius searches whose traces are cut."""
    stats = TreeStats(size=1188, depth=21, average_depth=10.0 / 3.0)

    def sample(kind: str, order: str, query: tuple[float, float], radius: float | None,
               result: tuple[Neighbour, ...], steps: int) -> SearchResult:
        return SearchResult(kind, order, query, radius, result, sample_steps(steps), stats)

    return (
        sample(SearchKind.NEAREST, "file", (24.94, 60.17), None, (Neighbour(2, 2 / 3e4),), 9),
        sample(SearchKind.RADIUS, "median-first", (24.945, 60.175), 0.003,
               (Neighbour(3, 1e-4), Neighbour(1, 2e-3)), P.MAX_STEPS + 5),
        sample(SearchKind.RADIUS, "shuffled", (24.95, 60.16), 0.0005, (), P.MAX_STEPS + 1),
    )


def prompt_fingerprint() -> str:
    """A hash of every template and of prompts built for fixed samples.

    It changes whenever the prompt's wording, layout, number format, cut rule or
    embedded schema changes, which is when ``PROMPT_VERSION`` must change too.
    """
    samples = [P.build_prompt(sample) for sample in sample_searches()]
    body = {
        "templates": list(templates()),
        "max_steps": P.MAX_STEPS,
        "samples": [[p.system, p.user, p.steps_sent, p.steps_total] for p in samples],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


if __name__ == "__main__":  # .venv/bin/python tests/support/explain_samples.py prints the fingerprint
    print(prompt_fingerprint())
