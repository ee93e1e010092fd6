// The experiments page: "Run it again" recomputes the figures in the worker and places pyapp's markup (DR-010).
// Glue only: the figures, their texts, the plots and the verdict on reproduction all come from pyapp.
import { startPython } from "./python.mjs";

const $ = (id) => document.getElementById(id);
const python = startPython();
const published = $("figures").dataset.digest;

function setRunning(running) {
  $("run-experiment").disabled = running;
  $("cancel-experiment").disabled = !running;
}

async function runExperiment(event) {
  event.preventDefault();
  setRunning(true);
  $("experiment-progress").value = 0;
  $("experiment-status").textContent = "Running…";
  try {
    const answer = await python.call("experiment_run",
      { seed: $("seed").value, per_kind: $("per-kind").value, published_digest: published }, { cancellable: true });
    $("figures").innerHTML = answer.html; // pyapp.experiment_page's markup, every text escaped there
    $("figures").dataset.digest = answer.digest;
    $("experiment-status").textContent = answer.note;
    $("experiment-status").dataset.reproduced = String(answer.reproduced);
  } catch (error) {
    $("experiment-status").textContent = error.message;
  } finally {
    setRunning(false);
  }
}

python.onEvent((event) => {
  if (event.type !== "experiment-progress") return;
  $("experiment-progress").max = event.total;
  $("experiment-progress").value = event.done;
  $("experiment-status").textContent = event.text;
});

python.ready.then(() => { $("run-experiment").disabled = false; }).catch(() => {});
$("rerun-form").addEventListener("submit", runExperiment);
$("cancel-experiment").addEventListener("click", () => {
  python.cancel();
  $("experiment-status").textContent = "Cancelling…";
});
