// The first script of every page: classic, in the head and not deferred, so it runs as soon as
// it arrives, before the parser reads the body (the explorer's is mostly its embedded map) and
// before the page's modules. On a page that runs Python it starts the worker at once, so Pyodide
// loads while the page itself still loads; python.mjs takes the worker over. On every page it
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
  // The worker takes its wheels from its name and starts at once, with no message to wait for (DR-002).
  const files = { pyapp: absolute(data.pyapp), wheels: JSON.parse(data.wheels || "[]").map(absolute) };
  const worker = new Worker(url, { type: "module", name: JSON.stringify(files) });
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
