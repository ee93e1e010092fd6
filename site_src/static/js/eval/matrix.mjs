// The Results view's matrix of cases against runs (pyapp.presentation.case_matrix): pyapp names every cell and
// group, this places them in a grid the arrow keys move through (one cell in the tab order, the last one focused).
import { element } from "./dom.mjs";
import { python } from "./log-state.mjs";

const $ = (id) => document.getElementById(id);

/** Draw the matrix for the configuration chosen in #matrix-scope (every run when none); `open(cell)` opens a case. */
export async function showMatrix(open) {
  const scope = $("matrix-scope").value;
  const matrix = await python.call("case_matrix", scope ? { configuration: scope } : {});
  const legend = Object.fromEntries(matrix.legend.map((item) => [item.cell, item]));
  $("matrix-legend").replaceChildren(...matrix.legend.map((item) => {
    const entry = element("li");
    entry.append(element("span", item.letter, { class: `cell cell-${item.cell}`, "aria-hidden": "true" }), ` ${item.text}`);
    return entry;
  }));
  $("matrix-note").textContent = matrix.note;
  $("case-matrix").replaceChildren(...matrix.sets.flatMap((section) => matrixSection(section, legend, open)));
}

function matrixSection(section, legend, open) {
  const heading = element("h3", `Set ${section.set_label}`, { id: `matrix-${section.eval_set_version}` });
  const groups = element("ul", null, { class: "matrix-groups" });
  for (const group of section.groups) {
    groups.append(element("li", `${group.config_name ?? group.name}: ${group.label}; runs ${group.runs.map((r) => r.label).join(", ")}`));
  }
  const grid = element("table", null, { class: "case-matrix", role: "grid", "aria-labelledby": heading.id,
    "data-set": section.eval_set_version });
  const head = grid.createTHead();
  const top = head.insertRow();
  top.append(element("td"));
  for (const group of section.groups) {
    top.append(element("th", group.name, { scope: "colgroup", colspan: String(group.runs.length), title: group.label }));
  }
  top.append(element("td"));
  const columns = head.insertRow();
  columns.append(element("th", "Case", { scope: "col" }));
  for (const group of section.groups) {
    for (const run of group.runs) columns.append(element("th", run.column, { scope: "col", title: run.label, "data-run": run.run_id }));
  }
  columns.append(element("th", "Flipped in", { scope: "col" }));
  const runs = section.groups.flatMap((group) => group.runs);
  const named = Object.fromEntries(section.groups.map((group) => [group.configuration, group.name]));
  const body = grid.createTBody();
  for (const caseRow of section.rows) {
    const tr = body.insertRow();
    tr.append(element("th", caseRow.case_id, { scope: "row" }));
    caseRow.cells.forEach((cell, i) => {
      const td = element("td", null, { class: `cell cell-${cell}`, role: "gridcell", tabindex: "-1",
        "data-cell": cell, "data-run": runs[i].run_id, "data-case": caseRow.case_id, "data-label": runs[i].label });
      td.append(element("span", legend[cell].letter, { "aria-hidden": "true" }),
        element("span", `${runs[i].label}: ${legend[cell].text}`, { class: "visually-hidden" }));
      tr.append(td);
    });
    tr.append(element("td", caseRow.flipped_in.map((id) => named[id]).join(" "), { class: "flipped" }));
  }
  const first = grid.querySelector("td.cell");
  if (first) first.tabIndex = 0;
  grid.addEventListener("keydown", (event) => moveInGrid(event, open));
  grid.addEventListener("click", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell) void open(focusCell(cell));
  });
  const wrap = element("div", null, { class: "table-wrap matrix-wrap" });
  wrap.append(grid);
  return [heading, wrap, groups];
}

/** Make `cell` its grid's one stop in the tab order, and focus it. */
function focusCell(cell) {
  markCell(cell);
  cell.focus();
  return cell;
}

/** Make `cell` its grid's one stop in the tab order. */
export function markCell(cell) {
  for (const other of cell.closest("table").querySelectorAll("td.cell[tabindex='0']")) other.tabIndex = -1;
  cell.tabIndex = 0;
}

function moveInGrid(event, open) {
  const cell = event.target.closest("td.cell");
  if (!cell) return;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    void open(cell);
    return;
  }
  const rows = [...event.currentTarget.tBodies[0].rows];
  const cellsOf = (tr) => [...tr.querySelectorAll("td.cell")];
  const r = rows.indexOf(cell.parentElement);
  const c = cellsOf(rows[r]).indexOf(cell);
  const last = cellsOf(rows[r]).length - 1;
  const to = { ArrowRight: [r, c + 1], ArrowLeft: [r, c - 1], ArrowDown: [r + 1, c], ArrowUp: [r - 1, c],
    PageDown: [r + 10, c], PageUp: [r - 10, c],
    Home: event.ctrlKey ? [0, 0] : [r, 0], End: event.ctrlKey ? [rows.length - 1, last] : [r, last] }[event.key];
  if (!to) return;
  event.preventDefault();
  const row = Math.max(0, Math.min(rows.length - 1, to[0]));
  focusCell(cellsOf(rows[row])[Math.max(0, Math.min(last, to[1]))]);
}

/** The cell of (run, case) in the matrix as drawn, if it is there. */
export const cellOf = (runId, caseId) =>
  [...$("case-matrix").querySelectorAll("td.cell")].find((td) => td.dataset.run === runId && td.dataset.case === caseId);
