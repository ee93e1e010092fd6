"""The service worker's list of kept files and the host files' caching rules (DR-002), on CPython."""

from __future__ import annotations

import json
import re

from sitegen import hosting
from sitegen.service_worker import kept_files, service_worker


def kept_in(sw: str) -> dict[str, str]:
    return json.loads(re.search(r"const FILES = (\{.*?\});", sw, re.DOTALL).group(1))


def test_service_worker_keeps_every_file_a_page_may_ask_for_with_its_hash(dist):
    sw = (dist / "sw.js").read_text(encoding="utf-8")
    kept = kept_in(sw)
    on_disk = {path.relative_to(dist).as_posix() for path in dist.rglob("*") if path.is_file()}
    host_only = {"_headers", ".htaccess", "sw.js"} | {p for p in on_disk if p.endswith(("/python_stdlib.zip", ".gz"))}
    assert set(kept) == on_disk - host_only
    assert {"index.html", "explorer/index.html", "404.html", "static/js/start.js"} <= set(kept)
    assert any(p.endswith("/pyodide.asm.wasm") for p in kept) and any(p.endswith(".pyc.zip") for p in kept)
    assert kept["404.html"] == kept_files({"404.html": (dist / "404.html").read_bytes()})["404.html"]
    assert "/* FILES */" not in sw and re.search(r'const VERSION = "[0-9a-f]{12}";', sw)


def test_any_changed_file_makes_a_new_version():
    source = 'const FILES = {} /* FILES */;\nconst VERSION = "/* VERSION */";\n'
    files = {"index.html": b"one", "static/js/start.js": b"two", "_headers": b"rules"}
    first = service_worker(source, files)
    assert service_worker(source, dict(files)) == first  # deterministic
    assert service_worker(source, {**files, "index.html": b"ONE"}) != first
    assert service_worker(source, {**files, "new.html": b""}) != first
    assert service_worker(source, {**files, "_headers": b"other rules"}) == first  # not kept
    assert service_worker(source, {**files, "index.html.gz": b"copy"}) == first  # a host's copy: not kept


def test_host_files_keep_versioned_files_for_a_year_and_compress():
    headers = hosting.headers_file()
    for folder in ("/pyodide/*", "/app/*", "/wheels/*"):
        assert f"{folder}\n  Cache-Control: public, max-age=31536000, immutable\n" in headers
    assert "no-cache" not in headers  # Netlify would join it to the immutable rule's value
    htaccess = hosting.htaccess()
    assert 'Header set Cache-Control "public, max-age=31536000, immutable"' in htaccess
    assert "AddOutputFilterByType DEFLATE application/wasm text/javascript" in htaccess
    assert "application/json" in htaccess.split("DEFLATE")[1].split("\n")[0]


def test_cache_control_by_url():
    assert hosting.cache_control("/kd/pyodide/314.0.8/pyodide.asm.wasm") == hosting.IMMUTABLE
    assert hosting.cache_control("/static/js/worker.mjs?v=0123456789ab") == hosting.IMMUTABLE
    for url in ("/static/js/python.mjs", "/explorer/", "/sw.js", "/explorer/?v=1", "/pyodide/python_stdlib.zip"):
        assert hosting.cache_control(url) == "no-cache", url
