// The Results view's case pane (pyapp.presentation.case_view): one case of one run, beside the matrix on a
// wide screen and in place of it on a phone. The walkthrough reads as paragraphs whose step numbers open the
// explorer at that step; the answer as logged is one fold away. Every text is pyapp's, placed as text.
import { element, figures, table } from "./dom.mjs";
import { python } from "./log-state.mjs";
import { cellOf, markCell } from "./matrix.mjs";

const $ = (id) => document.getElementById(id);
const explorer = (query) => `../explorer/?${query}`;
const verdict = (passed) => element("span", passed ? "pass" : "FAIL", { class: passed ? "check-pass" : "check-fail" });

/** The case on screen as {run, case}, or null. */
export function openCase() {
  const box = $("case-view");
  return box.hidden ? null : { run: box.dataset.run, case: box.dataset.case };
}

/** Show case `caseId` of run `runId`; says why in the matrix's note when pyapp refuses. */
export async function showCase(runId, caseId, { focus = true } = {}) {
  let view;
  try {
    view = await python.call("case_detail", { run_id: runId, case_id: caseId });
  } catch (error) {
    $("matrix-note").textContent = error.message;
    return false;
  }
  const cell = cellOf(runId, caseId);
  if (cell) markCell(cell);
  const box = $("case-view");
  box.dataset.run = runId;
  box.dataset.case = caseId;
  box.dataset.previousCase = view.previous_case ?? "";
  box.dataset.nextCase = view.next_case ?? "";
  $("case-view-heading").textContent = `${caseId} in run ${cell ? cell.dataset.label : runId}: ${view.outcome_text}`;
  $("case-view-body").replaceChildren(...caseBody(view));
  box.hidden = false;
  box.scrollTop = 0;
  // The pane's top under the navigation: on a phone it takes the matrix's place.
  box.scrollIntoView({ block: "nearest" });
  if (box.getBoundingClientRect().top < 0) box.scrollIntoView({ block: "start" });
  if (focus) box.focus({ preventScroll: true });
  return true;
}

/** Close the pane; the matrix's cell of the case it showed takes the focus. */
export function closeCase() {
  const box = $("case-view");
  const cell = cellOf(box.dataset.run, box.dataset.case);
  box.hidden = true;
  if (cell) cell.focus();
}

function caseBody(view) {
  const parts = [];
  const search = element("p", null, { id: "case-search" });
  search.append(`${view.search.text}. ${view.search.why_it_matters} `,
    element("a", "Open this search in the explorer", { href: explorer(view.search.explorer), id: "case-explorer" }));
  parts.push(search);
  if (view.detail) parts.push(element("p", view.detail, { class: "note" }));
  if (view.prose.length) {
    parts.push(element("h4", view.counted ? "The walkthrough" : "The walkthrough (not counted)"));
    const prose = element("div", null, { class: "walkthrough-prose", id: "case-prose" });
    for (const paragraph of view.prose) {
      const p = element("p");
      for (const segment of paragraph) {
        p.append(segment.step === undefined ? segment.text
          : element("a", segment.text, { href: explorer(segment.explorer), title: `Step ${segment.step} in the explorer` }));
      }
      prose.append(p);
    }
    parts.push(prose);
  }
  if (view.claims.length) {
    parts.push(table("The answer's claims against the search", ["Claim", "Answer", "Search", "Check"],
      view.claims.map((c) => [c.claim, c.claimed, c.truth, verdict(c.passed)]), { id: "case-claims", class: "stack" }));
  }
  if (view.checks.length) {
    parts.push(element("h4", "Checks"));
    parts.push(table("The checks of this answer", ["Check", "Verdict", "Reason"],
      view.checks.map((check) => [check.name, verdict(check.passed), check.reason]), { id: "case-checks", class: "stack" }));
  }
  // An answer that reads as prose keeps its logged text one fold away; any other answer is shown as logged.
  const answer = element("pre", view.answer ?? "No answer.", { class: "prose-answer", id: "case-answer", tabindex: "0",
    role: "region", "aria-label": "The answer as logged" });
  if (view.prose.length) {
    const raw = element("details", null, { id: "case-raw" });
    raw.append(element("summary", "Raw answer"), answer);
    parts.push(raw);
  } else {
    parts.push(element("h4", view.counted ? "The answer" : "The answer (not counted)"), answer);
  }
  if (view.cited.length) {
    parts.push(element("h4", "Steps the answer cited"));
    parts.push(table("Steps the answer cited", ["Step", "Cited", "Sent in the prompt", "Explorer"], view.cited.map((step) =>
      [step.step ?? "–", step.cited, step.sent ?? "not sent",
        step.explorer ? element("a", `step ${step.step}`, { href: explorer(step.explorer) }) : "–"]),
    { id: "case-cited", class: "stack" }));
  }
  if (view.call) {
    parts.push(element("h4", "The call"));
    parts.push(figures([["Model asked", view.call.model], ["Model reported", view.call.model_reported],
      ["Tokens", view.call.tokens], ["Answer latency", view.call.answer_ms], ["Total", view.call.total_ms],
      ["Stop", view.call.stop], ["Logged", view.call.time]], { id: "case-call" }));
  }
  parts.push(element("h4", `Ratings (${view.rubric_version})`));
  if (view.ratings.length) {
    const list = element("ul", null, { id: "case-ratings" });
    for (const rating of view.ratings) {
      list.append(element("li", `${rating.rater}: ${rating.answers.map((a) => `${a.question} ${a.answer}`).join(" ")}`));
    }
    parts.push(list);
  } else {
    parts.push(element("p", "No ratings of this answer yet.", { id: "case-ratings" }));
  }
  if (view.judged.length) {
    parts.push(element("h4", "Model judges (see Rate for how far each is validated)"));
    const list = element("ul", null, { id: "case-judged" });
    for (const judged of view.judged) list.append(element("li", judged.text));
    parts.push(list);
  }
  return parts;
}
