// The Web Worker that runs Pyodide and pyapp, so long computations never freeze the page.
// The build writes PYODIDE_FOLDER, Pyodide's folder named by its version (DR-002).
import { loadPyodide } from "../../PYODIDE_FOLDER/pyodide.mjs";
import * as auditStore from "./audit-store.mjs";

let pyodide = null;
let browser = null;
let cancelRequested = false;
let aborter = new AbortController();

// Without 'wasm-unsafe-eval' loadPyodide hangs instead of failing, and WebKit never
// fires the worker's securitypolicyviolation event (DR-002). So the worker first
// instantiates the smallest module (magic number and version), which fails at once
// in every engine under such a policy; WebKit still compiles it, so compiling alone
// proves nothing there.
const EMPTY_MODULE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

/** Why this worker cannot run WebAssembly, or null when it can. */
async function webAssemblyProblem() {
  if (typeof WebAssembly === "undefined") return "this browser has WebAssembly turned off.";
  try {
    await WebAssembly.instantiate(EMPTY_MODULE);
    return null;
  } catch {
    return "the host's Content-Security-Policy forbids WebAssembly (its script-src needs " +
      "'wasm-unsafe-eval', see DR-002).";
  }
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return response.arrayBuffer();
}

async function boot({ pyapp, wheels }) {
  // The wheels download while Pyodide loads (DR-002); a failure is reported where each is awaited.
  const archives = [...wheels, pyapp].map(fetchBytes);
  for (const archive of archives) archive.catch(() => {});
  pyodide = await loadPyodide({
    indexURL: new URL("../../PYODIDE_FOLDER/", import.meta.url).href,
    // The standard library precompiled at build time, which halves the boot; the build writes its hash here (DR-002).
    stdLibURL: new URL("../../PYODIDE_FOLDER/python_stdlib.pyc.zip?v=STDLIB_PYC_HASH", import.meta.url).href,
  });
  // pyapp is a wheel too, built from pyproject.toml (DR-002); each unpacks into the working folder, on sys.path.
  for (const archive of archives) {
    pyodide.unpackArchive(await archive, "wheel");
  }
  pyodide.registerJsModule("kdt_audit_store", auditStore);
  pyodide.registerJsModule("kdt_worker", {
    emit: (json) => self.postMessage({ type: "event", event: JSON.parse(json) }),
    cancel_requested: () => cancelRequested,
    acquire_lock: (name) => new Promise((resolve) => {
      navigator.locks.request(name, { ifAvailable: true }, (lock) => {
        if (!lock) return resolve(undefined); // undefined becomes None in Python (null would not)
        return new Promise((release) => resolve(release)); // held until Python calls release()
      });
    }),
    new_signal: (timeoutMs) => AbortSignal.any([aborter.signal, AbortSignal.timeout(timeoutMs)]),
  });
  browser = pyodide.pyimport("pyapp.browser");
  return JSON.parse(browser.hello());
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message.type === "init") {
    const problem = await webAssemblyProblem();
    if (problem) {
      self.postMessage({ type: "boot-error", message: problem });
      return;
    }
    try {
      self.postMessage({ type: "ready", ...(await boot(message)) });
    } catch (error) {
      self.postMessage({ type: "boot-error", message: String(error.message || error) });
    }
  } else if (message.type === "cancel") {
    cancelRequested = true;
    aborter.abort();
  } else if (message.type === "call") {
    if (message.cancellable) {
      cancelRequested = false;
      aborter = new AbortController();
    }
    // pyapp answers {ok, value} or {ok: false, error: a sentence}; only a fault of the runtime lands in catch.
    let answer;
    try {
      answer = JSON.parse(await browser.handle(message.op, JSON.stringify(message.args)));
    } catch (error) {
      answer = { ok: false, error: `Internal error: ${String(error.message || error).trim().split("\n").pop()}` };
    }
    self.postMessage({ type: "result", id: message.id, ...answer });
  }
});
