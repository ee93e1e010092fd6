// The workbench's drawings. Every position and text comes from pyapp; these only place them in an SVG whose
// viewBox scales it to its box, so a phone shows the whole figure.
import { element } from "./dom.mjs";

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

/** Each run's grounded share on its Wilson interval, one row a run, into the SVG `plot`. */
export function drawRates(plot, runs, ticks, labelOf) {
  plot.replaceChildren();
  const width = 640;
  const rowHeight = 28;
  const left = 190;
  const height = rowHeight * Math.max(runs.length, 1) + 30;
  plot.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const x = (p) => left + p * (width - left - 20);
  for (const tick of ticks) {
    svg("line", { x1: x(tick.at), x2: x(tick.at), y1: 0, y2: height - 20, class: "grid" }, plot);
    svg("text", { x: x(tick.at), y: height - 5, "text-anchor": "middle", class: "tick" }, plot).textContent = tick.text;
  }
  runs.forEach((run, i) => {
    const y = rowHeight * i + rowHeight / 2;
    svg("text", { x: 4, y: y + 4, class: "label" }, plot).textContent = labelOf(run);
    if (!run.graded) return;
    const [low, high] = run.grounded_interval;
    svg("line", { x1: x(low), x2: x(high), y1: y, y2: y, class: "interval" }, plot);
    svg("circle", { cx: x(run.grounded_share), cy: y, r: 5, class: "estimate", "data-run": run.run_id }, plot);
  });
}

/** A run's latencies as dots, with the median and its interval as a band. */
export function drawLatencies(run) {
  const plot = svg("svg", { class: "plot", role: "img", "aria-label": `Latency of each answered call in ${run.run_id}` });
  const width = 640;
  const height = 70;
  plot.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const values = run.latencies;
  if (!values.length) return plot;
  const axis = run.latency_axis;
  const x = (v) => 20 + (v / axis.top) * (width - 40);
  if (run.latency) {
    svg("rect", { x: x(run.latency.low), y: 10, width: Math.max(1, x(run.latency.high) - x(run.latency.low)), height: 30,
      class: "band" }, plot);
    svg("line", { x1: x(run.latency.median), x2: x(run.latency.median), y1: 6, y2: 44, class: "median" }, plot);
  }
  for (const v of values) svg("circle", { cx: x(v), cy: 25, r: 4, class: "dot" }, plot);
  svg("text", { x: 20, y: 62, class: "tick" }, plot).textContent = axis.zero_text;
  svg("text", { x: width - 20, y: 62, "text-anchor": "end", class: "tick" }, plot).textContent = axis.top_text;
  return plot;
}

/**
 * A comparison (pyapp.presentation.comparison_plot): the difference on its interval against each side's noise
 * floor band around zero, the ticks, and under the axis which side each half favours. Drawn `boxWidth` units
 * wide (the box it goes in, 360 to 640), so its text keeps its size on a phone.
 */
export function drawComparison(plot, id, boxWidth) {
  const figure = element("figure", null, { class: "comparison-plot" });
  const width = Math.round(Math.min(640, Math.max(360, boxWidth || 640)));
  const left = 110;
  const rowHeight = 28;
  const axisY = rowHeight * (1 + plot.bands.length) + 18;
  const height = axisY + 22;
  const drawing = svg("svg", { class: "plot", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-labelledby": `${id}-caption`, id });
  const x = (v) => left + ((v - plot.low) / (plot.high - plot.low)) * (width - left - 20);
  for (const tick of plot.ticks) {
    svg("line", { x1: x(tick.at), x2: x(tick.at), y1: 0, y2: axisY - 14, class: tick.at ? "grid" : "grid zero" }, drawing);
    svg("text", { x: x(tick.at), y: axisY, "text-anchor": "middle", class: "tick" }, drawing).textContent = tick.text;
  }
  svg("text", { x: x(plot.low), y: axisY + 18, class: "side" }, drawing).textContent = plot.sides.left;
  svg("text", { x: x(plot.high), y: axisY + 18, "text-anchor": "end", class: "side" }, drawing).textContent = plot.sides.right;
  const y0 = rowHeight / 2;
  svg("text", { x: 4, y: y0 + 4, class: "label" }, drawing).textContent = plot.label;
  svg("line", { x1: x(plot.interval[0]), x2: x(plot.interval[1]), y1: y0, y2: y0, class: "interval" }, drawing);
  svg("circle", { cx: x(plot.difference), cy: y0, r: 5, class: "estimate" }, drawing);
  plot.bands.forEach((band, i) => {
    const y = rowHeight * (i + 1) + rowHeight / 2;
    svg("text", { x: 4, y: y + 4, class: "label" }, drawing).textContent = band.label;
    if (band.half_width === null) {
      svg("text", { x: x(0), y: y + 4, "text-anchor": "middle", class: "tick" }, drawing).textContent = "unknown";
      return;
    }
    svg("rect", { x: x(-band.half_width), y: y - 8, width: x(band.half_width) - x(-band.half_width), height: 16,
      class: "band" }, drawing);
  });
  const caption = element("figcaption", `${plot.caption} ${plot.difference_text}; ${plot.bands.map((b) => b.text).join("; ")}.`,
    { id: `${id}-caption` });
  figure.append(drawing, caption);
  return figure;
}
