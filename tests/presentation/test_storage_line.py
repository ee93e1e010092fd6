"""The storage line's words and size (DR-015), and how the page's worker reads a kept file and words a refused
write."""

from __future__ import annotations

import json

import pytest

from eval_helpers import full_run
from pyapp.auditlog import checkpoint as log_checkpoint
from pyapp.browser import log_cache
from pyapp.browser.keeping_ops import ids_in, is_log_of_this_site
from pyapp.browser.worker_io import unstored_sentence
from pyapp.evaluation.export import export_json, log_line
from pyapp.presentation.storage_line import StorageFacts, fmt_bytes, kept_file_lost, storage_line, unstored_downloaded
from worker_views import handle

FACTS = StorageFacts(entries=1234, entry_bytes=2_345_678, usage=45_100_000, quota=12_000_000_000, persisted=False,
                     last_export=None, engine="other", kept_file=None)


@pytest.mark.parametrize(("size", "shown"), [(0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1.0 kB"),
                                             (2_345_678, "2.3 MB"), (12_000_000_000, "12.0 GB")],
                         ids=["nothing", "one byte", "bytes", "kB", "MB", "GB"])
def test_sizes_are_said_in_powers_of_a_thousand(size, shown):
    assert fmt_bytes(size) == shown


@pytest.mark.parametrize(("change", "said", "warning"), [
    ({}, "Not persisted: the browser may delete it. Never exported.", "may delete the log when the disk runs low"),
    ({"engine": "webkit"}, "Not persisted", "after 7 days of using Safari without a visit here"),
    ({"persisted": True, "last_export": "2026-12-07T09:39:01.450Z"},
     "Persisted: the browser has promised to keep it. Last export: 2026-12-07.", None),
    ({"persisted": None}, "This browser does not say whether it will keep it.", "may delete the log"),
    ({"kept_file": "log.jsonl"}, "Every entry is also written to log.jsonl.", "deletes it at once."),
], ids=["not persisted", "safari", "persisted and exported", "unknown", "kept file"])
def test_the_line_says_what_is_held_and_what_may_be_deleted(change, said, warning):
    line = storage_line(StorageFacts(**{**FACTS.__dict__, **change}))
    assert line["text"].startswith("Your audit log: 1,234 entries, 2.3 MB. This site uses 45.1 MB of this "
                                   "browser's storage, 12.0 GB left.")
    assert said in line["text"]
    assert (line["warning"] is None) if warning is None else warning in line["warning"]
    if change.get("kept_file"):
        assert not line["warning"].endswith("a file you choose."), "no file is offered when one is kept"


def test_a_browser_without_an_estimate_says_no_space():
    line = storage_line(StorageFacts(**{**FACTS.__dict__, "usage": None, "quota": None}))
    assert "This site uses" not in line["text"]


def test_a_kept_file_is_read_for_its_ids_leniently():
    kept = b'{"id":"a","type":"call"}\nnot json\n[1]\n{"id":"b"}\n{"id":"c","ty'
    assert ids_in(kept) == {"a", "b"}
    assert ids_in(b"") == set()


@pytest.mark.parametrize(("kept", "taken"), [
    (b"", True), (b"\n\n", True), (log_line(full_run("r")[0]).encode() + b"not json", True),
    ("\ufeff".encode() + log_line(full_run("r")[0]).encode(), True),
    (b"\n" + log_line(full_run("r")[0]).encode()[:-1], True),
    (b"# my notes\n" + log_line(full_run("r")[0]).encode(), False), (b'{"id": "a", "type": "call"}\n', False),
    (export_json(full_run("r")).encode(), False), (b"[1, 2]\n", False),
], ids=["empty", "blank lines", "a log with a broken line after", "byte order mark", "no last line break",
        "notes first", "not a valid entry", "a JSON export", "JSON, not an entry"])
def test_only_an_empty_file_or_a_log_of_this_site_takes_the_logs_lines(kept, taken):
    assert is_log_of_this_site(kept) is taken


@pytest.mark.parametrize(("reason", "said"), [
    (json.dumps({"error": "QuotaExceededError: full", "kept": "log.jsonl"}),
     "is full (QuotaExceededError), so the audit log could not be written. The entries it could not store are in "
     "your file log.jsonl"),
    (json.dumps({"error": "QuotaExceededError: full", "kept": None}), "were offered as a download"),
    (json.dumps({"error": "UnknownError: disk", "kept": None}),
     "The audit log could not be written (UnknownError: disk); browser storage may be full or blocked. The entries"),
    ("AbortError", "The audit log could not be written (AbortError); browser storage may be full or blocked. "
     "Nothing was shown, so nothing unrecorded was used."),
], ids=["kept in the file", "downloaded", "another error", "from the store alone"])
def test_a_refused_write_says_where_the_entries_went(reason, said):
    assert said in unstored_sentence(reason)


@pytest.mark.parametrize("kept", ["log.jsonl", None], ids=["with a kept file", "without"])
def test_a_refused_import_says_nothing_was_imported_and_the_file_is_unchanged(kept):
    said = unstored_sentence(json.dumps({"error": "QuotaExceededError: full", "kept": kept}), from_file=True)
    assert said == ("Nothing was imported: this browser's storage for the site is full (QuotaExceededError). "
                    "The file you imported is unchanged: import it again once there is room.")


def test_the_kept_files_sentences_are_pythons():
    assert kept_file_lost("log.jsonl", "NotFoundError: gone").startswith(
        "Your file log.jsonl can no longer be written (NotFoundError: gone); the log goes on in this browser.")
    assert unstored_downloaded(1).startswith("This browser could not store 1 entry: it was downloaded")
    assert unstored_downloaded(3).startswith("This browser could not store 3 entries: they were downloaded")


FACTS_ARGS = {"usage": None, "quota": None, "persisted": True, "last_export": None, "engine": "other",
              "kept_file": None}


def test_the_lines_size_is_kept_as_the_log_is_read_appended_and_restored(worker, monkeypatch):
    monkeypatch.setattr(log_checkpoint, "EVERY", 10)
    worker.stored.extend(log_line(entry).rstrip("\n") for entry in full_run("run-a"))
    worker.stored.append("{not json")
    line = handle("storage_line", **FACTS_ARGS)
    size = sum(len(text.encode()) + 1 for text in worker.stored)
    assert log_cache.LOG.text_bytes == size and f"21 entries, {fmt_bytes(size)}." in line["text"]
    handle("import_audit", file=export_json(full_run("run-b", start=100.0)).encode())  # the worker's own append
    size = sum(len(text.encode()) + 1 for text in worker.stored)
    assert log_cache.LOG.text_bytes == size
    assert worker.kept is not None, "a checkpoint was kept"
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())  # a new tab starts from the checkpoint
    handle("eval_overview")
    assert log_cache.LOG.text_bytes is None, "a checkpoint keeps no texts"
    handle("storage_line", **FACTS_ARGS)
    assert log_cache.LOG.text_bytes == size - len("{not json") - 1, "serialised once from the entries"
