// The model judge on the evaluation page (DR-012): the size of a judging before it starts, the judging asked
// with the visitor's key, and each judge's figures as pyapp.presentation.judge_tables made them. Every string
// shown is pyapp's or the provider's, placed as text.
import { element, fillSelect, table } from "./dom.mjs";
import { demo } from "./shell.mjs";

const $ = (id) => document.getElementById(id);

/** A judge's choice of the judging its figures rest on; `choose(judge, judgingId)` shows that judging's. */
function judgingChoice(judge, choose) {
  const id = `judging-of-${document.querySelectorAll(".judge-judging-choice").length}`;
  const select = element("select", null, { id, class: "judge-judging-choice" });
  fillSelect(select, judge.judgings);
  select.value = judge.judging;
  select.addEventListener("change", () => choose(judge.judge, select.value));
  const label = element("label", judge.judging_choice, { for: id });
  const part = element("p", null, { class: "actions" });
  part.append(label, " ", select);
  return part;
}

/** What rating would validate the judge soonest: per question, how precisely it is measured, and the answers to
 * rate next, which `rateNext(judge, judgingId)` puts before the rater. */
function precision(judge, rateNext) {
  const { precision: p } = judge;
  const part = element("div", null, { class: "judge-precision" });
  part.append(table(p.label, p.columns, p.rows, { class: "judge-precision-table stack" }));
  if (p.still_needed) part.append(element("p", p.still_needed, { class: "judge-still-needed" }));
  if (p.rate_next) part.append(element("p", p.rate_next, { class: "judge-rate-next" }));
  if (p.rate_button) {
    const button = element("button", p.rate_button, { type: "button", class: "judge-rate-button" });
    button.disabled = demo;  // rating writes to the log, which the demo's is not
    button.addEventListener("click", () => rateNext(judge.judge, judge.judging));
    part.append(button);
  }
  return part;
}

/** Append each judge's figures to `out`: the label, the judging they rest on, how precisely they are measured,
 * the tables against people and the grade, the probes. */
export function showJudges(out, judges, { choose, rateNext }) {
  for (const judge of judges) {
    const part = element("div", null, { class: "agreement-judge", "data-judge": judge.judge });
    const heading = element("h3", judge.heading);
    if (judge.label) heading.append(" ", element("span", judge.label, { class: "label-not-validated" }));
    part.append(heading, element("p", judge.judging_note, { class: "judge-judging" }));
    if (judge.judgings.length > 1) part.append(judgingChoice(judge, choose));
    part.append(element("p", judge.validation, { class: "judge-validation" }), precision(judge, rateNext));
    if (judge.failures.length) {
      part.append(table(judge.failures_label, judge.failure_columns, judge.failures, { class: "judge-failures" }));
    }
    for (const versus of judge.versus) {
      part.append(element("h4", versus.heading), table(versus.label, versus.columns, versus.rows, { class: "judge-versus" }));
      for (const note of versus.notes) part.append(element("p", note, { class: "note" }));
    }
    const { grade, length } = judge;
    part.append(element("h4", "Against the mechanical grade"),
      table(grade.label, grade.columns, grade.rows, { class: "judge-grade" }), element("p", grade.figures));
    for (const note of grade.notes) part.append(element("p", note, { class: "note" }));
    part.append(element("h4", "Bias probes"), table(length.label, length.columns, length.rows, { class: "judge-length" }));
    if (length.note) part.append(element("p", length.note, { class: "note judge-length-note" }));
    if (judge.self_preference) part.append(element("p", judge.self_preference, { class: "note judge-self" }));
    part.append(element("p", judge.consistency, { class: "judge-consistency" }));
    out.append(part);
  }
}

/** Wire the judge's controls. `afterJudging` runs when a judging ends (the page shows the figures again). */
export function setupJudge({ python, readSettings, readKey, price, afterJudging }) {
  const judgings = () => Number.parseInt($("judge-times").value, 10) || 1;
  const runId = () => $("judge-run").value || null;

  async function estimate() {
    try {
      const size = await python.call("judging_estimate", { run_id: runId(), judgings: judgings(),
        max_tokens: readSettings().max_tokens || null, price_in: price("price-in"), price_out: price("price-out") });
      $("judge-estimate").textContent = `Before you start: ${size.display}`;
    } catch (error) {
      $("judge-estimate").textContent = error.message;
    }
  }

  function setRunning(running) {
    $("start-judge").disabled = running;
    $("cancel-judge").disabled = !running;
  }

  async function judge() {
    setRunning(true);
    $("judge-usage").textContent = "";
    $("judge-status").textContent = "Starting…";
    let result = null;
    try {
      result = await python.call("judge", { run_id: runId(), settings: readSettings(), api_key: readKey(),
        judgings: judgings() }, { cancellable: true });
      $("judge-status").textContent = result.message;
    } catch (error) {
      $("judge-status").textContent = `The judging could not go on: ${error.message}`;
    } finally {
      setRunning(false);
    }
    if (!result) return;
    try {
      const usage = await python.call("judging_usage", { judging_ids: result.judging_ids,
        price_in: price("price-in"), price_out: price("price-out") });
      $("judge-usage").textContent = `After judging: ${usage.display}`;
    } catch (error) {
      $("judge-usage").textContent = error.message;
    }
    await afterJudging();
  }

  python.onEvent((event) => {
    if (event.type === "judge-progress") {
      $("judge-status").textContent = event.text;
    } else if (event.type === "judged") {
      $("judge-progress").max = event.total;
      $("judge-progress").value = event.index + 1;
      $("judge-status").textContent = `Judged ${event.index + 1} of ${event.total}: ${event.text}`;
    }
  });
  for (const id of ["judge-run", "judge-times", "price-in", "price-out", "max-tokens"]) {
    $(id).addEventListener("change", estimate);
  }
  $("start-judge").addEventListener("click", judge);
  $("cancel-judge").addEventListener("click", () => { python.cancel(); $("judge-status").textContent = "Cancelling…"; });
  // The estimate reads every counted answer, so it is made once the section is in view, not as the page opens:
  // a long log opens from its kept view, which holds only what the page shows first (DR-006).
  let seen = false;
  const watcher = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    seen = true;
    watcher.disconnect();
    estimate();
  });
  python.ready.then(() => watcher.observe($("judge-heading").closest("section"))).catch(() => {});
  return { estimate: () => (seen ? estimate() : undefined) };
}
