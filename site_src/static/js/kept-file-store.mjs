// Where the handle of the file the visitor chose to keep the log in is stored (DR-015): its own small
// IndexedDB database, read by the page (to ask for permission again) and by the worker (to write).

const DB_NAME = "kd-tree-explorer-kept-file";
const STORE = "handle";
const KEY = "log";

function request(mode, use) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onerror = () => reject(new Error(String(open.error?.name || "the keeping store did not open")));
    open.onsuccess = () => {
      const db = open.result;
      const step = use(db.transaction(STORE, mode).objectStore(STORE));
      step.onsuccess = () => { db.close(); resolve(step.result); };
      step.onerror = () => { db.close(); reject(new Error(String(step.error?.name))); };
    };
  });
}

/** The kept file's FileSystemFileHandle, or undefined when none was chosen. */
export const keptHandle = () => request("readonly", (store) => store.get(KEY));

/** Keep `handle` as the file the log is written to (the page, once the visitor chose it). */
export const keepHandle = (handle) => request("readwrite", (store) => store.put(handle, KEY));

/** Forget the kept file. */
export const forgetHandle = () => request("readwrite", (store) => store.delete(KEY));
