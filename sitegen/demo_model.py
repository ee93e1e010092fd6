"""The scripted model behind the evaluation page's demo: an OpenAI-compatible server played from a script
(:mod:`sitegen.demo_script`), with no network and no randomness, for :mod:`sitegen.demo_log`.

:class:`ScriptedModel` answers like a provider: it reads the case off the prompt it is sent, writes what a model
following the script would write for that case (a faithful answer, or one with a scripted slip such as a wrong
distance or a step cited as something the trace does not say), and replies in the Chat Completions shape with
token counts and a latency on the demo's own clock (:class:`DemoClock`). Its reply is cut at the request's token
limit as a real one would be. It can also fail as a server does (HTTP 500, 503, 429, a refused connection), so the
client's retries and the runner's infrastructure failures run as they do with a real provider.
:class:`ScriptedJudge` plays a model judge the same way, from the explanation it reads off the judge's prompt.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from datetime import datetime, timedelta

from pyapp.core.vocabulary import Action, Outcome, SearchKind
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, Case, case_facts, case_prompt, case_search
from pyapp.explanation.prompt import format_number
from pyapp.explanation.rubric import RUBRIC
from pyapp.kdtree.search import SearchResult
from pyapp.kdtree.trace import Step
from pyapp.providers.client import HttpResponse, NetworkError
from pyapp.providers.wire import HttpRequest
from sitegen.demo_script import (
    BEHAVIOURS,
    BUSY_ONCE,
    CITED,
    DISTANCE,
    INVALID_JSON,
    JUDGE_NO,
    MODEL_FAILURES,
    PRUNED,
    RATE_LIMITED_ONCE,
    REFUSAL,
    RESULT,
    SCHEMA,
    SERVER_DOWN,
    SHOWN_ONLY,
    SLIPS,
    TERSE,
    UNREACHABLE,
    VISITED,
    WRONG_WHY,
)

CHARS_PER_TOKEN = 4
AXIS = ("longitude", "latitude")
JUDGE_MARK = "The explanation to rate, as a JSON string:\n"


class DemoClock:
    """The demo's time: milliseconds after ``start``, moved only by the scripted latencies, the client's waits
    and :meth:`set`. ``ms`` is the clock the client times calls with, ``now`` the one entries are stamped by."""

    def __init__(self, start: datetime) -> None:
        self.start = start
        self.elapsed_ms = 0

    def ms(self) -> float:
        return float(self.elapsed_ms)

    def now(self) -> datetime:
        return self.start + timedelta(milliseconds=self.elapsed_ms)

    def set(self, when: datetime) -> None:
        """Move on to ``when`` (never back: entries stay in time order)."""
        ms = round((when - self.start).total_seconds() * 1000)
        if ms < self.elapsed_ms:
            raise ValueError(f"the demo's clock cannot go back to {when:%H:%M:%S}")
        self.elapsed_ms = ms

    def advance(self, ms: int) -> None:
        self.elapsed_ms += ms

    async def sleep(self, seconds: float) -> None:
        self.elapsed_ms += round(seconds * 1000)


@functools.cache
def cases_by_prompt() -> dict[tuple[str, str], Case]:
    """Every case of the twenty-case set by the (system, user) text of the prompt the site sends for it."""
    return {(p.system, p.user): case for case in FIXED_SETS.cases(EVAL_SET_VERSION) for p in [case_prompt(case)]}


def jitter(*parts: object) -> int:
    """A number from 0 to 999 fixed by ``parts``: the spread of latencies, the same on every build."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:4], "big") % 1000


def _completion(model: str, content: str | None, prompt_chars: int, output_tokens: int, finish: str,
                refusal: str | None = None) -> str:
    message = {"role": "assistant", "content": content, **({"refusal": refusal} if refusal else {})}
    return json.dumps({
        "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_chars // CHARS_PER_TOKEN, "completion_tokens": output_tokens},
    }, ensure_ascii=False)


def _error(status: int, message: str, kind: str) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json"},
                        json.dumps({"error": {"message": message, "type": kind}}))


def _reply(model: str, content: str, prompt_chars: int, max_tokens: int) -> tuple[str, int, bool]:
    """The completion's body, its output tokens, and whether the token limit cut it (as a server cuts it)."""
    tokens = max(1, len(content) // CHARS_PER_TOKEN)
    if tokens <= max_tokens:
        return _completion(model, content, prompt_chars, tokens, "stop"), tokens, False
    cut = content[: max_tokens * CHARS_PER_TOKEN]
    return _completion(model, cut, prompt_chars, max_tokens, "length"), max_tokens, True


class ScriptedModel:
    """The explaining model of one run: ``script`` says what it does with each case (one of :data:`BEHAVIOURS`).

    ``intended`` keeps, by case, the outcome the script means the site to grade (so the demo can check it shows
    what it says), and ``written`` each walkthrough it wrote with its case and behaviour (for the judge).
    """

    def __init__(self, script: Mapping[str, str], clock: DemoClock, seed: str) -> None:
        unknown = sorted(set(script.values()) - set(BEHAVIOURS))
        if unknown:
            raise ValueError(f"unknown behaviours {unknown}")
        self.script, self.clock, self.seed = script, clock, seed
        self.attempts: dict[str, int] = {}
        self.intended: dict[str, str] = {}
        self.written: dict[str, tuple[str, str]] = {}

    async def transport(self, request: HttpRequest) -> HttpResponse:
        body = json.loads(request.body)
        system, user = (m["content"] for m in body["messages"])
        case = cases_by_prompt()[system, user]
        behaviour = self.script[case.case_id]
        attempt = self.attempts[case.case_id] = self.attempts.get(case.case_id, 0) + 1
        self.clock.advance(150 + jitter(self.seed, case.case_id, attempt) // 4)  # connecting, queueing
        if behaviour == UNREACHABLE:
            self.intended[case.case_id] = Outcome.INFRA_FAILURE
            raise NetworkError("connection refused")
        if behaviour == SERVER_DOWN:
            self.intended[case.case_id] = Outcome.INFRA_FAILURE
            return _error(500, "The scripted server is down (a demo of an infrastructure failure).", "server_error")
        if behaviour == BUSY_ONCE and attempt == 1:
            return _error(503, "The scripted server is busy; try again.", "overloaded")
        if behaviour == RATE_LIMITED_ONCE and attempt == 1:
            return HttpResponse(429, {"retry-after": "2", "content-type": "application/json"},
                                json.dumps({"error": {"message": "Rate limit reached (scripted).",
                                                      "type": "rate_limit"}}))
        prompt_chars = len(system) + len(user)
        if behaviour == REFUSAL:
            self.intended[case.case_id] = Outcome.MODEL_FAILURE
            text, tokens = _completion(body["model"], None, prompt_chars, 14, "stop",
                                       "I can't help with locating specific businesses."), 14
        else:
            claims = answer(case, behaviour)
            self.written[claims["walkthrough"]] = (case.case_id, behaviour)
            content = json.dumps(claims, ensure_ascii=False)
            if behaviour == INVALID_JSON:
                content = f"Here is the walkthrough as JSON:\n\n{content}"
            text, tokens, cut = _reply(body["model"], content, prompt_chars, body["max_tokens"])
            self.intended[case.case_id] = (
                Outcome.MODEL_FAILURE if cut or behaviour in MODEL_FAILURES
                else Outcome.NOT_GROUNDED if behaviour in SLIPS else Outcome.GROUNDED)
        self.clock.advance(300 + prompt_chars // CHARS_PER_TOKEN // 10 + 9 * tokens
                           + jitter(self.seed, case.case_id, "answer"))
        return HttpResponse(200, {"content-type": "application/json"}, text)


# --------------------------------------------------------------------------- what the model writes


def _first(steps: tuple[Step, ...], *actions: str) -> Step | None:
    return next((s for s in steps if s.action in actions), None)


def _copied(distance: float | None) -> float | None:
    """A distance as a model copies it from the trace: the printed number."""
    return None if distance is None else float(format_number(distance))


def _points(n: int) -> str:
    return "one point" if n == 1 else f"{n} points"


def answer(case: Case, behaviour: str) -> dict:
    """The JSON object the scripted model answers for ``case``: faithful to the prompt it was sent, except for the
    slip ``behaviour`` names."""
    search, facts = case_search(case), case_facts(case)
    shown = tuple(search.trace)[: facts.steps_sent]
    found = [s for s in shown if s.action in (Action.BEST, Action.REPORT)]
    far_visit = _first(shown, Action.FAR_VISIT) or _first(shown, Action.NEAR)
    claims = {"result_ids": list(facts.result_ids), "distance": _copied(facts.distance),
              "nodes_visited": facts.nodes_visited, "subtrees_pruned": facts.subtrees_pruned}
    cited = [s for s in (shown[0], found[0] if found else None, _first(shown, Action.FAR_PRUNE)) if s is not None]
    cited_steps = [{"step": s.index, "action": s.action, "node_id": s.node_id} for s in cited]
    visits = sum(s.action == Action.VISIT for s in shown)
    if behaviour == VISITED:  # the visits shown of a cut trace, else one visit missed
        claims["nodes_visited"] = visits if visits != facts.nodes_visited else visits - 1
    if behaviour == SHOWN_ONLY:
        claims["nodes_visited"] = visits
        claims["subtrees_pruned"] = sum(s.action == Action.FAR_PRUNE for s in shown)
    if behaviour == PRUNED:
        claims["subtrees_pruned"] += 1  # it counts a far side that was searched as a skip
    if behaviour == DISTANCE:  # the first candidate's distance, not the answer's
        first = _copied(found[0].distance) if found else None
        claims["distance"] = first if first != claims["distance"] else claims["distance"] * 1.5
    if behaviour == RESULT:
        if search.kind == SearchKind.NEAREST:
            claims["result_ids"] = [found[0].node_id if found[0].node_id != facts.result_ids[0] else shown[0].node_id]
        else:
            claims["result_ids"] = claims["result_ids"][:-1]  # one point missed
    if behaviour == CITED and far_visit is not None:  # a searched far side cited as skipped
        wrong = {"step": far_visit.index, "action": Action.FAR_PRUNE, "node_id": far_visit.node_id}
        cited_steps = sorted([*cited_steps, wrong], key=lambda c: c["step"])
    walkthrough = _terse(claims) if behaviour == TERSE else _walkthrough(search, shown, found, claims, behaviour)
    if behaviour == SCHEMA:
        claims["nodes_visited"] = str(claims["nodes_visited"])
    return {"walkthrough": walkthrough, **claims, "cited_steps": cited_steps}


def _terse(claims: dict) -> str:
    ids = claims["result_ids"]
    result = f"node {ids[0]}" if len(ids) == 1 else f"{_points(len(ids))} within the radius"
    return (f"The search goes down from the root at step 1 and back up, skipping what it can. Result: {result}; "
            f"{claims['nodes_visited']} nodes visited, {claims['subtrees_pruned']} subtrees pruned.")


def _walkthrough(search: SearchResult, shown: tuple[Step, ...], found: list[Step], claims: dict, behaviour: str) -> str:
    """The prose: what happens at a few steps, in the order of the trace, then the totals and the result."""
    nearest = search.kind == SearchKind.NEAREST
    root = shown[0]
    steps = [(1, f"Step 1 visits the root, node {root.node_id}, which splits on {AXIS[root.axis]} at "
                 f"{format_number(root.split)}.")]
    near = _first(shown, Action.NEAR)
    if near is not None:
        steps.append((near.index, f"The query lies on the {near.side} side of node {near.node_id}'s splitting "
                                  f"line, so step {near.index} goes down that side first."))
    if found and nearest:
        first = found[0]
        steps.append((first.index, f"Step {first.index} makes node {first.node_id} the closest point so far, "
                                   f"{format_number(first.distance)} from the query."))
        if len(found) > 1:
            last = found[-1]
            times = "once" if len(found) == 2 else f"{len(found) - 1} times"
            steps.append((last.index, f"Closer points take its place {times}; the last, at step {last.index}, is "
                                      f"node {last.node_id}."))
    elif found:
        steps.append((found[0].index, f"Step {found[0].index} reports node {found[0].node_id}, "
                                      f"{format_number(found[0].distance)} from the query, inside the radius of "
                                      f"{format_number(search.radius)}."))
    prune = _first(shown, Action.FAR_PRUNE)
    bound = "the best distance so far" if nearest else "the radius"
    if prune is not None and behaviour == WRONG_WHY:
        steps.append((prune.index, f"Step {prune.index} skips the {prune.side} side of node {prune.node_id} "
                                   "because the query is not on that side of its splitting line, so nothing there "
                                   "can be near."))
    elif prune is not None:
        steps.append((prune.index, f"Step {prune.index} skips the {prune.side} side of node {prune.node_id}: the "
                                   f"gap to its splitting line, {format_number(prune.gap)}, is larger than {bound}, "
                                   f"{format_number(prune.bound)}."))
    far = _first(shown, Action.FAR_VISIT)
    if behaviour == CITED:
        far = far or _first(shown, Action.NEAR)
    if far is not None and behaviour == CITED:
        steps.append((far.index, f"Step {far.index} skips the {far.side} side of node {far.node_id} as well: it "
                                 "is too far."))
    elif far is not None:
        steps.append((far.index, f"Step {far.index} searches the {far.side} side of node {far.node_id} too, "
                                 f"because its gap, {format_number(far.gap)}, is within {format_number(far.bound)}."))
    said = [text for _, text in sorted(steps, key=lambda s: s[0])]
    counts = f"visits {claims['nodes_visited']} nodes and skips {claims['subtrees_pruned']} subtrees"
    total = len(search.trace)
    if len(shown) < total and behaviour == SHOWN_ONLY:
        said.append(f"The trace ends at step {len(shown)}; counting the steps shown, the search {counts}.")
    elif len(shown) < total:
        said.append(f"The trace shown stops at step {len(shown)} of {total}; the line after it gives the totals: "
                    f"the search {counts}.")
    else:
        said.append(f"In all the search {counts}.")
    ids, distance = claims["result_ids"], claims["distance"]
    if nearest:
        said.append(f"The nearest business is node {ids[0]}, {format_number(distance)} from the query.")
    elif ids:
        said.append(f"It reports {_points(len(ids))} within the radius; the farthest is "
                    f"{format_number(distance)} from the query.")
    else:
        said.append("No point lies within the radius.")
    return " ".join(said)


# --------------------------------------------------------------------------- the judge

REASONS = {
    "pruning": ("Each skip it mentions is explained by the gap to the splitting line exceeding the bound.",
                "It gives a skip a reason other than the gap exceeding the bound, or a skip the trace lacks."),
    "answer": ("It names the point the search found, at the distance the trace gives.",
               "The point or the distance it names is not what the search found."),
    "no_invention": ("Every step it describes is in the trace.",
                     "It describes a step the trace does not have."),
    "followable": ("A learner could follow the search from it step by step.",
                   "It is too brief or too confused for a learner to follow."),
}


class ScriptedJudge:
    """A model judge answering the rubric's questions as :data:`JUDGE_NO` says for judging ``judging`` (0 or 1),
    about the answers ``written`` names (walkthrough → case and behaviour); its reply about each case in
    ``cut_short`` stops at the token limit (a judge failure)."""

    def __init__(self, written: Mapping[str, tuple[str, str]], clock: DemoClock, judging: int,
                 cut_short: tuple[str, ...] = ()) -> None:
        self.written, self.clock, self.judging, self.cut_short = written, clock, judging, cut_short

    async def transport(self, request: HttpRequest) -> HttpResponse:
        body = json.loads(request.body)
        system, user = (m["content"] for m in body["messages"])
        explanation = json.loads(user.split(JUDGE_MARK, 1)[1])
        if explanation not in self.written:
            raise ValueError("the scripted judge knows only the walkthroughs the scripted model wrote: have it judge "
                             "a run without model failures")
        case_id, behaviour = self.written[explanation]
        no = JUDGE_NO.get(behaviour, ((), ()))[self.judging]
        verdict = {key: {"answer": "no" if key in no else "yes", "reason": REASONS[key][key in no]}
                   for key in RUBRIC.keys}
        content = json.dumps(verdict, indent=1)
        max_tokens = len(content) // CHARS_PER_TOKEN // 2 if case_id in self.cut_short else body["max_tokens"]
        text, tokens, _ = _reply(body["model"], content, len(system) + len(user), max_tokens)
        self.clock.advance(400 + 9 * tokens + jitter("judge", self.judging, case_id))
        return HttpResponse(200, {"content-type": "application/json"}, text)
