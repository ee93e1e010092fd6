"""A reopened page starts from the worker's kept read of the audit log (pyapp.auditlog.checkpoint, DR-006).

On CPython with the worker's JavaScript stood in for (``worker`` in conftest.py): ``worker.kept``
is the checkpoint the page keeps in IndexedDB. Every view of a worker that started from a
checkpoint must equal a fresh read of the whole log, whatever happened to the log or to the
checkpoint in between.
"""

from __future__ import annotations

import json
import marshal

import pytest

from eval_helpers import full_run
from pyapp.auditlog import checkpoint as log_checkpoint
from pyapp.auditlog.checkpoint import Checkpoint
from pyapp.browser import log_cache, opening_view
from pyapp.core import strict_json
from pyapp.core.vocabulary import Outcome
from worker_views import CORRUPT_RECORDS, counting, fresh_views, handle, store, views

RUNS = ["run-a", "run-b", "run-c"]


def fill(worker) -> None:
    store(worker, full_run("run-a", grounded={"C01", "C02", "C03"}))
    worker.stored.extend(CORRUPT_RECORDS[:2])
    store(worker, full_run("run-b", start=100.0, grounded=set()))


def new_tab(monkeypatch) -> None:
    """A new worker: nothing read, nothing graded (the checkpoint in ``worker.kept`` stays)."""
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())
    monkeypatch.setattr(opening_view, "VIEW", opening_view.OpeningView())
    log_cache.grader.cache_clear()


def parsed(texts: list[str]) -> tuple[int, int]:
    """How many stored entries and how many answers (graded) ``strict_json.loads`` was given."""
    return (sum(text.startswith('{"format"') for text in texts),
            sum(text.startswith('{"walkthrough"') for text in texts))


@pytest.fixture
def every_forty(monkeypatch):
    monkeypatch.setattr(log_checkpoint, "EVERY", 40)


def test_a_new_worker_starts_from_the_checkpoint_and_reads_only_what_came_after(worker, monkeypatch, every_forty):
    fill(worker)
    first = views(RUNS[:2])
    assert worker.kept is not None  # 42 records read: a checkpoint was kept after the list
    graded = {entry["answer"] for entry in full_run("run-a", grounded={"C01", "C02", "C03"})
              + full_run("run-b", start=100.0, grounded=set())}
    appended = full_run("run-c", start=200.0)[:7]
    store(worker, appended)  # another tab appends after it

    new_tab(monkeypatch)
    texts = counting(monkeypatch, strict_json, "loads")
    overview = handle("eval_overview")
    assert worker.marks == [("audit-log-restored", 42)]
    # The seven new records are read, and only their answers not graded before are graded.
    assert parsed(texts) == (7, len({entry["answer"] for entry in appended} - graded)) != (7, 7)
    restored = views(RUNS)
    assert restored["overview"] == overview and overview["runs"][1:] == first["overview"]["runs"]
    worker.kept = None
    assert restored == fresh_views(monkeypatch, RUNS)


def test_a_checkpoint_is_kept_only_once_enough_records_are_new(worker, monkeypatch, every_forty):
    store(worker, full_run("run-a"))
    handle("eval_overview")
    assert worker.kept is None  # 20 records: reading them again costs less than keeping them
    store(worker, full_run("run-b", start=100.0))
    handle("eval_overview")
    kept = worker.kept
    assert log_checkpoint.loads(kept).records == 40
    store(worker, full_run("run-c", start=200.0)[:10])
    handle("eval_overview")
    assert worker.kept is kept
    store(worker, full_run("run-c", start=200.0)[10:] + full_run("run-d", start=300.0))
    handle("eval_overview")
    assert log_checkpoint.loads(worker.kept).records == 80


def test_a_read_kept_before_grading_is_kept_again_once_the_list_has_graded_it(worker, monkeypatch):
    monkeypatch.setattr(log_checkpoint, "EVERY", 20)
    fill(worker)
    handle("audit_log")  # the log's own view: read, nothing graded
    assert log_checkpoint.loads(worker.kept).outcomes == {}
    overview = handle("eval_overview")  # no new record, 23 answers graded
    assert len(log_checkpoint.loads(worker.kept).outcomes) == len(log_cache.grader().outcomes()) == 23

    new_tab(monkeypatch)
    texts = counting(monkeypatch, strict_json, "loads")
    assert handle("eval_overview") == overview
    assert parsed(texts) == (0, 0)


@pytest.mark.parametrize("change", ["cleared and refilled", "last record rewritten", "records removed"])
def test_a_checkpoint_the_store_no_longer_matches_is_dropped_for_a_full_read(worker, monkeypatch, every_forty,
                                                                              change):
    fill(worker)
    views(RUNS[:2])
    if change == "cleared and refilled":
        worker.stored = []
        store(worker, full_run("run-c") + full_run("run-a", start=100.0) + full_run("run-b", start=200.0))
    elif change == "last record rewritten":
        worker.stored[-1] = worker.stored[-1].replace('"C20"', '"C19"')
    else:
        del worker.stored[-3:]
        store(worker, full_run("run-c", start=200.0)[:3])
    new_tab(monkeypatch)
    texts = counting(monkeypatch, strict_json, "loads")
    runs = [run["run_id"] for run in handle("eval_overview")["runs"]]
    assert parsed(texts)[0] == sum(text.startswith('{"format"') for text in worker.stored)  # read in full
    restored = views(runs)
    worker.kept = None
    assert restored == fresh_views(monkeypatch, runs)


DAMAGE = {
    "empty": b"",
    "truncated": lambda kept: kept[: len(kept) // 2],
    "not marshal": b"\x00" * 4096,
    "another format": lambda kept: marshal.dumps((2, *marshal.loads(kept)[1:])),
    "an entry not an object": lambda kept: marshal.dumps(
        (1, [*marshal.loads(kept)[1][:-1], ["call"]], *marshal.loads(kept)[2:])),
    "counts that do not add up": lambda kept: marshal.dumps(
        (*marshal.loads(kept)[:4], marshal.loads(kept)[4] + 1, marshal.loads(kept)[5])),
    "an outcome no grader gives": lambda kept: marshal.dumps(
        (*marshal.loads(kept)[:5], dict.fromkeys(marshal.loads(kept)[5], "excellent"))),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_checkpoint_is_not_used(worker, monkeypatch, every_forty, damage):
    fill(worker)
    views(RUNS[:2])
    how = DAMAGE[damage]
    worker.kept = how(worker.kept) if callable(how) else how
    assert log_checkpoint.loads(worker.kept) is None
    new_tab(monkeypatch)
    restored = views(RUNS[:2])
    assert worker.marks == []
    worker.kept = None
    assert restored == fresh_views(monkeypatch, RUNS[:2])


def test_outcomes_come_back_as_the_grader_gives_them(worker, every_forty):
    fill(worker)
    handle("eval_overview")
    checkpoint = log_checkpoint.loads(worker.kept)
    assert set(checkpoint.outcomes.values()) == {Outcome.GROUNDED, Outcome.NOT_GROUNDED}
    assert all(type(value) is Outcome for value in checkpoint.outcomes.values())
    assert checkpoint.outcomes == log_cache.grader().outcomes()
    assert log_checkpoint.loads(log_checkpoint.dumps(checkpoint)) == checkpoint


def test_marshal_shares_each_answer_text_between_the_entries_and_the_outcomes():
    entries = [{"answer": "x" * 10_000 + str(n)} for n in range(10)]
    outcomes = {("hash", entry["answer"], "end_turn"): Outcome.GROUNDED for entry in entries}
    data = log_checkpoint.dumps(Checkpoint(entries, 0, [10, "{}"], 10, outcomes))
    assert len(data) < 2 * 10 * 10_000


def test_the_entries_read_and_restored_hold_one_copy_of_each_repeated_value(worker, monkeypatch, every_forty):
    fill(worker)
    handle("eval_overview")

    def copies(entries: list[dict]) -> tuple[int, int]:
        """How many settings objects, and how many case id objects, the entries hold."""
        return len({id(e["settings"]) for e in entries}), len({id(e["case_id"]) for e in entries})

    assert copies(log_cache.LOG.entries) == (1, 20)  # forty calls of one settings over the twenty cases
    unshared = Checkpoint([json.loads(json.dumps(e)) for e in log_cache.LOG.entries], 2, [42, "{}"], 42, {})
    shared = Checkpoint(log_cache.LOG.entries, 2, [42, "{}"], 42, {})
    assert len(log_checkpoint.dumps(shared)) < len(log_checkpoint.dumps(unshared)) - 40 * 100
    new_tab(monkeypatch)
    handle("eval_overview")
    assert worker.marks == [("audit-log-restored", 42)]
    assert copies(log_cache.LOG.entries) == (1, 20)
