"""The search trace: the numbered, structured steps a search takes (DR-004).

The trace is the ground truth an AI explanation is checked against, so every
fact an explanation could state is a field of a step, never prose. One step
type covers every action; fields that do not apply to an action are ``None``
and are left out of the JSON form.

Actions (:class:`pyapp.core.vocabulary.Action`) and the fields each one sets (besides ``index``, ``action``,
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

A search records each step as a plain tuple (:data:`ROW_FIELDS`); :class:`Trace`
turns a row into a :class:`Step` only when a step is read, because building a
frozen dataclass per step took most of a traced search's time (DR-004).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import overload

AXIS_NAMES = ("lon", "lat")

# The fields of a recorded row, in order: every field of Step except ``index``,
# which is the row's position plus one.
ROW_FIELDS = ("action", "node_id", "depth", "axis", "split", "lon", "lat", "distance", "side", "gap", "bound")


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


class Trace(Sequence):
    """The steps of one search, kept as rows; the :class:`Step` objects are built when first read.

    Equal to any sequence of the same steps (a tuple of Steps included).
    """

    __slots__ = ("rows", "_steps")

    def __init__(self, rows: Sequence[tuple]) -> None:
        self.rows = tuple(rows)
        self._steps: tuple[Step, ...] | None = None

    def steps(self) -> tuple[Step, ...]:
        """Every step, built once and kept: the page and the prompt read a trace more than once."""
        if self._steps is None:
            self._steps = tuple(Step(i, *row) for i, row in enumerate(self.rows, 1))
        return self._steps

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Step: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Step, ...]: ...

    def __getitem__(self, index):
        if self._steps is not None or isinstance(index, slice):
            return self.steps()[index]
        if index < 0:
            index += len(self.rows)
        if not 0 <= index < len(self.rows):
            raise IndexError("trace step out of range")
        return Step(index + 1, *self.rows[index])

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps())

    def actions(self) -> Iterator[str]:
        """Each step's action, without building the steps."""
        return (row[0] for row in self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Trace):
            return self.rows == other.rows
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.steps() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"Trace({len(self.rows)} steps)"
