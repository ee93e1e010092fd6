// Precompile Python for Pyodide with Pyodide's own Python (DR-002); stdlib_pyc.py runs this.
//   node sitegen/stdlib_pyc.mjs RUNTIME_DIR STDLIB_PYC_PY FUNCTION IN OUT [IN OUT ...]
// writes OUT = stdlib_pyc.FUNCTION(bytes of IN) for each pair.
import { readFile, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [runtime, module, functionName, ...files] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: runtime + path.sep });
pyodide.FS.mkdirTree("/tmp/stdlib_pyc");
pyodide.FS.writeFile("/tmp/stdlib_pyc/stdlib_pyc.py", await readFile(module));
pyodide.runPython(`import sys; sys.path.insert(0, "/tmp/stdlib_pyc"); import stdlib_pyc`);
for (let i = 0; i < files.length; i += 2) {
  pyodide.FS.writeFile("/tmp/stdlib_pyc/in", await readFile(files[i]));
  pyodide.runPython(`
with open("/tmp/stdlib_pyc/in", "rb") as source:
    result = stdlib_pyc.${functionName}(source.read())
with open("/tmp/stdlib_pyc/out", "wb") as target:
    target.write(result)
`);
  await writeFile(files[i + 1], pyodide.FS.readFile("/tmp/stdlib_pyc/out"));
}
