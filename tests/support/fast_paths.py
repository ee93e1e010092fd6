"""The full check a fast path stands in for, for the tests that hold the two to the same answers."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def without_fast_path(module: ModuleType, fast_path: str, check: Callable, *args: object) -> object:
    """``check(*args)`` with ``module``'s function ``fast_path`` passing nothing, so the full check alone answers
    (patched here, as a fixture cannot patch inside a hypothesis test)."""
    quick = getattr(module, fast_path)
    setattr(module, fast_path, lambda _: False)
    try:
        return check(*args)
    finally:
        setattr(module, fast_path, quick)
