// What every view of the workbench reads from the log: the runs and the configurations, asked of pyapp once
// per change of the log and handed to each view in the order they subscribed. Python runs in the worker
// started here, once for the page.
import { startPython } from "../python.mjs";

export const python = startPython();
// everyRun: the visitor asked for every run in the runs list, not only the newest (results.mjs).
export const log = { overview: { runs: [], rated: 0 }, grouped: { configurations: [], apart: [] }, everyRun: false };
const runsListeners = [];
const listeners = [];
const openers = [];

/** Call `listener(log)` as soon as the runs are read, before the configurations (the runs list shows first). */
export function onRuns(listener) {
  runsListeners.push(listener);
}

/** Call `listener(log)` after every read of the log (the views fill their lists and selects). */
export function onLog(listener) {
  listeners.push(listener);
}

/** Read the runs and configurations again (after a run, an import, a rating or a judging) and tell every view. */
export async function refresh() {
  log.overview = await python.call("eval_overview", log.everyRun ? { every: true } : {});
  for (const listener of runsListeners) await listener(log);
  log.grouped = await python.call("configurations");
  for (const listener of listeners) await listener(log);
}

/** Run `task` once the page has opened: the log read and shown, and the address's views restored. */
export function afterOpening(task) {
  openers.push(task);
}

/** The page has opened: what waited for it runs now, in order (the worker answers one call at a time). */
export async function opened() {
  for (const task of openers) await task();
}

/** A price per million tokens the visitor typed in the New run view, or null. The judge's estimate uses them too. */
export function price(id) {
  const text = document.getElementById(id).value.trim();
  return text === "" ? null : Number(text);
}

export const modelOf = (run) => (run.settings ? `${run.settings.provider} · ${run.settings.model}` : "mixed settings");
