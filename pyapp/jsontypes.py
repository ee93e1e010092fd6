"""What counts as a whole number, in the two senses pyapp needs.

``bool`` is a subclass of ``int`` in Python, but ``true`` is never a number in
JSON, so both refuse it.
"""

from __future__ import annotations


def is_int(value: object) -> bool:
    """A Python ``int`` and not a ``bool``: what a stored field or a count must be."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_json_integer(value: object) -> bool:
    """An integer as JSON Schema counts one: ``3`` and ``3.0`` are, ``3.5`` and ``true`` are not."""
    return is_int(value) or (isinstance(value, float) and value.is_integer())
