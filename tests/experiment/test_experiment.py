"""The experiment's figures against independent computations, and the same digits on CPython and Pyodide (DR-010)."""

from __future__ import annotations

import json
import random
import statistics

import numpy as np
import pytest
from scipy.spatial import KDTree

from live_call import run_async
from pyapp import browser
from pyapp.cli.main import main
from pyapp.evaluation.evalset import CASE_KINDS
from pyapp.experiment.orders import (
    BASELINE,
    DEFAULT_PER_KIND,
    DEFAULT_SEED,
    draw_queries,
    experiment_steps,
    explorer_query,
    measure,
    run_experiment,
)
from pyapp.kdtree.geodata import load_businesses
from pyapp.kdtree.tree import ORDERS
from pyapp.presentation.experiment_page import figures_html
from pyodide_harness import pyodide_available, run_in_node

SMALL = 12  # queries per kind in the quicker tests


@pytest.fixture(scope="module")
def small() -> dict:
    return run_experiment(7, SMALL)


@pytest.fixture(scope="module")
def default() -> dict:
    return run_experiment()


def numpy_bootstrap(values: list[float], statistic) -> tuple[float, float]:
    """Percentile limits by NumPy over resamples drawn with Random.choices (seed 20003) of the sorted values."""
    data = np.array(sorted(values), dtype=float)
    rng = random.Random(20003)
    picks = np.array([rng.choices(range(len(data)), k=len(data)) for _ in range(2000)])
    stats = statistic(data[picks], axis=1)
    low, high = np.percentile(stats, [2.5, 97.5], method="linear")
    return float(low), float(high)


def test_queries_are_numbered_drawn_per_kind_and_reproducible():
    queries = draw_queries(DEFAULT_SEED, DEFAULT_PER_KIND)
    assert len(queries) == DEFAULT_PER_KIND * len(CASE_KINDS)
    assert [q.query_id for q in queries[:2]] == ["E001", "E002"] and queries[-1].query_id == "E800"
    assert [q.kind for q in queries[::DEFAULT_PER_KIND]] == [k.name for k in CASE_KINDS]
    assert queries == draw_queries(DEFAULT_SEED, DEFAULT_PER_KIND)
    assert queries != draw_queries(DEFAULT_SEED + 1, DEFAULT_PER_KIND)
    # A kind's queries are the first ones of a longer run with the same seed: each kind has its own stream.
    assert [(q.lon, q.lat) for q in draw_queries(DEFAULT_SEED, 3)[3:6]] == \
        [(q.lon, q.lat) for q in queries[DEFAULT_PER_KIND:DEFAULT_PER_KIND + 3]]
    assert draw_queries(1, 4)[0].query_id == "E01"


@pytest.mark.parametrize(("seed", "per_kind"), [(-1, 5), (True, 5), (1, 0), (1, 501), (1, 2.5)],
                         ids=["negative-seed", "bool-seed", "no-queries", "too-many", "fraction"])
def test_bad_settings_get_a_sentence(seed, per_kind):
    with pytest.raises(ValueError, match=r"^The (seed|number of queries per kind) must be a whole number"):
        draw_queries(seed, per_kind)


def test_every_order_finds_what_scipy_finds():
    points = load_businesses()
    coords = np.array([(p.lon, p.lat) for p in points])
    ids = np.array([p.id for p in points])
    tree = KDTree(coords)
    for q in draw_queries(11, 15):
        if q.radius is None:
            dist, _ = tree.query([q.lon, q.lat])
            # scipy gives one of the tied points; ours takes the smallest id among those at that distance.
            near = tree.query_ball_point([q.lon, q.lat], dist * (1 + 1e-12))
            expected = (int(min(ids[near])),)
        else:
            expected = tuple(sorted(int(i) for i in ids[tree.query_ball_point([q.lon, q.lat], q.radius)]))
        for order in ORDERS:
            nodes, distances, pruned, results, found = measure(order, q)
            assert found == expected, (q, order)
            assert results == len(expected)
            assert distances == nodes and 1 <= nodes <= len(points)


def test_intervals_agree_with_a_numpy_bootstrap(small):
    queries = draw_queries(7, SMALL)
    kind = small["kinds"][3]  # radius-large: every metric has figures
    positions = [i for i, q in enumerate(queries) if q.kind == kind["kind"]]
    for row in kind["orders"]:
        for index, metric in ((0, "nodes_visited"), (2, "subtrees_pruned"), (3, "results")):
            values = [measure(row["order"], queries[i])[index] for i in positions]
            figure = row[metric]
            assert figure["mean"] == pytest.approx(np.mean(values), abs=1e-12)
            assert figure["median"] == float(np.median(values))
            assert figure["mean_ci"] == pytest.approx(numpy_bootstrap(values, np.mean), abs=1e-9)
            assert figure["median_ci"] == pytest.approx(numpy_bootstrap(values, np.median), abs=1e-9)


def test_paired_differences_agree_with_numpy_and_count_every_query(small):
    queries = draw_queries(7, SMALL)
    for kind in small["kinds"]:
        chosen = [q for q in queries if q.kind == kind["kind"]]
        base = [measure(BASELINE, q)[0] for q in chosen]
        assert [p["order"] for p in kind["paired"]] == [o for o in ORDERS if o != BASELINE]
        for pair in kind["paired"]:
            diffs = [measure(pair["order"], q)[0] - b for q, b in zip(chosen, base, strict=True)]
            assert pair["difference"] == pytest.approx(float(np.mean(diffs)), abs=1e-12)
            assert pair["interval"] == pytest.approx(numpy_bootstrap(diffs, np.mean), abs=1e-9)
            assert (pair["better"], pair["worse"], pair["same"]) == (
                sum(d < 0 for d in diffs), sum(d > 0 for d in diffs), sum(d == 0 for d in diffs))


def test_largest_differences_lead_and_open_their_search(small):
    queries = {q.query_id: q for q in draw_queries(7, SMALL)}
    for kind in small["kinds"]:
        largest = kind["largest"]
        sizes = [abs(row["difference"]) for row in largest]
        assert sizes == sorted(sizes, reverse=True) and len(largest) == 5
        for row in largest:
            q = queries[row["query_id"]]
            assert row["nodes"] - row["baseline_nodes"] == row["difference"] == \
                measure(row["order"], q)[0] - measure(BASELINE, q)[0]
            assert row["explorer"] == explorer_query(row["order"], q)
            assert row["explorer"].startswith(f"order={row['order']}&kind=")


def test_default_figures_read_as_published(default):
    assert default["agree_with_brute_force"] == default["queries"] == 800
    tree = {t["order"]: t for t in default["trees"]}
    assert tree["median-first"]["depth"] == 10 and tree["median-first"]["depth"] < tree["file"]["depth"]
    near = default["kinds"][0]["orders"][ORDERS.index("median-first")]["nodes_visited"]
    assert near["text"]["mean"] == "14.8"
    assert near["mean_ci"][0] < near["mean"] < near["mean_ci"][1]


def test_progress_counts_up_to_its_total():
    steps = list(_steps(experiment_steps(3, 4)))
    assert steps[-1][0] == steps[-1][1] and all(a <= b for a, b in steps)
    assert [done for done, _ in steps] == sorted(done for done, _ in steps)


def _steps(generator):
    while True:
        try:
            yield next(generator)
        except StopIteration:
            return


def test_command_line_prints_the_figures(capsys, small):
    assert main(["experiment", "--seed", "7", "--queries", str(SMALL), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(small))
    assert main(["experiment", "--seed", "7", "--queries", str(SMALL)]) == 0
    text = capsys.readouterr().out
    pair = small["kinds"][0]["paired"][0]
    assert f"{pair['text']['difference']:>7} (95% CI {pair['text']['interval']})" in text
    assert f"digest {small['digest']}" in text
    assert main(["experiment", "--queries", "0"]) == 1
    assert "must be a whole number from 1 to 500" in capsys.readouterr().err


@pytest.mark.skipif(not pyodide_available(), reason="needs node and the pyodide npm package")
def test_pyodide_gives_the_same_digits(tmp_path, small):
    code = f"from pyapp.experiment.orders import run_experiment\nrun_experiment(7, {SMALL})['digest']"
    out = run_in_node(code, tmp_path)
    assert out == small["digest"]


def test_median_of_a_kind_is_statistics_median(small):
    queries = [q for q in draw_queries(7, SMALL) if q.kind == "anywhere"]
    row = small["kinds"][1]["orders"][0]
    assert row["nodes_visited"]["median"] == statistics.median(measure(row["order"], q)[0] for q in queries)


def call_op(name: str, **args) -> dict:
    return json.loads(run_async(browser.handle(name, json.dumps(args))))


def test_the_page_operation_reports_progress_and_says_whether_the_published_figures_came_back(worker, small):
    answer = call_op("experiment_run", seed="7", per_kind=str(SMALL), published_digest=small["digest"])
    assert answer["ok"] and answer["value"]["reproduced"] is True
    assert answer["value"]["html"] == figures_html(small, "../explorer/")
    assert "identical to the published one, digit for digit" in answer["value"]["note"]
    progress = [e for e in worker.events if e["type"] == "experiment-progress"]
    assert progress[-1]["done"] == progress[-1]["total"] and len(progress) > 5
    other = call_op("experiment_run", seed="8", per_kind="3", published_digest=small["digest"])
    assert other["value"]["reproduced"] is False and "differ from the published ones" in other["value"]["note"]


@pytest.mark.parametrize(("seed", "per_kind", "sentence"), [
    ("", "5", "The seed must be a whole number from 0 to 2147483647."),
    ("1e3", "5", "The seed must be a whole number from 0 to 2147483647."),
    ("3", "-2", "The number of queries per kind must be a whole number from 1 to 500."),
    ("3", "9" * 400, "The number of queries per kind must be a whole number from 1 to 500."),
], ids=["empty-seed", "exponent", "negative-count", "huge-count"])
def test_the_page_operation_refuses_bad_settings_with_a_sentence(worker, seed, per_kind, sentence):
    assert call_op("experiment_run", seed=seed, per_kind=per_kind, published_digest="") == \
        {"ok": False, "error": sentence}


def test_cancel_stops_the_page_operation_between_steps(worker):
    worker.cancel = True
    answer = call_op("experiment_run", seed="1", per_kind="3", published_digest="")
    assert answer == {"ok": False, "error": "Cancelled: the figures shown are the ones from before."}
