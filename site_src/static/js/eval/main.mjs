// The evaluation workbench (/ai-eval/): the shell and its views (DR-006). Each view module wires its own part
// of the page when imported; this opens the addressed view at once, then, once Python is ready, reads the log,
// restores what the address names and runs what waited for the page to open.
import "./results.mjs";
import "./compare.mjs";
import "./new-run.mjs";
import "./rate.mjs";
import "./data.mjs";
import "./methods.mjs";
import { opened, python, refresh } from "./log-state.mjs";
import { open, restore } from "./shell.mjs";

open();
python.ready.then(async () => {
  try {
    // The runs first: the worker answers one call at a time, and the set's table is already on the page (DR-006).
    await refresh();
    await restore();
    await opened();
    document.body.dataset.evalReady = "true";
  } catch (error) {
    // Said where the runs would be, not left as an empty page (a Python that failed to start says so itself).
    document.getElementById("runs-message").textContent = `The workbench could not open: ${error.message}`;
  }
}).catch(() => {});
