// The Data view: export the log or a run, import an export or a log written by `python -m pyapp run`, and
// export a configuration's baseline. An import that adds runs opens the Results view on them.
import { download } from "../ai-settings.mjs";
import { fillSelect } from "./dom.mjs";
import { log, modelOf, onLog, python, refresh } from "./log-state.mjs";
import { defineView, go } from "./shell.mjs";
import { noteExport } from "./storage-line.mjs";

const $ = (id) => document.getElementById(id);

async function importFile() {
  const file = $("import-file").files[0];
  if (!file) return;
  const message = $("import-message");
  message.textContent = `Importing ${file.name}…`;  // an earlier import's sentence must not stand
  message.dataset.state = "importing";
  let result;
  try {
    // The file's bytes, not file.text(): Python decodes them strictly, as the command line does.
    result = await python.call("import_audit", {}, { file: await file.arrayBuffer() });
  } catch (error) {
    message.textContent = error.message;  // pyapp's sentence says that nothing was imported
    message.dataset.state = "refused";
    return;
  } finally {
    $("import-file").value = "";
  }
  // Said once the views show the imported runs, so what the message reports is on the page.
  try {
    await refresh();
  } catch (error) {
    message.textContent = `The runs could not be shown: ${error.message}`;
    return;
  }
  if (result.added && log.overview.runs.length) await go("results");
  message.textContent = `Imported ${result.added} entries (${result.skipped} were already here).`;
  message.dataset.state = "imported";
}

onLog(({ overview, grouped }) => {
  fillSelect($("export-run"), [["", "all runs"],
    ...overview.runs.map((r) => [r.run_id, `${r.label} · ${modelOf(r)}${r.set_note}`])]);
  fillSelect($("baseline-config"), grouped.configurations.map((g) => [g.id, `${g.config_name} · ${g.k} runs`]));
  $("export-baseline").disabled = !grouped.configurations.length;
});

for (const format of ["json", "csv"]) {
  $(`export-${format}`).addEventListener("click", async () => {
    const runId = $("export-run").value || null;
    const text = await python.call("export_audit", { format, run_id: runId });
    download(`kd-explorer-${runId ?? "all-runs"}.${format}`, text, format === "json" ? "application/json" : "text/csv");
    if (!runId) noteExport();
  });
}
$("export-baseline").addEventListener("click", async () => {
  const group = log.grouped.configurations.find((g) => g.id === $("baseline-config").value);
  if (!group) return;
  const text = await python.call("baseline_file", { run_ids: group.run_ids });
  download(`kd-explorer-baseline-${group.id}.json`, text, "application/json");
});
$("import-file").addEventListener("change", importFile);

defineView("data", {});
