"""Pausing the cyclic garbage collector around bulk passes over the audit log (DR-006).

Only the edges pause it, around whole operations: the worker's operations that read the log
(``pyapp.browser.log_cache.over_the_log``) and the command line's commands (``pyapp.cli.main``).
The domain code that reads the log never touches the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(keep: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk pass that creates no reference cycles.

    Rebuilding and grading allocate many small objects; on a log of 100,000 entries
    the collector's repeated passes over them doubled the time (bench/bench_rebuild.py).
    When ``keep()`` says at the end that what the pass made lives on (the worker's log,
    its index and grades after a first read), it is moved out of the collector's
    generations (``gc.freeze``) before the collector resumes, whose first pass would
    otherwise walk all of it: a sixth of reading a 10,000-entry log (DR-006). Only the
    outermost pause decides.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if keep():
                gc.freeze()
            gc.enable()
