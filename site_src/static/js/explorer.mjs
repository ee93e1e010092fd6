// The explorer page: draw what pyapp.explorer computes, and step through it.
// The map is in degrees on both axes, as the search measures (DR-007).
// One module, at about 420 lines: the map, the list of touched nodes, the stepping and the player all draw from
// the same few values (the tree, the search's view, the current step, the map's scale); split, each part
// would take them from the others.
import { startPython } from "./python.mjs";
import { setupWalkthrough } from "./walkthrough.mjs";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const python = startPython();
const map = $("map");
let tree = null;
let view = null;
let current = 0;
let player = null;
let toMap = null;
let pythonReady = false;

function svg(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.append(element);
  return element;
}

// Points and lines come in map units from pyapp.explorer.tree_view; the search's marks are placed with the same scale.
function drawTree() {
  const { area, width, height } = tree;
  const scale = width / (area.max_lon - area.min_lon);
  toMap = {
    x: (lon) => (lon - area.min_lon) * scale,
    y: (lat) => (area.max_lat - lat) * scale,
    r: (r) => r * scale,
    lon: (x) => area.min_lon + x / scale,
    lat: (y) => area.max_lat - y / scale,
  };
  map.replaceChildren();
  map.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg("rect", { width, height, class: "ground" }, map);
  for (const layer of ["pruned", "lines", "points", "search", "overlay", "hover"]) {
    svg("g", { id: `layer-${layer}` }, map);
  }
  const lines = $("layer-lines");
  for (const split of tree.splits) svg("path", { d: split.path, class: `split depth-${split.depth}` }, lines);
  // One path for every business, a dot per zero-length segment with round caps: one element to lay out instead
  // of 1,188 circles with a title each (DR-007). Names come from nearestNode on hover and focus.
  svg("path", { d: tree.nodes.map((node) => `M${node.x},${node.y}h0`).join(""), class: "points" },
    $("layer-points"));
  for (const [name, value] of Object.entries(tree.stats)) {
    document.querySelector(`[data-stat="${name}"]`).textContent = value;
  }
  tree.byId = new Map(tree.nodes.map((node) => [node.id, node]));
}

// The business nearest a map position (map units) within `reach`, or null: a scan of the 1,188 points
// takes a few microseconds, cheaper than keeping an element per point for the browser to hit-test.
function nearestNode(x, y, reach = Infinity) {
  let found = null;
  let best = reach * reach;
  for (const node of tree.nodes) {
    const distance = (node.x - x) ** 2 + (node.y - y) ** 2;
    if (distance < best) [best, found] = [distance, node];
  }
  return found;
}

const HOVER_PX = 12;
let pointerAt = null;

// The name under the pointer, or, on the map focused from the keyboard, the business nearest the query:
// a ring on the map and a label beside it that assistive technology reads as a status.
function showPointName() {
  const label = $("map-point");
  const layer = $("layer-hover");
  layer.replaceChildren();
  const screen = map.getScreenCTM();
  let node = pointerAt && nearestNode(pointerAt.x, pointerAt.y, HOVER_PX / screen.a);
  let text = node ? node.title : "";
  if (!node && view && map.matches(":focus-visible")) {
    node = nearestNode(toMap.x(view.query.lon), toMap.y(view.query.lat));
    text = `Nearest business to the query: ${node.title}`;
  }
  if (label.textContent !== text) label.textContent = text;
  if (!node) return;
  svg("circle", { cx: node.x, cy: node.y, r: 7, class: "hovered" }, layer);
  const at = new DOMPoint(node.x, node.y).matrixTransform(screen);
  const frame = map.getBoundingClientRect();
  const figure = map.parentElement.getBoundingClientRect();
  const left = Math.min(Math.max(at.x - label.offsetWidth / 2, frame.left), frame.right - label.offsetWidth);
  const above = at.y - label.offsetHeight - 12;
  label.style.left = `${left - figure.left}px`;
  label.style.top = `${(above >= frame.top ? above : at.y + 12) - figure.top}px`;
}

let pendingFrame = false;

function followPointer(event) {
  pointerAt = new DOMPoint(event.clientX, event.clientY).matrixTransform(map.getScreenCTM().inverse());
  if (pendingFrame) return;
  pendingFrame = true;
  requestAnimationFrame(() => { pendingFrame = false; showPointName(); });
}

// Scroll the trace list (only the list, never the page) so the current step shows.
function keepInList(item) {
  const list = $("trace-list");
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
  if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top - (list.clientHeight - item.offsetHeight) / 2;
  }
}

// The touched part of the tree (pyapp.touched_tree): columns and rows scaled to pixels.
const COLUMN = 16;
const ROW = 26;
const PAD = 12;

function drawTouched() {
  const touched = view.touched;
  const at = (column, depth) => [PAD + column * COLUMN + COLUMN / 2, PAD + depth * ROW];
  const tv = $("tree-view");
  tv.replaceChildren();
  const width = touched.columns * COLUMN + 2 * PAD;
  const height = (touched.depth + 1) * ROW + 2 * PAD;
  for (const [key, value] of Object.entries({ width, height, viewBox: `0 0 ${width} ${height}` })) {
    tv.setAttribute(key, value);
  }
  const edges = svg("g", {}, tv);
  const marks = svg("g", {}, tv);
  const byId = new Map(touched.nodes.map((node) => [node.id, node]));
  const jump = (element, step) => element.addEventListener("click", () => showStep(step));
  for (const node of touched.nodes) {
    const [x, y] = at(node.column, node.depth);
    if (node.parent !== null) {
      const parent = byId.get(node.parent);
      svg("line", { x1: x, y1: y, x2: at(parent.column, parent.depth)[0], y2: at(parent.column, parent.depth)[1],
        class: "edge", "data-step": node.step }, edges);
    }
    const dot = svg("circle", { cx: x, cy: y, r: 5, class: "node", "data-node": node.id, "data-step": node.step },
      marks);
    svg("title", {}, dot).textContent = `${tree.byId.get(node.id).title}: visited at step ${node.step}`;
    jump(dot, node.step);
  }
  for (const stub of touched.pruned) {
    const [x, y] = at(stub.column, stub.depth);
    const parent = byId.get(stub.parent);
    svg("line", { x1: x, y1: y, x2: at(parent.column, parent.depth)[0], y2: at(parent.column, parent.depth)[1],
      class: "edge stub-edge", "data-step": stub.step }, edges);
    const triangle = svg("path", { d: `M${x},${y - 5}l6,11h-12z`, class: "stub", "data-step": stub.step }, marks);
    svg("title", {}, triangle).textContent = `${stub.size} businesses skipped at step ${stub.step}`;
    svg("text", { x, y: y + 16, class: "size" }, marks).textContent = stub.size;
    jump(triangle, stub.step);
  }
}

function showTouched(step) {
  const tv = $("tree-view");
  for (const mark of tv.querySelectorAll("[data-step]")) {
    mark.classList.toggle("seen", Number(mark.dataset.step) <= current);
  }
  for (const mark of tv.querySelectorAll(".current")) mark.classList.remove("current");
  const node = tv.querySelector(`.node[data-node="${step.node_id}"]`);
  node.classList.add("current");
  // Measured on screen, so it holds whether the tree is drawn full size or fitted to the panel.
  const box = $("tree-scroll");
  const at = node.getBoundingClientRect();
  const frame = box.getBoundingClientRect();
  if (at.left < frame.left || at.right > frame.right) box.scrollLeft += at.left - frame.left - box.clientWidth / 2;
  if (at.top < frame.top || at.bottom > frame.bottom) box.scrollTop += at.top - frame.top - box.clientHeight / 2;
}

function fitTree() {
  const fit = $("tree-fit").getAttribute("aria-pressed") !== "true";
  $("tree-fit").setAttribute("aria-pressed", String(fit));
  $("tree-scroll").classList.toggle("fit", fit);
}

function showStep(index) {
  if (!view || view.trace.length === 0) return;
  current = Math.max(1, Math.min(index, view.trace.length));
  const step = view.trace[current - 1];
  const extra = view.steps[current - 1];
  const caption = $("step-caption");
  caption.textContent = `Step ${current}: ${extra.caption}`;
  caption.dataset.step = current;
  caption.dataset.action = step.action;
  caption.dataset.node = step.node_id;
  $("jump").value = current;
  $("current-best").textContent = extra.best ? extra.best.text : "–";
  $("current-best").dataset.node = extra.best ? extra.best.id : "";

  const pruned = $("layer-pruned");
  pruned.replaceChildren();
  const searchLayer = $("layer-search");
  searchLayer.replaceChildren();
  for (let i = 0; i < current; i++) {
    const region = view.steps[i].pruned_region;
    if (region) {
      svg("rect", { x: toMap.x(region.min_lon), y: toMap.y(region.max_lat),
        width: toMap.x(region.max_lon) - toMap.x(region.min_lon),
        height: toMap.y(region.min_lat) - toMap.y(region.max_lat), class: "pruned" }, pruned);
    }
    const s = view.trace[i];
    if (s.action === "report") {
      const node = tree.byId.get(s.node_id);
      svg("circle", { cx: node.x, cy: node.y, r: 6, class: "reported" }, searchLayer);
    }
  }
  // The ring shows what is known at this step: the radius, or the best distance found so far.
  const reach = view.kind === "radius" ? view.radius : extra.best && extra.best.distance;
  if (reach) {
    svg("circle", { cx: toMap.x(view.query.lon), cy: toMap.y(view.query.lat), r: toMap.r(reach), class: "reach",
      "data-distance": reach }, searchLayer);
  }
  const visited = tree.byId.get(step.node_id);
  svg("circle", { cx: visited.x, cy: visited.y, r: 10, class: "current" }, searchLayer);
  if (extra.best) {
    const best = tree.byId.get(extra.best.id);
    svg("circle", { cx: best.x, cy: best.y, r: 7, class: "best" }, searchLayer);
  }
  const list = $("trace-list");
  for (const item of list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const item = list.children[current - 1];
  item.setAttribute("aria-current", "step");
  keepInList(item);
  showTouched(step);
}

function drawQuery() {
  const overlay = $("layer-overlay");
  overlay.replaceChildren();
  const x = toMap.x(view.query.lon);
  const y = toMap.y(view.query.lat);
  svg("path", { d: `M${x - 11},${y}h22M${x},${y - 11}v22`, class: "query" }, overlay);
  $("reach-label").textContent = view.kind === "radius" ? "search radius" : "best distance so far";
}

function nextDecision() {
  if (!view) return;
  const next = view.steps.findIndex((extra, i) => i >= current && extra.decision);
  showStep(next === -1 ? view.trace.length : next + 1);
}

function stopPlaying() {
  clearInterval(player);
  player = null;
  $("play").setAttribute("aria-pressed", "false");
  $("play").textContent = "Play";
}

function startPlaying() {
  clearInterval(player);
  $("play").setAttribute("aria-pressed", "true");
  $("play").textContent = "Pause";
  player = setInterval(() => {
    if (!view || current >= view.trace.length) stopPlaying();
    else showStep(current + 1);
  }, Number($("speed").value));
}

function togglePlay() {
  if (player) return stopPlaying();
  if (view && current >= view.trace.length) showStep(1);
  startPlaying();
}

async function runSearch() {
  stopPlaying();
  const [kind, radius] = $("kind").value.split(":");
  const args = { order: $("order").value, kind, lon: Number($("lon").value), lat: Number($("lat").value),
    radius: radius ? Number(radius) : null };
  let shown;
  // Before Python is ready the default search stays steppable, and a new one waits for Python: say so.
  const message = $("query-message");
  if (!pythonReady) {
    message.textContent = "Python is still starting: this search runs as soon as it is ready.";
    message.dataset.waiting = "true";
  }
  try {
    shown = await python.call("search_view", args);
  } catch (error) {
    delete message.dataset.waiting;
    message.textContent = error.message;
    return;
  }
  delete message.dataset.waiting;
  message.textContent = "";
  showSearch(shown);
  document.dispatchEvent(new CustomEvent("search-shown", { detail: args }));
}

function showSearch(shown) {
  view = shown;
  $("step-count").textContent = view.trace.length;
  $("jump").max = view.trace.length;
  $("search-result").textContent = view.result_text;
  $("nodes-visited").textContent = view.counts.nodes_visited;
  $("subtrees-pruned").textContent = view.counts.subtrees_pruned;
  const list = $("trace-list");
  list.replaceChildren(...view.steps.map((extra, i) => {
    const item = document.createElement("li");
    if (extra.decision) item.className = "decision";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "step-link";
    button.textContent = extra.caption;
    button.addEventListener("click", () => showStep(i + 1));
    item.append(button);
    return item;
  }));
  drawQuery();
  drawTouched();
  showStep(1);
  showPointName();
}

async function loadTree() {
  tree = await python.call("tree_view", { order: $("order").value });
  drawTree();
  await runSearch();
}

function placeQuery(event) {
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(map.getScreenCTM().inverse());
  $("lon").value = toMap.lon(point.x).toFixed(7);
  $("lat").value = toMap.lat(point.y).toFixed(7);
  runSearch();
}

const STEP_KEYS = {
  ArrowRight: (event) => (event.shiftKey ? nextDecision() : showStep(current + 1)),
  ArrowLeft: () => showStep(current - 1),
  Home: () => showStep(1),
  End: () => showStep(view ? view.trace.length : 1),
  k: togglePlay,
  K: togglePlay,
};

function stepByKey(event) {
  const target = event.target;
  if (!(event.key in STEP_KEYS) || event.ctrlKey || event.metaKey || event.altKey || target === map) return;
  if (target.closest("input, select, textarea, [contenteditable]") || target.closest("#walkthrough")) return;
  event.preventDefault();
  STEP_KEYS[event.key](event);
}

// Until Python is ready, the default map and search the build embedded (DR-002); then Python's own.
const preset = JSON.parse($("explorer-default").textContent);
tree = preset.tree;
drawTree();
showSearch(preset.search);

// Deep links (DR-010): ?order=…&kind=…&lon=…&lat=…[&radius=…][&step=…] opens that search (at that step of
// its trace), and every search shown writes its own, so the address can be shared. Python checks the
// values as for any other search. Returns a sentence when the link asks for something the explorer does
// not offer.
let linkStep = null;
function openLink() {
  const link = new URLSearchParams(location.search);
  if (!link.has("lon") && !link.has("lat")) return null;
  linkStep = /^[1-9][0-9]{0,5}$/.test(link.get("step") ?? "") ? Number(link.get("step")) : null;
  const kind = link.get("kind") === "radius" ? `radius:${link.get("radius")}` : link.get("kind");
  const unknown = [["order", link.get("order")], ["kind", kind]].filter(([id, value]) => {
    const known = [...$(id).options].some((option) => option.value === value);
    if (known) $(id).value = value;
    return value !== null && !known;
  });
  $("lon").value = link.get("lon");
  $("lat").value = link.get("lat");
  if (!unknown.length) return null;
  const names = { order: "an insertion order", kind: "a kind of search" };
  return `This link asks for ${unknown.map(([id]) => names[id]).join(" and ")} the explorer does not offer; ` +
    "it shows the search with the settings chosen below instead.";
}

document.addEventListener("search-shown", ({ detail }) => {
  const link = new URLSearchParams({ order: detail.order, kind: detail.kind, lon: detail.lon, lat: detail.lat });
  if (detail.radius !== null) link.set("radius", detail.radius);
  history.replaceState(null, "", `?${link}`);
});

python.ready.then(async () => {
  pythonReady = true;
  const linkProblem = openLink();
  await loadTree();
  if (linkStep !== null) {
    showStep(linkStep);
    const link = new URLSearchParams(location.search);
    link.set("step", current);
    history.replaceState(null, "", `?${link}`);
  }
  if (linkProblem) $("query-message").textContent = linkProblem;
  document.body.dataset.explorerReady = "true";
}).catch(() => {});

$("order").addEventListener("change", loadTree);
$("kind").addEventListener("change", runSearch);
$("search-form").addEventListener("submit", (event) => { event.preventDefault(); runSearch(); });
map.addEventListener("click", placeQuery);
map.addEventListener("pointermove", followPointer);
map.addEventListener("pointerleave", () => { pointerAt = null; showPointName(); });
map.addEventListener("focus", showPointName);
map.addEventListener("blur", showPointName);
map.addEventListener("keydown", (event) => {
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (!(event.key in moves) || !toMap) return;
  event.preventDefault();
  const [dx, dy] = moves[event.key];
  $("lon").value = (Number($("lon").value) + dx * 0.0002).toFixed(7);
  $("lat").value = (Number($("lat").value) + dy * 0.0002).toFixed(7);
  runSearch();
});
document.addEventListener("keydown", stepByKey);
$("next-step").addEventListener("click", () => showStep(current + 1));
$("prev-step").addEventListener("click", () => showStep(current - 1));
$("first-step").addEventListener("click", () => showStep(1));
$("last-step").addEventListener("click", () => showStep(view ? view.trace.length : 1));
$("next-decision").addEventListener("click", nextDecision);
$("jump").addEventListener("change", () => showStep(Number($("jump").value)));
$("play").addEventListener("click", togglePlay);
$("tree-fit").addEventListener("click", fitTree);
$("speed").addEventListener("change", () => { if (player) startPlaying(); });

setupWalkthrough(python, () => view);
