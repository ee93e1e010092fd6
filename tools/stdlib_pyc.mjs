// Precompile Pyodide's standard library with Pyodide's own Python (DR-002); stdlib_pyc.py runs this.
//   node tools/stdlib_pyc.mjs RUNTIME_DIR STDLIB_PYC_PY OUT_ZIP
import { readFile, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [runtime, module, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: runtime + path.sep });
pyodide.FS.mkdirTree("/tmp/stdlib_pyc");
pyodide.FS.writeFile("/tmp/stdlib_pyc/stdlib_pyc.py", await readFile(module));
pyodide.FS.writeFile("/tmp/stdlib_pyc/in.zip", await readFile(path.join(runtime, "python_stdlib.zip")));
pyodide.runPython(`
import sys
sys.path.insert(0, "/tmp/stdlib_pyc")
import stdlib_pyc
with open("/tmp/stdlib_pyc/in.zip", "rb") as source:
    zipped = stdlib_pyc.precompile(source.read(), f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip")
with open("/tmp/stdlib_pyc/out.zip", "wb") as target:
    target.write(zipped)
`);
await writeFile(out, pyodide.FS.readFile("/tmp/stdlib_pyc/out.zip"));
