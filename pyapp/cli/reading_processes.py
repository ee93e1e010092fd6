"""A long log read on every core: its lines parsed, validated and graded in batches by worker processes, and
taken back in file order; its runs' reports made so too (DR-008).

Reading a log is work per line, in pure Python, and nearly all of it (the parse, the entry's validation, the
grading of its answer) needs nothing from the lines before it; what does (ids seen, runs, the visitor's own
cases) stays in this process.

The workers are forked, so they start at once, with the sets' prompts this process has built, and never run the
caller's main module again, as spawned ones would. A fork copies only the thread that forks, so a process that
runs other threads (the tests run the commands so) reads its lines itself, as it does under Pyodide, where no
process can be started, and on one core.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

# Below this size (about 20,000 entries) a log is read in this process: at 10,000 entries (24 MB) the workers
# saved nothing measurable, at 100,000 half the time (DR-008).
PARALLEL_FROM = 50_000_000


def workers() -> int:
    """How many processes read a long log: one per core this process may use; 1 (this process) where none can
    be forked safely."""
    if sys.platform == "emscripten":
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def batch_map(size: int, count: int | None = None) -> Iterator[Callable[..., Iterable]]:
    """A map over batches of the work on a log of ``size`` bytes (blocks of its lines, for
    :func:`pyapp.evaluation.log_stream.log_lines`, or its runs, for ``report``): the built-in ``map`` for a short
    log or one core, else one that hands the batches in turn to ``count`` worker processes (default
    :func:`workers`), forked when it is first called, and gives their results in order. The workers stop when the
    block ends, however it ends."""
    count = workers() if count is None else count
    if count < 2 or size < PARALLEL_FROM:
        yield map
        return
    import multiprocessing

    from pyapp.evaluation.evalset import FIXED_SETS, SET_VERSIONS, case_facts

    for version in SET_VERSIONS:  # built here once, and so in every worker from the start
        for case in FIXED_SETS.cases(version):
            case_facts(case)
    context = multiprocessing.get_context("fork")
    started = []

    def in_order(function: Callable, batches: Iterable) -> Iterator:
        # Each worker holds one batch at most, so neither side ever waits on a pipe the other is not reading.
        pipes = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            worker = context.Process(target=_work, args=(theirs, function), daemon=True)
            worker.start()
            theirs.close()
            started.append(worker)
            pipes.append(ours)
        batches = iter(batches)
        busy: deque = deque()  # the workers holding a batch, in the order their batches were sent
        for pipe, batch in zip(pipes, batches, strict=False):
            pipe.send(batch)
            busy.append(pipe)
        while busy:
            pipe = busy.popleft()
            result = pipe.recv()
            if isinstance(result, Exception):  # a fault in the reading, raised here as it would have been
                raise result
            batch = next(batches, None)
            if batch is not None:
                pipe.send(batch)
                busy.append(pipe)
            yield result

    try:
        yield in_order
    finally:
        for worker in started:
            worker.kill()
            worker.join()


def _work(pipe, function: Callable) -> None:
    """A worker: each batch the command sends, mapped by ``function`` and sent back (or what it raised), until its
    pipe closes. Ctrl-C reaches every process of the terminal's group: a worker ignores it, and the command, which
    stops the workers as it stops, says what was interrupted."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            batch = pipe.recv()
        except EOFError:
            return
        try:
            result = function(batch)
        except Exception as exc:  # noqa: BLE001 - sent to the command, which raises it
            result = exc
        pipe.send(result)
