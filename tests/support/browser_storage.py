"""Scripts that read, damage or add to the site's IndexedDB stores in the browser tests."""

from __future__ import annotations

import time

# Records added to the audit store: the rows that ``%s``, a function run in the page, makes of what it is given.
ADD_MADE_ROWS = """async (given) => {
  const rows = (%s)(given);
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("kd-tree-explorer", 1);
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const tx = db.transaction("audit", "readwrite");
  for (const row of rows) tx.objectStore("audit").add(row);
  await new Promise((ok, fail) => { tx.oncomplete = ok; tx.onerror = () => fail(tx.error); });
  db.close();
}"""
ADD_ROWS = ADD_MADE_ROWS % "(rows) => rows"


DAMAGE = {
    "not gzip": "async (record) => ({ key: record.key, gzip: new Blob([new Uint8Array(4096).fill(7)]) })",
    "not a snapshot": """async (record) => ({ key: record.key, gzip: await new Response(
        new Blob([new Uint8Array(1 << 20).fill(7)]).stream().pipeThrough(new CompressionStream("gzip"))).blob() })""",
    "made from other files": "async (record) => ({ key: record.key + ' of an older site', gzip: record.gzip })",
}


# A record of what the browser keeps (snapshot-store.mjs), by name: "python" (the memory snapshot) or
# "audit-log" (the worker's read of the log, DR-006); ``%s`` may replace it.
SNAPSHOT_DB = """(name) => new Promise((resolve, reject) => {
  const open = indexedDB.open("kd-tree-explorer-snapshot", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("snapshot");
  open.onerror = () => reject(open.error);
  open.onsuccess = async () => {
    const db = open.result;
    const get = db.transaction("snapshot").objectStore("snapshot").get(name);
    get.onsuccess = async () => {
      const record = get.result;
      const replacement = await (%s)(record);
      if (replacement === undefined) {
        db.close();
        return resolve(record ? { key: record.key, size: record.gzip.size } : null);
      }
      const put = db.transaction("snapshot", "readwrite").objectStore("snapshot").put(replacement, name);
      put.onsuccess = () => { db.close(); resolve(null); };
      put.onerror = () => reject(put.error);
    };
  };
})"""


STORED = SNAPSHOT_DB % "async () => undefined"


# What start.js noted once the snapshot's worker answered: {key, kept}, or null.
HINT = "JSON.parse(localStorage.getItem('kd-tree-explorer-snapshot'))"


def kept(page, name: str = "python", timeout_s: float = 60) -> dict:
    """The stored record's key and gzipped size, once one is stored (the snapshot is over 1 MB) and,
    for the snapshot, noted in local storage under the same key."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        record = page.evaluate(STORED, name)
        if record and name != "python":
            return record
        hint = page.evaluate(HINT)
        if record and record["size"] > 1_000_000 and hint == {"key": record["key"], "kept": True}:
            return record
        time.sleep(0.25)
    raise AssertionError(f"no {name} record was kept: {page.evaluate(STORED, name)}, {page.evaluate(HINT)}")


