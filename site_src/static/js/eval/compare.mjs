// The Compare view: runs grouped by configuration with their repeat figures, two runs or two configurations
// compared and drawn, the plans registered before a run, and runs checked against a baseline file (DR-008).
// Every figure and sentence is pyapp's; a case that moved opens in the Results view.
import { readSettings } from "../ai-settings.mjs";
import { element, figures, fillSelect, table } from "./dom.mjs";
import { log, modelOf, onLog, python } from "./log-state.mjs";
import { drawComparison } from "./plots.mjs";
import { defineView, demo, go, writeState } from "./shell.mjs";

const $ = (id) => document.getElementById(id);
const compared = { first: null, second: null, x: null, y: null }; // what the address keeps

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

function showConfigurations(grouped) {
  const out = $("configurations");
  out.replaceChildren();
  for (const group of grouped.configurations) {
    const item = element("article", null, { class: "configuration", "data-config": group.id });
    item.append(element("h4", `Configuration ${group.config_name} (id ${group.id})`),
      element("p", group.label, { class: "config-label" }));
    item.append(repeatFigures(group));
    const again = element("button", "Repeat this configuration", { type: "button", class: "repeat" });
    again.disabled = demo;  // the demo's workspace is read-only
    again.addEventListener("click", () => go("run", { repeat: group.settings }));
    const actions = element("div", null, { class: "actions" });
    actions.append(again);
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
}

onLog(async ({ overview, grouped }) => {
  showConfigurations(grouped);
  const runs = overview.runs.map((run) => [run.run_id, `${run.label} · ${modelOf(run)}${run.set_note}`]);
  for (const id of ["compare-a", "compare-b"]) fillSelect($(id), runs);
  if (runs.length > 1 && $("compare-a").value === $("compare-b").value) $("compare-b").selectedIndex = 1;
  const options = grouped.configurations.map((g) => [g.id, `${g.config_name} · ${g.k} runs`]);
  for (const id of ["config-x", "config-y", "diff-config"]) fillSelect($(id), options);
  if (options.length > 1 && $("config-x").value === $("config-y").value) $("config-y").selectedIndex = 1;
  // Until the visitor picks, a plan judges the settings in the form (Y) against the first configuration (X).
  const planOptions = [...options, ["form", "the settings in the New run form now"]];
  for (const [id, fallback] of [["plan-x", planOptions[0][0]], ["plan-y", "form"]]) {
    const select = $(id);
    const keep = select.dataset.chosen ? select.value : fallback;
    fillSelect(select, planOptions);
    select.value = [...select.options].some((o) => o.value === keep) ? keep : fallback;
  }
  await showPlans();
});

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

// Cases as buttons that open them in a run, in the Results view.
function caseLinks(label, caseIds, runId, id) {
  if (!caseIds.length || !runId) return [];
  const line = element("p", `${label} `, { class: "case-links", id });
  for (const caseId of caseIds) {
    const button = element("button", caseId, { type: "button", class: "linkish", "data-case": caseId, "data-run": runId });
    button.addEventListener("click", () => go("results", { run: runId, case: caseId }));
    line.append(button, " ");
  }
  return [line];
}

async function compareRuns() {
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
  out.append(figures([["First run", result.display.first], ["Second run", result.display.second],
    ["Paired difference (Newcombe)", result.display.difference], ["Test", result.display.mcnemar],
    ["Per case", result.display.per_case]], { id: "compare-figures" }));
  if (result.plot) out.append(drawComparison(result.plot, "compare-plot", out.clientWidth));
  const moved = (verdict) => result.cases.filter((c) => c.verdict === verdict).map((c) => c.case_id);
  out.append(...caseLinks("Better in the second run, open there:", moved("better"), b, "compare-better-links"),
    ...caseLinks("Worse in the second run, open there:", moved("worse"), b, "compare-worse-links"));
  out.append(element("p", result.summary, { id: "compare-summary" }));
  if (result.note) out.append(element("p", result.note, { class: "note", id: "compare-note" }));
  if (result.not_paired.length) out.append(element("p", `Not paired (no counted answer in both): ${result.not_paired.join(", ")}`));
  out.append(table("The paired cases", ["Case", "First run", "Second run", "Second against first"],
    result.cases.map((c) => [c.case_id, c.first_text, c.second_text, c.verdict]), { id: "paired-table", class: "stack" }));
  Object.assign(compared, { first: a, second: b });
  writeState();
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
  const named = (side) => `${side.config_name} (id ${side.id}): ${side.label}`;
  out.append(figures([["X", named(result.x)], ["Y", named(result.y)],
    ["Difference", shown.difference], ["Test", shown.test], ["Per case", shown.per_case],
    ["Better in Y", c.better.length ? c.better.join(", ") : null],
    ["Worse in Y", c.worse.length ? c.worse.join(", ") : null],
    ["Not compared (not counted in every run of both)", c.not_paired.length ? c.not_paired.join(", ") : null]],
  { id: "config-figures" }));
  if (result.plot) out.append(drawComparison(result.plot, "config-plot", out.clientWidth));
  const latest = result.y.run_ids.at(-1);
  out.append(...caseLinks("Better in Y, open in its latest run:", c.better, latest, "better-links"),
    ...caseLinks("Worse in Y, open in its latest run:", c.worse, latest, "worse-links"));
  for (const text of result.floor_text) out.append(element("p", text, { class: "floor-text" }));
  for (const text of result.drift_text) out.append(element("p", text, { class: "note drift-text" }));
  if (result.note) out.append(element("p", result.note, { class: "note" }));
  if (result.runs) out.append(element("p", result.runs.summary));
  Object.assign(compared, { x, y });
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

async function checkBaseline() {
  const out = $("diff-result");
  out.replaceChildren();
  const file = $("baseline-file").files[0];
  const group = log.grouped.configurations.find((g) => g.id === $("diff-config").value);
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
      [...c.failing_checks, ...c.model_failures].join(", ") || "–"]), { id: "diff-table", class: "stack" }));
  out.append(figures([["Difference", report.display.difference], ["Test", report.display.test],
    ["Per case", report.display.per_case]], { id: "diff-figures" }));
  if (report.plot) out.append(drawComparison(report.plot, "diff-plot", out.clientWidth));
  const latest = report.runs.at(-1);
  out.append(...caseLinks("New passes, open in the latest run:", report.comparison.better, latest, "diff-pass-links"),
    ...caseLinks("New fails, open in the latest run:", report.comparison.worse, latest, "diff-fail-links"));
  const rules = element("ul", null, { id: "diff-rules" });
  for (const rule of report.rules) rules.append(element("li", rule.text));
  out.append(rules, element("p", report.result_text, { id: "diff-verdict", "data-rejected": String(report.rejected) }));
}

$("compare").addEventListener("click", compareRuns);
$("compare-configs").addEventListener("click", compareConfigurations);
$("register-plan").addEventListener("click", registerPlan);
$("run-diff").addEventListener("click", checkBaseline);
for (const id of ["plan-x", "plan-y"]) $(id).addEventListener("change", () => { $(id).dataset.chosen = "true"; });

defineView("compare", {
  state: () => ({ ...compared }),
  async restore(ids) {
    const isRun = (id) => id !== undefined && log.overview.runs.some((r) => r.run_id === id);
    const offers = (select, id) => id !== undefined && [...$(select).options].some((o) => o.value === id);
    if (isRun(ids.first) && isRun(ids.second) && (ids.first !== compared.first || ids.second !== compared.second)) {
      $("compare-a").value = ids.first;
      $("compare-b").value = ids.second;
      await compareRuns();
    }
    if (offers("config-x", ids.x) && offers("config-y", ids.y) && (ids.x !== compared.x || ids.y !== compared.y)) {
      $("config-x").value = ids.x;
      $("config-y").value = ids.y;
      await compareConfigurations();
    }
  },
});
