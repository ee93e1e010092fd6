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
 * The stored entries from sequence number `seq` on (0: all), oldest first, at most `count` of them (undefined:
 * all), as `framed` hands them to Python. The worker keeps what it has read and asks only for what came since,
 * from the last record it read, which tells it whether that record is still there; it asks for a long log in
 * blocks, each asked before it takes the one before, so the browser reads one while Python takes the other
 * (DR-006). Once the database is open the read is asked for before this returns.
 */
export async function readFrom(seq, count) {
  const db = opened ?? (await database());
  const transaction = db.transaction(STORE, "readonly");
  const store = transaction.objectStore(STORE);
  const rows = store.getAll(IDBKeyRange.lowerBound(seq), count);
  await finished(transaction);
  return framed(rows.result.map((row) => [row.seq, row.json]));
}

const encoder = new TextEncoder();
// Where String.prototype.isWellFormed is missing (browsers before 2023), every text goes the JSON way.
const wellFormed = typeof String.prototype.isWellFormed === "function" ? (text) => text.isWellFormed() : () => false;

/**
 * `records`, each [sequence number, stored text], as `{rows, texts}`: `rows` a JSON text of [[seq, n], ...],
 * where n is the size in UTF-8 of the record's text, which follows the texts before it in the bytes `texts`;
 * [seq, null] for a record without a text, and [seq, text] for a text that is not well-formed UTF-16 (a lone
 * surrogate, which JSON escapes and UTF-8 cannot hold). One JSON text of 100,000 records (267 MB) took 2.6 s
 * to become a Python string; the bytes are copied (DR-006).
 */
export function framed(records) {
  let size = 0;
  for (const [, text] of records) if (typeof text === "string") size += text.length;
  let texts = new Uint8Array(size + 1024); // a character is one byte in ASCII; grown when the texts need more
  let used = 0;
  const rows = records.map(([seq, text]) => {
    if (typeof text !== "string") return [seq, null];
    if (!wellFormed(text)) return [seq, text];
    for (;;) {
      const { read, written } = encoder.encodeInto(text, texts.subarray(used));
      if (read === text.length) {
        used += written;
        return [seq, written];
      }
      const grown = new Uint8Array(2 * texts.length + 3 * text.length); // no room for it: encoded again
      grown.set(texts.subarray(0, used));
      texts = grown;
    }
  });
  return { rows: JSON.stringify(rows), texts: texts.subarray(0, used) };
}
