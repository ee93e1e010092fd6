"""The built site served on 127.0.0.1 for the browser benchmarks: one way to set it up."""

from __future__ import annotations

import threading
from pathlib import Path

import build
from serve import SiteHandler, make_server


class Traffic:
    """What the server sent: requests answered and bytes written (headers and bodies), since the last reset."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[str] = []
        self.bytes = 0

    def reset(self) -> None:
        with self.lock:
            self.requests, self.bytes = [], 0


def counting_handler(traffic: Traffic) -> type[SiteHandler]:
    """The dev server's handler, noting every request and every byte it writes in ``traffic``."""

    class CountingHandler(SiteHandler):
        def setup(self) -> None:
            super().setup()
            write = self.wfile.write

            def counted(data) -> int:
                with traffic.lock:
                    traffic.bytes += len(data)
                return write(data)

            self.wfile.write = counted

        def log_request(self, code="-", size="-") -> None:
            with traffic.lock:
                traffic.requests.append(f"{self.command} {self.path} {code}")

    return CountingHandler


def build_and_serve(folder: Path, extra_files: dict[str, str] | None = None, traffic: Traffic | None = None) -> str:
    """Build the site into ``folder/dist``, add ``extra_files`` (name -> text), serve it; return its origin URL.

    With ``traffic``, the server notes there what it sends. The server runs in a daemon thread until the
    benchmark process ends.
    """
    dist = folder / "dist"
    build.build(dist=dist)
    for name, text in (extra_files or {}).items():
        (dist / name).write_text(text, encoding="utf-8")
    handler = SiteHandler if traffic is None else counting_handler(traffic)
    server = make_server(dist, handler=handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"
