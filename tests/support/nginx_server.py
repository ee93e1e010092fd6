"""Debian's nginx serving a dist/ with the README's server block: for the tests and the benchmarks.

The server block is read from README.md, so the README cannot drift from what is tested and measured.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from pathlib import Path

from sitegen import ROOT

NGINX = "/usr/sbin/nginx"
README_DIST = "/srv/kd-tree-explorer/dist"
# The type lines of the http block of Debian's /etc/nginx/nginx.conf.
DEBIAN_HTTP = "    include /etc/nginx/mime.types;\n    default_type application/octet-stream;\n"


def readme_server_block() -> str:
    """The one ```nginx block of README.md."""
    blocks = re.findall(r"^```nginx\n(.*?)^```$", (ROOT / "README.md").read_text(), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "README.md should hold exactly one nginx block"
    return blocks[0]


def replace_once_or_more(text: str, old: str, new: str) -> str:
    assert old in text, f"the README's server block no longer contains {old!r}"
    return text.replace(old, new)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Nginx:
    """nginx in the foreground with the given server block serving ``dist``; every path it writes is under
    ``prefix``."""

    def __init__(self, server_block: str, dist: Path, prefix: Path):
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        server = replace_once_or_more(server_block, "listen 80;", f"listen 127.0.0.1:{self.port};")
        server = replace_once_or_more(server, README_DIST, str(dist))
        temp = "".join(f"    {kind}_temp_path {prefix}/{kind};\n" for kind in
                       ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        # As root, nginx's workers would drop to nobody, who cannot read pytest's private folders.
        user = "user root root;\n" if os.geteuid() == 0 else ""
        config = prefix / "nginx.conf"
        config.write_text(
            f"{user}worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
            f"events {{}}\nhttp {{\n{DEBIAN_HTTP}    access_log {prefix}/access.log;\n{temp}{server}}}\n"
        )
        self.error_log = prefix / "error.log"
        self.process = subprocess.Popen(
            [NGINX, "-e", str(self.error_log), "-p", str(prefix), "-c", str(config), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.process.stderr.read()}{self.error_log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start listening within 10 s")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stderr.close()
