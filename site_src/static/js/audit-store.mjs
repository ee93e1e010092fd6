// The append-only audit log in IndexedDB. Each function owns its transaction and
// returns a Promise, because a transaction closes across a Python await (DR-002,
// "Decision"). Entries are JSON strings built and checked by pyapp.

const DB_NAME = "kd-tree-explorer";
const STORE = "audit";
let opening = null;

function database() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(plain(request.error));
  });
  return opening;
}

// Promises here reject with a plain Error: a Python await on a promise rejected
// with IndexedDB's own DOMException was seen never to resume (DR-002).
function plain(error) {
  if (!error) return new Error("the write was aborted");
  return new Error(error.message ? `${error.name}: ${error.message}` : error.name);
}

function finished(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(plain(transaction.error));
    transaction.onabort = () => reject(plain(transaction.error));
  });
}

/** Append entries (a JSON array of objects) in one transaction; never overwrite. */
export async function append(entriesJson) {
  const db = await database();
  const transaction = db.transaction(STORE, "readwrite");
  const store = transaction.objectStore(STORE);
  for (const entry of JSON.parse(entriesJson)) store.add({ json: JSON.stringify(entry) });
  await finished(transaction);
}

/**
 * The stored entries from sequence number `seq` on (0: all), oldest first, and how many the store
 * holds, read in one transaction: JSON {"rows": [[seq, json text or null], ...], "count": n}.
 * The worker keeps what it has read and asks only for what came since (DR-006).
 */
export async function readFrom(seq) {
  const db = await database();
  const transaction = db.transaction(STORE, "readonly");
  const store = transaction.objectStore(STORE);
  const rows = store.getAll(IDBKeyRange.lowerBound(seq));
  const count = store.count();
  await finished(transaction);
  return JSON.stringify({
    rows: rows.result.map((row) => [row.seq, typeof row.json === "string" ? row.json : null]),
    count: count.result,
  });
}
