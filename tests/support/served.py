"""The built site served by the site's own development server on a free port, in a thread."""

from __future__ import annotations

import threading
from pathlib import Path

from sitegen.serve import SiteHandler, make_server


class Served:
    def __init__(self, server, thread):
        self.server, self.thread = server, thread
        host, port = server.server_address[:2]
        self.origin = f"http://{host}:{port}"
        self.url = self.origin + server.prefix


def serve(directory: Path, prefix: str = "/", handler=SiteHandler) -> Served:
    server = make_server(directory, 0, prefix, handler=handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return Served(server, thread)
