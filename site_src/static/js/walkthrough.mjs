// The explorer's "Explain this search" panel and the audit log view.
// Model output is only ever set as textContent: it is text, never HTML.
import { download, readKey, readSettings, setupSettings } from "./ai-settings.mjs";

const $ = (id) => document.getElementById(id);
const OUTCOME_TEXT = {
  grounded: "fully grounded",
  not_grounded: "not grounded",
  model_failure: "model failure",
  infrastructure_failure: "infrastructure failure (not the model's fault)",
  cancelled: "cancelled",
};

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text ?? "–";
  if (className) td.className = className;
  return td;
}

function showExplanation(result) {
  const { entry, grade, claims, walkthrough } = result;
  $("explanation").hidden = false;
  $("explanation").dataset.callId = entry.id;
  $("outcome").textContent = OUTCOME_TEXT[entry.outcome];
  $("outcome").dataset.outcome = entry.outcome;
  const detail = grade && grade.failed_checks.length
    ? `Failed: ${grade.failed_checks.join(", ")}.`
    : (grade && grade.detail) || (entry.outcome === "grounded" ? "" : entry.message);
  $("outcome-detail").textContent = detail;
  const body = $("checks").tBodies[0];
  body.replaceChildren();
  for (const check of grade ? grade.checks : []) {
    const row = body.insertRow();
    row.dataset.check = check.name;
    cell(row, check.name);
    cell(row, check.passed ? "pass" : "fail", check.passed ? "pass" : "fail");
    cell(row, check.reason);
  }
  const list = $("claims");
  list.replaceChildren();
  if (claims && typeof claims === "object") {
    for (const [name, value] of Object.entries(claims)) {
      if (name === "walkthrough") continue;
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = JSON.stringify(value);
      list.append(dt, dd);
    }
  }
  $("prose").textContent = walkthrough ?? entry.answer ?? "(no answer text)";
  $("decision-form").reset();
  $("decision-status").textContent = "";
}

async function refreshAudit(python) {
  let log;
  try {
    log = await python.call("audit_log");
  } catch (error) {
    $("audit-message").textContent = `The audit log could not be read: ${error.message}`;
    return;
  }
  const { calls, corrupt } = log;
  const body = $("audit-table").tBodies[0];
  body.replaceChildren();
  for (const entry of calls) {
    const row = body.insertRow();
    row.dataset.entryId = entry.id;
    cell(row, entry.time.replace("T", " ").replace("Z", ""));
    cell(row, entry.run_id ? `eval ${entry.case_id}` : "explorer");
    cell(row, `${entry.settings.provider} · ${entry.settings.model}`);
    cell(row, OUTCOME_TEXT[entry.outcome]);
    cell(row, `${entry.input_tokens ?? "–"} / ${entry.output_tokens ?? "–"}`, "num");
    cell(row, entry.answer_ms_text, "num");
    cell(row, entry.total_ms_text, "num");
    cell(row, entry.retries, "num");
  }
  $("audit-message").textContent = `${calls.length} calls logged` +
    (corrupt ? `; ${corrupt} unreadable entries were skipped (they are kept, not deleted).` : ".");
}

export function setupWalkthrough(python, currentSearch) {
  setupSettings();
  let running = false;
  python.onEvent((event) => {
    if (running && event.type === "progress") $("explain-status").textContent = event.text;
  });
  $("explain").addEventListener("click", async () => {
    const view = currentSearch();
    if (!view || running) return;
    const search = { order: view.order, kind: view.kind, lon: view.query.lon, lat: view.query.lat,
      radius: view.radius };
    running = true;
    $("explain").disabled = true;
    $("cancel-explain").disabled = false;
    $("explain-status").textContent = "Asking the model… (one call; retries wait as the provider asks)";
    try {
      const result = await python.call("explain", { search, settings: readSettings(), api_key: readKey() },
        { cancellable: true });
      const { outcome, message } = result.entry;
      $("explain-status").dataset.outcome = outcome;
      // A call that got no answer is told once, in the status line, with no empty answer to show.
      const unanswered = outcome === "infrastructure_failure" || outcome === "cancelled";
      $("explain-status").textContent = unanswered ? message : "Answer received and logged.";
      if (unanswered) $("explanation").hidden = true;
      else showExplanation(result);
      if ($("audit-view").open) await refreshAudit(python);
    } catch (error) {
      $("explain-status").textContent = `No call was made: ${error.message}`;
    } finally {
      running = false;
      $("explain").disabled = false;
      $("cancel-explain").disabled = true;
    }
  });
  $("add-own-case").addEventListener("click", async () => {
    const view = currentSearch();
    if (!view) return;
    const search = { order: view.order, kind: view.kind, lon: view.query.lon, lat: view.query.lat,
      radius: view.radius };
    try {
      $("own-case-status").textContent = (await python.call("add_own_case", { search })).text;
    } catch (error) {
      $("own-case-status").textContent = `Not added: ${error.message}`;
    }
  });
  $("cancel-explain").addEventListener("click", () => {
    python.cancel();
    $("explain-status").textContent = "Cancelling…";
  });
  $("decision-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const helpful = new FormData(event.target).get("helpful") === "yes";
    try {
      await python.call("record_decision", { call_id: $("explanation").dataset.callId, helpful,
        note: $("decision-note").value });
      $("decision-status").textContent = "Recorded in the audit log.";
    } catch (error) {
      $("decision-status").textContent = `Not recorded: ${error.message}`;
    }
  });
  $("audit-view").addEventListener("toggle", () => { if ($("audit-view").open) refreshAudit(python); });
  $("refresh-audit").addEventListener("click", () => refreshAudit(python));
  $("export-audit").addEventListener("click", async () => {
    try {
      const text = await python.call("export_audit", { format: "json", run_id: null, explorer: true });
      download("kd-explorer-audit.json", text, "application/json");
    } catch (error) {
      $("audit-message").textContent = `The export failed: ${error.message}`;
    }
  });
}
