// The Results view: the matrix of cases against runs first, the open case beside it, then the runs and one
// run's detail. While the log holds no run it shows the start panel instead. Every number is pyapp's.
import { element, fillSelect, row, table } from "./dom.mjs";
import { log, modelOf, onLog, onRuns, python } from "./log-state.mjs";
import { drawLatencies, drawRates } from "./plots.mjs";
import { closeCase, openCase, showCase } from "./case-pane.mjs";
import { cellOf, showMatrix } from "./matrix.mjs";
import { defineView, demo, writeState } from "./shell.mjs";

const $ = (id) => document.getElementById(id);
// Whether the log held runs when this browser last showed it: the start panel or the results are shown at
// once, before Python is ready, so a returning visitor sees no start panel flash by.
const HAD_RUNS = "kd-explorer-log-had-runs";
let detailAsked = null; // the run whose detail the visitor opened (the newest run's is shown otherwise)

function showStart(empty) {
  $("start").hidden = !empty;
  $("results-body").hidden = empty;
  if (demo) return;
  try {
    localStorage.setItem(HAD_RUNS, empty ? "" : "1");
  } catch {
    // storage refused: the page only guesses again next time
  }
}

try {
  showStart(!(demo || localStorage.getItem(HAD_RUNS)));
} catch {
  showStart(true);
}

const openCell = (cell) => openAndNote(cell.dataset.run, cell.dataset.case);

async function openAndNote(runId, caseId, options) {
  if (await showCase(runId, caseId, options)) writeState();
}

async function showRunDetail(runId) {
  const run = await python.call("run_detail", { run_id: runId });
  const detail = $("run-detail");
  detail.replaceChildren();
  detail.dataset.run = run.run_id;
  delete detail.dataset.case;
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

async function openRunDetail(runId) {
  await showRunDetail(runId);
  detailAsked = runId;
  writeState();
}

// The run's detail with the case's row marked and focused.
async function showCaseInRun(runId, caseId) {
  await openRunDetail(runId);
  const found = [...$("case-table").tBodies[0].rows].find((tr) => tr.cells[0].textContent === caseId);
  if (!found) return;
  $("run-detail").dataset.case = caseId;
  found.setAttribute("aria-current", "true");
  found.tabIndex = -1;
  found.focus();
}

// A log of thousands of runs lists its newest ones, rated, and the rest on request: at 4,437 runs, grading every
// run's answers took a first visit 2.8 s and laying out every row about 1 s (DR-006). Every run is one click away.
function listRuns(overview) {
  const runs = overview.runs.slice(0, overview.rated);
  const body = $("runs").tBodies[0];
  body.replaceChildren();
  for (const run of runs) {
    const link = element("button", run.label, { type: "button", class: "linkish", title: run.run_id });
    link.addEventListener("click", () => openRunDetail(run.run_id));
    row(body, [link, run.started.replace("T", " ").replace("Z", ""), `${modelOf(run)}${run.set_note}`,
      run.display.grounded_count, run.display.grounded_interval, run.display.median_latency,
      run.infrastructure_failures, run.stale, run.display.tokens_in_out],
    { "data-run": run.run_id });
  }
  const count = overview.runs.length;
  $("runs-more").hidden = runs.length === count;
  $("runs-more-text").textContent = `The newest ${runs.length} of ${count.toLocaleString("en")} runs are listed.`;
  drawRates($("rates-plot"), runs, overview.rate_ticks, (run) => `${run.label} ${modelOf(run)}`);
}

onRuns(({ overview }) => {
  showStart(!overview.runs.length);
  listRuns(overview);
  $("runs-message").textContent = overview.message;
});

$("runs-all").addEventListener("click", async (event) => {
  const listed = log.overview.rated;
  event.currentTarget.disabled = true; // until the worker has rated the rest
  try {
    log.everyRun = true;
    log.overview = await python.call("eval_overview", { every: true });
  } finally {
    $("runs-all").disabled = false;
  }
  listRuns(log.overview);
  $("runs").tBodies[0].rows[listed]?.querySelector("button").focus(); // the first run newly listed
});

onLog(async ({ overview, grouped }) => {
  fillSelect($("matrix-scope"), [["", "every run"],
    ...grouped.configurations.map((g) => [g.id, `${g.config_name} · ${g.k} runs`])]);
  await showMatrix(openCell);
  const shown = openCase();
  if (shown && !cellOf(shown.run, shown.case)) $("case-view").hidden = true;
  if (overview.runs.length) await showRunDetail(detailAsked ?? overview.runs[0].run_id);
});

$("matrix-scope").addEventListener("change", async () => {
  $("case-view").hidden = true;
  await showMatrix(openCell);
  writeState();
});

// From the case: the case above or below, the same case in the run before or after (matrix order).
function goFromCase(where) {
  const box = $("case-view");
  const { run, case: caseId } = box.dataset;
  if (where === "matrix") {
    closeCase();
    writeState();
  } else if (where === "run-detail") {
    void showCaseInRun(run, caseId);
  } else if (where === "previous-case" || where === "next-case") {
    const to = where === "previous-case" ? box.dataset.previousCase : box.dataset.nextCase;
    if (to) void openAndNote(run, to);
  } else {
    const cell = cellOf(run, caseId);
    const cells = cell ? [...cell.parentElement.querySelectorAll("td.cell")] : [];
    const next = cells[cells.indexOf(cell) + (where === "next-run" ? 1 : -1)];
    if (next) void openAndNote(next.dataset.run, caseId);
  }
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

defineView("results", {
  state() {
    const shown = openCase();
    return { detail: detailAsked, configuration: $("matrix-scope").value, run: shown?.run, case: shown?.case };
  },
  async restore(ids) {
    const isRun = (id) => id !== undefined && log.overview.runs.some((r) => r.run_id === id);
    if (isRun(ids.detail) && ids.detail !== $("run-detail").dataset.run) await openRunDetail(ids.detail);
    if (ids.configuration && ids.configuration !== $("matrix-scope").value
        && [...$("matrix-scope").options].some((o) => o.value === ids.configuration)) {
      $("matrix-scope").value = ids.configuration;
      await showMatrix(openCell);
    }
    const shown = openCase();
    if (isRun(ids.run) && ids.case && (shown?.run !== ids.run || shown?.case !== ids.case)) {
      await showCase(ids.run, ids.case, { focus: false });
    } else if (!ids.run && shown) {
      $("case-view").hidden = true;
    }
  },
  /** `{run, case}` opens that case (a comparison's moved cases). */
  async enter(params) {
    if (params.run && params.case) await showCase(params.run, params.case);
  },
});
