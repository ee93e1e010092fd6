"""The development server: ``dist/`` on 127.0.0.1, optionally under a sub-path, with the
site's security headers and MIME types (DR-001). ``python build.py --serve`` starts it."""

from __future__ import annotations

import functools
import http.server
import io
from pathlib import Path

from sitegen.hosting import JSON_LINES_TYPE, SECURITY_HEADERS, cache_control


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serve dist/ (optionally under a prefix) with the site's security headers."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".jsonl": JSON_LINES_TYPE,
        ".xml": "application/atom+xml",
        ".md": "text/plain; charset=utf-8",
        ".zip": "application/zip",
        ".whl": "application/zip",
    }
    prefix = "/"
    security_headers = SECURITY_HEADERS

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_prefix__")
        return super().translate_path("/" + path[len(self.prefix):])

    def send_head(self) -> io.BufferedIOBase | None:
        try:
            return super().send_head()
        except ValueError:  # a NUL byte or an undecodable escape in the path: no such file
            self.send_error(404)
            return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A missing file gets the site's own 404.html, as static hosts serve it."""
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def list_directory(self, path: str) -> None:
        """A folder without index.html is not found: the server never lists files."""
        self.send_error(404)
        return None

    def end_headers(self) -> None:
        for name, value in self.security_headers.items():
            self.send_header(name, value)
        # Kept for a year when the URL names the content, else revalidated: a new build is never served stale.
        self.send_header("Cache-Control", cache_control(self.path))
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib signature)
        if self.server.verbose:
            super().log_message(format, *args)


def make_server(dist: Path, port: int = 0, prefix: str = "/", verbose: bool = False,
                handler: type[SiteHandler] = SiteHandler) -> http.server.ThreadingHTTPServer:
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    bound = type("BoundSiteHandler", (handler,), {"prefix": prefix})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(bound, directory=str(dist)))
    server.verbose = verbose
    server.prefix = prefix
    return server


def serve_forever(dist: Path, port: int, prefix: str) -> None:
    """Serve until Ctrl+C, printing each request."""
    server = make_server(dist, port, prefix, verbose=True)
    host, port = server.server_address[:2]
    print(f"serving on http://{host}:{port}{server.prefix}  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
