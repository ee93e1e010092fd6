// Start pyapp under Pyodide in a module Web Worker and talk to it by messages.
// Glue only: every computation lives in pyapp (see DR-002).

const statusElement = () => document.getElementById("python-status");

function setStatus(state, text) {
  const element = statusElement();
  if (element) {
    element.dataset.state = state;
    element.textContent = text;
  }
}

// A meta policy does not reach the worker: only the HTTP header of its script limits
// which origins it may contact. A host that drops the header (Apache without
// mod_headers, say) gets a visible warning; the site still works (DR-002).
async function warnIfWorkerPolicyMissing(workerURL) {
  let response;
  try {
    response = await fetch(workerURL, { method: "HEAD", cache: "no-store" });
  } catch {
    return; // the worker's own load reports a network failure
  }
  if (!response.ok || response.headers.has("Content-Security-Policy")) return;
  const warning = document.getElementById("host-policy-warning");
  warning.textContent = "This host does not send the site's Content-Security-Policy header, so the " +
    "Python worker is not limited to the model providers' addresses. The site works; whoever hosts it " +
    "should send the header (see DR-002).";
  warning.hidden = false;
}

export function startPython() {
  const data = document.body.dataset;
  data.pythonStarted = "true"; // boot-watch.js stands down: this module's time limit applies
  const timeoutMs = Number(data.bootTimeoutMs);
  // start.js, the page's first script, started the worker, naming its wheels (DR-002).
  const { worker, url, takeEarlyEvents } = window.pythonWorker;
  warnIfWorkerPolicyMissing(url);
  const pending = new Map();
  const listeners = new Set();
  let nextId = 1;
  let booted = false;
  let stopped = null; // once set, the sentence every call is rejected with

  // Every waiting call is rejected, and so is every later one: nothing waits for a worker that is gone.
  const stop = (sentence) => {
    stopped = sentence;
    for (const call of pending.values()) call.reject(new Error(sentence));
    pending.clear();
  };

  // After boot, an error that escaped the worker (or a message it sent that cannot be read) leaves
  // Python in an unknown state: end the worker so no late answer arrives, and say so.
  const crash = () => {
    if (stopped) return;
    worker.terminate();
    const sentence = "Python stopped: its worker failed. Reload the page to start it again " +
      "(calls already logged are kept).";
    setStatus("error", sentence);
    stop(sentence);
  };

  const ready = new Promise((resolve, reject) => {
    const fail = (message) => {
      clearTimeout(timer);
      setStatus("error", `Python could not start: ${message}`);
      stop(`Python could not start: ${message}`);
      reject(new Error(message));
    };
    const timer = setTimeout(
      () => fail(`no answer within ${timeoutMs / 1000} s. The host may forbid WebAssembly ` +
        "(its Content-Security-Policy needs 'wasm-unsafe-eval'), or the network is too slow. Reload to try again."),
      timeoutMs,
    );
    const handlers = {};
    handlers.error = (event) => {
      if (booted) crash();
      else fail(event.message || "the worker script failed to load");
    };
    handlers.messageerror = () => {
      if (booted) crash();
      else fail("a message from the worker could not be read");
    };
    handlers.message = (event) => {
      const message = event.data;
      if (message.type === "ready") {
        clearTimeout(timer);
        booted = true;
        performance.mark("python-ready");
        for (const [name, epochMs] of message.marks || []) {
          performance.mark(`worker:${name}`, { startTime: epochMs - performance.timeOrigin });
        }
        setStatus("ready", `Python ready: Python ${message.python}, pyapp ${message.pyapp}`);
        if (statusElement()) statusElement().dataset.start = message.start; // "snapshot" or "fresh" (DR-002)
        resolve(message);
      } else if (message.type === "boot-error") {
        fail(message.message);
      } else if (message.type === "result") {
        const call = pending.get(message.id);
        if (!call) return; // rejected already, when the worker stopped
        pending.delete(message.id);
        if (message.ok) call.resolve(message.value);
        else call.reject(new Error(message.error));
      } else if (message.type === "event") {
        for (const listener of listeners) listener(message.event);
      }
    };
    for (const [kind, handler] of Object.entries(handlers)) worker.addEventListener(kind, handler);
    for (const event of takeEarlyEvents()) handlers[event.type](event);
  });

  return {
    ready,
    /**
     * Call the pyapp operation `op` with JSON-able `args`; resolves with its JSON-able value.
     * A `cancellable` call is the one that `cancel()` stops. A `file` (an ArrayBuffer, an imported file's
     * bytes) is moved to the worker as it is, not copied or encoded, and reaches the operation as `file`.
     */
    call(op, args = {}, { cancellable = false, file = null } = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (stopped) {
          reject(new Error(stopped));
          return;
        }
        pending.set(id, { resolve, reject });
        // A call made while Python starts (the explorer's map is drawn before) waits for it; if Python
        // never starts, stop() has rejected the call already.
        ready.then(() => worker.postMessage({ type: "call", id, op, args, cancellable, file }, file ? [file] : []),
          () => {});
      });
    },
    /** Ask the running cancellable operation to stop. */
    cancel() {
      worker.postMessage({ type: "cancel" });
    },
    /** Receive progress events that operations send while they run. */
    onEvent(listener) {
      listeners.add(listener);
    },
  };
}
