"""Run Python benchmark code under the site's own Pyodide, in a Web Worker in Debian's Chromium.

    with BrowserPython() as browser_python:
        result = browser_python.run("import json; json.dumps(...)")   # the last expression, a str

The site is built into a temporary folder, with this folder's ``*.py`` files zipped
beside it and a small benchmark worker that boots Pyodide the way the site's worker
does (same runtime files, same ``pyapp.zip``, same vendored wheels). Nothing of this
is shipped with the site.
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]

import build  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from serve import make_server  # noqa: E402

WORKER = """
import { loadPyodide } from "./pyodide/pyodide.mjs";

async function bytes(url) { return (await fetch(url)).arrayBuffer(); }

const ready = (async () => {
  const py = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
  for (const wheel of WHEELS) py.unpackArchive(await bytes(wheel), "wheel");
  py.unpackArchive(await bytes("pyapp.zip"), "zip", { extractDir: "/home/pyodide/app" });
  py.unpackArchive(await bytes("bench.zip"), "zip", { extractDir: "/home/pyodide/bench" });
  py.runPython("import sys; sys.path[:0] = ['/home/pyodide/app', '/home/pyodide/bench']");
  return py;
})();

self.onmessage = async (event) => {
  try {
    const py = await ready;
    self.postMessage({ ok: true, value: await py.runPythonAsync(event.data) });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error) });
  }
};
"""

RUN = """async (code) => {
  window.benchWorker ??= new Worker("bench-worker.mjs", { type: "module" });
  return await new Promise((resolve, reject) => {
    window.benchWorker.onmessage = (event) =>
      event.data.ok ? resolve(event.data.value) : reject(new Error(event.data.error));
    window.benchWorker.postMessage(code);
  });
}"""


def bench_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(HERE.glob("*.py")):
            archive.write(path, path.name)
    return buffer.getvalue()


class BrowserPython:
    def __enter__(self) -> BrowserPython:
        from playwright.sync_api import sync_playwright

        self._tmp = tempfile.TemporaryDirectory()
        dist = Path(self._tmp.name) / "dist"
        files = build.build(dist=dist)
        wheels = sorted(path for path in files if path.startswith("wheels/"))
        (dist / "bench-worker.mjs").write_text(WORKER.replace("WHEELS", repr(wheels)), encoding="utf-8")
        (dist / "bench.zip").write_bytes(bench_zip())
        self._server = make_server(dist)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        self._page = self._browser.new_page()
        self._page.goto(f"http://127.0.0.1:{self._server.server_address[1]}/")
        return self

    def run(self, code: str, timeout_ms: float = 600_000) -> str:
        """Run ``code`` in the worker's Pyodide; return its last expression (which must be a str)."""
        self._page.set_default_timeout(timeout_ms)
        return self._page.evaluate(RUN, code)

    def __exit__(self, *exc: object) -> None:
        self._browser.close()
        self._playwright.stop()
        self._server.shutdown()
        self._server.server_close()
        self._tmp.cleanup()
