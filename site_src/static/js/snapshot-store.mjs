// What this browser keeps so a later visit can skip work, in IndexedDB: Python's memory snapshot,
// restored instead of starting an interpreter (DR-002), and the worker's read of the audit log and the
// evaluation page's opening view, so a reopened page need not read the log again (DR-006). One record
// of each, under the key of the build that made it; the bytes gzipped (the 31 MB snapshot becomes
// about 5 MB), so the CRC of gzip also catches a damaged record. Its own database: the audit log's
// schema stays as it is.

const DB_NAME = "kd-tree-explorer-snapshot";
const STORE = "snapshot";
/** The records kept: Python's memory snapshot, the worker's read of the audit log and the evaluation
 * page's opening view (pyapp.browser.opening_view). */
export const PYTHON = "python";
export const AUDIT_LOG = "audit-log";
export const AUDIT_VIEW = "audit-view";

/** Whether this browser can keep a snapshot: IndexedDB and the compression streams. */
export const supported = typeof indexedDB !== "undefined" && typeof CompressionStream !== "undefined" &&
  typeof DecompressionStream !== "undefined";

function request(made) {
  return new Promise((resolve, reject) => {
    made.onsuccess = () => resolve(made.result);
    made.onerror = () => reject(new Error(made.error ? made.error.message : "IndexedDB failed"));
  });
}

function database() {
  const opening = indexedDB.open(DB_NAME, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
  return request(opening);
}

/**
 * Whether this browser holds the database yet. Opening it creates it, which took 49 to 60 ms of a
 * first visit's start (DR-002); listing the databases does not. Where the list is missing, open it.
 */
async function exists() {
  if (typeof indexedDB.databases !== "function") return true;
  return (await indexedDB.databases()).some((db) => db.name === DB_NAME);
}

/**
 * The result of `work`'s request, once its transaction has committed: the worker that makes the
 * snapshot is ended as soon as it answers, which would abort a transaction still open.
 */
async function transact(mode, work) {
  const db = await database();
  try {
    const transaction = db.transaction(STORE, mode);
    const committed = new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onabort = () => reject(new Error(transaction.error ? transaction.error.message : "IndexedDB aborted"));
    });
    committed.catch(() => {}); // a failed request rejects first, and says why
    const result = await request(work(transaction.objectStore(STORE)));
    await committed;
    return result;
  } finally {
    db.close();
  }
}

async function piped(blob, stream) {
  return new Response(blob.stream().pipeThrough(stream)).arrayBuffer();
}

/**
 * The kept `name` (gzipped, as a Blob not yet read) when it was made under `key`, else null.
 * One made under another key (another Pyodide, standard library or wheel) is deleted.
 */
export async function find(key, name) {
  if (!supported || !(await exists())) return null;
  const record = await transact("readonly", (store) => store.get(name));
  if (!record) return null;
  if (record.key === key && record.gzip instanceof Blob) return record.gzip;
  await remove(name);
  return null;
}

/** The bytes of a record `find` gave; rejects when they do not decompress. */
export async function bytes(found) {
  return new Uint8Array(await piped(found, new DecompressionStream("gzip")));
}

/** Keep `bytes` as the `name` made under `key`, replacing any other. */
export async function write(key, name, bytes) {
  if (!supported) return;
  const gzip = new Blob([await piped(new Blob([bytes]), new CompressionStream("gzip"))]);
  await transact("readwrite", (store) => store.put({ key, gzip }, name));
}

/** Delete the kept `name`, if any. */
export async function remove(name) {
  if (!supported) return;
  await transact("readwrite", (store) => store.delete(name));
}
