// The evaluation workbench's shell (DR-006): one view at a time, each at its own address, a navigation that
// stays, the browser's back button, and the demo's read-only workspace. Views register here and never import
// each other; one view sends the visitor to another through go().
//
// The address is ?view=NAME plus every view's own ids (a run, a case, the runs compared), so a reload or a
// shared link shows the same thing; never a key or anything else from the log. Addresses from before the
// views (?run=…&case=…, ?first=…, #set-heading) open the view that now holds what they named.

const VIEWS = ["results", "compare", "run", "rate", "data", "methods"];
// Each old section's anchor and the view it now belongs to.
const ANCHORS = {
  "runs-heading": "results", "matrix-heading": "results", "configs-heading": "compare", "compare-heading": "compare",
  "run-heading": "run", "rate-heading": "rate", "agreement-heading": "rate", "judge-heading": "rate",
  "export-heading": "data", "methods-heading": "methods", "set-heading": "methods",
};
const ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** Whether this tab shows the demo: the build's scripted log, held by the worker in memory (start.js). */
export const demo = new URLSearchParams(location.search).has("demo");

const views = new Map(); // name -> { state(), restore(params), enter(params) }
let shown = null;

/** Register view `name`: `state()` gives its ids for the address, `restore(ids)` and `enter(params)` show them. */
export function defineView(name, handlers) {
  views.set(name, handlers);
}

/** The ids the address holds, those that look like ids (anything else is ignored). */
export function addressed() {
  const params = new URLSearchParams(location.search);
  const ids = {};
  for (const [key, value] of params) if (key !== "view" && key !== "demo" && ID.test(value)) ids[key] = value;
  return ids;
}

function address() {
  const params = new URLSearchParams();
  if (shown) params.set("view", shown);
  for (const handlers of views.values()) {
    for (const [key, value] of Object.entries(handlers.state?.() ?? {})) if (value) params.set(key, value);
  }
  if (demo) params.set("demo", "1");
  return `?${params}`;
}

/** Write what every view shows into the address, without a new history entry. */
export function writeState() {
  history.replaceState(null, "", address() + location.hash);
}

function place(name) {
  shown = name;
  for (const section of document.querySelectorAll("section.view")) section.hidden = section.dataset.view !== name;
  for (const link of document.querySelectorAll(".view-nav a[data-view]")) {
    if (link.dataset.view === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.body.dataset.view = name;
}

/**
 * Show view `name` as a new history entry and hand it `params` (a case to open, a configuration to repeat).
 * The page scrolls to the view's top, under the navigation, where the result of the action is.
 */
export async function go(name, params = {}) {
  const changed = name !== shown;
  place(name);
  history.pushState(null, "", address());
  if (changed) {
    // The view's top just under the bar, which then sticks to the top of the window.
    const top = document.querySelector(`section.view[data-view='${name}']`).getBoundingClientRect().top;
    const bar = document.querySelector(".view-nav").getBoundingClientRect().height;
    window.scrollTo(0, Math.floor(window.scrollY + top - bar));  // down to a whole pixel: never under the bar
  }
  await views.get(name)?.enter?.(params);
  writeState();
}

/** The view an address names: ?view=, else the old anchor's, else the one its ids belong to, else null. */
function addressedView() {
  const asked = new URLSearchParams(location.search).get("view");
  if (VIEWS.includes(asked)) return asked;
  const anchor = ANCHORS[location.hash.slice(1)];
  if (anchor) return anchor;
  const ids = addressed();
  if (["first", "second", "x", "y"].some((key) => key in ids)) return "compare";
  if (["detail", "configuration", "run", "case"].some((key) => key in ids)) return "results";
  return null;
}

/** Show the addressed view at once (before Python is ready), or Results, which shows the start while the log is empty. */
export function open() {
  place(addressedView() ?? "results");
  if (location.hash && document.getElementById(location.hash.slice(1))) {
    document.getElementById(location.hash.slice(1)).scrollIntoView({ block: "start" });
  }
  document.querySelector(".view-nav").addEventListener("click", follow);
  document.querySelector("main").addEventListener("click", follow);
  window.addEventListener("popstate", async () => {
    place(addressedView() ?? "results");
    await restore();
  });
  for (const link of document.querySelectorAll(".view-nav a[data-view]")) link.href = viewHref(link.dataset.view);
  const nav = document.querySelector(".view-nav");
  new ResizeObserver(() => document.documentElement.style.setProperty("--nav-height", `${nav.offsetHeight}px`))
    .observe(nav);
  if (demo) {
    document.body.dataset.demo = "true";
    for (const note of document.querySelectorAll(".demo-only")) note.hidden = false;
    for (const control of document.querySelectorAll("[data-writes]")) control.disabled = true;
  }
}

const viewHref = (name) => `?view=${name}${demo ? "&demo=1" : ""}`;

// A link to another view (?view=NAME, from the navigation or the text) changes the view in place.
function follow(event) {
  const link = event.target.closest("a[href^='?view=']");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(link.href);
  const name = url.searchParams.get("view");
  if (!VIEWS.includes(name)) return;
  event.preventDefault();
  void go(name).then(() => {
    const target = url.hash && document.getElementById(url.hash.slice(1));
    if (target) target.scrollIntoView({ block: "start" });
  });
}

/** Every view shows again what the address names (a reload, a shared link, the back button). */
export async function restore() {
  const ids = addressed();
  for (const handlers of views.values()) await handlers.restore?.(ids);
  writeState();
}

