"""Run the evaluation set through the audited client: one call at a time on the page (DR-006), or a few
in flight at once from the command line, sharing one back-off (:mod:`pyapp.asking.backoff`, DR-008).

Nothing about a run is stored except the audit entries of its calls: which
cases are still to ask is worked out from the log every time, so a reload or a
crash mid-run loses no answered call and ``continue`` asks only for what lacks a
graded answer.

A run stops after :data:`MAX_FAILURES_IN_A_ROW` calls in a row that got no
answer (infrastructure failures). Each such call has already been tried up to
three times by the client, so three of them mean about nine failed requests
with nothing in between: the provider or the network is down, and asking the
rest would only log more failures (a provider that died mid-run cost 46 s for
15 cases before). One failure between answers is a blip and the run goes on.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from pyapp.asking.backoff import SharedBackoff
from pyapp.asking.walkthrough import explain
from pyapp.auditlog.entries import Clock, cancel_entry, stamp, utc_now
from pyapp.core.vocabulary import Outcome
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, Case, CaseSets, case_prompt, case_search
from pyapp.evaluation.runs import Run, cases_to_ask
from pyapp.providers.client import Progress
from pyapp.providers.settings import Settings

MAX_FAILURES_IN_A_ROW = 3


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"run-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


async def run_eval(
    run_id: str,
    fresh: bool,
    settings: Settings,
    api_key: str | None,
    *,
    read_run: Callable[[str], Awaitable[Run]],
    append: Callable[[list[dict]], Awaitable[object]],
    emit: Callable[[dict], object],
    cancelled: Callable[[], bool],
    progress: Callable[[str, Progress | None], object] = lambda label, _: None,
    set_version: str = EVAL_SET_VERSION,
    sets: CaseSets = FIXED_SETS,
    now: Clock = utc_now,
    concurrency: int = 1,
    **client: object,
) -> dict:
    """Ask every case of ``run_id`` (every case of ``set_version`` when ``fresh``) that has no graded answer yet.

    ``sets`` says what ``set_version`` means to the log (a set of the visitor's own cases is in it). A
    continued run keeps its own set, whatever ``set_version`` says; ``read_run`` gives it as the log
    shows it now (the page's worker takes it from the log it keeps, DR-006).

    ``now`` stamps the entries (the wall clock unless a test passes one); ``client`` carries ``transport``,
    ``sleep`` and ``clock`` (the latencies' clock) for :func:`pyapp.asking.walkthrough.explain`;
    ``progress`` gets each call's :class:`~pyapp.providers.client.Progress` with a label naming the case,
    and ``None`` when the call is over.
    Stops at once on a rejected key or exhausted quota, on cancel, and after
    :data:`MAX_FAILURES_IN_A_ROW` infrastructure failures in a row (calls in flight then end and are logged;
    no new one starts). ``concurrency`` calls are in flight at most (the page asks one at a time, DR-006);
    each entry is appended whole as its call ends, so the log holds them in the order they ended. Returns the run id,
    why it stopped (``None`` if it did not), the error class of the call it stopped on (``stop_error``) and of
    the last call that got no answer (``last_failure``), and ``message``, the sentence the page shows.
    """
    if fresh:
        todo = list(sets.cases(set_version))
    else:
        run = await read_run(run_id)
        set_version = run.eval_set_version
        of_run = {c.case_id: c.case for c in run.cases}
        todo = [of_run[case_id] for case_id in cases_to_ask(run)]
    emit({"type": "run-start", "run_id": run_id, "todo": [c.case_id for c in todo]})
    if concurrency > 1:
        client = {**client, "transport": SharedBackoff(client["sleep"], client["clock"]).around(client["transport"])}
    state = _RunState()
    slots = asyncio.Semaphore(concurrency)

    async def ask(index: int, the_case: Case) -> None:
        async with slots:
            if state.stopped is not None or state.broken:
                return  # the run stopped while this case waited for a slot
            try:
                await ask_one(index, the_case)
            except BaseException:
                state.broken = True  # set before the slot is freed, so no waiting case starts
                raise

    async def ask_one(index: int, the_case: Case) -> None:
        case_id = the_case.case_id
        if cancelled():
            state.stopped = state.stop_error = Outcome.CANCELLED
            await append([cancel_entry(*stamp(now), run_id, case_id)])
            return
        label = f"Asking {case_id} ({index + 1} of {len(todo)})"
        emit({"type": "case-start", "run_id": run_id, "case_id": case_id, "index": index, "total": len(todo),
              "text": f"{label}."})
        search = {"order": the_case.order, "kind": the_case.search_kind, "lon": the_case.lon,
                  "lat": the_case.lat, "radius": the_case.radius}
        explained = await explain(
            search, settings, api_key, append=append, cancelled=cancelled, run_id=run_id, case_id=case_id,
            eval_set_version=set_version, prompt=case_prompt(the_case), result=case_search(the_case),
            progress=lambda state, label=label: progress(label, state), now=now, **client,
        )
        progress(label, None)
        entry = explained.entry
        emit({"type": "case-done", "run_id": run_id, "case_id": case_id, "index": index, "total": len(todo),
              "outcome": entry["outcome"], "message": entry["message"]})
        if entry["outcome"] == Outcome.CANCELLED:
            state.stopped = state.stopped or Outcome.CANCELLED
            state.stop_error = state.stop_error or Outcome.CANCELLED
            await append([cancel_entry(*stamp(now), run_id, case_id, entry["id"])])
            return
        state.answered(entry, explained.outcome.stops_run)

    tasks = [asyncio.ensure_future(ask(index, the_case)) for index, the_case in enumerate(todo)]
    try:
        # An append that failed ends the run: no waiting case starts, but the calls in flight end and are
        # appended (or kept whole by the append's own failure), so no answer already given is lost.
        ended = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for task in tasks:  # cancelled from outside (Ctrl-C): nothing more is asked
            task.cancel()
    failed = next((e for e in ended if isinstance(e, BaseException)), None)
    if failed is not None:
        raise failed
    return {"run_id": run_id, "stopped": state.stopped, "stop_error": state.stop_error,
            "last_failure": state.last_failure,
            "message": run_message(run_id, state.stopped, asked=state.asked, unanswered=state.unanswered,
                                   total=len(todo))}


class _RunState:
    """What the calls of a run have given so far, in the order they ended, and why it stopped (None while not)."""

    def __init__(self) -> None:
        self.stopped: str | None = None
        self.stop_error: str | None = None  # the error class of the call the run stopped on
        self.last_failure: str | None = None  # the error class of the last call that got no answer
        self.broken = False  # a call raised (its entry could not be stored): nothing more is asked
        self.asked = self.unanswered = self.failures_in_a_row = 0

    def answered(self, entry: dict, stops_run: bool) -> None:
        self.asked += 1
        failed = entry["outcome"] == Outcome.INFRA_FAILURE
        self.unanswered += failed
        self.failures_in_a_row = self.failures_in_a_row + 1 if failed else 0
        if failed:
            self.last_failure = entry["error"]
        if self.stopped is not None:
            return
        if stops_run or self.failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            self.stop_error = entry["error"]
        if stops_run:
            self.stopped = entry["message"]
        elif self.failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            self.stopped = (f"{self.failures_in_a_row} calls in a row got no answer, so the provider or the network "
                            f"seems to be down. The last one: {entry['message']}")


def run_message(run_id: str, stopped: str | None, *, asked: int, unanswered: int, total: int) -> str:
    """The sentence the page shows when a run ends; a stopped or partly unanswered run never reads as complete."""
    if stopped == Outcome.CANCELLED:
        return f"Run {run_id} was cancelled after {asked} of {total} cases; continue it to ask the rest."
    if stopped is not None:
        return (f"Run {run_id} stopped after {asked} of {total} cases: {stopped} "
                "Continue the run later to ask the cases still without an answer.")
    if unanswered:
        return (f"Run {run_id} asked all {total} cases, but {unanswered} got no answer (infrastructure failures); "
                "continue the run to ask them again.")
    return f"Run {run_id} has an answer for every case it asked."
