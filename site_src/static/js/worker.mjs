// The Web Worker that runs Pyodide and pyapp, so long computations never freeze the page.
// The build writes PYODIDE_FOLDER, Pyodide's folder named by its version (DR-002).
import { loadPyodide, version as pyodideVersion } from "../../PYODIDE_FOLDER/pyodide.mjs";
import * as auditStore from "./audit-store.mjs";
import { demoStore } from "./demo-store.mjs";
import * as logKeeping from "./log-keeping.mjs";
import * as snapshots from "./snapshot-store.mjs";

performance.mark("worker-evaluated");

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

const RUNTIME = {
  indexURL: new URL("../../PYODIDE_FOLDER/", import.meta.url).href,
  // The standard library precompiled at build time, which halves the boot; the build writes its hash here (DR-002).
  stdLibURL: new URL("../../PYODIDE_FOLDER/python_stdlib.pyc.zip?v=STDLIB_PYC_HASH", import.meta.url).href,
};

/** Where the wheels are written: each zip goes on sys.path as it is (DR-002). */
const WHEELS = "/lib/wheels";

/**
 * Pyodide with the wheels at `urls` on sys.path and pyapp.browser imported: the state a memory snapshot
 * holds. The wheels are fetched while Pyodide loads, but asked for only once Pyodide has asked for its
 * own files (they go out within its first microtasks): a first visit needs those first (DR-002).
 */
async function start(options, urls) {
  const loading = loadPyodide({ ...RUNTIME, ...options });
  loading.catch(() => {}); // awaited below
  await new Promise((resolve) => setTimeout(resolve));
  const archives = fetchArchives(urls);
  const started = await loading;
  performance.mark("pyodide-loaded");
  // pyapp is a wheel too, built from pyproject.toml (DR-002). Python imports from each wheel's zip
  // (zipimport), so nothing is unpacked. A restored snapshot has the modules imported and the paths
  // on sys.path but not the files (pyapp reads its data files from the zip), so always write them.
  started.FS.mkdirTree(WHEELS);
  const paths = [];
  for (const { name, bytes } of archives) {
    paths.push(`${WHEELS}/${name}`);
    started.FS.writeFile(paths.at(-1), new Uint8Array(await bytes));
  }
  started.runPython(`import sys\nsys.path[:0] = [p for p in ${JSON.stringify(paths)} if p not in sys.path]`);
  performance.mark("wheels-on-path");
  started.runPython("import pyapp.browser");
  performance.mark("pyapp-imported");
  return started;
}

/** The key a snapshot is kept under: this Pyodide, standard library and wheels (DR-002). */
const snapshotKey = (urls) => [pyodideVersion, RUNTIME.stdLibURL, ...urls].join("\n");

/** Each wheel's file name and its bytes, promised: fetched while Pyodide loads. A failed fetch is reported where it is awaited. */
function fetchArchives(urls) {
  return urls.map((url) => {
    const bytes = fetchBytes(url);
    bytes.catch(() => {});
    return { name: new URL(url).pathname.split("/").pop(), bytes };
  });
}

/**
 * Start Python from the snapshot this browser keeps, made after an earlier visit with the same
 * Pyodide, standard library and wheels (DR-002); otherwise, or when restoring fails, start it
 * afresh. `hint` is what start.js read from local storage: the key of the snapshot kept, if any.
 * Only a hint for this key looks in IndexedDB, so a first visit never opens it; the lookup and the
 * decompression run while Pyodide fetches and compiles its WebAssembly, and loadPyodide rejects
 * when either does. Pyodide's snapshot options are private and experimental (underscore-prefixed),
 * hence every guard here.
 */
async function startPython(urls, hint) {
  const key = snapshotKey(urls);
  if (snapshots.supported && hint?.key === key && hint.kept) {
    const snapshot = snapshots.find(key, snapshots.PYTHON).then((found) => {
      if (!found) throw new Error("none is kept");
      return snapshots.bytes(found);
    });
    snapshot.catch(() => {});
    try {
      return { started: await start({ _loadSnapshot: snapshot }, urls), from: "snapshot", key };
    } catch (error) {
      console.warn(`The saved start-up snapshot could not be restored (${error.message}); starting afresh.`);
      await snapshots.remove(snapshots.PYTHON).catch(() => {});
    }
  }
  return { started: await start({}, urls), from: "fresh", key };
}

/**
 * Make and keep the memory snapshot of a fresh start, in a worker of its own that start.js runs
 * once the page's worker is ready, so no visitor waits for it (DR-002). It starts Python exactly
 * as the page's worker does, imports every module the operations import, and takes the snapshot
 * before registering any JavaScript module or answering any call, so the snapshot holds nothing of
 * the visitor's (no key, no log) and nothing it cannot restore. Answers `{type: "snapshot", key,
 * kept}`, `kept` false where this Pyodide or browser cannot make one, or a `snapshot-error`.
 */
async function makeSnapshot({ pyapp, wheels }) {
  const urls = [...wheels, pyapp];
  const key = snapshotKey(urls);
  try {
    let kept = snapshots.supported && Boolean(await snapshots.find(key, snapshots.PYTHON)); // another tab's
    if (snapshots.supported && !kept) {
      const started = await start({ _makeSnapshot: true }, urls);
      // What the operations import on their first call, so a restored visit skips it.
      started.runPython("pyapp.browser.import_operation_modules()");
      if (typeof started.makeMemorySnapshot === "function") {
        await snapshots.write(key, snapshots.PYTHON, started.makeMemorySnapshot());
        kept = true;
      }
    }
    self.postMessage({ type: "snapshot", key, kept });
  } catch (error) {
    self.postMessage({ type: "snapshot-error", message: String(error.message || error) });
  }
}

/** A record the worker kept under `key` (snapshot-store.mjs): its bytes, or undefined when none is usable. */
async function keptBytes(key, name) {
  performance.mark("kept-asked", { detail: name });
  try {
    const found = await snapshots.find(key, name);
    return found ? await snapshots.bytes(found) : undefined;
  } catch (error) {
    console.warn(`The kept ${name} could not be used (${error.message}); reading the log.`);
    await snapshots.remove(name).catch(() => {});
    return undefined;
  }
}

function keepBytes(key, name, bytes) {
  performance.mark("keeping", { detail: name });
  void snapshots.write(key, name, bytes).catch((error) => {
    console.warn(`The ${name} was not kept: ${error.message}`);
  });
}

async function boot({ pyapp, wheels, snapshot, demo, readsLog }) {
  const urls = [...wheels, pyapp];
  // The demo's workspace keeps nothing: its log is the build's, read into memory, and no read of it is kept.
  const keeps = !demo;
  // On a page that reads the log as it opens, the kept read is fetched and unzipped while Python starts, and
  // handed to the first read of the log (DR-006).
  let early = keeps && readsLog ? keptBytes(snapshotKey(urls), snapshots.AUDIT_LOG) : null;
  const { started, from, key } = await startPython(urls, snapshot);
  pyodide = started;
  pyodide.registerJsModule("kdt_audit_store", demo ? demoStore(demo) : auditStore);
  pyodide.registerJsModule("kdt_log_keeping", logKeeping); // the visitor's kept file (DR-015)
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
    mark: (name, detail) => void performance.mark(name, { detail }),
    // The worker's read of the audit log and the evaluation page's opening view, kept for this build
    // (DR-006): their bytes, or undefined (None).
    kept_log: async () => {
      const taken = early;
      early = null; // its bytes are Python's from now on
      return taken ?? (keeps ? keptBytes(key, snapshots.AUDIT_LOG) : undefined);
    },
    kept_view: async () => (keeps ? keptBytes(key, snapshots.AUDIT_VIEW) : undefined),
    // Compressed and stored in the background; Python does not wait for it.
    keep_log: (bytes) => { if (keeps) keepBytes(key, snapshots.AUDIT_LOG, bytes); },
    keep_view: (bytes) => { if (keeps) keepBytes(key, snapshots.AUDIT_VIEW, bytes); },
  });
  browser = pyodide.pyimport("pyapp.browser");
  if (from === "snapshot") browser.after_restore();
  // start.js makes a snapshot after a fresh start, unless this build's Pyodide or browser cannot.
  const wanted = from === "fresh" && snapshots.supported && !(snapshot?.key === key && !snapshot.kept);
  const ready = { ...JSON.parse(browser.hello()), start: from, snapshot: wanted ? "wanted" : "none" };
  performance.mark("ready");
  // Each step's time since the epoch, so the page can place it on its own timeline (benchmarks read it).
  ready.marks = performance.getEntriesByType("mark").map((mark) => [mark.name, performance.timeOrigin + mark.startTime]);
  return ready;
}

/**
 * Start Python with the wheels start.js named in this worker's name, as soon as this module runs: no
 * message to wait for, which arrived 19 to 39 ms after the module ran (DR-002).
 */
async function init(files) {
  if (files.task === "snapshot") return makeSnapshot(files);
  performance.mark("init");
  const problem = await webAssemblyProblem();
  if (problem) {
    self.postMessage({ type: "boot-error", message: problem });
    return;
  }
  try {
    self.postMessage({ type: "ready", ...(await boot(files)) });
  } catch (error) {
    self.postMessage({ type: "boot-error", message: String(error.message || error) });
  }
}

// What Python leaves for after its answers (keeping its read of the log and the page's opening view, DR-006)
// waits until no call has come for IDLE_MS: the page asks its opening calls one after another, and keeping a
// read of 100,000 entries held the worker for about 3 s, which the next answer waited for.
const IDLE_MS = 250;
let answering = 0; // calls not yet answered
let idle = null;

function afterAnswers() {
  clearTimeout(idle);
  idle = setTimeout(() => {
    if (answering) return;
    try {
      browser.after_answer();
    } catch (error) {
      console.warn(`After an answer: ${String(error.message || error).trim().split("\n").pop()}`);
    }
  }, IDLE_MS);
}

self.addEventListener("message", async (event) => {
  const message = event.data;
  if (message.type === "cancel") {
    cancelRequested = true;
    aborter.abort();
  } else if (message.type === "call") {
    answering += 1;
    clearTimeout(idle);
    if (message.cancellable) {
      cancelRequested = false;
      aborter = new AbortController();
    }
    // pyapp answers {ok, value} or {ok: false, error: a sentence}; only a fault of the runtime lands in catch.
    let answer;
    try {
      const file = message.file ? new Uint8Array(message.file) : undefined; // undefined is None in Python
      answer = JSON.parse(await browser.handle(message.op, JSON.stringify(message.args), file));
    } catch (error) {
      answer = { ok: false, error: `Internal error: ${String(error.message || error).trim().split("\n").pop()}` };
    }
    self.postMessage({ type: "result", id: message.id, ...answer });
    performance.mark("answered", { detail: message.op });
    answering -= 1;
    if (!answering) afterAnswers();
  }
});

init(JSON.parse(self.name));
