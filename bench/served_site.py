"""The built site served on 127.0.0.1 for the browser benchmarks: one way to set it up."""

from __future__ import annotations

import threading
from pathlib import Path

import build
from serve import make_server


def build_and_serve(folder: Path, extra_files: dict[str, str] | None = None) -> str:
    """Build the site into ``folder/dist``, add ``extra_files`` (name -> text), serve it; return its origin URL.

    The server runs in a daemon thread until the benchmark process ends.
    """
    dist = folder / "dist"
    build.build(dist=dist)
    for name, text in (extra_files or {}).items():
        (dist / name).write_text(text, encoding="utf-8")
    server = make_server(dist)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"
