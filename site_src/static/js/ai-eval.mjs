// The /ai-eval/ page: show the set, drive runs in the worker, render what pyapp.report computes.
// Every number shown comes from pyapp; this file only places text and draws the plots.
import { applySettings, download, readKey, readSettings, setupSettings } from "./ai-settings.mjs";
import { element, row, table } from "./dom.mjs";
import { setupJudge, showJudges } from "./judge.mjs";
import { startPython } from "./python.mjs";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const python = startPython();
let overview = { runs: [] };
let grouped = { configurations: [], apart: [] };

const modelOf = (run) => (run.settings ? `${run.settings.provider} · ${run.settings.model}` : "mixed settings");

function svg(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

// The build rendered the first set from the same function (DR-002); Python's copy replaces it once ready,
// and another set's when the visitor chooses one.
async function showSet(setVersion) {
  const { summary, figures, rows } = await python.call("evalset", { set_version: setVersion ?? null });
  $("set-summary").textContent = summary;
  for (const [id, text] of Object.entries(figures)) $(id).textContent = text;
  const body = $("evalset").tBodies[0];
  body.replaceChildren();
  for (const { case_id: caseId, cells } of rows) row(body, cells, { "data-case": caseId });
  document.body.dataset.evalsetShown = "python";
}

function drawRates(runs, ticks) {
  const plot = $("rates-plot");
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
    svg("text", { x: 4, y: y + 4, class: "label" }, plot).textContent = `${run.label} ${modelOf(run)}`;
    if (!run.graded) return;
    const [low, high] = run.grounded_interval;
    svg("line", { x1: x(low), x2: x(high), y1: y, y2: y, class: "interval" }, plot);
    svg("circle", { cx: x(run.grounded_share), cy: y, r: 5, class: "estimate", "data-run": run.run_id }, plot);
  });
}

function drawLatencies(run) {
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

async function showRunDetail(runId) {
  const run = await python.call("run_detail", { run_id: runId });
  const detail = $("run-detail");
  detail.replaceChildren();
  detail.dataset.run = run.run_id;
  detail.append(element("h3", `Run ${run.run_id}${run.set_note}`));
  detail.append(element("p", `Grounded: ${run.display.grounded}. Model failures count as not grounded; ` +
    "infrastructure failures and stale inputs are left out of every denominator.", { id: "run-headline" }));
  detail.append(element("p", `Latency of the answering request: ${run.display.latency}. ${run.display.tokens}.`,
    { id: "run-latency" }));
  if (run.mixed_settings) detail.append(element("p", "This run's calls used different settings.", { class: "note" }));
  detail.append(drawLatencies(run));
  detail.append(element("h4", "Per kind (counts only: five cases per kind are too few for intervals)"));
  detail.append(table("Outcomes per kind", ["Kind", "Grounded", "Not grounded", "Model failure", "Not graded"],
    run.per_kind.map((k) => [k.label, k.grounded, k.not_grounded, k.model_failure, k.not_graded])));
  const apart = [["Infrastructure failures (not the model's fault)", run.infrastructure_failures],
    ["Stale input (asked with another prompt; asked again on continue)", run.stale],
    ["Cancelled", run.cancelled]];
  if (apart.some(([, notes]) => notes.length) || run.to_ask.length) {
    detail.append(element("h4", "Kept out of every rate"));
    const list = element("ul", null, { id: "run-apart" });
    for (const [label, notes] of apart) {
      for (const note of notes) list.append(element("li", `${label}: ${note.case_id ?? "–"}, ${note.reason}`));
    }
    if (run.to_ask.length) list.append(element("li", `Still to ask on continue: ${run.to_ask.join(", ")}`));
    detail.append(list);
  }
  detail.append(element("h4", "Per case"));
  const checkNames = ["result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps"];
  detail.append(table("Outcomes per case", ["Case", "Outcome", ...checkNames, "Why"], run.cases.map((c) => {
    const passed = Object.fromEntries(c.checks.map((check) => [check.name, check.passed]));
    const marks = checkNames.map((n) => (n in passed
      ? element("span", passed[n] ? "pass" : "FAIL", { class: passed[n] ? "check-pass" : "check-fail" }) : "–"));
    const why = element("ul", null, { class: "reasons" });
    for (const reason of c.failed_reasons) why.append(element("li", reason));
    if (c.detail) why.append(element("li", c.detail));
    const outcome = element("span", c.outcome_text, { class: `outcome-${c.outcome ?? c.status}` });
    return [c.case_id, outcome, ...marks, why.children.length ? why : "–"];
  }), { id: "case-table" }));
}

function fillRunSelects() {
  const options = overview.runs.map((run) => [run.run_id, `${run.label} · ${modelOf(run)}${run.set_note}`]);
  for (const id of ["continue-select", "compare-a", "compare-b", "export-run", "rate-run", "judge-run"]) {
    const select = $(id);
    const keep = select.value;
    const first = id === "export-run" ? [["", "all runs"]] : id === "judge-run" ? [["", "every run"]]
      : id === "continue-select" && !options.length ? [["", "(no runs yet)"]] : [];
    select.replaceChildren(...[...first, ...options].map(([value, label]) => element("option", label, { value })));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }
  if (overview.runs.length > 1 && $("compare-a").value === $("compare-b").value) $("compare-b").selectedIndex = 1;
}

function figures(rows, attributes = {}) {
  const list = element("dl", null, { class: "stats", ...attributes });
  for (const [label, text] of rows) {
    if (text === undefined || text === null || text === "") continue;
    list.append(element("dt", label), element("dd", Array.isArray(text) ? text.join("; ") : text));
  }
  return list;
}

function repeatFigures(group) {
  const shown = group.display;
  const rows = [["Runs", shown.runs], ["Mean grounded share", shown.mean],
    ["Drift", group.drift.flagged ? group.drift.text : null]];
  if (group.k < 2) return figures([...rows, ["Repeats", "one run: repeat it to measure how much a run moves"]]);
  const left = group.figures.not_in_every_run;
  return figures([...rows,
    ["Left out below (not counted in every run)", left.length ? left.join(", ") : null],
    [`pass^${group.k}`, shown.pass_k], ["Flip rate", shown.flip_rate], ["Noise floor (95%)", shown.floor]]);
}

async function repeatConfiguration(group) {
  applySettings(group.settings);
  $("run-heading").scrollIntoView({ block: "start" });
  if (!readKey()) {
    $("run-status").textContent = "The settings of that configuration are in the form: enter your API key, then " +
      "press Start a new run. Nothing was sent.";
    $("api-key").focus();
    return;
  }
  await run(null);
}

async function showConfigurations() {
  grouped = await python.call("configurations");
  const out = $("configurations");
  out.replaceChildren();
  for (const group of grouped.configurations) {
    const item = element("article", null, { class: "configuration", "data-config": group.id });
    item.append(element("h3", `Configuration ${group.id}`), element("p", group.label, { class: "config-label" }));
    item.append(repeatFigures(group));
    const again = element("button", "Repeat this configuration", { type: "button", class: "repeat" });
    again.addEventListener("click", () => repeatConfiguration(group));
    const baseline = element("button", "Export baseline", { type: "button", class: "baseline" });
    baseline.addEventListener("click", async () => {
      const text = await python.call("baseline_file", { run_ids: group.run_ids });
      download(`kd-explorer-baseline-${group.id}.json`, text, "application/json");
    });
    const actions = element("div", null, { class: "actions" });
    actions.append(again, baseline);
    item.append(actions);
    out.append(item);
  }
  if (grouped.apart.length) {
    out.append(element("p", "Runs in no configuration (not repeats of anything):"));
    const list = element("ul", null, { id: "runs-apart" });
    for (const apart of grouped.apart) list.append(element("li", `${apart.run_id}: ${apart.reason}`));
    out.append(list);
  }
  $("configs-message").textContent = grouped.configurations.length
    ? `${grouped.configurations.length} configurations.` : "No runs yet.";
  const options = grouped.configurations.map((g) => [g.id, `${g.id} · ${g.label} · ${g.k} runs`]);
  for (const id of ["config-x", "config-y", "diff-config", "matrix-scope"]) {
    const select = $(id);
    const keep = select.value;
    const first = id === "matrix-scope" ? [["", "every run"]] : [];
    select.replaceChildren(...[...first, ...options].map(([value, label]) => element("option", label, { value })));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }
  if (options.length > 1 && $("config-x").value === $("config-y").value) $("config-y").selectedIndex = 1;
  // Until the visitor picks, a plan judges the settings in the form (Y) against the first configuration (X).
  const planOptions = [...options, ["form", "the settings in the Run form now"]];
  for (const [id, fallback] of [["plan-x", planOptions[0][0]], ["plan-y", "form"]]) {
    const select = $(id);
    const keep = select.dataset.chosen ? select.value : fallback;
    select.replaceChildren(...planOptions.map(([value, label]) => element("option", label, { value })));
    select.value = [...select.options].some((o) => o.value === keep) ? keep : fallback;
  }
  await showPlans();
}

// The matrix of cases against runs (pyapp.presentation.case_matrix): pyapp names every cell and group, this
// places them in a grid the arrow keys move through (one cell in the tab order, the last one focused).
async function showMatrix() {
  const scope = $("matrix-scope").value;
  const matrix = await python.call("case_matrix", scope ? { configuration: scope } : {});
  const legend = Object.fromEntries(matrix.legend.map((item) => [item.cell, item]));
  $("matrix-legend").replaceChildren(...matrix.legend.map((item) => {
    const entry = element("li");
    entry.append(element("span", item.letter, { class: `cell cell-${item.cell}`, "aria-hidden": "true" }), ` ${item.text}`);
    return entry;
  }));
  $("matrix-note").textContent = matrix.note;
  $("case-matrix").replaceChildren(...matrix.sets.flatMap((section) => matrixSection(section, legend)));
}

function matrixSection(section, legend) {
  const heading = element("h3", `Set ${section.set_label}`, { id: `matrix-${section.eval_set_version}` });
  const groups = element("ul", null, { class: "matrix-groups" });
  for (const group of section.groups) {
    const config = group.configuration ? `${group.configuration} · ` : "";
    groups.append(element("li", `${group.name}: ${config}${group.label}; runs ${group.runs.map((r) => r.label).join(", ")}`));
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
  grid.addEventListener("keydown", moveInGrid);
  grid.addEventListener("click", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell) void openCell(focusCell(grid, cell));
  });
  const wrap = element("div", null, { class: "table-wrap matrix-wrap" });
  wrap.append(grid);
  return [heading, groups, wrap];
}

function focusCell(grid, cell) {
  for (const other of grid.querySelectorAll("td.cell[tabindex='0']")) other.tabIndex = -1;
  cell.tabIndex = 0;
  cell.focus();
  return cell;
}

function moveInGrid(event) {
  const cell = event.target.closest("td.cell");
  if (!cell) return;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    void openCell(cell);
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
  focusCell(event.currentTarget, cellsOf(rows[row])[Math.max(0, Math.min(last, to[1]))]);
}

function openCell(cell) {
  return openCase(cell.dataset.run, cell.dataset.case);
}

// The cell of (run, case) in the matrix as drawn, if it is there.
const cellOf = (runId, caseId) =>
  [...$("case-matrix").querySelectorAll("td.cell")].find((td) => td.dataset.run === runId && td.dataset.case === caseId);

// One case of one run, everything about it (pyapp.presentation.case_view); the answer is placed as text.
async function openCase(runId, caseId, { focus = true } = {}) {
  let view;
  try {
    view = await python.call("case_detail", { run_id: runId, case_id: caseId });
  } catch (error) {
    $("matrix-note").textContent = error.message;
    return;
  }
  const cell = cellOf(runId, caseId);
  if (cell) {
    const grid = cell.closest("table");
    for (const other of grid.querySelectorAll("td.cell[tabindex='0']")) other.tabIndex = -1;
    cell.tabIndex = 0;
  }
  const named = cell ? cell.dataset.label : runId;
  const box = $("case-view");
  box.dataset.run = runId;
  box.dataset.case = caseId;
  $("case-view-heading").textContent = `${caseId} in run ${named}: ${view.outcome_text}`;
  const body = $("case-view-body");
  body.replaceChildren();
  const search = element("p", null, { id: "case-search" });
  search.append(`${view.search.text}. ${view.search.why_it_matters} `,
    element("a", "Open this search in the explorer", { href: `../explorer/?${view.search.explorer}`, id: "case-explorer" }));
  body.append(search);
  if (view.detail) body.append(element("p", view.detail, { class: "note" }));
  if (view.checks.length) {
    body.append(element("h4", "Checks"));
    body.append(table("The checks of this answer", ["Check", "Verdict", "Reason"], view.checks.map((check) =>
      [check.name, element("span", check.passed ? "pass" : "FAIL", { class: check.passed ? "check-pass" : "check-fail" }),
        check.reason]), { id: "case-checks" }));
  }
  body.append(element("h4", view.counted ? "The answer" : "The answer (not counted)"));
  // A long answer scrolls inside its box, so the box takes the keyboard focus too.
  body.append(element("pre", view.answer ?? "No answer.", { class: "prose-answer", id: "case-answer", tabindex: "0",
    role: "region", "aria-label": "The answer as logged" }));
  if (view.cited.length) {
    body.append(element("h4", "Steps the answer cited"));
    body.append(table("Steps the answer cited", ["Step", "Cited", "Sent in the prompt", "Explorer"], view.cited.map((step) =>
      [step.step ?? "–", step.cited, step.sent ?? "not sent",
        step.explorer ? element("a", `step ${step.step}`, { href: `../explorer/?${step.explorer}` }) : "–"]),
    { id: "case-cited" }));
  }
  if (view.call) {
    body.append(element("h4", "The call"));
    body.append(figures([["Model asked", view.call.model], ["Model reported", view.call.model_reported],
      ["Tokens", view.call.tokens], ["Answer latency", view.call.answer_ms], ["Total", view.call.total_ms],
      ["Stop", view.call.stop], ["Logged", view.call.time]], { id: "case-call" }));
  }
  body.append(element("h4", `Ratings (${view.rubric_version})`));
  if (view.ratings.length) {
    const list = element("ul", null, { id: "case-ratings" });
    for (const rating of view.ratings) {
      list.append(element("li", `${rating.rater}: ${rating.answers.map((a) => `${a.question} ${a.answer}`).join(" ")}`));
    }
    body.append(list);
  } else {
    body.append(element("p", "No ratings of this answer yet.", { id: "case-ratings" }));
  }
  if (view.judged.length) {
    body.append(element("h4", "Model judges (see Agreement for how far each is validated)"));
    const list = element("ul", null, { id: "case-judged" });
    for (const judged of view.judged) list.append(element("li", judged.text));
    body.append(list);
  }
  box.hidden = false;
  box.dataset.previousCase = view.previous_case ?? "";
  box.dataset.nextCase = view.next_case ?? "";
  writeState();
  if (focus) box.focus();
}

// From the case view: the case above or below, the same case in the run before or after (matrix order).
function goFromCase(where) {
  const box = $("case-view");
  const { run, case: caseId } = box.dataset;
  const cell = cellOf(run, caseId);
  if (where === "matrix") {
    if (cell) cell.focus();
    return;
  }
  if (where === "run-detail") {
    void showCaseInRun(run, caseId);
    return;
  }
  if (where === "previous-case" || where === "next-case") {
    const to = where === "previous-case" ? box.dataset.previousCase : box.dataset.nextCase;
    if (to) void openCase(run, to);
    return;
  }
  const row = cell ? [...cell.parentElement.querySelectorAll("td.cell")] : [];
  const next = row[row.indexOf(cell) + (where === "next-run" ? 1 : -1)];
  if (next) void openCase(next.dataset.run, caseId);
}

const CASE_KEYS = { ArrowUp: "previous-case", ArrowDown: "next-case", ArrowLeft: "previous-run",
  ArrowRight: "next-run", Escape: "matrix" };
$("case-view").addEventListener("keydown", (event) => {
  const inNav = event.target === $("case-view") || event.target.closest("#case-view-nav");
  if (!inNav || !(event.key in CASE_KEYS)) return;
  event.preventDefault();
  goFromCase(CASE_KEYS[event.key]);
});
$("case-view-nav").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-go]");
  if (button) goFromCase(button.dataset.go);
});

// The run's detail with the case's row marked and focused.
async function showCaseInRun(runId, caseId) {
  await openRunDetail(runId);
  const row = [...$("case-table").tBodies[0].rows].find((tr) => tr.cells[0].textContent === caseId);
  if (!row) return;
  $("run-detail").dataset.case = caseId;
  row.setAttribute("aria-current", "true");
  row.tabIndex = -1;
  row.focus();
}

// What the address keeps (ids only, never a key or anything else from the log), so a reload or a shared
// link opens the same view: the run whose detail the visitor opened, the matrix's configuration, the open
// case, and the two runs and the two configurations last compared.
const ID = /^[A-Za-z0-9._:-]{1,100}$/;
const shownState = { detail: null, first: null, second: null, x: null, y: null };
function writeState() {
  const state = new URLSearchParams();
  if (shownState.detail) state.set("detail", shownState.detail);
  if ($("matrix-scope").value) state.set("configuration", $("matrix-scope").value);
  if (!$("case-view").hidden) {
    state.set("run", $("case-view").dataset.run);
    state.set("case", $("case-view").dataset.case);
  }
  for (const key of ["first", "second", "x", "y"]) if (shownState[key]) state.set(key, shownState[key]);
  const query = state.toString();
  history.replaceState(null, "", query ? `?${query}` : location.pathname);
}

async function restoreState() {
  const state = new URLSearchParams(location.search);
  const asked = (key) => (ID.test(state.get(key) ?? "") ? state.get(key) : null);
  const isRun = (id) => id !== null && overview.runs.some((r) => r.run_id === id);
  const offers = (select, id) => id !== null && [...$(select).options].some((o) => o.value === id);
  if (isRun(asked("detail"))) await openRunDetail(asked("detail"));
  if (offers("matrix-scope", asked("configuration"))) {
    $("matrix-scope").value = asked("configuration");
    await showMatrix();
  }
  if (isRun(asked("first")) && isRun(asked("second"))) {
    $("compare-a").value = asked("first");
    $("compare-b").value = asked("second");
    await compare();
  }
  if (offers("config-x", asked("x")) && offers("config-y", asked("y"))) {
    $("config-x").value = asked("x");
    $("config-y").value = asked("y");
    await compareConfigurations();
  }
  if (isRun(asked("run")) && asked("case")) {
    await openCase(asked("run"), asked("case"), { focus: false });
    $("case-view").scrollIntoView({ block: "start" });
  }
  writeState();
}

// A run's detail the visitor asked for (the page opens with the newest run's, which the address leaves out).
async function openRunDetail(runId) {
  await showRunDetail(runId);
  shownState.detail = runId;
  writeState();
}

async function showPlans() {
  const plans = await python.call("plans");
  $("plans").replaceChildren(...plans.map((plan) => element("li",
    `${plan.when}: ${plan.y} against ${plan.x}, rule ${plan.rule}${plan.note ? ` (${plan.note})` : ""}`,
    { "data-plan": plan.id })));
}

// A reject rule as pyapp.reject_rules spells it, from a rule select and its points field.
function ruleText(select, points) {
  const kind = $(select).value;
  return kind === "no-new-fail" ? kind : `${kind}:${$(points).value.trim()}`;
}

async function registerPlan() {
  const rule = ruleText("plan-rule", "plan-points");
  try {
    const plan = await python.call("register_plan", { x: $("plan-x").value, y: $("plan-y").value, rule,
      note: $("plan-note").value, settings: readSettings(), set_version: $("set-select").value });
    $("plan-message").textContent = `Plan registered: ${plan.y} against ${plan.x}, rule ${plan.rule}.`;
  } catch (error) {
    $("plan-message").textContent = `The plan was not registered: ${error.message}`;
  }
  await showPlans();
}

async function compareConfigurations() {
  const out = $("config-comparison");
  out.replaceChildren();
  const [x, y] = [$("config-x").value, $("config-y").value];
  if (!x || !y || x === y) {
    out.append(element("p", "Choose two different configurations."));
    return;
  }
  let result;
  try {
    result = await python.call("compare_configurations", { x, y });
  } catch (error) {
    out.append(element("p", error.message));
    return;
  }
  const c = result.comparison;
  const shown = result.display;
  out.append(figures([["X", `${result.x.id}: ${result.x.label}`], ["Y", `${result.y.id}: ${result.y.label}`],
    ["Difference", shown.difference], ["Test", shown.test], ["Per case", shown.per_case],
    ["Better in Y", c.better.length ? c.better.join(", ") : null],
    ["Worse in Y", c.worse.length ? c.worse.join(", ") : null],
    ["Not compared (not counted in every run of both)", c.not_paired.length ? c.not_paired.join(", ") : null]],
  { id: "config-figures" }));
  if (result.plot) out.append(drawComparison(result.plot, "config-plot"));
  const latest = result.y.run_ids.at(-1);
  out.append(...caseLinks("Better in Y, open in its latest run:", c.better, latest, "better-links"),
    ...caseLinks("Worse in Y, open in its latest run:", c.worse, latest, "worse-links"));
  for (const text of result.floor_text) out.append(element("p", text, { class: "floor-text" }));
  for (const text of result.drift_text) out.append(element("p", text, { class: "note drift-text" }));
  if (result.note) out.append(element("p", result.note, { class: "note" }));
  if (result.runs) out.append(element("p", result.runs.summary));
  Object.assign(shownState, { x, y });
  writeState();
  for (const plan of result.plans) {
    const item = element("div", null, { class: "plan", "data-plan": plan.id,
      "data-before": String(plan.registered_before), "data-rejects": String(plan.verdict.rejects) });
    item.append(element("h4", `Plan ${plan.id}${plan.note ? `: ${plan.note}` : ""}`),
      element("p", `${plan.metric_text} ${plan.timing}`, { class: "timing" }),
      element("p", plan.verdict.text, { class: "verdict" }));
    out.append(item);
  }
}

// The difference and its interval against each configuration's noise-floor band, as pyapp places them.
function drawComparison(plot, id) {
  const figure = element("figure", null, { class: "comparison-plot", tabindex: "0" });
  const width = 640;
  const left = 90;
  const rowHeight = 28;
  const height = rowHeight * (1 + plot.bands.length) + 30;
  const drawing = svg("svg", { class: "plot", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-labelledby": `${id}-caption`, id });
  const x = (v) => left + ((v - plot.low) / (plot.high - plot.low)) * (width - left - 20);
  for (const tick of plot.ticks) {
    svg("line", { x1: x(tick.at), x2: x(tick.at), y1: 0, y2: height - 20, class: tick.at ? "grid" : "grid zero" }, drawing);
    svg("text", { x: x(tick.at), y: height - 5, "text-anchor": "middle", class: "tick" }, drawing).textContent = tick.text;
  }
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

// Cases as buttons that open them in a run (the matrix marks the cell).
function caseLinks(label, caseIds, runId, id) {
  if (!caseIds.length || !runId) return [];
  const line = element("p", `${label} `, { class: "case-links", id });
  for (const caseId of caseIds) {
    const button = element("button", caseId, { type: "button", class: "linkish", "data-case": caseId, "data-run": runId });
    button.addEventListener("click", () => openCase(runId, caseId));
    line.append(button, " ");
  }
  return [line];
}

async function checkBaseline() {
  const out = $("diff-result");
  out.replaceChildren();
  const file = $("baseline-file").files[0];
  const group = grouped.configurations.find((g) => g.id === $("diff-config").value);
  if (!file || !group) {
    out.append(element("p", "Choose a baseline file and the configuration whose runs to check."));
    return;
  }
  let report;
  try {
    report = await python.call("baseline_diff", { baseline: await file.text(), run_ids: group.run_ids,
      rules: [ruleText("diff-rule", "diff-points")], accept_edited: $("diff-accept-edited").checked });
  } catch (error) {
    out.append(element("p", `The baseline could not be checked: ${error.message}`));
    return;
  }
  if (report.edited_text) out.append(element("p", report.edited_text, { class: "note", id: "diff-edited" }));
  for (const change of report.changed) out.append(element("p", change.text, { class: "note" }));
  out.append(table("Each case against the baseline", ["Case", "Verdict", "Baseline", "Now", "Now failing"],
    report.cases.map((c) => [c.case_id, c.verdict, c.baseline_text, c.now_text,
      [...c.failing_checks, ...c.model_failures].join(", ") || "–"]), { id: "diff-table" }));
  out.append(figures([["Difference", report.display.difference], ["Test", report.display.test],
    ["Per case", report.display.per_case]], { id: "diff-figures" }));
  if (report.plot) out.append(drawComparison(report.plot, "diff-plot"));
  const latest = report.runs.at(-1);
  out.append(...caseLinks("New passes, open in the latest run:", report.comparison.better, latest, "diff-pass-links"),
    ...caseLinks("New fails, open in the latest run:", report.comparison.worse, latest, "diff-fail-links"));
  const rules = element("ul", null, { id: "diff-rules" });
  for (const rule of report.rules) rules.append(element("li", rule.text));
  out.append(rules, element("p", report.result_text, { id: "diff-verdict", "data-rejected": String(report.rejected) }));
}

async function refreshRuns() {
  overview = await python.call("eval_overview");
  const body = $("runs").tBodies[0];
  body.replaceChildren();
  for (const run of overview.runs) {
    const link = element("button", run.label, { type: "button", class: "linkish", title: run.run_id });
    link.addEventListener("click", () => openRunDetail(run.run_id));
    row(body, [link, run.started.replace("T", " ").replace("Z", ""), `${modelOf(run)}${run.set_note}`,
      run.display.grounded_count, run.display.grounded_interval, run.display.median_latency,
      run.infrastructure_failures, run.stale, run.display.tokens_in_out],
    { "data-run": run.run_id });
  }
  $("runs-message").textContent = overview.message;
  drawRates(overview.runs, overview.rate_ticks);
  fillRunSelects();
  await showConfigurations();
  await showMatrix();
  if (overview.runs.length) await showRunDetail(overview.runs[0].run_id);
  await offerOwnSet();
  await judging.estimate();
}

async function compare() {
  const out = $("comparison");
  out.replaceChildren();
  const [a, b] = [$("compare-a").value, $("compare-b").value];
  if (!a || !b) {
    out.append(element("p", "Choose two runs."));
    return;
  }
  let result;
  try {
    result = await python.call("compare_runs", { run_a: a, run_b: b });
  } catch (error) {
    // pyapp refuses a run compared with itself, or runs of different sets, in compare's own words.
    out.append(element("p", error.message, { id: "compare-refused" }));
    return;
  }
  const list = element("dl", null, { class: "stats", id: "compare-figures" });
  for (const [label, text] of [["First run", result.display.first], ["Second run", result.display.second],
    ["Paired difference (Newcombe)", result.display.difference], ["Test", result.display.mcnemar],
    ["Per case", result.display.per_case]]) {
    list.append(element("dt", label), element("dd", text));
  }
  out.append(list);
  if (result.plot) out.append(drawComparison(result.plot, "compare-plot"));
  const moved = (verdict) => result.cases.filter((c) => c.verdict === verdict).map((c) => c.case_id);
  out.append(...caseLinks("Better in the second run, open there:", moved("better"), b, "compare-better-links"),
    ...caseLinks("Worse in the second run, open there:", moved("worse"), b, "compare-worse-links"));
  out.append(element("p", result.summary, { id: "compare-summary" }));
  if (result.note) out.append(element("p", result.note, { class: "note", id: "compare-note" }));
  if (result.not_paired.length) out.append(element("p", `Not paired (no counted answer in both): ${result.not_paired.join(", ")}`));
  out.append(table("The paired cases", ["Case", "First run", "Second run", "Second against first"],
    result.cases.map((c) => [c.case_id, c.first_text, c.second_text, c.verdict]),
    { id: "paired-table" }));
  Object.assign(shownState, { first: a, second: b });
  writeState();
}

function setRunning(running) {
  $("start-run").disabled = running;
  $("continue-run").disabled = running;
  $("cancel-run").disabled = !running;
}

const PRICES_NAME = "kd-explorer-prices";

function price(id) {
  const text = $(id).value.trim();
  return text === "" ? null : Number(text);
}

function savePrices() {
  localStorage.setItem(PRICES_NAME, JSON.stringify({ in: $("price-in").value, out: $("price-out").value }));
}

async function showEstimate() {
  try {
    const size = await python.call("run_size_estimate", { runs: Number.parseInt($("run-count").value, 10),
      max_tokens: readSettings().max_tokens || null, price_in: price("price-in"), price_out: price("price-out"),
      set_version: $("set-select").value });
    $("run-estimate").textContent = `Before you start: ${size.display}`;
  } catch (error) {
    $("run-estimate").textContent = error.message;
  }
}

// ``count`` fresh runs one after another (one when continuing ``runId``); stops when a run stops.
async function run(runId, count = 1) {
  setRunning(true);
  $("case-status").replaceChildren();
  $("run-usage").textContent = "";
  $("run-status").textContent = "Starting…";
  const made = [];
  try {
    const setVersion = runId ? null : $("set-select").value;  // a continued run keeps its own set
    for (let i = 0; i < count; i += 1) {
      const result = await python.call("run_eval", { run_id: runId, settings: readSettings(), api_key: readKey(),
        set_version: setVersion }, { cancellable: true });
      made.push(result.run_id);
      $("run-status").textContent = count > 1 ? `Run ${i + 1} of ${count}: ${result.message}` : result.message;
      if (result.stopped !== null) break;
    }
  } catch (error) {
    $("run-status").textContent = `The run could not go on: ${error.message}`;
  } finally {
    if (made.length) {
      try {
        const usage = await python.call("run_usage", { run_ids: made, price_in: price("price-in"),
          price_out: price("price-out") });
        $("run-usage").textContent = `After the run: ${usage.display}`;
      } catch (error) {
        $("run-usage").textContent = error.message;
      }
    }
    setRunning(false);
    try {
      await refreshRuns();
    } catch (error) {
      $("runs-message").textContent = `The runs could not be shown: ${error.message}`;
    }
  }
}

python.onEvent((event) => {
  if (event.type === "run-start") {
    $("run-progress").max = Math.max(event.todo.length, 1);
    $("run-progress").value = 0;
    $("case-status").replaceChildren(...event.todo.map((id) => element("li", `${id}: waiting`, { "data-case": id, "data-state": "waiting" })));
    $("run-status").textContent = `Run ${event.run_id}: ${event.todo.length} cases to ask.`;
  } else if (event.type === "case-start") {
    const item = $("case-status").querySelector(`[data-case="${event.case_id}"]`);
    item.textContent = `${event.case_id}: asking…`;
    item.dataset.state = "asking";
    $("run-status").textContent = event.text;
  } else if (event.type === "progress") {
    $("run-status").textContent = event.text;
  } else if (event.type === "case-done") {
    const item = $("case-status").querySelector(`[data-case="${event.case_id}"]`);
    item.textContent = `${event.case_id}: ${event.outcome.replaceAll("_", " ")}`;
    item.dataset.state = event.outcome;
    $("run-progress").value = event.index + 1;
  }
});

// --- rating against the rubric, blind (DR-009): this only walks the queue pyapp.rating builds ---
let rubric = null;
let rating = null; // { rater, items, index, answers, question }

function showRubric(r) {
  rubric = r;
  $("rubric-version").textContent = r.version;
  $("rubric-questions").replaceChildren(...r.questions.map((q) => {
    const item = element("li", null);
    item.append(element("strong", q.text), " ", element("span", q.hint, { class: "hint" }));
    return item;
  }));
  $("rubric-rule").textContent = `The overall verdict: ${r.verdict_rule}.`;
}

function setBlind(blind) {
  for (const node of document.querySelectorAll(".graded-view")) node.hidden = blind;
  $("start-rating").disabled = blind;
  $("stop-rating").disabled = !blind;
}

function showRatingItem() {
  const item = rating.items[rating.index];
  $("rating-case").textContent = `${item.case_id} (${rating.index + 1} of ${rating.items.length})`;
  $("rating-case").dataset.case = item.case_id;
  $("rating-search").textContent = `${item.search}. ${item.why_it_matters}`;
  $("rating-found").textContent = `The search found: ${item.found}.`;
  $("rating-explanation").textContent = item.explanation;
  $("rating-questions").replaceChildren(...rubric.questions.map((q, i) => {
    const li = element("li", q.text, { "data-key": q.key });
    const answered = rating.answers[q.key];
    if (answered !== undefined) li.dataset.answer = answered ? "yes" : "no";
    if (i === rating.question) li.setAttribute("aria-current", "true");
    for (const [label, value] of [["Yes", true], ["No", false]]) {
      const button = element("button", label, { type: "button", "data-value": String(value) });
      button.addEventListener("click", () => { rating.question = i; answer(value); });
      li.append(" ", button);
    }
    return li;
  }));
  $("rating-item").hidden = false;
  $("rating-item").focus();  // the Y and N keys keep working after a click replaced the buttons
}

function stopRating(message) {
  rating = null;
  $("rating-item").hidden = true;
  setBlind(false);
  $("rating-status").textContent = message;
}

async function answer(value) {
  const keys = rubric.questions.map((q) => q.key);
  rating.answers[keys[rating.question]] = value;
  rating.question = keys.findIndex((key) => rating.answers[key] === undefined);
  if (rating.question !== -1) {
    showRatingItem();
    return;
  }
  const item = rating.items[rating.index];
  try {
    await python.call("record_rating", { call_id: item.call_id, rater: rating.rater, answers: rating.answers });
  } catch (error) {
    stopRating(`The rating of ${item.case_id} was not recorded: ${error.message}`);
    return;
  }
  rating.index += 1;
  rating.answers = {};
  rating.question = 0;
  $("rating-status").textContent = `Recorded ${item.case_id}.`;
  if (rating.index === rating.items.length) {
    stopRating(`You rated all ${rating.items.length} answers; each rating is in the audit log.`);
    return;
  }
  showRatingItem();
}

async function startRating() {
  const rater = $("rater-name").value.trim();
  const runId = $("rate-run").value;
  if (!runId) {
    $("rating-status").textContent = "There is no run to rate yet.";
    return;
  }
  try {
    const queue = await python.call("rating_queue", { run_id: runId, rater });
    const items = queue.filter((item) => !item.your_answers);
    if (!items.length) {
      $("rating-status").textContent = queue.length
        ? `You have rated every counted answer of ${runId}.` : `${runId} has no counted answer to rate.`;
      return;
    }
    rating = { rater, items, index: 0, answers: {}, question: 0 };
    setBlind(true);
    $("rating-status").textContent = `Rating ${items.length} answers of ${runId} as ${rater}.`;
    showRatingItem();
  } catch (error) {
    $("rating-status").textContent = error.message;
  }
}

$("rating-item").addEventListener("keydown", (event) => {
  if (!rating || event.altKey || event.ctrlKey || event.metaKey) return;
  const key = event.key.toLowerCase();
  if (key === "y" || key === "n") {
    event.preventDefault();
    answer(key === "y");
  } else if (event.key === "Backspace" && rating.question > 0) {
    event.preventDefault();
    rating.question -= 1;
    delete rating.answers[rubric.questions[rating.question].key];
    showRatingItem();
  }
});
$("start-rating").addEventListener("click", startRating);
$("stop-rating").addEventListener("click", () => stopRating("Rating stopped; the answers rated so far are recorded."));
// Every string of the agreement tables is made in Python (pyapp.agreement_tables); this only places them.
function showAgreement(view) {
  const out = $("agreement-tables");
  out.replaceChildren(element("p", view.who, { id: "agreement-who" }));
  if (view.note) out.append(element("p", view.note, { class: "note" }));
  for (const pair of view.pairs) {
    const part = element("div", null, { class: "agreement-pair" });
    part.append(element("h3", pair.heading), table(pair.label, pair.columns, pair.rows));
    for (const note of pair.notes) part.append(element("p", note, { class: "note" }));
    out.append(part);
  }
  for (const rater of view.versus) {
    const part = element("div", null, { class: "agreement-rater" });
    part.append(element("h3", rater.heading), table(rater.label, rater.columns, rater.rows),
      element("p", rater.figures, { class: "agreement-figures" }));
    for (const note of rater.notes) part.append(element("p", note, { class: "note" }));
    part.append(rater.disagreements.length
      ? table(rater.disagreements_label, rater.disagreement_columns, rater.disagreements, { class: "disagreements" })
      : element("p", rater.none_differ));
    out.append(part);
  }
  showJudges(out, view.judges);
}

async function agreement() {
  try {
    const figures = await python.call("agreement");
    showAgreement(figures.tables);
    $("agreement-text").textContent = figures.text;
  } catch (error) {
    $("agreement-tables").replaceChildren(element("p", `The figures could not be computed: ${error.message}`));
    $("agreement-text").textContent = "";
  }
}

$("show-agreement").addEventListener("click", agreement);
$("matrix-scope").addEventListener("change", async () => {
  $("case-view").hidden = true;
  await showMatrix();
  writeState();
});
$("set-select").addEventListener("change", () => { showSet($("set-select").value); showEstimate(); });

// The visitor's own cases (DR-009) join the set choice once they hold a case, labelled as theirs. Asked
// again with the runs: an import or another tab may have added cases.
async function offerOwnSet() {
  const mine = await python.call("own_set");
  const chosen = $("set-select").value;
  for (const old of [...$("set-select").options, ...$("set-guidance").children]) {
    if (old.dataset.own) old.remove();
  }
  if (!mine) return;
  $("set-select").append(element("option", mine.option, { value: mine.eval_set_version, "data-own": "true" }));
  $("set-guidance").append(element("li", mine.text, { "data-set": mine.eval_set_version, "data-own": "true" }));
  if (chosen === mine.eval_set_version) $("set-select").value = chosen;
}

python.ready.then(async () => {
  // The runs first: the worker answers one call at a time, and the set's table is already on the page (DR-006).
  await refreshRuns();
  await restoreState();
  showRubric(await python.call("rubric"));
  await Promise.all([showSet(), showEstimate()]);
  document.body.dataset.evalReady = "true";
}).catch(() => {});

setupSettings();
const judging = setupJudge({ python, readSettings, readKey, price, afterJudging: agreement });
const savedPrices = JSON.parse(localStorage.getItem(PRICES_NAME) || "{}");
$("price-in").value = savedPrices.in ?? "";
$("price-out").value = savedPrices.out ?? "";
for (const id of ["run-count", "price-in", "price-out", "max-tokens"]) {
  $(id).addEventListener("change", () => { if (id.startsWith("price")) savePrices(); showEstimate(); });
}
$("start-run").addEventListener("click", () => run(null, Number.parseInt($("run-count").value, 10) || 1));
$("run-diff").addEventListener("click", checkBaseline);
$("continue-run").addEventListener("click", () => { if ($("continue-select").value) run($("continue-select").value); });
$("cancel-run").addEventListener("click", () => { python.cancel(); $("run-status").textContent = "Cancelling…"; });
$("compare").addEventListener("click", compare);
$("compare-configs").addEventListener("click", compareConfigurations);
$("register-plan").addEventListener("click", registerPlan);
for (const id of ["plan-x", "plan-y"]) $(id).addEventListener("change", () => { $(id).dataset.chosen = "true"; });
for (const format of ["json", "csv"]) {
  $(`export-${format}`).addEventListener("click", async () => {
    const runId = $("export-run").value || null;
    const text = await python.call("export_audit", { format, run_id: runId });
    download(`kd-explorer-${runId ?? "all-runs"}.${format}`, text, format === "json" ? "application/json" : "text/csv");
  });
}
function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

$("import-file").addEventListener("change", async () => {
  const file = $("import-file").files[0];
  if (!file) return;
  const message = $("import-message");
  message.textContent = `Importing ${file.name}…`;  // an earlier import's sentence must not stand
  message.dataset.state = "importing";
  let result;
  try {
    // The file's bytes, not file.text(): Python decodes them strictly, as the command line does.
    result = await python.call("import_audit", { data: base64(await file.arrayBuffer()) });
  } catch (error) {
    message.textContent = error.message;  // pyapp's sentence says that nothing was imported
    message.dataset.state = "refused";
    return;
  } finally {
    $("import-file").value = "";
  }
  // Said once the lists show the imported runs, so what the message reports is on the page.
  try {
    await refreshRuns();
  } catch (error) {
    $("runs-message").textContent = `The runs could not be shown: ${error.message}`;
  }
  message.textContent = `Imported ${result.added} entries (${result.skipped} were already here).`;
  message.dataset.state = "imported";
});
