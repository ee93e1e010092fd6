// The storage line, in every view where the log matters (Data, and New run before a paid run): the log's
// entries and size, the space used and left, whether the browser has promised to keep it, the last export, and
// the kept file. The browser is asked to persist the site's storage at the first answer of a run, or on opening
// a log that holds calls (DR-015). pyapp words it all; this module measures and places.
import { download } from "../ai-settings.mjs";
import { element } from "./dom.mjs";
import { keeping, keepingControls, onKeepingChange } from "./kept-file.mjs";
import { log, onLog, python } from "./log-state.mjs";
import { demo } from "./shell.mjs";

const EXPORTED_NAME = "kd-explorer-last-export";
const PERSIST_NAME = "kd-explorer-persist"; // {asked: ISO time, granted}: the browser's last answer
const storage = navigator.storage;
let asking = null; // the persist() request of this page, once made

// Safari's documented deletion after 7 days without a visit applies to WebKit; others evict under pressure.
const engine = /AppleWebKit/.test(navigator.userAgent) && !/Chrome|Chromium|Edg/.test(navigator.userAgent)
  ? "webkit" : "other";

/** Note an export of the whole log, shown as the line's last export. */
export function noteExport() {
  localStorage.setItem(EXPORTED_NAME, new Date().toISOString());
  void showStorage();
}

/** The whole log as a JSON export, downloaded: the export one click away from the line's warning. */
async function exportLog() {
  const text = await python.call("export_audit", { format: "json", run_id: null });
  download("kd-explorer-all-runs.json", text, "application/json");
  noteExport();
}

/** Ask the browser once per page to persist the site's storage, and keep its answer (DR-015). */
export function askToPersist() {
  if (demo || asking || !storage?.persist) return;
  asking = storage.persisted().then((already) => already || storage.persist()).then((granted) => {
    localStorage.setItem(PERSIST_NAME, JSON.stringify({ asked: new Date().toISOString(), granted }));
    void showStorage();
  }, () => {});
}

async function measured() {
  const estimate = storage?.estimate ? await storage.estimate().catch(() => ({})) : {};
  const persisted = storage?.persisted ? await storage.persisted().catch(() => null) : null;
  return { usage: estimate.usage ?? null, quota: estimate.quota ?? null, persisted,
    last_export: localStorage.getItem(EXPORTED_NAME), engine, kept_file: keeping.active ? keeping.name : null };
}

/** The line's places in the view shown. A page opened on another view draws none, so its opening asks nothing
 * of the log: a later visit opens from the kept view without reading it (DR-013). */
function shownPlaces() {
  return [...document.querySelectorAll("[data-storage-line]")]
    .filter((place) => !place.closest("section.view[hidden]"));
}

/** Draw the line in the places of the view shown. */
export async function showStorage() {
  if (demo || !shownPlaces().length) return;
  let line;
  try {
    line = await python.call("storage_line", await measured());
  } catch (error) {
    line = { text: `What the browser holds could not be measured: ${error.message}`, warning: null };
  }
  for (const place of shownPlaces()) {
    const warning = [];
    if (line.warning) {
      const button = element("button", "Export the log", { type: "button" });
      button.addEventListener("click", exportLog);
      warning.push(element("p", null, { class: "storage-warning" }));
      warning[0].append(element("span", line.warning), " ", button);
    }
    place.dataset.persisted = String(line.persisted);
    place.replaceChildren(element("p", line.text, { class: "storage-text" }), ...warning, ...keepingControls());
  }
}

python.onEvent((event) => {
  if (event.type === "case-done" && !["infrastructure_failure", "cancelled"].includes(event.outcome)) askToPersist();
});
// Not awaited: the views' lists are not held up by the measure.
onLog(() => {
  if (log.overview.calls) askToPersist();
  void showStorage();
});
onKeepingChange(showStorage);
// Drawn when a view that holds the line is shown (the shell marks the view shown on the body).
new MutationObserver(() => void showStorage())
  .observe(document.body, { attributes: true, attributeFilter: ["data-view"] });
