"""The edge between pyapp and the browser (DR-002).

The worker calls ``handle(op, args_json)``; every operation is a thin wrapper
around pure pyapp functions. Browser modules (``js``, ``pyodide``, the worker's
audit store) are imported inside functions, so this module still imports on
CPython.
"""

from __future__ import annotations

import inspect
import json
import platform
from collections.abc import Callable

from . import __version__

OPS: dict[str, Callable] = {}


def op(function: Callable) -> Callable:
    """Register ``function`` as an operation the page can call by its name."""
    OPS[function.__name__] = function
    return function


def hello() -> str:
    return json.dumps({"python": platform.python_version(), "pyapp": __version__})


async def handle(name: str, args_json: str) -> str:
    """Run operation ``name`` with keyword arguments from JSON; return its value as JSON."""
    if name not in OPS:
        raise ValueError(f"unknown operation {name!r}")
    value = OPS[name](**json.loads(args_json))
    if inspect.isawaitable(value):
        value = await value
    return json.dumps(value)


@op
def version() -> dict:
    return json.loads(hello())
