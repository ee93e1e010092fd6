// The first script of every page: classic, in the head and not deferred, so it runs as soon as
// it arrives, before the parser reads the body (the explorer's is mostly its embedded map) and
// before the page's modules. On a page that runs Python it starts the worker at once, so Pyodide
// loads while the page itself still loads; python.mjs takes the worker over. After a fresh start it
// has a second worker make the memory snapshot a later visit starts from. On every page it
// registers the service worker that keeps the site for offline visits, once the page has loaded
// what it needs (DR-002).
"use strict";
(() => {
  const script = document.currentScript;
  const serviceWorker = new URL("../../sw.js", script.src); // this file is static/js/start.js
  const register = () => {
    if (!("serviceWorker" in navigator)) return; // plain http to another host, or a browser without them
    // A host or browser that refuses it loses only the offline copy.
    navigator.serviceWorker.register(serviceWorker).catch(() => {});
  };
  // The worker's files are named on this script's own tag: the body does not exist yet.
  const data = script.dataset;
  if (!data.worker) {
    window.addEventListener("load", register, { once: true });
    return;
  }
  const absolute = (path) => new URL(path, document.baseURI).href;
  const url = absolute(data.worker);
  // Whether this browser keeps a memory snapshot, and under which key: {key, kept}, written once the
  // snapshot's worker has answered. Without it the page's worker never opens IndexedDB (DR-002).
  const HINT = "kd-tree-explorer-snapshot";
  let hint = null;
  try {
    hint = JSON.parse(localStorage.getItem(HINT));
  } catch {
    // storage refused or the hint unreadable: start afresh
  }
  // The worker takes its wheels from its name and starts at once, with no message to wait for (DR-002).
  const files = { pyapp: absolute(data.pyapp), wheels: JSON.parse(data.wheels || "[]").map(absolute) };
  // ?demo on the evaluation page: the worker reads the build's scripted log instead of the visitor's (DR-006).
  const demo = data.demo && new URLSearchParams(location.search).has("demo") ? absolute(data.demo) : undefined;
  // A page that reads the audit log as it opens has its worker take back the read it kept meanwhile (DR-006).
  const readsLog = "readsLog" in data && !demo;
  const worker = new Worker(url, { type: "module", name: JSON.stringify({ ...files, snapshot: hint, demo, readsLog }) });
  /** Make the snapshot in a worker of its own once the page is idle, and note the answer in the hint. */
  const makeSnapshot = () => {
    const maker = new Worker(url, { type: "module", name: JSON.stringify({ ...files, task: "snapshot" }) });
    maker.addEventListener("error", () => maker.terminate());
    maker.addEventListener("message", (event) => {
      maker.terminate();
      const { type, key, kept, message } = event.data;
      if (type !== "snapshot") return console.warn(`The start-up snapshot was not kept: ${message}`);
      try {
        localStorage.setItem(HINT, JSON.stringify({ key, kept }));
      } catch {
        // storage refused: later visits start afresh
      }
    });
  };
  // Idle, or after two seconds at the latest; WebKit has no requestIdleCallback.
  const whenIdle = (run) => window.requestIdleCallback ? requestIdleCallback(run, { timeout: 2000 }) : setTimeout(run);
  const early = [];
  const keep = (event) => early.push(event);
  const kinds = ["message", "error", "messageerror"];
  for (const kind of kinds) worker.addEventListener(kind, keep);
  // Registered after Python is ready: by then the first visit has fetched every file the
  // service worker keeps, so it confirms them (304s) instead of downloading them again.
  worker.addEventListener("message", function onReady(event) {
    if (event.data.type !== "ready") return;
    worker.removeEventListener("message", onReady);
    register();
    if (event.data.snapshot === "wanted") whenIdle(makeSnapshot);
  });
  window.pythonWorker = {
    worker,
    url, // the worker script's address, for python.mjs's check of its policy header
    /** The events the worker sent before python.mjs listened, once: from then on it listens itself. */
    takeEarlyEvents() {
      for (const kind of kinds) worker.removeEventListener(kind, keep);
      return early.splice(0);
    },
  };
})();
