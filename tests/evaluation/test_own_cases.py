"""The visitor's own cases on CPython: the entry, the set's name, runs of it, and refusal to mix (DR-009)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_helpers import at, call, full_run
from fake_transport import KEY, SETTINGS, answer
from live_call import run_async
from pyapp.asking.runner import run_eval
from pyapp.auditlog.entries import own_case_entry
from pyapp.auditlog.validation import validate_entry
from pyapp.cli.main import main
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, evalset_summary
from pyapp.evaluation.export import export_json, merge, parse_import
from pyapp.evaluation.own_cases import MAX_OWN_CASES, OwnCases, own_cases_of, own_set_name
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import configuration_compare_report
from pyapp.presentation.report import run_report
from pyapp.presentation.run_comparison import compare_report

SEARCHES = [
    {"order": "shuffled", "kind": "nearest", "lon": 24.944, "lat": 60.17, "radius": None},
    {"order": "median-first", "kind": "radius", "lon": 24.95, "lat": 60.168, "radius": 0.003},
    {"order": "file", "kind": "nearest", "lon": 24.93, "lat": 60.165, "radius": None},
]


def own(searches=SEARCHES, start: float = 0.0) -> list[dict]:
    return [own_case_entry(f"own{i:04d}", at(start + i), s) for i, s in enumerate(searches)]


def test_an_own_case_entry_keeps_the_search_and_is_valid():
    entry = own_case_entry("o1", at(0), {**SEARCHES[0], "lon": 24.94400001234})
    assert entry["type"] == "own_case" and validate_entry(entry) == []
    assert entry["search"] == {**SEARCHES[0], "lon": 24.944}  # 7 decimals, as the fixed sets keep them
    assert set(entry) == {"format", "id", "type", "time", "search"}


@pytest.mark.parametrize(("change", "problem"), [
    ({"order": "sideways"}, "search.order: must be one of file"),
    ({"kind": "farthest"}, "search.kind: must be one of nearest, radius"),
    ({"radius": 0.003}, "search.radius: must be null for a nearest search"),
    ({"lon": 400.0}, "search.lon: must be a number from -180 to 180"),
    ({"lat": "60"}, "search.lat: must be a number"),
    ({"lon": 10**400}, "is a number out of range"),
    ({"extra": 1}, "search: must be an object with exactly order, kind, lon, lat, radius"),
])
def test_a_bad_own_case_is_refused_with_a_reason(change, problem):
    entry = {**own()[0], "search": {**SEARCHES[0], **change}}
    assert any(problem in p for p in validate_entry(entry)), validate_entry(entry)


def test_an_own_case_without_a_search_or_with_other_keys_is_refused():
    entry = own()[0]
    assert validate_entry({**entry, "search": None}) == ["search: is required: the search the visitor added"]
    assert validate_entry({**entry, "run_id": "r"}) == ["entry: unknown keys run_id"]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=6), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(search=_JSON | st.fixed_dictionaries({k: _JSON for k in SEARCHES[0]}))
def test_validation_never_raises_on_hostile_searches(search):
    problems = validate_entry({**own()[0], "search": search})
    assert isinstance(problems, list)


@pytest.mark.parametrize("search", [
    {"order": "file", "kind": "nearest", "lon": None, "lat": 1, "radius": None},
    {**SEARCHES[0], "lon": True}, {**SEARCHES[0], "lat": "60.17"}, {**SEARCHES[1], "radius": "0.003"},
    {**SEARCHES[0], "lon": 10**400}, {**SEARCHES[0], "lat": float("inf")}, [], "search",
])
def test_own_case_entry_refuses_a_search_without_a_usable_point_in_words(search):
    with pytest.raises(ValueError, match="needs a query point"):
        own_case_entry("o1", at(0), search)


def test_own_case_entry_refuses_a_bad_order_with_the_reason():
    with pytest.raises(ValueError, match="search.order"):
        own_case_entry("o1", at(0), {**SEARCHES[0], "order": "nope"})


def test_the_set_is_named_by_a_hash_of_its_canonical_case_list():
    mine = own_cases_of(own())
    canonical = json.dumps(["own-cases-v1", [[s["order"], s["kind"], float(s["lon"]), float(s["lat"]),
                                               s["radius"]] for s in SEARCHES]], separators=(",", ":"))
    assert mine.name == "own-" + hashlib.sha256(canonical.encode()).hexdigest()[:8]
    assert mine.name == "own-e38dfda7"  # pinned: a changed canonical form must get a new version
    assert [c.case_id for c in mine.cases] == ["Y01", "Y02", "Y03"]
    assert [c.kind for c in mine.cases] == ["own-nearest", "own-radius", "own-nearest"]
    assert mine.sets.cases(mine.name) == tuple(mine.cases)


def test_duplicates_count_once_and_numbers_compare_as_numbers():
    again = {**SEARCHES[0], "lon": 24.9440000}
    entries = own(SEARCHES + [again, SEARCHES[1]])
    entries.append({**own_case_entry("own-int", at(9), SEARCHES[2]),
                    "search": {**SEARCHES[2], "lat": 60}})  # an integer that went through JavaScript
    entries.append({**own_case_entry("own-int2", at(10), SEARCHES[2]),
                    "search": {**SEARCHES[2], "lat": 60.0}})
    mine = own_cases_of(entries)
    assert [c.case_id for c in mine.cases] == ["Y01", "Y02", "Y03", "Y04"]
    assert own_cases_of(own(SEARCHES[:3])).name == own_set_name(mine.keys[:3])


def test_every_earlier_state_of_the_set_stays_a_set_and_a_case_keeps_its_id():
    first = own_cases_of(own(SEARCHES[:2])).name
    mine = own_cases_of(own())
    later = mine.name
    assert first != later
    assert mine.sets.case_ids(first) == ("Y01", "Y02") and mine.sets.case_ids(later) == ("Y01", "Y02", "Y03")
    assert mine.sets.cases(first)[1] == mine.sets.cases(later)[1]
    assert own_cases_of(own(list(reversed(SEARCHES)))).name not in (first, later)  # order is part of the set


def test_an_own_set_the_log_does_not_hold_is_refused_in_words():
    with pytest.raises(ValueError, match="no set of your own cases named own-0badc0de in this log"):
        own_cases_of(own()).sets.check("own-0badc0de")


def test_a_set_name_means_only_what_its_own_log_holds():
    mine = own_cases_of(own())  # reading one log teaches nothing to another
    assert not FIXED_SETS.is_known(mine.name) and not own_cases_of(own(SEARCHES[:2])).sets.is_known(mine.name)
    with pytest.raises(ValueError, match=f"no set of your own cases named {mine.name} in this log"):
        FIXED_SETS.cases(mine.name)
    run = rebuild(own_run("run-own", mine, 10.0)).run("run-own")  # its calls without the own_case entries
    assert run.graded == () and run.eval_set_version == EVAL_SET_VERSION
    assert [n.reason for n in run.stale] == [
        f"asked under {mine.name}, a set of your own cases that this log does not hold"] * 3


def test_the_set_holds_at_most_eighty_cases():
    many = [{**SEARCHES[0], "lon": round(24.9 + i * 0.0001, 7)} for i in range(MAX_OWN_CASES + 2)]
    mine = own_cases_of(own(many + many[-1:]))
    assert len(mine.cases) == MAX_OWN_CASES and mine.beyond_limit == 2
    assert mine.summary().endswith("80 searches. 2 more came after the set was full (80 searches) and are not in it.")


def own_run(run_id: str, mine: OwnCases, start: float, grounded: frozenset[str] | None = None) -> list[dict]:
    """A run of ``mine`` as it is now."""
    return full_run(run_id, grounded, start=start, version=mine.name, sets=mine.sets)


def test_a_run_of_the_own_set_is_rebuilt_from_the_log_and_labelled():
    mine = own_cases_of(own())
    name = mine.name
    entries = own() + own_run("run-own", mine, 10.0, frozenset({"Y01", "Y03"}))
    run = rebuild(entries).run("run-own")
    assert run.eval_set_version == name and [c.case_id for c in run.cases] == ["Y01", "Y02", "Y03"]
    report = run_report(run)
    assert (report["graded"], report["grounded"]) == (3, 2)
    assert report["set_label"] == f"{name} (your own cases)"
    assert [(k["kind"], k["cases"]) for k in report["per_kind"]] == [("own-nearest", 2), ("own-radius", 1)]


def test_a_case_added_later_leaves_an_earlier_run_as_it_was():
    mine = own_cases_of(own(SEARCHES[:2]))
    first = mine.name
    entries = own(SEARCHES[:2]) + own_run("run-own", mine, 10.0) + own(SEARCHES[2:], start=50.0)[:1]
    entries[-1] = {**entries[-1], "id": "own-later"}
    run = rebuild(entries).run("run-own")
    assert run.eval_set_version == first and run.complete and len(run.cases) == 2


def test_a_run_of_an_own_set_never_met_is_stale_input():
    # A name is a hash of its cases, so a set met in any log is that set everywhere; one never met is unknown.
    entries = [call("run-own", f"Y0{i}", time=10.0 + i, eval_set_version="own-0badc0de", prompt_hash="a" * 64,
                    prompt_version="explain-prompt-1", answer="{}") for i in (1, 2)]
    run = rebuild(entries).run("run-own")
    assert len(run.graded) == 0 and run.eval_set_version == EVAL_SET_VERSION
    assert [n.reason for n in run.stale] == [
        "asked under own-0badc0de, a set of your own cases that this log does not hold"] * 2


def test_own_runs_are_never_compared_or_grouped_with_a_fixed_set():
    mine = own_cases_of(own())
    name = mine.name
    built = rebuild(own() + own_run("run-own", mine, 10.0) + full_run("run-v2", start=100.0))
    with pytest.raises(ValueError, match=f"{name} is a set of your own cases and {EVAL_SET_VERSION} a fixed set"):
        compare_report(built.run("run-own"), built.run("run-v2"))
    with pytest.raises(ValueError, match=f"{name} is a set of your own cases and {EVAL_SET_VERSION} a fixed set"):
        compare_report(built.run("run-v2"), built.run("run-own"))
    grouped = group_runs(list(built))
    assert [(g.configuration.eval_set_version, [r.run_id for r in g.runs]) for g in grouped.groups] == [
        (name, ["run-own"]), (EVAL_SET_VERSION, ["run-v2"])]
    with pytest.raises(ValueError, match="your own cases are never compared or grouped with a fixed set"):
        configuration_compare_report(grouped, "run-own", "run-v2", [])


def test_two_runs_of_the_same_own_set_are_compared():
    mine = own_cases_of(own())
    built = rebuild(own() + own_run("a", mine, 10.0) + own_run("b", mine, 20.0, frozenset({"Y01"})))
    report = compare_report(built.run("a"), built.run("b"))
    assert (report["paired"], report["better"], report["worse"]) == (3, 0, 2)


def test_a_one_run_export_carries_the_own_cases_and_imports_to_the_same_run():
    mine = own_cases_of(own())
    name = mine.name
    entries = own() + own_run("run-own", mine, 10.0) + full_run("run-v2", start=100.0)
    text = export_json(entries, "run-own")
    head = json.loads(text)
    assert head["eval_set_version"] == name
    assert [e["type"] for e in head["entries"]][:3] == ["own_case"] * 3
    again = rebuild(parse_import(text.encode())).run("run-own")
    assert again.complete and again.eval_set_version == name
    assert "own_case" in export_json(entries, "run-v2") and "own_case" in export_json(entries, explorer=True)


def test_the_runner_asks_every_own_case_of_the_chosen_set():
    entries = own()
    mine = own_cases_of(entries)
    name = mine.name

    async def append(new):
        entries.extend(new)

    async def read_run(run_id):
        return rebuild(entries).run(run_id)

    async def transport(request):
        return answer(request)

    async def sleep(_):
        return None

    result = run_async(run_eval("run-own", True, SETTINGS, KEY, read_run=read_run, append=append,
                                emit=lambda _: None, cancelled=lambda: False, transport=transport, sleep=sleep,
                                clock=lambda: 0.0, set_version=name, sets=mine.sets))
    assert result["stopped"] is None
    run = rebuild(entries).run("run-own")
    assert run.eval_set_version == name and [c.outcome for c in run.graded] == ["grounded"] * 3


def test_the_command_line_lists_reports_and_refuses_like_the_page(tmp_path, capsys):
    mine = own_cases_of(own())
    name = mine.name
    path = tmp_path / "export.json"
    path.write_text(export_json(own() + own_run("run-own", mine, 10.0) + full_run("run-v2", start=100.0)),
                    "utf-8")
    assert main(["evalset", "--set", "own", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name} (your own cases): 3 cases") and re.findall(r"^(Y\d\d) ", out, re.M) == [
        "Y01", "Y02", "Y03"]
    assert main(["evalset", "--set", name, str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"] == evalset_summary(version=name, sets=mine.sets) and data["summary"]["seed"] is None
    assert main(["prompt", "Y02", str(path), "--set", "own"]) == 0
    assert capsys.readouterr().out.startswith("# Y02: prompt ")
    assert main(["report", str(path), "--run", "run-own"]) == 0
    assert f"set {name} (your own cases)" in capsys.readouterr().out
    assert main(["compare", str(path), "--run", "run-own", "--run", "run-v2"]) == 1
    assert f"{name} is a set of your own cases" in capsys.readouterr().err
    assert main(["compare", str(path), "--config", "run-v2", "--config", "run-own"]) == 1
    assert "never compared or grouped with a fixed set" in capsys.readouterr().err


def test_the_command_line_needs_a_log_for_own_cases_only(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["evalset", "--set", "own"])
    assert "needs the export or log that holds your own cases" in capsys.readouterr().err
    empty = tmp_path / "empty.json"
    empty.write_text(export_json(full_run("run-v2")), "utf-8")
    assert main(["evalset", "--set", "own", str(empty)]) == 1
    assert "holds none of your own cases" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evalset", "--set", EVAL_SET_VERSION, str(empty)])
    assert "needs no LOG" in capsys.readouterr().err


def test_the_page_adds_a_search_once_and_offers_the_set_with_its_label(worker):
    from pyapp import browser

    def handle(name: str, **args) -> dict:
        return json.loads(run_async(browser.handle(name, json.dumps(args))))

    assert handle("own_set") == {"ok": True, "value": None}
    first = handle("add_own_case", search=SEARCHES[0])["value"]
    assert first["added"] and first["text"].startswith("Added as Y01. Your cases are own-")
    again = handle("add_own_case", search={**SEARCHES[0], "lon": 24.94400000001})["value"]
    assert not again["added"] and again["text"].startswith("This search is already Y01 of your cases.")
    for search in SEARCHES[1:]:
        handle("add_own_case", search=search)
    assert len([e for e in worker.stored if '"own_case"' in e]) == 3
    mine = own_cases_of(own())
    name = mine.name
    offer = handle("own_set")["value"]
    assert offer["eval_set_version"] == name and offer["cases"] == 3
    # Each entry names the set once its search is in it: every state, the last one the set offered now.
    stored = [json.loads(e) for e in worker.stored if '"own_case"' in e]
    assert [e["set"] for e in stored] == [own_cases_of(own(SEARCHES[:k])).name for k in (1, 2, 3)]
    assert stored[-1]["set"] == name
    assert offer["option"] == f"{name} (your own cases) (3 cases)"
    assert offer["text"].startswith(f"{name} (your own cases), 3 cases: the Wilson 95% interval")
    page = handle("evalset", set_version=name)["value"]
    assert page["summary"].startswith(f"{name} (your own cases): 3 searches you added in the explorer")
    assert [r["case_id"] for r in page["rows"]] == ["Y01", "Y02", "Y03"]
    assert handle("run_size_estimate", runs=1, set_version=name)["value"]["calls"] == 3
    bad = handle("add_own_case", search={**SEARCHES[0], "order": "<b>x</b>"})
    assert bad["ok"] is False and "search.order: must be one of file" in bad["error"] and "<b>" not in bad["error"]


def declared(searches, prefix: str, start: float = 0.0) -> list[dict]:
    """Own-case entries as the page writes them: each names the set once its search is in it."""
    mine, entries = OwnCases(), []
    for i, search in enumerate(searches):
        entry = own_case_entry(f"{prefix}{i:04d}", at(start + i), search, mine.name_with(search))
        mine.add(entry)
        entries.append(entry)
    return entries


OTHER_SEARCHES = [SEARCHES[1], {"order": "lat-sorted", "kind": "nearest", "lon": 24.96, "lat": 60.18, "radius": None}]


def test_a_run_imported_into_a_log_with_other_own_cases_stays_gradable_on_its_cases():
    theirs = declared(SEARCHES, "a")
    mine_a = own_cases_of(theirs)
    text = export_json(theirs + own_run("run-a", mine_a, 10.0, frozenset({"Y01", "Y02"})), "run-a")
    ours = declared(OTHER_SEARCHES, "b", start=100.0)
    log = ours + merge(ours, parse_import(text.encode()))
    run = rebuild(log).run("run-a")
    assert run.eval_set_version == mine_a.name and run.stale == ()
    assert [(c.case_id, c.outcome) for c in run.graded] == [
        ("Y01", "grounded"), ("Y02", "grounded"), ("Y03", "not_grounded")]
    here, before = own_cases_of(log), own_cases_of(ours).keys
    # The log's own set stays its own list: its searches, then those it was given that it did not hold.
    assert here.keys == before + [k for k in mine_a.keys if k not in before] and len(here.keys) == 4
    assert [c.case_id for c in here.sets.cases(mine_a.name)] == ["Y01", "Y02", "Y03"]
    assert here.sets.cases(mine_a.name) == mine_a.sets.cases(mine_a.name)


def test_without_declared_names_an_imported_own_run_is_stale_as_before():
    theirs = own(SEARCHES)  # entries written before they named their set
    mine_a = own_cases_of(theirs)
    text = export_json(theirs + own_run("run-a", mine_a, 10.0), "run-a")
    ours = own(OTHER_SEARCHES, start=100.0)
    ours = [{**e, "id": f"b{i}"} for i, e in enumerate(ours)]
    run = rebuild(ours + merge(ours, parse_import(text.encode()))).run("run-a")
    assert run.graded == () and len(run.stale) == 3


def test_a_declared_name_that_matches_no_list_is_ignored_and_a_bad_one_refused():
    entry = own_case_entry("o1", at(0), SEARCHES[0], "own-0badc0de")
    assert validate_entry(entry) == [] and own_cases_of([entry]).name != "own-0badc0de"
    assert not own_cases_of([entry]).sets.is_known("own-0badc0de")
    with pytest.raises(ValueError, match="set: must be a name of your own set"):
        own_case_entry("o1", at(0), SEARCHES[0], "own-XYZ")
    assert validate_entry({**entry, "set": 5}) == ["set: must be a name of your own set: own- and 8 hex digits"]
