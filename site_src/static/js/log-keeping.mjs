// The audit log's copy in a file the visitor chose (DR-015), written from the worker beside every append to
// IndexedDB (audit-store.mjs). Each write appends whole lines of the JSON-lines log `python -m pyapp run`
// writes; the texts come from pyapp as they are stored.
import { keptHandle } from "./kept-file-store.mjs";

// Writes from every tab of this browser go one at a time: each replaces the file with its copy plus the new
// lines when it closes, so two at once would lose one's lines.
const LOCK = "kd-explorer-kept-file";
let file = null; // the handle, while entries are written to it
let queue = Promise.resolve();

function write(handle, text) {
  const done = queue.then(() => navigator.locks.request(LOCK, async () => {
    const writable = await handle.createWritable({ keepExistingData: true });
    try {
      await writable.seek((await handle.getFile()).size);
      await writable.write(text);
      await writable.close();
    } catch (error) {
      await writable.abort().catch(() => {});
      throw error;
    }
  }));
  queue = done.catch(() => {});
  return done;
}

const post = (event) => self.postMessage({ type: "event", event });
const reason = (error) => (error?.message ? `${error.name}: ${error.message}` : String(error?.name || error));

/** The chosen file's bytes, for pyapp to find the entries it lacks; rejects when it cannot be written to. */
export async function kept_bytes() {
  const handle = await keptHandle();
  if (!handle) throw new Error("no file was chosen");
  if ((await handle.queryPermission({ mode: "readwrite" })) !== "granted") {
    throw new Error("the browser has not allowed this page to write to it");
  }
  return new Uint8Array(await (await handle.getFile()).arrayBuffer());
}

/** Append `text` (what the log holds that the file lacks) to the chosen file, then every entry logged after
 * it; answers the file's name. */
export async function start(text) {
  const handle = await keptHandle();
  file = handle;
  try {
    if (text) await write(handle, text);
  } catch (error) {
    file = null;
    throw new Error(reason(error));
  }
  return handle.name;
}

/**
 * `texts` (entries' JSON texts) written to the kept file while IndexedDB stores them (`stored`, the
 * store's promise). A file that cannot be written is said once, and stops being written; the log goes on
 * in the browser. When the store refuses them, the rejection says whether the kept file holds them (JSON
 * {error, kept: its name or null}); pyapp decides whether the page downloads them. Answers `stored`'s value.
 */
export function alongside(texts, stored) {
  const handle = file;
  const inFile = handle
    ? write(handle, texts.map((text) => `${text}\n`).join("")).then(() => true, (error) => {
      if (file === handle) {
        file = null;
        post({ type: "kept-file-lost", name: handle.name, reason: reason(error) });
      }
      return false;
    })
    : Promise.resolve(false);
  return stored.catch(async (error) => {
    const kept = await inFile;
    throw new Error(JSON.stringify({ error: error.message, kept: kept ? handle.name : null }));
  });
}
