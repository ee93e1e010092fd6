"""The search trace: the numbered, structured steps a search takes (DR-004).

The trace is the ground truth an AI explanation is checked against, so every
fact an explanation could state is a field of a step, never prose. One step
type covers every action; fields that do not apply to an action are ``None``
and are left out of the JSON form.

Actions (:class:`pyapp.vocabulary.Action`) and the fields each one sets (besides ``index``, ``action``,
``node_id`` and ``depth``):

``visit``      the search enters a node: ``axis``, ``split``, ``lon``, ``lat``
``distance``   distance from the query to the node's point: ``distance``
``best``       (nearest) the node becomes the current best: ``distance``
``report``     (radius) the node's point lies within the radius: ``distance``
``near``       the child on the query's side is searched first: ``side``
``far_visit``  the other child is searched too, because ``gap <= bound``:
               ``side``, ``gap``, ``bound``
``far_prune``  the other child is skipped, because ``gap > bound``:
               ``side``, ``gap``, ``bound``

``gap`` is |query[axis] - split|, the distance from the query to the
splitting line; ``bound`` is the best distance so far (nearest) or the radius.
``axis`` is 0 for longitude and 1 for latitude; ``side`` is ``"low"`` (points
with a smaller coordinate on the axis) or ``"high"`` (equal or larger).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

AXIS_NAMES = ("lon", "lat")


@dataclass(frozen=True)
class Step:
    """One numbered step of a search (1-based ``index``)."""

    index: int
    action: str
    node_id: int
    depth: int
    axis: int | None = None
    split: float | None = None
    lon: float | None = None
    lat: float | None = None
    distance: float | None = None
    side: str | None = None
    gap: float | None = None
    bound: float | None = None

    def to_dict(self) -> dict:
        """The JSON form: only the fields that apply to this action."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, data: dict) -> Step:
        return cls(**data)
