"""The part of the tree a search touches, laid out for drawing beside the map (DR-007).

Every child of a visited node is either visited itself or skipped by a ``far_prune``
step (DR-004), so the visited nodes plus one collapsed stub per skipped subtree make
a complete binary tree. Columns are in-order positions (low subtree, node, high
subtree), rows are depths; the page only scales them to pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.core.vocabulary import Action
from pyapp.kdtree.trace import Step
from pyapp.kdtree.tree import HIGH, LOW, KdTree, Node


def subtree_size(node: Node) -> int:
    count = 0
    stack = [node]
    while stack:
        current = stack.pop()
        count += 1
        stack.extend(child for child in (current.low, current.high) if child is not None)
    return count


def _child_item(node: Node, side: str, visit_step: dict, prune_step: dict) -> tuple | None:
    child = node.low if side == LOW else node.high
    if child is None:
        return None
    if child.node_id in visit_step:
        return ("node", child, node.node_id, side)
    if (node.node_id, side) in prune_step:
        return ("stub", (node, side), None, None)
    return None


def touched_tree(tree: KdTree, trace: Sequence[Step]) -> dict:
    """Visited nodes and skipped subtrees with their step, column and row, in drawing order."""
    visit_step = {step.node_id: step.index for step in trace if step.action == Action.VISIT}
    prune_step = {(step.node_id, step.side): step.index for step in trace if step.action == Action.FAR_PRUNE}
    nodes: list[dict] = []
    pruned: list[dict] = []
    column = 0
    # In-order walk with an explicit stack: a tree from sorted input is dozens of levels deep.
    # Items: ("node", ...) enters a visited node, ("place", ...) gives it its column, ("stub", ...) a skipped subtree.
    stack: list[tuple] = [("node", tree.root, None, None)] if tree.root is not None and visit_step else []
    while stack:
        kind, node, parent, side = stack.pop()
        if kind == "place":
            nodes.append({"id": node.node_id, "column": column, "depth": node.depth, "parent": parent,
                          "side": side, "step": visit_step[node.node_id]})
            column += 1
            continue
        if kind == "stub":
            owner, child_side = node
            skipped = owner.low if child_side == LOW else owner.high
            pruned.append({"parent": owner.node_id, "side": child_side, "column": column, "depth": owner.depth + 1,
                           "size": subtree_size(skipped), "step": prune_step[(owner.node_id, child_side)]})
            column += 1
            continue
        low, high = (_child_item(node, child_side, visit_step, prune_step) for child_side in (LOW, HIGH))
        stack.extend(item for item in (high, ("place", node, parent, side), low) if item is not None)
    depth = max([n["depth"] for n in nodes] + [p["depth"] for p in pruned], default=0)
    return {"nodes": nodes, "pruned": pruned, "columns": column, "depth": depth}
