"""A baseline edited after it was written (DR-008): ``diff`` refuses any edit its digests show and names the header
field or case edited, ``--accept-edited`` goes on and says so, and ``baseline --verify`` finds an edit made with
every digest recomputed by rebuilding the baseline from its log."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path

import pytest

from eval_helpers import full_run
from live_call import run_async
from pyapp import browser
from pyapp.cli.exit_status import BAD_INPUT, OK, REJECTED, USAGE
from pyapp.cli.main import main
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import log_line

IDS = list(FIXED_SETS.case_ids())
# The baseline's run grounds C01-C16; the run checked drops C02 and C03, so no-new-fail rejects it.
BASE_GROUNDED = set(IDS[:16])
NEW_GROUNDED = BASE_GROUNDED - {"C02", "C03"}

# Every header field, with a value an editor could put there that the file's other checks still take.
HEADER_EDITS = [
    ("prompt_version", "explain-prompt-0"),
    ("prompt_set_hash", "0" * 64),
    ("configuration", "00000000"),
    ("provider", "openai"),
    ("model_requested", "claude-test-2"),
    ("models_reported", ["claude-test-2"]),
    ("system_fingerprints", ["fp_1"]),
    ("base_url_host", "127.0.0.1:8080"),
    ("temperature", 0.7),
    ("max_tokens", 8000),
    ("runs", ["run-other"]),
    ("date", "2026-12-01"),
    ("site_version", "0.0.9"),
]


def cli(*args: str) -> tuple[int, str, str]:
    """``python -m pyapp ARGS`` in this process: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A log (JSON lines, as run writes it) of two runs, and the baseline ``baseline`` writes of the first."""
    path = tmp_path_factory.mktemp("edits")
    entries = full_run("run-base", BASE_GROUNDED) + full_run("run-new", NEW_GROUNDED, start=100)
    (path / "runs.jsonl").write_text("".join(log_line(e) for e in entries), encoding="utf-8")
    status, _, err = cli("baseline", str(path / "runs.jsonl"), "--run", "run-base",
                         "--output", str(path / "baseline.json"))
    assert status == OK, err
    return path


def written(folder: Path) -> str:
    return (folder / "baseline.json").read_text(encoding="utf-8")


def with_field(text: str, key: str, value: object) -> str:
    """``text`` with header field ``key`` set to ``value`` on its line, as an editor would change it."""
    lines = text.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith(f'"{key}": '))
    lines[index] = f'"{key}": {json.dumps(value)},\n'
    return "".join(lines)


def with_case(text: str, case_id: str, old: str, new: str) -> str:
    line = next(x for x in text.splitlines() if f'"case_id": "{case_id}"' in x)
    assert old in line
    return text.replace(line, line.replace(old, new))


def recomputed(text: str) -> str:
    """``text`` with every digest recomputed as the README describes them: what an editor can do by hand."""
    doc = json.loads(text)
    lines = text.splitlines()
    header = lines[1:lines.index('"cases": [')]
    fields = [line.rstrip(",") for line in header if not line.startswith(('"header_digests"', '"case_digests"',
                                                                            '"content_sha256"'))]
    cases = lines[lines.index('"cases": [') + 1:-1]

    def digest(line: str) -> str:
        return hashlib.sha256(line.rstrip(",").encode()).hexdigest()[:16]

    content = {k: v for k, v in doc.items() if k not in ("header_digests", "case_digests", "content_sha256")}
    text = with_field(text, "header_digests", [digest(line) for line in fields])
    text = with_field(text, "case_digests", [digest(line) for line in cases])
    return with_field(text, "content_sha256", hashlib.sha256(
        json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest())


def diff(folder: Path, text: str, *more: str) -> tuple[int, str, str]:
    (folder / "edited.json").write_text(text, encoding="utf-8")
    return cli("diff", str(folder / "edited.json"), str(folder / "runs.jsonl"), "--run", "run-new", *more)


def test_the_baseline_as_written_is_checked_without_a_word_about_edits(folder):
    status, out, err = diff(folder, written(folder), "--json")
    report = json.loads(out)
    assert status == REJECTED and err == ""  # C02 and C03 went from grounded to not grounded
    assert (report["edited"], report["unchecked"], report["edited_text"]) == ([], None, None)


@pytest.mark.parametrize("key, value", HEADER_EDITS, ids=[key for key, _ in HEADER_EDITS])
def test_a_header_edit_is_refused_naming_the_field_and_accepted_only_when_asked(folder, key, value):
    edited = with_field(written(folder), key, value)
    assert edited != written(folder)
    status, out, err = diff(folder, edited)
    assert status == BAD_INPUT and out == ""
    assert err == (f"error: The baseline was edited after it was written: the header's {key} was edited. Write a new "
                   "baseline with python -m pyapp baseline, or check this one against its log with python -m pyapp "
                   "baseline --verify BASELINE LOG; if the edit is meant, accept it (diff --accept-edited, or "
                   "\"Accept an edited baseline\" on the page).\n")

    status, out, _ = diff(folder, edited, "--accept-edited")
    assert status == REJECTED
    assert f"after it was written, and the edit accepted: the header's {key} was edited\n" in out
    status, out, _ = diff(folder, edited, "--accept-edited", "--json")
    report = json.loads(out)
    assert status == REJECTED
    assert report["edited"] == [{"part": "header", "name": key, "text": f"the header's {key} was edited"}]
    assert report["edited_text"].endswith(f"the edit accepted: the header's {key} was edited")


def test_an_edited_eval_set_version_is_refused_naming_the_field_even_when_accepted(folder):
    edited = with_field(written(folder), "eval_set_version", "explain-eval-v1")
    for more in ((), ("--accept-edited",)):
        status, _, err = diff(folder, edited, *more)
        assert status == BAD_INPUT
        assert err.startswith("error: The header's eval_set_version was edited: it says explain-eval-v1, which its "
                              "digest does not match, and today's set is explain-eval-v2.")


@pytest.mark.parametrize("old, new", [
    ('["grounded"], "grounded": 1', '["not_grounded"], "grounded": 0'),
    ('"failing_checks": []', '"failing_checks": ["distance"]'),
], ids=["outcome-and-count", "failing-checks"])
def test_a_case_line_edit_is_refused_naming_the_case(folder, old, new):
    edited = with_case(written(folder), "C03", old, new)
    status, _, err = diff(folder, edited)
    assert status == BAD_INPUT
    assert err.startswith("error: The baseline was edited after it was written: case C03's line was edited. Write")
    status, out, _ = diff(folder, edited, "--accept-edited", "--json")
    assert json.loads(out)["edited"] == [{"part": "case", "name": "C03", "text": "case C03's line was edited"}]


def test_every_edit_is_named_at_once(folder):
    edited = with_case(with_field(written(folder), "temperature", 1.0), "C18", '"failing_checks": ["distance"]',
                       '"failing_checks": []')
    edited = with_field(edited, "model_requested", "claude-test-2")
    status, _, err = diff(folder, edited)
    assert status == BAD_INPUT
    assert ("edited after it was written: the header's model_requested was edited; the header's temperature was "
            "edited; case C18's line was edited. Write") in err


def test_a_digest_edited_alone_is_named_as_a_digest(folder):
    text = written(folder)
    digests = json.loads(text)["header_digests"]
    status, _, err = diff(folder, with_field(text, "header_digests", ["0" * 16, *digests[1:]]))
    assert status == BAD_INPUT and "after it was written: the digest of the header's eval_set_version was edited." \
        in err
    status, _, err = diff(folder, with_field(text, "content_sha256", "0" * 64))
    assert status == BAD_INPUT and ("the content no longer matches content_sha256, while every field and case line "
                                    "matches its own digest") in err


def test_an_edit_with_every_digest_recomputed_passes_diff_but_not_verify(folder):
    """Digests catch edits, not forgery: only the log the runs are in tells."""
    edited = recomputed(with_case(with_field(written(folder), "temperature", 0.7), "C03",
                                  '["grounded"], "grounded": 1', '["not_grounded"], "grounded": 0'))
    status, out, _ = diff(folder, edited, "--json")
    assert status == REJECTED and json.loads(out)["edited"] == []  # C02 went from grounded to not grounded
    status, out, err = cli("baseline", "--verify", str(folder / "edited.json"), str(folder / "runs.jsonl"))
    assert status == BAD_INPUT and err == ""
    assert out.splitlines() == [
        "the file against the baseline rebuilt from the log's run run-base",
        "the header's temperature: 0.7 in the file, 0.0 in the baseline rebuilt from the log",
        "case C03's outcomes: [\"not_grounded\"] in the file, [\"grounded\"] in the baseline rebuilt from the log",
        "case C03's grounded: 0 in the file, 1 in the baseline rebuilt from the log",
        "result: 3 differences; the file is not what its runs give",
    ]


def test_a_baseline_as_written_verifies(folder):
    status, out, err = cli("baseline", str(folder / "runs.jsonl"), "--verify", str(folder / "baseline.json"))
    assert (status, err) == (OK, "")
    assert out.splitlines()[-1] == "result: identical; every header field and case line is what its runs give"


def test_verify_names_a_digest_edited_alone_and_an_older_file_it_cannot_digest(folder):
    text = written(folder)
    (folder / "edited.json").write_text(with_field(text, "content_sha256", "f" * 64), encoding="utf-8")
    status, out, _ = cli("baseline", "--verify", str(folder / "edited.json"), str(folder / "runs.jsonl"))
    assert status == BAD_INPUT and out.splitlines()[1].startswith(f"content_sha256: {'f' * 64} in the file, ")
    older = "\n".join(x for x in text.splitlines() if not x.startswith(('"header_digests"', '"content_sha256"')))
    (folder / "edited.json").write_text(older.replace('"format_version": 3', '"format_version": 2'), encoding="utf-8")
    status, out, _ = cli("baseline", "--verify", str(folder / "edited.json"), str(folder / "runs.jsonl"))
    assert status == OK and out.splitlines()[1] == ("the file is of format 2; python -m pyapp baseline now writes "
                                                    "format 3, with a digest of each header field and of the whole "
                                                    "content")


@pytest.mark.parametrize("args, status, message", [
    (["baseline", "--verify", "{folder}/baseline.json", "{folder}/runs.jsonl", "--run", "run-base"], USAGE,
     "--verify takes the runs the baseline names; give no --run or --output with it"),
    (["baseline", "{folder}/runs.jsonl"], USAGE, "the following arguments are required: --run (or --verify BASELINE)"),
    (["baseline", "--verify", "{folder}/edited.json", "{folder}/runs.jsonl"], BAD_INPUT,
     "error: The log holds no run run-other, which the baseline names: give the log its runs were written to (or the "
     "header's runs were edited)."),
], ids=["verify-with-run", "neither", "run-not-in-log"])
def test_verify_is_refused_in_words(folder, args, status, message):
    (folder / "edited.json").write_text(recomputed(with_field(written(folder), "runs", ["run-other"])), "utf-8")
    done, _, err = cli(*[a.format(folder=folder) for a in args])
    assert done == status and message in err and "Traceback" not in err


def test_the_page_exports_the_same_file_and_refuses_the_same_edit(worker, folder):
    worker.stored.extend(line.rstrip("\n") for line in (folder / "runs.jsonl").read_text().splitlines())

    def handle(name: str, **args) -> dict:
        return json.loads(run_async(browser.handle(name, json.dumps(args))))

    assert handle("baseline_file", run_ids=["run-base"]) == {"ok": True, "value": written(folder)}
    edited = with_field(written(folder), "temperature", 0.7)
    _, _, err = diff(folder, edited)
    refused = handle("baseline_diff", baseline=edited, run_ids=["run-new"])
    assert refused == {"ok": False, "error": err.removeprefix("error: ").rstrip("\n")}
    accepted = handle("baseline_diff", baseline=edited, run_ids=["run-new"], accept_edited=True)
    assert accepted["value"]["edited_text"].endswith("the edit accepted: the header's temperature was edited")
