// The append-only audit log in IndexedDB. Each function owns its transaction and
// returns a Promise, because a transaction closes across a Python await (DR-002,
// "Decision"). Entries are JSON strings built and checked by pyapp.
import { alongside } from "./log-keeping.mjs";

const DB_NAME = "kd-tree-explorer";
const STORE = "audit";
let opening = null;
let opened = null; // the database once open

function database() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    };
    request.onsuccess = () => resolve((opened = request.result));
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

/**
 * Append entries (a JSON array of each entry's JSON text, stored as it is) in one transaction; never
 * overwrite. Answers JSON {"seqs": [the sequence number of each]}, so the worker can take its own entries
 * as read (DR-006). Neither this nor `readFrom` asks the store to count its records: IndexedDB counts them
 * one by one, which took 330 to 440 ms at 100,000 records (DR-006). Once the database is open, the entries are
 * handed to the browser before this returns, so it stores them while Python goes on until it awaits.
 * Never throws: a failed write is a rejected promise.
 */
export function append(textsJson) {
  const texts = JSON.parse(textsJson);
  // Also written to the visitor's kept file, if any; entries the store refuses are kept there or offered (DR-015).
  return alongside(texts, opened ? appendTo(opened, texts) : database().then((db) => appendTo(db, texts)));
}

async function appendTo(db, texts) {
  const transaction = db.transaction(STORE, "readwrite");
  const store = transaction.objectStore(STORE);
  const added = texts.map((json) => store.add({ json }));
  await finished(transaction);
  return JSON.stringify({ seqs: added.map((request) => request.result) });
}

/**
 * The stored entries from sequence number `seq` on (0: all), oldest first: JSON {"rows": [[seq, json
 * text or null], ...]}. The worker keeps what it has read and asks only for what came since, from the
 * last record it read, which tells it whether that record is still there (DR-006).
 */
export async function readFrom(seq) {
  const db = await database();
  const transaction = db.transaction(STORE, "readonly");
  const store = transaction.objectStore(STORE);
  const rows = store.getAll(IDBKeyRange.lowerBound(seq));
  await finished(transaction);
  return JSON.stringify({ rows: rows.result.map((row) => [row.seq, typeof row.json === "string" ? row.json : null]) });
}
