"""The edge between pyapp and the browser (DR-002): what the page's worker calls.

The worker imports this package and calls ``handle(op, args_json)`` for every operation,
``hello()`` once Python is ready, ``after_answer()`` once its answers are posted and no call has
come for a moment, ``after_restore()`` in an interpreter restored from the start-up snapshot, and
``import_operation_modules()`` before taking that snapshot. Operations are grouped by concept
in the ``*_ops`` modules, which register themselves when the first call imports them. Browser modules
(``js``, ``pyodide``, the worker's own) are imported inside functions, so the package imports
on CPython too.

The top layer beside ``pyapp.cli``; may import every layer below, never ``pyapp.cli``.
"""

from pyapp.browser.dispatch import after_answer, after_restore, handle, hello, import_operation_modules

__all__ = ["after_answer", "after_restore", "handle", "hello", "import_operation_modules"]
