// The New run view: the set, the model and key, what k runs send and cost before they start, then run,
// continue or cancel with each case's progress. A finished run shows in the Results view.
import { applySettings, readKey, readSettings, setupSettings } from "../ai-settings.mjs";
import { element, fillSelect } from "./dom.mjs";
import { afterOpening, modelOf, onLog, price, python, refresh } from "./log-state.mjs";
import { offerRuns } from "./kept-file.mjs";
import { defineView, go } from "./shell.mjs";

const $ = (id) => document.getElementById(id);
const PRICES_NAME = "kd-explorer-prices";

function setRunning(running) {
  $("start-run").disabled = running;
  $("continue-run").disabled = running;
  $("cancel-run").disabled = !running;
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

// `count` fresh runs one after another (one when continuing `runId`); stops when a run stops. Once any run
// was made, the Results view shows it, before the buttons come back.
async function run(runId, count = 1) {
  setRunning(true);
  try {
    await runAndShow(runId, count);
  } finally {
    setRunning(false);  // last: once the buttons are back, the page shows where the run ended
  }
}

async function runAndShow(runId, count) {
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
    try {
      await refresh();
    } catch (error) {
      $("runs-message").textContent = `The runs could not be shown: ${error.message}`;
    }
  }
  offerRuns(made);
  if (made.length) await go("results");
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

// The visitor's own cases (DR-009) join the set choice once they hold a case, labelled as theirs. Asked
// again with the runs: an import or another tab may have added cases.
async function offerOwnSet() {
  const mine = await python.call("own_set");
  const chosen = $("set-select").value;
  for (const old of [...$("set-select").options, ...$("set-guidance").children]) {
    if (old.dataset.own) old.remove();
  }
  $("own-set-text").textContent = mine ? mine.text : "You have added none yet.";
  if (!mine) return;
  $("set-select").append(element("option", mine.option, { value: mine.eval_set_version, "data-own": "true" }));
  $("set-guidance").append(element("li", mine.text, { "data-set": mine.eval_set_version, "data-own": "true" }));
  if (chosen === mine.eval_set_version) $("set-select").value = chosen;
}

onLog(async ({ overview }) => {
  const runs = overview.runs.map((r) => [r.run_id, `${r.label} · ${modelOf(r)}${r.set_note}`]);
  fillSelect($("continue-select"), runs.length ? runs : [["", "(no runs yet)"]]);
  await offerOwnSet();
});

setupSettings();
const savedPrices = JSON.parse(localStorage.getItem(PRICES_NAME) || "{}");
$("price-in").value = savedPrices.in ?? "";
$("price-out").value = savedPrices.out ?? "";
for (const id of ["run-count", "price-in", "price-out", "max-tokens"]) {
  $(id).addEventListener("change", () => {
    if (id.startsWith("price")) {
      localStorage.setItem(PRICES_NAME, JSON.stringify({ in: $("price-in").value, out: $("price-out").value }));
    }
    showEstimate();
  });
}
$("set-select").addEventListener("change", showEstimate);
afterOpening(showEstimate);
$("start-run").addEventListener("click", () => run(null, Number.parseInt($("run-count").value, 10) || 1));
$("continue-run").addEventListener("click", () => { if ($("continue-select").value) run($("continue-select").value); });
$("cancel-run").addEventListener("click", () => { python.cancel(); $("run-status").textContent = "Cancelling…"; });

defineView("run", {
  /** `{repeat: settings}` (a configuration's "Repeat this configuration"): its settings in the form, run at once with a key. */
  async enter(params) {
    if (!params.repeat) return;
    applySettings(params.repeat);
    if (!readKey()) {
      $("run-status").textContent = "The settings of that configuration are in the form: enter your API key, then " +
        "press Start new runs. Nothing was sent.";
      $("api-key").focus();
      return;
    }
    await run(null);
  },
});
