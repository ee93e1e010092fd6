"""The case × run matrix: ``report --matrix`` equals ``report --json``'s outcomes cell for cell, flips are
marked where they were designed, and the text shows each cell's letter (DR-008)."""

from __future__ import annotations

import json

import pytest

from designed_logs import LARGE_IDS, eighty_by_ten, entries_for_the_matrix
from eval_helpers import full_run
from pyapp.cli.main import main
from pyapp.evaluation.evalset import FIXED_SETS, LARGE_SET_VERSION
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.case_matrix import (
    CELLS,
    LETTERS,
    PAGE_RUNS,
    case_matrix,
    format_case_matrix,
    page_matrix,
)
from pyapp.presentation.run_names import run_names, short_id


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("matrix") / "log.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries_for_the_matrix()), encoding="utf-8")
    return path


def cli_json(capsys, *args: str) -> object:
    assert main(["report", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_cell_is_the_outcome_report_json_gives_that_case_in_that_run(capsys, log_file):
    matrix = cli_json(capsys, str(log_file), "--matrix")
    reports = {r["run_id"]: r for r in cli_json(capsys, str(log_file))}
    compared = set()
    for section in matrix["sets"]:
        columns = [run["run_id"] for group in section["groups"] for run in group["runs"]]
        for row_index, row in enumerate(section["rows"]):
            assert len(row["cells"]) == len(columns)
            for run_id, cell in zip(columns, row["cells"], strict=True):
                case = reports[run_id]["cases"][row_index]
                assert case["case_id"] == row["case_id"]
                assert cell == (case["outcome"] if case["status"] == "graded" else case["status"])
                compared.add(run_id)
    assert compared == set(reports)  # every run has its column
    kinds = {cell for section in matrix["sets"] for row in section["rows"] for cell in row["cells"]}
    assert kinds == {str(name) for name, _, _ in CELLS}  # the log shows every kind of cell


def test_runs_are_grouped_by_configuration_oldest_first_and_sets_apart():
    matrix = case_matrix(list(rebuild(entries_for_the_matrix())))
    fixed, large = matrix["sets"]
    assert [[run["run_id"] for run in g["runs"]] for g in fixed["groups"]] == [
        ["x1", "x2", "x3", "run-20261206-120000-c0ffee"], ["y1", "y2"], ["mixed"]]
    assert [g["configuration"] is None for g in fixed["groups"]] == [False, False, True]
    # One letter per configuration of the log, not per set; a run of no configuration has none.
    assert [(g["name"], g["letter"]) for g in fixed["groups"] + large["groups"]] == [
        ("A", "A"), ("B", "B"), ("--", None), ("C", "C")]
    assert [g["config_name"] for g in fixed["groups"] + large["groups"]] == [
        "A · claude-test-1", "B · gpt-test-1", None, "C · claude-test-1"]
    assert [row["case_id"] for row in fixed["rows"]] == list(FIXED_SETS.case_ids())
    assert [row["case_id"] for row in large["rows"]] == LARGE_IDS
    assert large["eval_set_version"] == LARGE_SET_VERSION and len(large["groups"]) == 1


def test_flips_are_marked_in_the_configuration_where_answers_disagree():
    matrix = case_matrix(list(rebuild(entries_for_the_matrix())))
    fixed, large = matrix["sets"]
    x, y, apart = (g["configuration"] for g in fixed["groups"])
    flipped = {row["case_id"]: row["flipped_in"] for row in fixed["rows"] if row["flipped_in"]}
    # The fourth run of X answers C13 with a model failure and C14 wrongly, where the others were grounded.
    assert flipped == {"C13": [x], "C14": [x], "C16": [x], "C17": [x], "C18": [y], "C19": [y]}
    assert fixed["groups"][0]["flipping"] == ["C13", "C14", "C16", "C17"]
    assert apart is None and fixed["groups"][2]["flipping"] == []
    assert [row["case_id"] for row in large["rows"] if row["flipped_in"]] == LARGE_IDS[60:65] + LARGE_IDS[70:72]


def test_runs_are_named_by_short_id_and_place_in_their_configuration():
    names = run_names(list(rebuild(entries_for_the_matrix())))
    assert names["run-20261206-120000-c0ffee"] == {"short": "c0ffee", "ordinal": 4, "column": "#4",
                                                   "label": "c0ffee #4"}
    assert names["y2"]["label"] == "y2 #2" and names["big2"]["ordinal"] == 2
    assert names["mixed"] == {"short": "mixed", "ordinal": None, "column": "--", "label": "mixed (no configuration)"}
    assert short_id("run-20261206-031330-a1b2c3") == "a1b2c3"


def test_the_text_has_a_letter_per_cell_and_a_mark_per_flip(capsys, log_file):
    assert main(["report", str(log_file), "--matrix"]) == 0
    text = capsys.readouterr().out
    matrix = case_matrix(list(rebuild(entries_for_the_matrix())))
    assert text.rstrip("\n") == format_case_matrix(matrix)
    assert len(set(LETTERS.values())) == len(CELLS)
    lines = text.splitlines()
    for section in matrix["sets"]:
        for row in section["rows"]:
            line = next(line for line in lines if line.split()[:1] == [row["case_id"]]
                        and len(line.split()) >= len(row["cells"]) + 1
                        and lines.index(line) > lines.index(f"set {section['set_label']} "
                                                            f"({len(section['rows'])} cases)"))
            letters = [word for word in line.split()[1:] if word != "*"]
            assert letters == [LETTERS[cell] for cell in row["cells"]]
            assert line.count("*") == len(row["flipped_in"])
    assert "--  belongs to no configuration: its calls used different settings; runs mixed (no configuration)" in text


@pytest.mark.parametrize("flags", [["--run", "x1"], ["--configurations"]])
def test_the_matrix_takes_every_run_and_no_other_view(capsys, log_file, flags):
    with pytest.raises(SystemExit) as ended:
        main(["report", str(log_file), "--matrix", *flags])
    assert ended.value.code == 2
    assert "--matrix" in capsys.readouterr().err


def test_eighty_cases_by_ten_runs_fit_a_line_of_a_terminal():
    text = format_case_matrix(case_matrix(list(rebuild(eighty_by_ten()))))
    rows = [line for line in text.splitlines() if line.split()[:1] and line.split()[0] in LARGE_IDS]
    assert len(rows) == 80
    assert max(len(line) for line in rows) <= 80


def test_the_page_draws_the_newest_forty_runs_and_says_so():
    runs = list(rebuild([entry for i in range(PAGE_RUNS + 2) for entry in full_run(f"r{i:02d}", start=100 * i)]))
    drawn = page_matrix(runs)
    columns = [run["run_id"] for section in drawn["sets"] for group in section["groups"] for run in group["runs"]]
    assert columns == [f"r{i:02d}" for i in range(2, PAGE_RUNS + 2)]
    assert drawn["note"] == ("The newest 40 of the 42 runs; python -m pyapp report LOG --matrix prints them all.")
    group = drawn["sets"][0]["groups"][0]
    # Named as everywhere else, by its letter and model, though asked for by its id.
    assert group["config_name"] == "A · claude-test-1"
    assert page_matrix(runs[:3], group["configuration"])["note"] == "All 3 runs of configuration A · claude-test-1."
    assert page_matrix(runs[:1])["note"] == "The one run." and page_matrix([])["note"] == "No runs yet."
