"""The operations the page calls by name, and what the worker calls around them (DR-002).

The worker calls ``handle(op, args_json)``. Each operation module of this package (``*_ops``)
registers its operations with :func:`op` when it is imported, which the first call does; their
pyapp imports are inside the functions. So importing the bridge stays quick, and the worker that
makes the start-up snapshot imports them all beforehand with :func:`import_operation_modules`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
from collections.abc import Callable

import pyapp
from pyapp import __version__

OPS: dict[str, Callable] = {}


def op(function: Callable) -> Callable:
    """Register ``function`` as an operation the page can call by its name."""
    OPS[function.__name__] = function
    return function


def hello() -> str:
    return json.dumps({"python": ".".join(map(str, sys.version_info[:3])), "pyapp": __version__})


@op
def version() -> dict:
    return json.loads(hello())


def after_restore() -> None:
    """Reseed ``random`` in an interpreter restored from a memory snapshot (DR-002).

    Pyodide's own start-up imports ``random``, so every restored visit would otherwise draw the
    same numbers. Ids and tokens use ``os.urandom`` and need nothing.
    """
    import random

    random.seed()


_NOT_IN_THE_PAGE = ("pyapp.cli", "pyapp.bridges")


def import_operation_modules() -> None:
    """Import every pyapp module an operation may import on its first call (DR-002).

    That is every module but the command line's and the bridges' (the site's wheel leaves the bridges out):
    the worker that makes the start-up snapshot calls this before taking it, so a visit restored from it
    skips those imports. None of them touches the browser when imported.
    """
    import pkgutil

    for layer in pkgutil.iter_modules(pyapp.__path__, "pyapp."):
        if layer.ispkg and layer.name not in _NOT_IN_THE_PAGE:
            package = importlib.import_module(layer.name)
            for module in pkgutil.walk_packages(package.__path__, f"{layer.name}."):
                importlib.import_module(module.name)
    operations()  # and the registry of operations, so a restored visit's first call finds it made


def after_answer() -> None:
    """What an operation leaves for after its answer has reached the page: keeping the log's read and the
    page's opening view (DR-006).

    The worker calls it once its answers are posted and no call has come for 250 ms, so neither the runs
    list nor the calls the page makes next wait for it.
    """
    from pyapp.browser.log_cache import LOG
    from pyapp.browser.opening_view import VIEW

    LOG.keep_when_due()
    VIEW.keep_when_due()


@functools.cache
def operations() -> dict[str, Callable]:
    """Every operation by name, once the ``*_ops`` modules of this package have registered theirs."""
    import pkgutil

    for module in pkgutil.iter_modules(sys.modules[__package__].__path__, f"{__package__}."):
        if module.name.endswith("_ops"):
            importlib.import_module(module.name)
    return OPS


async def handle(name: str, args_json: str, file: object = None) -> str:
    """Run operation ``name`` with keyword arguments from JSON, and ``file`` when the page sent a file's bytes
    with the call (a ``Uint8Array``, given to the operation as ``bytes``: no text encoding on the way).

    Returns ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": sentence}`` as JSON, so the
    page shows the sentence an operation raised, never a traceback or an exception's class name.
    """
    try:
        found = operations().get(name)
        if found is None:
            raise ValueError(f"unknown operation {name!r}")
        args = json.loads(args_json)
        if file is not None:
            args["file"] = file.to_bytes()
        value = found(**args)
        if inspect.isawaitable(value):
            value = await value
    except (ValueError, RuntimeError) as exc:  # what operations raise for a visitor to read
        return json.dumps({"ok": False, "error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a fault in pyapp itself: say so instead of failing silently
        return json.dumps({"ok": False, "error": f"Internal error in pyapp ({type(exc).__name__}): {exc}"})
    return json.dumps({"ok": True, "value": value})
