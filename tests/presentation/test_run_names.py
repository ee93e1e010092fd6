"""One letter per configuration of a log, in the order of the configurations' first runs, past Z too, and the
same in a matrix of some runs only; the names read back to the run or configuration they name (DR-008)."""

from __future__ import annotations

import re

import pytest

from eval_helpers import SETTINGS, call, full_run
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.case_matrix import PAGE_RUNS, case_matrix, format_case_matrix, page_matrix
from pyapp.presentation.name_lookup import AmbiguousName, find_configuration, find_run
from pyapp.presentation.repeat_report import configuration_compare_report, configurations_report
from pyapp.presentation.run_names import letter, log_names


@pytest.mark.parametrize(("index", "expected"), [
    (0, "A"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA"),
])
def test_letters_go_on_past_z_as_spreadsheet_columns_do(index, expected):
    assert letter(index) == expected


def one_call_runs(count: int) -> list[dict]:
    """``count`` runs of one call each, every one its own configuration (its max tokens), written newest first:
    run ``r00`` (max tokens 1000) is the oldest."""
    return [call(f"r{i:02d}", "C01", time=10.0 * i, settings={**SETTINGS, "max_tokens": 1000 + i})
            for i in reversed(range(count))]


def test_twenty_eight_configurations_are_a_to_z_then_aa_and_ab_in_every_view():
    runs = list(rebuild(one_call_runs(28)))
    expected = [chr(ord("A") + i) for i in range(26)] + ["AA", "AB"]
    listed = configurations_report(runs)["configurations"]
    assert [g["letter"] for g in listed] == expected
    assert [g["configuration"]["max_tokens"] for g in listed] == list(range(1000, 1028))  # by first run
    assert listed[27]["config_name"] == "AB · claude-test-1"
    (section,) = case_matrix(runs)["sets"]
    assert [g["name"] for g in section["groups"]] == [g["letter"] for g in section["groups"]] == expected
    grouped = group_runs(runs)
    compared = configuration_compare_report(grouped, listed[27]["id"], listed[26]["id"])
    assert (compared["x"]["letter"], compared["y"]["letter"]) == ("AB", "AA")
    assert find_configuration(log_names(runs), "AA") == listed[26]["id"]


def test_two_letter_names_head_their_columns_in_the_text():
    text = format_case_matrix(case_matrix(list(rebuild(one_call_runs(28)))))
    lines = text.splitlines()
    titles = next(i for i, line in enumerate(lines) if line.split()[:2] == ["A", "B"])
    starts = [[m.start() for m in re.finditer(r"\S+", line)] for line in lines[titles:titles + 3]]
    assert lines[titles].split()[-2:] == ["AA", "AB"]
    assert starts[0] == starts[1] == starts[2][1:]  # each letter above its run's column and its cell


def test_a_matrix_of_some_runs_keeps_the_letters_of_the_whole_log():
    # Configuration A's two runs are the oldest; B has the newest PAGE_RUNS runs.
    entries = [call("a1", "C01", time=0.0), call("a2", "C01", time=1.0)]
    entries += [call(f"b{i:02d}", "C01", time=10.0 + i, settings={**SETTINGS, "max_tokens": 10})
                for i in range(PAGE_RUNS)]
    runs = list(rebuild(entries))
    b_id = configurations_report(runs)["configurations"][1]["id"]
    for drawn in (page_matrix(runs), page_matrix(runs, b_id)):
        (section,) = drawn["sets"]
        assert [(g["name"], g["letter"], g["config_name"]) for g in section["groups"]] == [
            ("B", "B", "B · claude-test-1")]
        assert [run["label"] for run in section["groups"][0]["runs"]][:2] == ["b00 #1", "b01 #2"]
    (alone,) = page_matrix(runs, "a2")["sets"]
    assert [g["letter"] for g in alone["groups"]] == ["A"]
    assert case_matrix(runs[2:])["sets"][0]["groups"][0]["letter"] == "A"  # without the whole log's names


def test_a_whole_id_wins_over_the_end_of_another_and_a_run_of_no_configuration_names_none():
    entries = full_run("x1") + full_run("bx1", start=100)
    entries += full_run("mixed", start=200)[:19] + [call("mixed", "C20", time=220, settings={**SETTINGS, "model": "m"})]
    names = log_names(list(rebuild(entries)))
    assert find_run(names, "x1") == "x1" and find_run(names, "bx1") == "bx1" and find_run(names, "ed") == "mixed"
    with pytest.raises(AmbiguousName) as refused:
        find_run(names, "1")
    assert str(refused.value) == ("'1' is the end of 2 runs' ids: x1 (x1, #1 of A); bx1 (bx1, #2 of A); "
                                  "give more of the id")
    with pytest.raises(ValueError, match="^an empty name means no run$"):
        find_run(names, "")
    with pytest.raises(ValueError, match="^run mixed belongs to no configuration: its calls used different settings$"):
        find_configuration(names, "ed")
    assert find_configuration(names, "A") == find_configuration(names, "x1") == find_configuration(names, "bx1")
