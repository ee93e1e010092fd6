"""The built site served on 127.0.0.1 for the browser benchmarks: one way to set it up.

Two servers: the development server (``sitegen/serve.py``) in a thread of the benchmark, or Debian's nginx in a
process of its own with the README's server block, so the files go out compressed as a host sends them.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path

from nginx_server import Nginx, readme_server_block
from sitegen import builder
from sitegen.serve import SiteHandler, make_server

SERVERS = ("builtin", "nginx")


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


def serve(dist: Path, server: str = "builtin", handler: type[SiteHandler] = SiteHandler) -> str:
    """Serve ``dist`` until the benchmark process ends, with ``server`` (one of SERVERS); return its origin URL."""
    if server == "nginx":
        prefix = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
        nginx = Nginx(readme_server_block(), dist, prefix)
        atexit.register(shutil.rmtree, prefix, ignore_errors=True)
        atexit.register(nginx.stop)
        return nginx.origin + "/"
    httpd = make_server(dist, handler=handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/"


def build_and_serve(folder: Path, extra_files: dict[str, str] | None = None, traffic: Traffic | None = None,
                    server: str = "builtin") -> str:
    """Build the site into ``folder/dist``, add ``extra_files`` (name -> text), serve it; return its origin URL.

    With ``traffic``, the development server notes there what it sends. The server runs until the benchmark
    process ends.
    """
    if traffic is not None and server != "builtin":
        raise ValueError("only the development server counts its traffic")
    dist = folder / "dist"
    builder.build(dist=dist)
    for name, text in (extra_files or {}).items():
        (dist / name).write_text(text, encoding="utf-8")
    return serve(dist, server, SiteHandler if traffic is None else counting_handler(traffic))
