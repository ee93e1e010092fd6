// The Methods view: how the figures are computed, and the set chosen for a new run, case by case. The build
// rendered the first set from the same function (DR-002); Python's copy replaces it once ready, and another
// set's when the visitor chooses one under New run.
import { row } from "./dom.mjs";
import { afterOpening, python } from "./log-state.mjs";
import { defineView } from "./shell.mjs";

const $ = (id) => document.getElementById(id);

async function showSet(setVersion) {
  const { summary, figures, rows } = await python.call("evalset", { set_version: setVersion ?? null });
  $("set-summary").textContent = summary;
  for (const [id, text] of Object.entries(figures)) $(id).textContent = text;
  const body = $("evalset").tBodies[0];
  const columns = [...$("evalset").tHead.rows[0].cells].map((th) => th.textContent);
  body.replaceChildren();
  for (const { case_id: caseId, cells } of rows) {
    const tr = row(body, cells, { "data-case": caseId });
    [...tr.cells].forEach((td, i) => td.setAttribute("data-label", columns[i]));
  }
  document.body.dataset.evalsetShown = "python";
}

$("set-select").addEventListener("change", () => showSet($("set-select").value));
afterOpening(() => showSet());
defineView("methods", {});
