"""The seeded evaluation set: its shape, its stability pin, and the independence of its streams (DR-006)."""

from __future__ import annotations

import hashlib
import json
import math
import random

import pytest

from pyapp.evaluation.evalset import (
    CASE_KIND_NAMES,
    CASE_KINDS,
    EVAL_SET_VERSION,
    FIXED_SETS,
    LARGE_SET_VERSION,
    NEAR_OFFSET,
    SEED,
    SET_VERSIONS,
    build_cases,
    case_facts,
    case_prompt,
    case_search,
    draw_points,
    evalset_summary,
    evalset_table,
    stream_seed,
)
from pyapp.explanation.prompt import MAX_STEPS, build_prompt
from pyapp.kdtree.geodata import bounding_box, load_businesses
from pyapp.kdtree.search import search
from pyapp.kdtree.tree import ORDERS
from pyodide_harness import pyodide_available, run_in_node

# The fields whose change means a different set (the prompt has its own version).
PINNED_FIELDS = ("case_id", "kind", "order", "lon", "lat", "radius", "why_it_matters", "steps", "results")


def evalset_fingerprint(table: list[dict] | None = None, version: str = EVAL_SET_VERSION) -> str:
    """sha256 over the set's name, seed and the pinned fields of every row."""
    rows = evalset_table(version) if table is None else table
    body = [[r[f] for f in PINNED_FIELDS] for r in rows]
    text = json.dumps([version, SEED, body], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Regenerate after a deliberate change of the set (and bump EVAL_SET_VERSION):
#   python3 -c "from test_evalset import evalset_fingerprint as f; print(f())"   (in tests/)
PINNED_FINGERPRINT = "7156f54ea710641d9b461764ca82694ea686889b8e08b1c2cd76b71f5a28df1c"


def test_twenty_cases_named_c01_to_c20():
    ids = [c.case_id for c in FIXED_SETS.cases()]
    assert ids == [f"C{i:02d}" for i in range(1, 21)]
    assert EVAL_SET_VERSION == "explain-eval-v2" and SEED == 2026


def test_every_kind_on_every_order_once():
    pairs = [(c.kind, c.order) for c in FIXED_SETS.cases()]
    assert sorted(pairs) == sorted((k, o) for k in CASE_KIND_NAMES for o in ORDERS)
    # C01-C05 are the first kind on ORDERS in order, and so on.
    assert pairs == [(k, o) for k in CASE_KIND_NAMES for o in ORDERS]


def test_radius_per_kind():
    radii = {c.kind: c.radius for c in FIXED_SETS.cases()}
    assert radii == {"near-business": None, "anywhere": None, "radius-small": 0.0005, "radius-large": 0.003}
    assert {c.kind: c.search_kind for c in FIXED_SETS.cases()}["radius-large"] == "radius"


def test_the_set_is_pinned():
    """Any change to a query, a radius, a why line or a trace length changes this hash."""
    assert evalset_fingerprint() == PINNED_FINGERPRINT


def test_fingerprint_notices_a_moved_query():
    table = evalset_table()
    table[6] = {**table[6], "lon": table[6]["lon"] + 1e-7}
    assert evalset_fingerprint(table) != PINNED_FINGERPRINT


def test_queries_are_rounded_to_seven_decimals():
    for c in FIXED_SETS.cases():
        for x in (c.lon, c.lat):
            assert round(x, 7) == x
            assert len(repr(x).split(".")[1]) <= 7


def test_changing_one_kinds_stream_moves_no_other_kind():
    for altered in CASE_KIND_NAMES:
        other = build_cases(lambda kind, altered=altered: "x" if kind == altered else stream_seed(kind))
        for before, after in zip(FIXED_SETS.cases(), other, strict=True):
            if before.kind == altered:
                assert (before.lon, before.lat) != (after.lon, after.lat)
            else:
                assert before == after


def test_text_seeds_are_sha512_based_so_stable_across_platforms():
    # random.seed(str) (version 2) seeds with the text followed by its SHA-512 digest;
    # that integer, not hash(), is what makes the streams the same everywhere.
    for kind in CASE_KIND_NAMES:
        text = stream_seed(kind).encode("utf-8")
        as_int = int.from_bytes(text + hashlib.sha512(text).digest(), "big")
        a, b = random.Random(stream_seed(kind)), random.Random(as_int)
        assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]


def test_query_points_follow_each_kinds_rule():
    box = bounding_box()
    points = load_businesses()
    for c in FIXED_SETS.cases():
        assert box.contains(c.lon, c.lat) or c.kind in ("near-business", "radius-small")
        if c.kind in ("near-business", "radius-small"):
            near = min(max(abs(p.lon - c.lon), abs(p.lat - c.lat)) for p in points)
            assert near <= NEAR_OFFSET + 1e-7
        if c.kind == "radius-small":
            assert case_search(c).result, "the business a small circle is drawn around is always inside it"


def test_why_it_matters_is_one_specific_line_per_case():
    whys = [c.why_it_matters for c in FIXED_SETS.cases()]
    assert len(set(whys)) == 20
    for c in FIXED_SETS.cases():
        assert "\n" not in c.why_it_matters and len(c.why_it_matters) < 250
        assert str(len(case_search(c).trace)) in c.why_it_matters
        assert ("cut at 150" in c.why_it_matters) == (len(case_search(c).trace) > MAX_STEPS)


def test_table_counts_long_traces_from_the_searches():
    table = evalset_table()
    fresh = [len(search(c.order, c.search_kind, c.lon, c.lat, c.radius).trace) for c in FIXED_SETS.cases()]
    assert [row["steps"] for row in table] == fresh
    over = sum(1 for n in fresh if n > MAX_STEPS)
    assert evalset_summary()["over_limit"] == over == sum(row["over_limit"] for row in table)
    assert 0 < over < 20
    for row in table:
        assert row["steps_sent"] == min(row["steps"], MAX_STEPS)
        assert row["prompt_hash"] == case_prompt(FIXED_SETS.case(row["case_id"])).hash
    json.dumps(table)  # the page receives it as JSON


def test_case_prompt_is_the_prompt_of_the_case_search():
    c = FIXED_SETS.case("C07")
    rebuilt = build_prompt(search(c.order, c.search_kind, c.lon, c.lat, c.radius))
    assert case_prompt(c) == rebuilt
    assert case_prompt(c) is case_prompt(FIXED_SETS.case("C07"))  # cached
    assert case_facts(c).steps_total == len(case_search(c).trace)


def test_unknown_case_is_a_clear_error():
    with pytest.raises(ValueError, match="no case 'C21'"):
        FIXED_SETS.case("C21")


def test_distances_in_why_lines_match_the_search():
    for c in FIXED_SETS.cases():
        if c.kind == "anywhere":
            d = case_search(c).result[0].distance
            assert f"{d:.5f}°" in c.why_it_matters
            assert math.isfinite(d)


@pytest.mark.skipif(not pyodide_available(), reason="needs node and the Pyodide npm package")
def test_pyodide_builds_the_same_set(tmp_path):
    script = "import json\nfrom pyapp.evaluation.evalset import evalset_table\njson.dumps(evalset_table())"
    assert json.loads(run_in_node(script, tmp_path)) == json.loads(json.dumps(evalset_table()))


# --------------------------------------------------------------------------- the larger set (DR-009)

# Regenerate after a deliberate change of the larger set (and give it a new name):
#   python3 -c "from test_evalset import evalset_fingerprint as f; print(f(version='explain-eval-x80'))"
PINNED_X80_FINGERPRINT = "303fb5be43be8ce3ac176ed1942cbb88e202c107048c67de121363252e211ab4"


def test_the_larger_set_is_pinned():
    assert SET_VERSIONS == ("explain-eval-v2", "explain-eval-x80") and LARGE_SET_VERSION == "explain-eval-x80"
    assert evalset_fingerprint(version=LARGE_SET_VERSION) == PINNED_X80_FINGERPRINT


def test_the_larger_set_starts_with_exactly_the_first_set():
    large = FIXED_SETS.cases(LARGE_SET_VERSION)
    assert [c.case_id for c in large] == [f"C{i:02d}" for i in range(1, 81)]
    assert large[:20] == FIXED_SETS.cases()
    assert evalset_table(LARGE_SET_VERSION)[:20] == evalset_table()


def test_the_larger_set_continues_each_kinds_stream_in_rounds_of_twenty():
    large = FIXED_SETS.cases(LARGE_SET_VERSION)
    for kind in CASE_KINDS:
        stream = draw_points(kind, random.Random(stream_seed(kind.name)), 20)
        of_kind = [c for c in large if c.kind == kind.name]
        assert [(c.lon, c.lat) for c in of_kind] == [(d.lon, d.lat) for d in stream]
        assert [c.order for c in of_kind] == list(ORDERS) * 4
    for r in range(4):
        block = large[20 * r:20 * (r + 1)]
        assert [(c.kind, c.order) for c in block] == [(k, o) for k in CASE_KIND_NAMES for o in ORDERS]


def test_a_case_of_the_larger_set_is_no_case_of_the_first():
    assert FIXED_SETS.case("C21", LARGE_SET_VERSION).kind == "near-business"
    with pytest.raises(ValueError, match="no case 'C21' in explain-eval-v2; the cases are C01 to C20"):
        FIXED_SETS.case("C21")
    with pytest.raises(ValueError, match="no evaluation set 'explain-eval-v9'; the sets are explain-eval-v2, "):
        FIXED_SETS.cases("explain-eval-v9")


def test_the_larger_set_has_its_own_summary():
    summary = evalset_summary(version=LARGE_SET_VERSION)
    assert summary["eval_set_version"] == LARGE_SET_VERSION and summary["cases"] == 80
    assert summary["prompt_chars"] > evalset_summary()["prompt_chars"]


@pytest.mark.skipif(not pyodide_available(), reason="needs node and the Pyodide npm package")
def test_pyodide_builds_the_same_larger_set(tmp_path):
    script = "import json\nfrom pyapp.evaluation.evalset import LARGE_SET_VERSION, evalset_table\n" \
             "json.dumps(evalset_table(LARGE_SET_VERSION))"
    assert evalset_fingerprint(json.loads(run_in_node(script, tmp_path)), LARGE_SET_VERSION) == PINNED_X80_FINGERPRINT
