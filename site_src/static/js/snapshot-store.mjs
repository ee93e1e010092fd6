// Python's memory snapshot, kept in this browser's IndexedDB so a repeat visit restores a
// started interpreter instead of starting one (DR-002). One record under the key of what
// it was made from; the bytes gzipped (31 MB become about 5 MB), so the CRC of gzip also
// catches a damaged record. Its own database: the audit log's schema stays as it is.

const DB_NAME = "kd-tree-explorer-snapshot";
const STORE = "snapshot";
const RECORD = "python";

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

async function transact(mode, work) {
  const db = await database();
  try {
    return await request(work(db.transaction(STORE, mode).objectStore(STORE)));
  } finally {
    db.close();
  }
}

async function piped(blob, stream) {
  return new Response(blob.stream().pipeThrough(stream)).arrayBuffer();
}

/**
 * The stored snapshot (gzipped, as a Blob not yet read) when it was made under `key`, else null.
 * A snapshot made under another key (another Pyodide, standard library or wheel) is deleted.
 */
export async function find(key) {
  if (!supported) return null;
  const record = await transact("readonly", (store) => store.get(RECORD));
  if (!record) return null;
  if (record.key === key && record.gzip instanceof Blob) return record.gzip;
  await remove();
  return null;
}

/** The bytes of a snapshot `find` gave; rejects when they do not decompress. */
export async function bytes(found) {
  return new Uint8Array(await piped(found, new DecompressionStream("gzip")));
}

/** Keep `snapshot` (its bytes) as the one made under `key`, replacing any other. */
export async function write(key, snapshot) {
  if (!supported) return;
  const gzip = new Blob([await piped(new Blob([snapshot]), new CompressionStream("gzip"))]);
  await transact("readwrite", (store) => store.put({ key, gzip }, RECORD));
}

/** Delete the stored snapshot, if any. */
export async function remove() {
  if (!supported) return;
  await transact("readwrite", (store) => store.delete(RECORD));
}
