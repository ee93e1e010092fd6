// The demo's audit log (DR-006): the log the build wrote with a scripted model, fetched from the site and held
// in this worker's memory. It answers reads as audit-store.mjs does and refuses every write, so nothing the
// demo shows or does ever reaches the visitor's own log in IndexedDB.
import { framed } from "./audit-store.mjs";

/** A store with audit-store.mjs's `readFrom` and `append` over the JSON lines at `url`. */
export function demoStore(url) {
  let rows = null;
  const load = async () => {
    rows ??= fetch(url).then(async (response) => {
      if (!response.ok) throw new Error(`the demo's log answered HTTP ${response.status}`);
      const lines = (await response.text()).split("\n").filter((line) => line.trim());
      return lines.map((line, i) => [i + 1, line]);
    });
    return rows;
  };
  return {
    async readFrom(seq, count) {
      const all = await load();
      return framed(all.filter(([number]) => number >= seq).slice(0, count));
    },
    async append() {
      throw new Error("the demo is read-only: leave the demo to run, rate, judge or import in your own log");
    },
  };
}
