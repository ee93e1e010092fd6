// The explorer page: draw what pyapp.explorer computes, and step through it.
import { startPython } from "./python.mjs";
import { setupWalkthrough } from "./walkthrough.mjs";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 1000;
const PLAY_MS = 450;
const $ = (id) => document.getElementById(id);
const python = startPython();
const map = $("map");
let tree = null;
let view = null;
let current = 0;
let player = null;
let toMap = null;

function svg(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.append(element);
  return element;
}

function fmt(x) {
  return Number(x).toFixed(7).replace(/0+$/, "").replace(/\.$/, "");
}

function drawTree() {
  const box = tree.bbox;
  const scale = WIDTH / ((box.max_lon - box.min_lon) * tree.x_scale);
  const height = (box.max_lat - box.min_lat) * scale;
  toMap = {
    x: (lon) => (lon - box.min_lon) * tree.x_scale * scale,
    y: (lat) => (box.max_lat - lat) * scale,
    rx: (r) => r * tree.x_scale * scale,
    ry: (r) => r * scale,
    lon: (x) => box.min_lon + x / (tree.x_scale * scale),
    lat: (y) => box.max_lat - y / scale,
  };
  map.replaceChildren();
  map.setAttribute("viewBox", `-10 -10 ${WIDTH + 20} ${height + 20}`);
  for (const layer of ["pruned", "lines", "points", "search", "overlay"]) svg("g", { id: `layer-${layer}` }, map);
  const lines = $("layer-lines");
  const points = $("layer-points");
  for (const node of tree.nodes) {
    const r = node.region;
    const line = node.axis === 0
      ? { x1: toMap.x(node.split), x2: toMap.x(node.split), y1: toMap.y(r.min_lat), y2: toMap.y(r.max_lat) }
      : { x1: toMap.x(r.min_lon), x2: toMap.x(r.max_lon), y1: toMap.y(node.split), y2: toMap.y(node.split) };
    svg("line", { ...line, class: `split depth-${Math.min(node.depth, 6)}`, "data-node": node.id }, lines);
    const dot = svg("circle", { cx: toMap.x(node.lon), cy: toMap.y(node.lat), r: 3, class: "point",
      "data-node": node.id }, points);
    svg("title", {}, dot).textContent = `${node.name} (${node.category})`;
  }
  for (const [name, value] of Object.entries(tree.stats)) {
    document.querySelector(`[data-stat="${name}"]`).textContent = name === "average_depth" ? value.toFixed(2) : value;
  }
  tree.byId = new Map(tree.nodes.map((node) => [node.id, node]));
}

function nodeName(id) {
  const node = tree.byId.get(id);
  return node ? node.name : String(id);
}

function resultText() {
  if (view.kind === "nearest") {
    return view.result ? `${nodeName(view.result.id)} at ${fmt(view.result.distance)}°` : "none";
  }
  return view.result.length ? `${view.result.length} businesses within ${view.radius}°` : "no business in range";
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
  $("current-best").textContent = extra.best ? `${nodeName(extra.best.id)} at ${fmt(extra.best.distance)}°` : "–";
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
      svg("circle", { cx: toMap.x(node.lon), cy: toMap.y(node.lat), r: 5, class: "reported" }, searchLayer);
    }
  }
  const visited = tree.byId.get(step.node_id);
  svg("circle", { cx: toMap.x(visited.lon), cy: toMap.y(visited.lat), r: 8, class: "current" }, searchLayer);
  if (extra.best) {
    const best = tree.byId.get(extra.best.id);
    svg("circle", { cx: toMap.x(best.lon), cy: toMap.y(best.lat), r: 6, class: "best" }, searchLayer);
  }
  for (const item of $("trace-list").querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const item = $("trace-list").children[current - 1];
  item.setAttribute("aria-current", "step");
  const list = $("trace-list");
  if (item.offsetTop < list.scrollTop || item.offsetTop > list.scrollTop + list.clientHeight - item.offsetHeight) {
    list.scrollTop = item.offsetTop - list.clientHeight / 2;
  }
}

function drawQuery() {
  const overlay = $("layer-overlay");
  overlay.replaceChildren();
  const x = toMap.x(view.query.lon);
  const y = toMap.y(view.query.lat);
  svg("path", { d: `M${x - 9},${y}h18M${x},${y - 9}v18`, class: "query" }, overlay);
  const reach = view.kind === "radius" ? view.radius : view.result && view.result.distance;
  if (reach) {
    // A circle in degrees is an ellipse on a map whose x axis is scaled to metres.
    svg("ellipse", { cx: x, cy: y, rx: toMap.rx(reach), ry: toMap.ry(reach), class: "reach" }, overlay);
  }
}

function stopPlaying() {
  clearInterval(player);
  player = null;
  $("play").setAttribute("aria-pressed", "false");
  $("play").textContent = "Play";
}

async function runSearch() {
  stopPlaying();
  const [kind, radius] = $("kind").value.split(":");
  const args = { order: $("order").value, kind, lon: Number($("lon").value), lat: Number($("lat").value),
    radius: radius ? Number(radius) : null };
  $("step-caption").textContent = "Searching…";
  try {
    view = await python.call("search_view", args);
  } catch (error) {
    $("step-caption").textContent = `The search could not run: ${error.message}`;
    return;
  }
  $("step-count").textContent = view.trace.length;
  $("jump").max = view.trace.length;
  $("search-result").textContent = resultText();
  $("nodes-visited").textContent = view.counts.nodes_visited;
  $("subtrees-pruned").textContent = view.counts.subtrees_pruned;
  const list = $("trace-list");
  list.replaceChildren(...view.steps.map((extra, i) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "step-link";
    button.textContent = extra.caption;
    button.addEventListener("click", () => showStep(i + 1));
    item.append(button);
    return item;
  }));
  drawQuery();
  showStep(1);
  document.dispatchEvent(new CustomEvent("search-shown", { detail: args }));
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

python.ready.then(async () => {
  await loadTree();
  document.body.dataset.explorerReady = "true";
}).catch(() => {});

$("order").addEventListener("change", loadTree);
$("kind").addEventListener("change", runSearch);
$("search-form").addEventListener("submit", (event) => { event.preventDefault(); runSearch(); });
map.addEventListener("click", placeQuery);
map.addEventListener("keydown", (event) => {
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const [dx, dy] = moves[event.key];
  $("lon").value = (Number($("lon").value) + dx * 0.0002).toFixed(7);
  $("lat").value = (Number($("lat").value) + dy * 0.0001).toFixed(7);
  runSearch();
});
$("next-step").addEventListener("click", () => showStep(current + 1));
$("prev-step").addEventListener("click", () => showStep(current - 1));
$("first-step").addEventListener("click", () => showStep(1));
$("last-step").addEventListener("click", () => showStep(view ? view.trace.length : 1));
$("jump").addEventListener("change", () => showStep(Number($("jump").value)));
$("play").addEventListener("click", () => {
  if (player) return stopPlaying();
  if (view && current >= view.trace.length) showStep(1);
  $("play").setAttribute("aria-pressed", "true");
  $("play").textContent = "Pause";
  player = setInterval(() => {
    if (!view || current >= view.trace.length) stopPlaying();
    else showStep(current + 1);
  }, PLAY_MS);
});

setupWalkthrough(python, () => view);
