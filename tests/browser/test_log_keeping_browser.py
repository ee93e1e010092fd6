"""The log kept beyond the browser's storage (DR-015): persistent storage asked for at the first answer, the
storage line, a kept file written entry by entry that never loses what it held, a full storage mid-run that loses
no answer, and an import the full storage refuses that downloads nothing."""

from __future__ import annotations

import json

import pytest

from eval_helpers import full_run
from eval_page import ANTHROPIC, DUMP_DB, FakeAnthropic, cli, open_eval, show_view, wait_run_end
from page_checks import assert_accessible
from pyapp.evaluation.export import log_line
from pyapp.presentation.storage_line import fmt_bytes

pytestmark = pytest.mark.browser

# persist() recorded with how many cases had ended when it was called; the browser's own answer is returned.
RECORD_PERSIST = """(() => {
  const persist = StorageManager.prototype.persist;
  window.persistCalls = [];
  StorageManager.prototype.persist = async function () {
    const ended = document.querySelectorAll("#case-status li:not([data-state='waiting']):not([data-state='asking'])");
    const granted = await persist.call(this);
    window.persistCalls.push({ ended: ended.length, granted });
    return granted;
  };
})();"""
# The file pickers stand in as files of the origin-private file system, which a worker can write too: the save
# picker gives kept-log.jsonl, the open picker the file named by window.pickedFile (kept-log.jsonl by default).
PICK_OPFS_FILE = """(() => {
  const opfs = () => navigator.storage.getDirectory();
  window.showSaveFilePicker = async () => (await opfs()).getFileHandle("kept-log.jsonl", { create: true });
  window.showOpenFilePicker = async () => [await (await opfs()).getFileHandle(window.pickedFile ?? "kept-log.jsonl")];
})();"""
READ_OPFS_FILE = """async (name) => {
  const handle = await (await navigator.storage.getDirectory()).getFileHandle(name);
  return (await handle.getFile()).text();
}"""
WRITE_OPFS_FILE = """async ([name, text]) => {
  const handle = await (await navigator.storage.getDirectory()).getFileHandle(name, { create: true });
  const writable = await handle.createWritable();
  await writable.write(text);
  await writable.close();
}"""


def stored_ids(page) -> list[str]:
    return [json.loads(text)["id"] for text in page.evaluate(DUMP_DB)]


def import_file(page, path, added: int, skipped: int) -> None:
    show_view(page, "data")
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector(f"#import-message:has-text('Imported {added} entries ({skipped} were already here)')",
                           state="attached")


def test_persist_is_asked_at_the_first_answer_and_its_answer_is_shown(context, site):
    context.add_init_script(RECORD_PERSIST)
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    assert page.evaluate("window.persistCalls") == [], "an empty log asks nothing"
    page.click("#start-run")
    wait_run_end(page)
    calls = page.evaluate("window.persistCalls")
    assert len(calls) == 1 and calls[0]["ended"] == 1, "asked once, when the first case had its answer"
    persisted = page.evaluate("navigator.storage.persisted()")
    assert calls[0]["granted"] == persisted
    assert json.loads(page.evaluate("localStorage.getItem('kd-explorer-persist')"))["granted"] == persisted
    show_view(page, "data")
    line = page.locator(f"#data-storage[data-persisted='{str(persisted).lower()}']")  # drawn once the view shows
    line.wait_for(state="attached")
    said = "Persisted: the browser has promised to keep it." if persisted else "Not persisted: the browser may delete"
    assert said in line.inner_text()


def test_the_storage_line_is_the_stores_count_and_the_browsers_estimate(context, site, tmp_path):
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    page.click("#start-run")
    wait_run_end(page)
    show_view(page, "data")
    with page.expect_download():
        page.click("#data-storage .storage-warning button")  # the export one click from the warning
    page.wait_for_selector("#data-storage:has-text('Last export:')")
    before = page.evaluate("navigator.storage.estimate()")
    text = page.inner_text("#data-storage")
    after = page.evaluate("navigator.storage.estimate()")
    texts = page.evaluate(DUMP_DB)
    size = sum(len(t.encode()) + 1 for t in texts)  # each stored text as a line of the log
    assert f"Your audit log: {len(texts)} entries, {fmt_bytes(size)}." in text
    assert any(f"This site uses {fmt_bytes(e['usage'])} of this browser's storage, "
               f"{fmt_bytes(e['quota'] - e['usage'])} left." in text for e in (before, after)), (text, before, after)
    assert "may delete the log when the disk runs low" in text
    assert "Never exported" not in text
    assert "Export the log" in page.inner_text("#run-storage"), "the run view holds the same line"


def test_every_entry_of_a_run_goes_to_the_kept_file_which_imports_back_with_no_duplicates(context, site, tmp_path):
    context.add_init_script(PICK_OPFS_FILE)
    context.route(ANTHROPIC, FakeAnthropic(wrong={"C03"}))
    page = open_eval(context, site)
    show_view(page, "data")
    page.click("#data-storage [data-keep-file='new']")
    page.wait_for_selector("#data-storage:has-text('Every entry is now also written to kept-log.jsonl')")
    show_view(page, "run")
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page)
    assert page.is_hidden("#run-kept"), "no download is offered when every entry goes to the file"
    ids = stored_ids(page)
    page.wait_for_timeout(500)  # the file's last write ends just after the store's
    kept = page.evaluate(READ_OPFS_FILE, "kept-log.jsonl")
    lines = kept.splitlines()
    assert kept.endswith("\n") and [json.loads(line)["id"] for line in lines] == ids
    assert lines == page.evaluate(DUMP_DB), "each line is the entry's text as stored"
    path = tmp_path / "kept-log.jsonl"
    path.write_text(kept)
    assert [r["run_id"] for r in cli("report", str(path), "--json")] == [json.loads(lines[0])["run_id"]], \
        "the command line reads it"
    import_file(page, path, added=0, skipped=len(ids))

    page.reload()  # a later visit: the kept handle is written to again, without the entries it holds
    page.wait_for_selector("#data-storage:has-text('(0 entries written to it just now)')", timeout=90_000)
    fresh = context.browser.new_context()
    try:  # another browser gets every entry from the file, once
        other = fresh.new_page()
        other.goto(site.url + "ai-eval/?view=data")
        other.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        import_file(other, path, added=len(ids), skipped=0)
        assert stored_ids(other) == ids
    finally:
        fresh.close()


def test_storage_full_mid_run_hands_the_answer_over_as_a_download(browser, site, tmp_path):
    # The service worker's cache is left out so the quota is the log's alone: about ten entries fit.
    context = browser.new_context(accept_downloads=True, service_workers="block")
    try:
        fake = FakeAnthropic()
        context.route(ANTHROPIC, fake)
        cdp = context.new_cdp_session(context.new_page())
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": site.origin, "quotaSize": 160_000})
        page = open_eval(context, site)
        with page.expect_download() as download:
            page.click("#start-run")
            status = wait_run_end(page)
        assert "storage for the site is full (QuotaExceededError)" in status
        assert "offered as a download" in status
        stored = stored_ids(page)
        assert 0 < len(stored) < 20, "the storage filled up mid-run"
        path = tmp_path / "unstored.jsonl"
        download.value.save_as(path)
        unstored = [json.loads(line) for line in path.read_text().splitlines()]
        assert len(fake.asked) == len(stored) + 1 and [e["case_id"] for e in unstored] == [fake.asked[-1]]
        assert "Download them again" in page.inner_text("#run-storage")
    finally:
        context.close()
    fresh = browser.new_context()
    try:  # nothing was lost: the stored entries and the download make the whole run
        page = fresh.new_page()
        page.goto(site.url + "ai-eval/?view=data")
        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        import_file(page, path, added=1, skipped=0)
    finally:
        fresh.close()


def test_a_log_from_elsewhere_keeps_every_byte_and_gains_only_the_entries_it_lacks(context, site):
    context.add_init_script(PICK_OPFS_FILE)
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    page.click("#start-run")
    wait_run_end(page)
    first_run = page.evaluate(DUMP_DB)
    # 20 entries from elsewhere (as `run` writes them) and 3 of this browser's, the last line without its break.
    held = "".join(log_line(entry) for entry in full_run("run-elsewhere")) + "\n".join(first_run[:3])
    page.evaluate(WRITE_OPFS_FILE, ["kept-log.jsonl", held])
    show_view(page, "data")
    page.click("#data-storage [data-keep-file='existing']")
    page.wait_for_selector("#data-storage:has-text('(17 entries written to it just now)')")
    show_view(page, "run")
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page)
    page.wait_for_timeout(500)  # the file's last write ends just after the store's
    kept = page.evaluate(READ_OPFS_FILE, "kept-log.jsonl")
    assert kept.startswith(held), "what the file held is there, byte for byte"
    stored = page.evaluate(DUMP_DB)
    assert kept == held + "\n" + "".join(f"{text}\n" for text in stored[3:]), \
        "a line break ends its last line, then every entry it lacked, once"


def test_a_file_that_is_not_a_log_is_refused_and_left_as_it_was(context, site):
    context.add_init_script(PICK_OPFS_FILE)
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    notes = '\n# my notes\n{"id": "x", "type": "call"}\nno line break at the end'
    page.evaluate(WRITE_OPFS_FILE, ["notes.txt", notes])
    page.evaluate("window.pickedFile = 'notes.txt'")
    show_view(page, "data")
    page.click("#data-storage [data-keep-file='existing']")
    page.wait_for_selector("#data-storage .kept-file-message:has-text('is not a log of this site')")
    assert page.inner_text("#data-storage .kept-file-message") == (
        "The file you chose is not a log of this site (its first line is not an audit entry), so nothing was "
        "written to it; the log is kept in this browser as before.")
    assert page.locator("#data-storage [data-keep-file='resume']").count() == 0, "the refused file is forgotten"
    show_view(page, "run")
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page)
    assert page.is_visible("#run-kept"), "the run's download is offered instead"
    page.wait_for_timeout(500)
    assert page.evaluate(READ_OPFS_FILE, "notes.txt") == notes


def test_an_import_the_full_storage_refuses_downloads_nothing(browser, site, tmp_path):
    context = browser.new_context(accept_downloads=True, service_workers="block")
    try:
        cdp = context.new_cdp_session(context.new_page())
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": site.origin, "quotaSize": 160_000})
        page = context.new_page()
        downloads = []
        page.on("download", lambda download: downloads.append(download))
        page.goto(site.url + "ai-eval/?view=data")
        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        path = tmp_path / "runs.jsonl"
        text = "".join(log_line(entry) for n in range(10) for entry in full_run(f"run-{n}", start=100.0 * n))
        path.write_text(text)
        page.set_input_files("#import-file", str(path))
        page.wait_for_selector("#import-message[data-state='refused']", state="attached")
        assert page.inner_text("#import-message") == (
            "Nothing was imported: this browser's storage for the site is full (QuotaExceededError). The file you "
            "imported is unchanged: import it again once there is room.")
        page.wait_for_timeout(1000)
        assert downloads == [] and page.evaluate(DUMP_DB) == []
        assert "Download them again" not in page.inner_text("#data-storage")
        assert path.read_text() == text
    finally:
        context.close()


def test_the_storage_line_and_the_kept_file_controls_pass_axe(browser, site):
    # bypass_csp: the axe-core script is injected inline (as in test_layout_browser)
    context = browser.new_context(bypass_csp=True)
    context.add_init_script(PICK_OPFS_FILE)
    try:
        page = context.new_page()
        page.goto(site.url + "ai-eval/?view=data")
        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        page.wait_for_selector("#data-storage .storage-warning button")
        assert page.locator("#data-storage [data-keep-file]").count() == 2, "both pickers are offered"
        assert_accessible(page)
        show_view(page, "run")
        page.wait_for_selector("#run-storage .storage-warning button")
        assert_accessible(page)
    finally:
        context.close()


def test_a_kept_file_that_can_no_longer_be_written_is_said_once_in_pythons_words(context, site):
    context.add_init_script(PICK_OPFS_FILE)
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    show_view(page, "data")
    page.click("#data-storage [data-keep-file='new']")
    page.wait_for_selector("#data-storage:has-text('Every entry is now also written to kept-log.jsonl')")
    page.evaluate("async () => (await navigator.storage.getDirectory()).removeEntry('kept-log.jsonl')")
    show_view(page, "run")
    page.click("#start-run")
    assert "has an answer for every case" in wait_run_end(page), "the log goes on in the browser"
    assert len(page.evaluate(DUMP_DB)) == 20
    said = page.inner_text("#run-storage .kept-file-message")
    assert said.startswith("Your file kept-log.jsonl can no longer be written (NotFoundError") and said.endswith(
        "the log goes on in this browser. Choose a file again to keep a copy."), said
    assert page.locator("#run-storage [data-keep-file='resume']").count() == 1
