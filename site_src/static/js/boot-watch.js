// A classic script, not a module: when no module script runs (a host that serves .mjs
// with the wrong type, or a module file that never arrives), the page still says
// that Python could not start instead of "Starting Python…" for ever (DR-002).
"use strict";
(() => {
  const status = document.getElementById("python-status");
  const timeoutMs = Number(document.body.dataset.bootTimeoutMs);
  const giveUpUnlessStarted = (what) => {
    // Once the module has started, its own time limit and messages apply.
    if (document.body.dataset.pythonStarted || status.dataset.state !== "loading") return;
    status.dataset.state = "error";
    status.textContent = `Python could not start: the page's scripts ${what}. The host must serve ` +
      ".mjs files as text/javascript (see DR-002). Reload to try again.";
  };
  // Module scripts run before DOMContentLoaded, so by then a page whose module loaded has started.
  document.addEventListener("DOMContentLoaded", () => giveUpUnlessStarted("did not load"));
  // A module file that never arrives holds DOMContentLoaded back; the time limit still holds.
  setTimeout(() => giveUpUnlessStarted(`did not arrive within ${timeoutMs / 1000} s`), timeoutMs);
})();
