// The service worker: keeps every file of one version of the site, so that later visits load
// with no network at all and Python starts offline (DR-002). The build writes FILES, the
// content hash of each file by its path from the site's root, and VERSION, made from them.
"use strict";

const FILES = {
 "ai-eval/index.html": "a1bca7a83ec5",
 "app/small_site-0.1-py3-none-any.whl": "7429e83d59a0",
 "decisions/DR-001/index.html": "3c18215ee7d6",
 "decisions/DR-002/index.html": "7272947d7405",
 "decisions/feed.xml": "cac584946cdd",
 "decisions/index.html": "ec7143f4fe3f",
 "decisions/src/DR-001-first.md": "f4ecfbb8f70b",
 "decisions/src/DR-002-second.md": "5f3e0cf1f76a",
 "experiments/index.html": "f530e73a4e06",
 "explorer/index.html": "b7ecdddaa936",
 "index.html": "acb7345ba20e",
 "pyodide/0.0.1/pyodide-lock.json": "91cd3bc2321f",
 "pyodide/0.0.1/pyodide.asm.mjs": "56343b130bf7",
 "pyodide/0.0.1/pyodide.asm.wasm": "9022a4e37cb3",
 "pyodide/0.0.1/pyodide.mjs": "381569709b41",
 "static/css/site.css": "ad41bbfea604",
 "static/js/start.js": "0147f42f2272"
};
const VERSION = "4dea36260fcc";
const ROOT = new URL("./", self.location.href).href; // sw.js sits at the site's root
// One cache per version and per site: two copies of the site on one host keep their own.
const PREFIX = `kd-tree-explorer ${ROOT} `;
const CACHE = PREFIX + VERSION;

async function hashOf(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("").slice(0, 12);
}

/** The file at `path` as this version has it: from an older version's cache when it is unchanged, else the host. */
async function fileOfThisVersion(path, hash) {
  const kept = await caches.match(ROOT + path);
  if (kept && (await hashOf(await kept.clone().arrayBuffer())) === hash) return kept;
  // "no-cache": the host confirms (a 304 for what this visit has just loaded), never a stale copy.
  const response = await fetch(ROOT + path, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${path} answered HTTP ${response.status}`);
  // A host in the middle of an update may serve another version's file: install nothing then.
  if ((await hashOf(await response.clone().arrayBuffer())) !== hash) throw new Error(`${path} is of another version`);
  return response;
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(Object.entries(FILES).map(async ([path, hash]) => {
      await cache.put(ROOT + path, await fileOfThisVersion(path, hash));
    }));
  })());
});

// A new version waits until no page of the old one is open (no page mixes two versions),
// then deletes the caches of older versions.
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
  })());
});

async function answer(request, path) {
  const kept = await (await caches.open(CACHE)).match(ROOT + path);
  if (!kept) return fetch(request); // the browser dropped the cache: the host still has the file
  if (request.method === "HEAD") {
    return new Response(null, { status: kept.status, statusText: kept.statusText, headers: kept.headers });
  }
  return kept;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if ((request.method !== "GET" && request.method !== "HEAD") || !request.url.startsWith(ROOT)) return;
  // A file's ?v= hash only keeps HTTP caches fresh; this cache holds one version of each file.
  let path = new URL(request.url).pathname.slice(new URL(ROOT).pathname.length);
  if (path === "" || path.endsWith("/")) path += "index.html";
  if (path in FILES) {
    event.respondWith(answer(request, path));
  } else if (request.mode === "navigate") {
    // Offline, a page the site does not have gets the site's own "Page not found".
    event.respondWith(fetch(request).catch(async () => (await caches.match(ROOT + "404.html")) || Response.error()));
  }
});
