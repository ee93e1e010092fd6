"""The evaluation page's demo log, written at build time by a scripted model (sitegen.demo_log)."""

from __future__ import annotations

import gzip
import json
import urllib.request

import pytest

from cli_run import run_cli
from pyapp.auditlog.validation import validate_entry
from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from pyapp.evaluation.export import is_log, log_line, parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.prompt import format_number
from sitegen import builder, demo_log, demo_model, hosting
from sitegen.problems import BuildFailed
from sitegen.service_worker import kept_files


@pytest.fixture(scope="module")
def log_bytes() -> bytes:
    return demo_log.demo_log()


@pytest.fixture(scope="module")
def entries(log_bytes: bytes) -> list[dict]:
    return [json.loads(line) for line in log_bytes.decode("utf-8").splitlines()]


@pytest.fixture
def log_file(tmp_path, log_bytes: bytes) -> str:
    path = tmp_path / "demo-log.jsonl"
    path.write_bytes(log_bytes)
    return str(path)


def cli_json(*args: str) -> object:
    done = run_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_two_generations_are_byte_identical_and_small(log_bytes):
    assert demo_log.demo_log() == log_bytes
    assert 100_000 < len(log_bytes) < 600_000


def test_each_line_is_a_valid_audit_entry_as_run_writes_it_under_a_fixed_id_in_time_order(log_bytes, entries):
    lines = log_bytes.decode("utf-8").splitlines(keepends=True)
    assert len(lines) == len(entries) == 200
    for line, entry in zip(lines, entries, strict=True):
        assert validate_entry(entry) == [], entry["id"]
        assert log_line(entry) == line
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids) and all(i.startswith("demo-") for i in ids)
    assert {"demo-a1-C07", "demo-b3-C20", "demo-aino-C07", "demo-ben-C07", "demo-j1-C07", "demo-j2-C07"} <= set(ids)
    times = [e["time"] for e in entries]
    assert times == sorted(times) and times[0].startswith("2026-12-01T09:00:")
    assert {e["type"] for e in entries} == {EntryType.CALL, EntryType.RATING, EntryType.JUDGEMENT}


def test_the_page_and_the_command_line_import_it_whole(log_bytes, entries):
    assert is_log(log_bytes.decode("utf-8"))
    assert parse_import(log_bytes) == entries


def test_every_answer_is_asked_with_todays_prompt_so_none_is_stale(entries):
    runs = list(rebuild(entries))
    assert len(runs) == 6
    for run in runs:
        assert run.stale == () and run.regraded_differently == (), run.run_id
    for entry in (e for e in entries if e["type"] == EntryType.CALL):
        prompt = case_prompt(FIXED_SETS.case(entry["case_id"], entry["eval_set_version"]))
        assert (entry["prompt_version"], entry["prompt_hash"]) == (prompt.version, prompt.hash), entry["id"]


def test_report_shows_grounded_answers_failed_checks_model_failures_and_infrastructure_failures(log_file):
    runs = cli_json("report", log_file)
    assert [r["run_id"][-6:] for r in runs] == ["de0a01", "de0a02", "de0a03", "de0b01", "de0b02", "de0b03"]
    for run in runs:
        assert run["settings"]["provider"] == "openai-compatible"
        assert run["settings"]["base_url"] == "http://127.0.0.1:8080/v1"
        assert run["settings"]["model"].startswith("scripted-demo-")
        assert run["grounded"] > 0 and run["not_grounded"] > 0 and run["stale"] == []
    assert sum(r["model_failures"] for r in runs) >= 5
    unanswered = [f["reason"] for r in runs for f in r["infrastructure_failures"]]
    assert sorted(reason.split()[0].rstrip(":") for reason in unanswered) == ["network", "server"]
    cases = [c for r in runs for c in r["cases"]]
    assert {check for c in cases for check in c["failed_checks"]} == {
        "result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps"}
    assert any(len(c["failed_checks"]) >= 2 for c in cases)
    assert {c["failure"] for c in cases} >= {"truncated", "refusal", "invalid_json", "schema_mismatch"}


def test_two_configurations_of_three_runs_each_with_cases_that_flip(log_file):
    configurations = cli_json("report", log_file, "--configurations")["configurations"]
    assert [c["settings"]["model"] for c in configurations] == ["scripted-demo-a", "scripted-demo-b"]
    for configuration in configurations:
        figures = configuration["figures"]
        assert figures["k"] == 3
        assert figures["flip_rate"] > 0 and figures["flipping"]
        assert not configuration["drift"]["flagged"]
    a, b = (c["figures"]["mean_share"] for c in configurations)
    assert a > b  # model a, with the larger token limit, is the better one


def test_agreement_shows_two_raters_who_disagree_on_some_answers_and_a_judge(log_file):
    agreement = cli_json("agreement", log_file)
    assert agreement["raters"] == ["Aino", "Ben"] and agreement["ratings"] == 40
    [pair] = agreement["pairs"]
    assert any(q["agree"] < q["n"] for q in pair["questions"])  # they disagree on some answers
    assert any(q["agree"] == q["n"] for q in pair["questions"])
    [judge] = agreement["judges"]
    assert judge["model"] == "scripted-demo-judge" and judge["judgings"] == 2 and judge["requests"] == 40
    assert [f["failure"] for f in judge["failures"]] == ["truncated"]
    assert not judge["validated"]


def test_a_grade_the_script_did_not_mean_fails_the_build(monkeypatch):
    # Every distance copied a little off: the faithful answers are no longer grounded, as the script says they are.
    monkeypatch.setattr(demo_model, "_copied", lambda d: None if d is None else float(format_number(d)) + 1e-6)
    with pytest.raises(BuildFailed) as failure:
        demo_log.demo_log()
    assert "but pyapp graded it not_grounded" in str(failure.value.problems[0])


def test_the_log_is_kept_between_builds_under_a_hash_of_pyapp_and_the_demo(tmp_path, monkeypatch, log_bytes):
    monkeypatch.setattr(demo_log, "demo_log", lambda: log_bytes)
    assert demo_log.cached_demo_log(tmp_path) == log_bytes

    def refuse():
        raise AssertionError("written again")

    monkeypatch.setattr(demo_log, "demo_log", refuse)
    assert demo_log.cached_demo_log(tmp_path) == log_bytes  # read back
    monkeypatch.setattr(demo_log, "pyapp_digest", lambda: "another pyapp")
    with pytest.raises(AssertionError, match="written again"):
        demo_log.cached_demo_log(tmp_path)


def test_the_built_site_ships_it_for_offline_visits_and_compressed(dist, log_bytes):
    shipped = (dist / demo_log.DEMO_LOG).read_bytes()
    assert shipped == log_bytes
    assert gzip.decompress((dist / (demo_log.DEMO_LOG + ".gz")).read_bytes()) == shipped
    sw = (dist / "sw.js").read_text(encoding="utf-8")
    assert f'"{demo_log.DEMO_LOG}": "{kept_files({demo_log.DEMO_LOG: shipped})[demo_log.DEMO_LOG]}"' in sw
    htaccess = (dist / ".htaccess").read_text(encoding="utf-8")
    assert "AddType application/x-ndjson .jsonl\n" in htaccess
    assert hosting.JSON_LINES_TYPE in htaccess.split("DEFLATE")[1].split("\n")[0]


def test_the_dev_server_sends_it_as_json_lines_revalidated(site, log_bytes):
    with urllib.request.urlopen(site.url + demo_log.DEMO_LOG) as response:
        assert response.headers["Content-Type"] == "application/x-ndjson"
        assert response.headers["Cache-Control"] == "no-cache"
        assert response.read() == log_bytes


def test_a_site_whose_pages_run_no_python_gets_no_demo_log(project, tmp_path):
    files = builder.build(project, tmp_path / "dist")
    assert "ai-eval/index.html" in files and demo_log.DEMO_LOG not in files
