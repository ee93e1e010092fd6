"""Python code under the site's own Pyodide, with the wheels the site's worker loads (DR-002).

One boot, two places to run it: ``run_in_node`` runs a script in node (the tests), and
``BrowserPython`` runs code in a Web Worker in Debian's Chromium on the built site (the
benchmarks). Both put the same wheels on ``sys.path`` the way the worker does, as zips:
pyapp's, built from pyproject.toml, and the vendored ones. Extra files (a benchmark's modules, an
export to read) go to Pyodide's home folder, which is on ``sys.path``.

    out = run_in_node("import json\\nfrom pyapp.evaluation.stats import wilson\\njson.dumps(wilson(1, 2))", tmp_path)
    with BrowserPython({"work.py": path}) as python:
        python.run("import work; work.measure()")   # the last expression, a str
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from chromium import CHROMIUM, CHROMIUM_ARGS
from sitegen import builder
from sitegen.serve import make_server
from sitegen.static import pyodide_folder
from sitegen.wheel import build_wheel

REPO = Path(__file__).resolve().parents[2]
PYODIDE = REPO / "node_modules" / "pyodide" / "pyodide.mjs"

# The one boot: the worker's steps (site_src/static/js/worker.mjs), wheels and extra files given as bytes.
BOOT = """
async function boot(loadPyodide, options, wheels, extras) {
  const py = await loadPyodide(options);
  py.FS.mkdirTree("/lib/wheels");
  const paths = wheels.map(([name]) => "/lib/wheels/" + name);
  wheels.forEach(([, bytes], i) => py.FS.writeFile(paths[i], bytes));
  for (const [name, bytes] of extras) py.FS.writeFile("/home/pyodide/" + name, bytes);
  py.runPython(`import sys\nsys.path[:0] = ["/home/pyodide", *${JSON.stringify(paths)}]`);
  return py;
}
"""

NODE_RUNNER = BOOT + """
import { loadPyodide } from %(pyodide)s;
import { readFileSync } from "node:fs";
const read = (path) => new Uint8Array(readFileSync(path));
const extras = %(extras)s.map(([name, path]) => [name, read(path)]);
const wheels = %(wheels)s.map((path) => [path.split("/").pop(), read(path)]);
const py = await boot(loadPyodide, %(options)s, wheels, extras);
process.stdout.write(String(py.runPython(readFileSync(%(script)s, "utf8"))));
"""

BROWSER_WORKER = BOOT + """
import { loadPyodide } from "./%(pyodide)s/pyodide.mjs";
const bytes = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());
const ready = (async () => boot(
  loadPyodide, { indexURL: new URL("./%(pyodide)s/", import.meta.url).href },
  await Promise.all(%(wheels)s.map(async (path) => [path.split("/").pop(), await bytes(path)])),
  await Promise.all(%(extras)s.map(async (name) => [name, await bytes("harness-extra/" + name)])),
))();

self.onmessage = async (event) => {
  try {
    const py = await ready;
    self.postMessage({ ok: true, value: await py.runPythonAsync(event.data) });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error) });
  }
};
"""

BROWSER_RUN = """async (code) => {
  window.harnessWorker ??= new Worker("harness-worker.mjs", { type: "module" });
  return await new Promise((resolve, reject) => {
    window.harnessWorker.onmessage = (event) =>
      event.data.ok ? resolve(event.data.value) : reject(new Error(event.data.error));
    window.harnessWorker.postMessage(code);
  });
}"""


def pyodide_available() -> bool:
    return shutil.which("node") is not None and PYODIDE.exists()


def site_wheels() -> dict[str, bytes]:
    """The wheels the site's worker puts on sys.path, by file name: pyapp's and the vendored ones."""
    name, wheel = build_wheel(REPO)
    return {name: wheel} | {path.name: path.read_bytes() for path in sorted((REPO / "vendor").glob("*.whl"))}


def run_in_node(script: str, workdir: Path, extra_files: dict[str, Path] | None = None, timeout: float = 600,
                stdlib: Path | None = None, wheels: dict[str, bytes] | None = None) -> str:
    """Run ``script`` under Pyodide in node; return its last expression, printed.

    ``extra_files`` are copied to Pyodide's home folder (name -> local path); ``stdlib`` replaces the
    stock standard-library zip (the site's precompiled one, DR-002); ``wheels`` (file name -> bytes)
    replace the ones built from the sources (the site's precompiled ones).
    """
    paths = []
    for name, data in (site_wheels() if wheels is None else wheels).items():
        (workdir / name).write_bytes(data)
        paths.append(str(workdir / name))
    script_file = workdir / "pyodide_script.py"
    script_file.write_text(script, encoding="utf-8")
    runner = workdir / "pyodide_run.mjs"
    runner.write_text(NODE_RUNNER % {
        "pyodide": json.dumps(str(PYODIDE)),
        "options": json.dumps({} if stdlib is None else {"stdLibURL": str(stdlib)}),
        "wheels": json.dumps(paths),
        "extras": json.dumps([[name, str(path)] for name, path in (extra_files or {}).items()]),
        "script": json.dumps(str(script_file)),
    }, encoding="utf-8")
    done = subprocess.run(["node", str(runner)], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"node exited with {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


class BrowserPython:
    """The built site served on 127.0.0.1, a page of it in Chromium, and a worker running code under Pyodide.

    Files written to ``folder`` (the served dist/) can be fetched by the code with ``pyodide.http.pyfetch``.
    """

    def __init__(self, extra_files: dict[str, Path] | None = None):
        self.extra_files = extra_files or {}

    def __enter__(self) -> BrowserPython:
        from playwright.sync_api import sync_playwright

        self._tmp = tempfile.TemporaryDirectory()
        self.folder = Path(self._tmp.name) / "dist"
        files = builder.build(dist=self.folder)
        (self.folder / "harness-extra").mkdir()
        for name, path in self.extra_files.items():
            shutil.copy(path, self.folder / "harness-extra" / name)
        wheels = sorted(path for path in files if path.endswith(".whl"))
        (self.folder / "harness-worker.mjs").write_text(BROWSER_WORKER % {
            "wheels": json.dumps(wheels), "extras": json.dumps(sorted(self.extra_files)),
            "pyodide": pyodide_folder(PYODIDE.parent),
        }, encoding="utf-8")
        self._server = make_server(self.folder)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        self._page = self._browser.new_page(service_workers="block")  # the site's offline copy is not measured
        self._page.goto(f"http://127.0.0.1:{self._server.server_address[1]}/")
        return self

    def run(self, code: str, timeout_ms: float = 600_000) -> str:
        """Run ``code`` in the worker's Pyodide; return its last expression (which must be a str)."""
        self._page.set_default_timeout(timeout_ms)
        return self._page.evaluate(BROWSER_RUN, code)

    def __exit__(self, *exc: object) -> None:
        self._browser.close()
        self._playwright.stop()
        self._server.shutdown()
        self._server.server_close()
        self._tmp.cleanup()
