"""The command line's texts for one search and its trace, for a set's cases, and for a case's exact prompt."""

from __future__ import annotations

from pyapp.core.formatting import counted
from pyapp.core.vocabulary import Action
from pyapp.evaluation.evalset import is_own_set
from pyapp.evaluation.own_cases import set_label
from pyapp.explanation.prompt import Prompt, format_number
from pyapp.kdtree.geodata import businesses_by_id
from pyapp.kdtree.search import SearchResult
from pyapp.kdtree.trace import AXIS_NAMES, Step


def readable_step(step: Step) -> str:
    """One trace step as a line for a person (the prompt's own line is ``pyapp.explanation.prompt.trace_line``)."""
    head = f"{step.index:5d}  {step.action:<9}  node {step.node_id} (depth {step.depth})"
    if step.action == Action.VISIT:
        axis = AXIS_NAMES[step.axis]
        point = f"({format_number(step.lon)}, {format_number(step.lat)})"
        return f"{head}  point {point}  splits {axis} at {format_number(step.split)}"
    if step.action in (Action.DISTANCE, Action.BEST, Action.REPORT):
        return f"{head}  distance {format_number(step.distance)}"
    if step.action == Action.NEAR:
        return f"{head}  side {step.side}"
    relation = "<=" if step.action == Action.FAR_VISIT else ">"
    return f"{head}  side {step.side}  gap {format_number(step.gap)} {relation} bound {format_number(step.bound)}"


def format_search(result: SearchResult) -> str:
    """A readable account of one search: what was asked, found and counted, then every step."""
    names = businesses_by_id()
    stats = result.tree.shown()
    lon, lat = result.query
    asked = f"{result.kind} search, order {result.order}, query ({format_number(lon)}, {format_number(lat)})"
    if result.radius is not None:
        asked += f", radius {result.radius:g}"
    lines = [
        asked,
        f"tree: {stats['size']} points, depth {stats['depth']}, average depth {stats['average_depth']}",
        f"result: {counted(len(result.result), 'point')}",
    ]
    for n in result.result:
        b = names.get(n.id)
        label = f"  {b.name} [{b.category}]" if b is not None else ""
        lines.append(f"  {n.id}  distance {format_number(n.distance)}{label}")
    c = result.counts
    lines.append(
        f"nodes visited {c.nodes_visited}, subtrees pruned {c.subtrees_pruned}, "
        f"distances computed {c.distances_computed}"
    )
    lines.append(f"trace: {len(result.trace)} steps")
    lines.extend(readable_step(step) for step in result.trace)
    return "\n".join(lines)


def format_evalset(table: list[dict], summary: dict) -> str:
    """The set as text: one block per case, then how many traces are cut."""
    version = summary["eval_set_version"]
    drawn = f"{set_label(version)}: {summary['cases']} cases" if is_own_set(version) else (
        f"{version}, seed {summary['seed']}: {summary['cases']} cases")
    lines = [drawn]
    for row in table:
        radius = "" if row["radius"] is None else f"  radius {row['radius']:g}"
        cut = f"  cut to {row['steps_sent']}" if row["over_limit"] else ""
        lines.append(
            f"{row['case_id']}  {row['kind']:<13} {row['order']:<12} ({row['lon']:.7f}, {row['lat']:.7f})"
            f"{radius}  {row['steps']} steps{cut}, {counted(row['results'], 'result')}"
        )
        lines.append(f"     {row['why_it_matters']}")
    lines.append(
        f"{summary['over_limit']} of {summary['cases']} traces are longer than the {summary['max_steps']} "
        f"steps a prompt sends; one run sends {summary['prompt_chars']:,} characters of prompts."
    )
    return "\n".join(lines)


def format_prompt(case_id: str, prompt: Prompt) -> str:
    """A header line, then the system text and the user text, each under a marker line of its own.

    Both texts are printed exactly; a line break is added after one only if it lacks one.
    """
    parts = [f"# {case_id}: prompt {prompt.version}, sha256 {prompt.hash}\n"]
    for marker, text in (("=== system ===", prompt.system), ("=== user ===", prompt.user)):
        parts.append(marker + "\n" + text + ("" if text.endswith("\n") else "\n"))
    return "".join(parts)
