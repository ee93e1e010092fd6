// The visitor's own copy of the log (DR-015). Where the browser can write to a file the visitor chooses (the
// File System Access API), every entry is written to it as it is logged, and a later visit asks again for
// permission to go on; elsewhere, a finished run offers its entries as a download. Entries the browser could not
// store are downloaded at once. Every file is the JSON-lines log `python -m pyapp run` writes.
import { download } from "../ai-settings.mjs";
import { forgetHandle, keepHandle, keptHandle } from "../kept-file-store.mjs";
import { element } from "./dom.mjs";
import { afterOpening, python } from "./log-state.mjs";
import { demo } from "./shell.mjs";

const $ = (id) => document.getElementById(id);
const JSONL = "application/x-ndjson";
const TYPES = [{ description: "Audit log (JSON lines)", accept: { [JSONL]: [".jsonl"] } }];

/** The kept file: its name, whether entries are written to it now, and the last sentence about it. */
export const keeping = { name: null, active: false, message: "" };
let handle = null;
let unstored = [];
const listeners = [];
const supported = typeof window.showSaveFilePicker === "function" && typeof window.showOpenFilePicker === "function"
  && !demo;

// The save picker empties a file that exists (the API's rule), so a log the visitor already has is chosen with the
// open picker, which reads it and asks for permission to write; pyapp then only appends what it lacks.
const PICKERS = {
  new: { label: "Keep a copy in a new file…", pick: () => window.showSaveFilePicker(
    { suggestedName: "kd-explorer-log.jsonl", types: TYPES }) },
  existing: { label: "Add to a log file you have…", pick: async () => (await window.showOpenFilePicker(
    { types: TYPES }))[0] },
};

/** Call `listener()` whenever the kept file's state changes (the storage line is drawn again). */
export function onKeepingChange(listener) {
  listeners.push(listener);
}

function changed(message) {
  if (message !== undefined) keeping.message = message;
  for (const listener of listeners) void listener();
}

/** Have the worker catch the file up and write to it from now on; false when it refused or failed. */
async function start() {
  try {
    const kept = await python.call("keep_in_file");
    Object.assign(keeping, { name: kept.name, active: true });
    changed(kept.text);
    return true;
  } catch (error) {
    keeping.active = false;
    changed(error.message);
    return false;
  }
}

async function choose(how) {
  let chosen;
  try {
    chosen = await PICKERS[how].pick();
  } catch {
    return; // the visitor closed the picker
  }
  await keepHandle(chosen);
  handle = chosen;
  keeping.name = chosen.name;
  // A file refused, or that could not be read or written, is not offered again.
  if ((await allowed()) && !(await start())) await forget();
}

async function forget() {
  await forgetHandle().catch(() => {});
  handle = null;
  keeping.name = null;
  changed();
}

/** Whether the browser lets the page write to the kept file, asked on the visitor's click. */
async function allowed() {
  const granted = await handle.requestPermission({ mode: "readwrite" }).catch(() => "denied");
  if (granted !== "granted") {
    changed(`The browser did not allow writing to ${handle.name}; the log is kept in this browser only.`);
  }
  return granted === "granted";
}

async function resume() {
  if (await allowed()) await start();
}

/** The kept file's controls and its last sentence, for the storage line. */
export function keepingControls() {
  const nodes = [];
  const actions = element("p", null, { class: "actions" });
  if (!supported) {
    if (!demo) nodes.push(element("p", "This browser cannot write to a file you choose: each finished run " +
      "offers its entries as a download instead."));
  } else if (!keeping.active) {
    if (handle && keeping.name) {
      const button = element("button", `Go on writing to ${keeping.name}`,
        { type: "button", "data-keep-file": "resume" });
      button.addEventListener("click", resume);
      actions.append(button);
    }
    for (const [how, { label }] of Object.entries(PICKERS)) {
      const button = element("button", label, { type: "button", "data-keep-file": how });
      button.addEventListener("click", () => choose(how));
      actions.append(button);
    }
    nodes.push(actions);
  }
  if (unstored.length) {
    const again = element("button", "Download them again", { type: "button" });
    again.addEventListener("click", downloadUnstored);
    actions.append(again);
    if (!nodes.includes(actions)) nodes.push(actions);
  }
  nodes.push(element("p", keeping.message, { class: "kept-file-message", role: "status" }));
  return nodes;
}

function downloadUnstored() {
  download(`kd-explorer-unstored-${unstored.stamp}.jsonl`, unstored.map((line) => `${line}\n`).join(""), JSONL);
}

python.onEvent(async (event) => {
  if (event.type === "kept-file-lost") {
    keeping.active = false;
    // pyapp words it; the worker answers while a run waits on the provider.
    changed(await python.call("kept_file_lost", { name: event.name, reason: event.reason })
      .catch((error) => error.message));
  } else if (event.type === "unstored") {
    unstored = [...unstored, ...event.lines];
    unstored.stamp = new Date().toISOString().replace(/[-:]/g, "").slice(0, 15);
    downloadUnstored();
    changed(event.text);
  }
});

/**
 * After a run: unless every entry goes to a kept file, offer the entries of the runs made as a download in
 * one click, where the Results view opens.
 */
export function offerRuns(runIds) {
  const offer = $("run-kept");
  offer.hidden = keeping.active || !runIds.length;
  if (offer.hidden) return;
  const button = element("button", "Download its entries", { type: "button", id: "download-run" });
  button.addEventListener("click", async () => {
    const lines = await python.call("run_lines", { run_ids: runIds });
    download(`kd-explorer-${runIds.at(-1)}.jsonl`, lines.text, JSONL);
  });
  offer.replaceChildren(element("span", runIds.length > 1
    ? `These ${runIds.length} runs are stored in this browser only.` : "This run is stored in this browser only."),
  " ", button);
}

/** On opening: a file kept on an earlier visit is written to again, at once if the browser still allows it. */
async function resumeKeeping() {
  if (!supported) return;
  handle = (await keptHandle().catch(() => undefined)) ?? null;
  if (!handle) return;
  keeping.name = handle.name;
  if ((await handle.queryPermission({ mode: "readwrite" })) === "granted") await start();
  else changed();
}

afterOpening(resumeKeeping);
