"""The worker's JavaScript modules in memory, so ``pyapp.browser`` runs on CPython (the ``worker`` fixture)."""

from __future__ import annotations

import asyncio
import json
import types


class WorkerStandIn:
    """The worker's JavaScript modules as ``pyapp.browser`` imports them, in memory (DR-002).

    ``kdt_worker`` (cancel flag, abort signals, events, Web Locks), ``kdt_audit_store``
    (the IndexedDB log: a list of JSON texts) and ``pyodide.http.pyfetch``, which answers
    with ``respond(url, body)`` or raises ``fail``.
    """

    def __init__(self) -> None:
        self.cancel = False
        self.signals: list[float] = []
        self.events: list[dict] = []
        self.locks: set[str] = set()
        self.stored: list[str] = []
        self.store_error: Exception | None = None
        self.fail: Exception | None = None
        self.respond = None
        self.kept: bytes | None = None  # the kept read of the audit log (snapshot-store.mjs)
        self.kept_opening: bytes | None = None  # the evaluation page's kept opening view
        self.marks: list[tuple[str, object]] = []
        self.worker = types.SimpleNamespace(
            cancel_requested=lambda: self.cancel, new_signal=lambda ms: self.signals.append(ms) or "signal",
            emit=lambda text: self.events.append(json.loads(text)), acquire_lock=self.acquire_lock,
            kept_log=self.kept_log, keep_log=self.keep_log, kept_view=self.kept_view, keep_view=self.keep_view,
            mark=lambda name, detail: self.marks.append((name, detail)))
        self.store = types.SimpleNamespace(append=self.append, readFrom=self.read_from)
        self.pyodide = types.ModuleType("pyodide")
        self.http = types.ModuleType("pyodide.http")
        self.http.pyfetch = self.pyfetch
        self.pyodide.http = self.http
        self.ffi = types.ModuleType("pyodide.ffi")
        self.ffi.to_js = bytes  # Python's bytes become a Uint8Array, here a copy
        self.pyodide.ffi = self.ffi

    async def acquire_lock(self, name: str):
        if name in self.locks:
            return None
        self.locks.add(name)
        return lambda: self.locks.discard(name)

    async def append(self, texts_json: str) -> str:
        """As ``append`` in audit-store.mjs: the texts stored as they are, and their sequence numbers."""
        if self.store_error is not None:
            raise self.store_error
        first = len(self.stored) + 1
        self.stored.extend(json.loads(texts_json))
        return json.dumps({"seqs": list(range(first, len(self.stored) + 1))})

    async def read_from(self, seq: int, count: int | None = None):
        """As ``readFrom`` in audit-store.mjs (``framed``); record ``n`` (from 1) is ``stored[n - 1]``: a text that
        is not well-formed (a lone surrogate) in the JSON, every other text's UTF-8 bytes one after another.
        It answers on the event loop's next turn, as the browser's store does, so other operations run meanwhile."""
        await asyncio.sleep(0)
        rows, texts = [], bytearray()
        for n, text in enumerate(self.stored, 1):
            if n < seq:
                continue
            if count is not None and len(rows) == count:
                break
            try:
                data = text.encode("utf-8") if isinstance(text, str) else None
            except UnicodeEncodeError:
                rows.append([n, text])
                continue
            rows.append([n, None if data is None else len(data)])
            texts += data or b""
        return types.SimpleNamespace(rows=json.dumps(rows), texts=types.SimpleNamespace(to_bytes=lambda: bytes(texts)))

    async def kept_log(self):
        return None if self.kept is None else types.SimpleNamespace(to_bytes=lambda: self.kept)

    def keep_log(self, data: bytes) -> None:
        self.kept = data

    async def kept_view(self):
        return None if self.kept_opening is None else types.SimpleNamespace(to_bytes=lambda: self.kept_opening)

    def keep_view(self, data: bytes) -> None:
        self.kept_opening = data

    async def pyfetch(self, url: str, **kwargs):
        if self.fail is not None:
            raise self.fail
        status, headers, body = self.respond(url, kwargs.get("body"))

        async def string() -> str:
            return body

        return types.SimpleNamespace(status=status, headers=headers, string=string)
