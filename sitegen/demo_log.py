"""The evaluation page's demo log, written at build time by a scripted model: ``ai-eval/demo-log.jsonl``.

A visitor without a key opens it as a read-only workspace. It is a JSON-lines log exactly as
``python -m pyapp run --log`` writes one, and pyapp's own code makes every entry: the runs are
:func:`pyapp.asking.runner.run_eval` asking :class:`sitegen.demo_model.ScriptedModel` through the audited
client, so every prompt hash is the one the site builds today and no answer is stale; the judgings are
:func:`pyapp.asking.judging.judge_answers` asking :class:`sitegen.demo_model.ScriptedJudge`; the ratings are
:func:`pyapp.auditlog.entries.rating_entry`. What it shows is :mod:`sitegen.demo_script`.

The same code gives the same bytes: the clock is the demo's own (:class:`sitegen.demo_model.DemoClock`), the
run and judging ids are fixed, and the random id pyapp gives each new entry is replaced, as the entry is
appended, by one that names it (``demo-a1-C07``: run a1's call on C07; ``demo-j1-C07``: the first judging's
verdict on it; ``demo-aino-C07``: Aino's rating of it), as pyapp's ``stamp`` takes a clock but no source of ids.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path

from sitegen import demo_script as S
from sitegen.caches import DEMO_LOG_CACHE
from sitegen.digests import write_atomically
from sitegen.problems import BuildFailed, Problem
from sitegen.pyapp_content import pyapp_digest

DEMO_LOG = "ai-eval/demo-log.jsonl"
EVAL_PAGE = "ai-eval/index.html"
WORKER = "static/js/worker.mjs"  # a site whose pages run Python has it (sitegen.static)
MODULES = ("demo_log.py", "demo_model.py", "demo_script.py")  # what the log is made by, beside pyapp


class DemoEntries:
    """The log being written: each entry pyapp appends is kept under a fixed id that names it (module doc)."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.names: dict[str, str] = {}  # each run's and judging's short name: a1, j1
        self.case_of: dict[str, str] = {}  # call id -> its case
        self.ids: set[str] = set()

    async def append(self, entries: list[dict]) -> None:
        from pyapp.auditlog.validation import validate_entry

        for entry in entries:
            named = {**entry, "id": self._name(entry)}
            problems = validate_entry(named)
            if problems:
                raise ValueError("; ".join(problems))
            self.add(named)

    def add(self, entry: dict) -> None:
        if entry["id"] in self.ids:
            raise ValueError(f"two demo entries are named {entry['id']}")
        self.ids.add(entry["id"])
        if entry["type"] == "call":
            self.case_of[entry["id"]] = entry["case_id"]
        self.entries.append(entry)

    def _name(self, entry: dict) -> str:
        if entry["type"] == "call":
            base = f"demo-{self.names[entry['run_id']]}-{entry['case_id']}"
        else:  # a judgement: the runner's cancel entries never happen here, nothing cancels
            base = f"demo-{self.names[entry['judging_id']]}-{self.case_of[entry['call_id']]}"
        return next(name for n in range(1, len(self.entries) + 2)
                    for name in [base if n == 1 else f"{base}-{n}"] if name not in self.ids)


def demo_entries() -> list[dict]:
    """Every entry of the demo log, in the order they were written (module doc). ``BuildFailed`` if pyapp grades
    an answer otherwise than the script meant, so the demo never shows what it does not say."""
    from pyapp.asking.judging import answers_to_judge, judge_answers
    from pyapp.asking.runner import run_eval
    from pyapp.auditlog.entries import rating_entry
    from pyapp.evaluation.rebuild import rebuild
    from pyapp.explanation.rubric import RUBRIC
    from pyapp.providers.settings import OPENAI_COMPATIBLE, Settings
    from sitegen.demo_model import DemoClock, ScriptedJudge, ScriptedModel, jitter

    log, clock = DemoEntries(), DemoClock(S.START)
    written: dict[str, tuple[str, str]] = {}
    problems: list[Problem] = []

    async def read_run(run: str):
        return rebuild(log.entries).run(run)

    async def ask(config: S.Configuration, number: int) -> None:
        run = S.run_id(config, number)
        log.names[run] = f"{config.label}{number}"
        clock.set(config.starts[number - 1])
        model = ScriptedModel({case: does[number - 1] for case, does in config.script.items()}, clock, run)
        settings = Settings(OPENAI_COMPATIBLE, config.model, config.max_tokens, config.temperature, S.BASE_URL)
        await run_eval(run, True, settings, None, read_run=read_run, append=log.append, emit=lambda _: None,
                       cancelled=lambda: False, now=clock.now, transport=model.transport, sleep=clock.sleep,
                       clock=clock.ms)
        written.update(model.written)
        for entry in log.entries:
            if entry["type"] == "call" and entry["run_id"] == run:
                meant = model.intended[entry["case_id"]]
                if entry["outcome"] != meant:
                    problems.append(Problem("sitegen/demo_script.py", 1, (
                        f"the demo's script means {entry['case_id']} of run {run} to be {meant}, but pyapp "
                        f"graded it {entry['outcome']}: change the script or the scripted model")))

    def rate(answers: tuple) -> None:
        for rater, start in S.RATERS.items():
            clock.set(start)
            for result in answers:
                does = S.RATED.script[result.case_id][0]
                no = S.PEOPLE_NO[rater].get(does, ())
                clock.advance(30_000 + 30 * jitter(rater, result.case_id))  # half a minute to a minute each
                log.add(rating_entry(f"demo-{rater.lower()}-{result.case_id}", clock.now(), result.entry_id, rater,
                                     RUBRIC.version, {key: key not in no for key in RUBRIC.keys},
                                     S.NOTES.get(does, "") if no else ""))

    async def judge(items: list, number: int) -> None:
        judging = S.judging_id(number)
        log.names[judging] = f"j{number}"
        clock.set(S.JUDGINGS[number - 1])
        judge_model = ScriptedJudge(written, clock, number - 1, S.JUDGE_CUT_SHORT if number == 1 else ())
        settings = Settings(OPENAI_COMPATIBLE, S.JUDGE_MODEL, 1000, 0.0, S.BASE_URL)
        await judge_answers(items, settings, None, judging, transport=judge_model.transport, sleep=clock.sleep,
                            clock=clock.ms, append=log.append, now=clock.now)

    async def write() -> None:
        for config in S.CONFIGURATIONS:
            for number in range(1, len(config.starts) + 1):
                await ask(config, number)
        rated = S.run_id(S.RATED, 1)
        rate(rebuild(log.entries).run(rated).graded)
        items = answers_to_judge(list(rebuild(log.entries)), [rated])
        for number in range(1, len(S.JUDGINGS) + 1):
            await judge(items, number)

    # A loop of its own in a thread of its own: the build may be called where a loop already runs (a test
    # driving a browser), and asyncio.run refuses to start inside one.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, write()).result()
    if problems:
        raise BuildFailed(problems)
    return log.entries


def demo_log() -> bytes:
    """The demo log's bytes: one entry a line, as ``python -m pyapp run --log`` writes them."""
    from pyapp.evaluation.export import log_line

    return "".join(log_line(entry) for entry in demo_entries()).encode("utf-8")


def wanted(out: Mapping[str, bytes]) -> bool:
    """Whether a site gets the demo log: it has the evaluation page, and its pages run Python."""
    return EVAL_PAGE in out and WORKER in out


def cached_demo_log(root: Path) -> bytes:
    """:func:`demo_log`, kept in the project's ``.cache/demo-log`` under a hash of pyapp's files and the demo's
    modules: writing it runs six runs and two judgings through pyapp, which a build with neither changed need
    not do (DR-001)."""
    digest = hashlib.sha256(pyapp_digest().encode())
    for name in MODULES:
        digest.update(b"\0" + (Path(__file__).parent / name).read_bytes())
    cached = root / DEMO_LOG_CACHE / f"{digest.hexdigest()[:24]}.jsonl"
    if cached.is_file():
        return cached.read_bytes()
    data = demo_log()
    if cached.parent.is_dir():
        shutil.rmtree(cached.parent)  # the log of earlier code
    cached.parent.mkdir(parents=True)
    write_atomically(cached, data)
    return data
