// The Rate view: people rate answers blind against the rubric (DR-009), a model judge answers the same
// questions (DR-012), and the agreement of both with each other and with the checks. This only walks the
// queue pyapp.rating builds and places the tables pyapp.presentation.agreement_tables makes.
import { readKey, readSettings } from "../ai-settings.mjs";
import { element, fillSelect, table } from "./dom.mjs";
import { afterOpening, modelOf, onLog, price, python, refresh } from "./log-state.mjs";
import { setupJudge, showJudges } from "./judge.mjs";
import { defineView } from "./shell.mjs";

const $ = (id) => document.getElementById(id);
let rubric = null;
let rating = null; // { rater, items, index, answers, question }
let chosenJudgings = {}; // judge -> the judging its figures rest on, when the visitor chose one

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

// Blind: while a person rates, every grade and every other rating is hidden, the other views' links too
// (site.css hides .graded-view under body[data-blind]; which view shows is the shell's, and stays so).
function setBlind(blind) {
  document.body.toggleAttribute("data-blind", blind);
  $("start-rating").disabled = blind;
  $("stop-rating").disabled = !blind;
}

function showRatingItem() {
  const item = rating.items[rating.index];
  $("rating-case").textContent = `${item.title} (${rating.index + 1} of ${rating.items.length})`;
  $("rating-case").dataset.case = item.case_id;
  $("rating-case").dataset.call = item.call_id;
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
  void refresh();  // the ratings recorded show in the case pane and the agreement
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
    beginRating(rater, items, `Rating ${items.length} answers of ${runId} as ${rater}.`);
  } catch (error) {
    $("rating-status").textContent = error.message;
  }
}

function beginRating(rater, items, status) {
  rating = { rater, items, index: 0, answers: {}, question: 0 };
  setBlind(true);
  $("rating-status").textContent = status;
  showRatingItem();
}

// The answers a judge judged that no person has rated, in the order likely to validate it soonest (DR-012); the
// rater sees them as any other, without the judge's verdicts.
async function rateForJudge(judge, judging) {
  const rater = $("rater-name").value.trim();
  try {
    const queue = await python.call("judge_rating_queue", { judge, judging, rater });
    if (queue.items.length) beginRating(rater, queue.items, queue.status);
    else $("rating-status").textContent = queue.status;
  } catch (error) {
    $("rating-status").textContent = error.message;
  }
}

// Every string of the agreement tables is made in Python (pyapp.agreement_tables); this only places them.
function showAgreement(view) {
  const out = $("agreement-tables");
  out.replaceChildren(element("p", view.who, { id: "agreement-who" }));
  if (view.note) out.append(element("p", view.note, { class: "note" }));
  for (const pair of view.pairs) {
    const part = element("div", null, { class: "agreement-pair" });
    part.append(element("h4", pair.heading), table(pair.label, pair.columns, pair.rows));
    for (const note of pair.notes) part.append(element("p", note, { class: "note" }));
    out.append(part);
  }
  for (const rater of view.versus) {
    const part = element("div", null, { class: "agreement-rater" });
    part.append(element("h4", rater.heading), table(rater.label, rater.columns, rater.rows),
      element("p", rater.figures, { class: "agreement-figures" }));
    for (const note of rater.notes) part.append(element("p", note, { class: "note" }));
    part.append(rater.disagreements.length
      ? table(rater.disagreements_label, rater.disagreement_columns, rater.disagreements, { class: "disagreements" })
      : element("p", rater.none_differ));
    out.append(part);
  }
  showJudges(out, view.judges, { choose: chooseJudging, rateNext: rateForJudge });
}

function chooseJudging(judge, judging) {
  chosenJudgings[judge] = judging;
  void agreement();
}

async function agreement() {
  try {
    const figures = await python.call("agreement", { judgings: Object.values(chosenJudgings) });
    showAgreement(figures.tables);
    $("agreement-text").textContent = figures.text;
  } catch (error) {
    $("agreement-tables").replaceChildren(element("p", `The figures could not be computed: ${error.message}`));
    $("agreement-text").textContent = "";
  }
}

const judging = setupJudge({ python, readSettings, readKey, price, afterJudging: async () => {
  await agreement();
  await refresh();
} });

onLog(async ({ overview }) => {
  chosenJudgings = {};  // a judging chosen before may be gone from the log now
  const runs = overview.runs.map((r) => [r.run_id, `${r.label} · ${modelOf(r)}${r.set_note}`]);
  fillSelect($("rate-run"), runs);
  fillSelect($("judge-run"), [["", "every run"], ...runs]);
  await judging.estimate();
});

afterOpening(async () => showRubric(await python.call("rubric")));
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
$("show-agreement").addEventListener("click", agreement);

defineView("rate", {});
