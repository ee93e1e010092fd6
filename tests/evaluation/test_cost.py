"""What a run sends and costs, before and after (DR-008)."""

from __future__ import annotations

import json
import math

import pytest

from eval_helpers import call, full_run
from live_call import run_async
from pyapp import browser
from pyapp.evaluation.cost import CHARS_PER_TOKEN, actual_usage, run_size
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from pyapp.explanation.schema import load_schema
from pyapp.providers.api import build_request
from pyapp.providers.settings import Settings


def characters_in_requests() -> int:
    """Independently: read the prompt texts and the schema back out of the request bodies the set sends."""
    total = 0
    settings = Settings("openai-compatible", "m", 4000, 0.0, "http://127.0.0.1:9/v1")
    for c in FIXED_SETS.cases():
        body = json.loads(build_request(settings, case_prompt(c), None, load_schema()).body)
        total += sum(len(m["content"]) for m in body["messages"])
        total += len(json.dumps(body["response_format"]["json_schema"]["schema"]))
    return total


@pytest.mark.parametrize("runs", [1, 3])
def test_the_size_is_what_the_requests_carry_times_the_runs(runs):
    size = run_size(runs, 4000, price_in=3.0, price_out=15.0)
    chars = characters_in_requests() * runs
    assert (size["calls"], size["characters"]) == (20 * runs, chars)
    assert size["input_tokens_estimate"] == math.ceil(chars / CHARS_PER_TOKEN)
    assert size["output_tokens_cap"] == 4000 * 20 * runs
    assert size["input_cost_estimate"] == pytest.approx(size["input_tokens_estimate"] * 3.0 / 1e6)
    assert size["output_cost_cap"] == pytest.approx(4000 * 20 * runs * 15.0 / 1e6)
    assert f"{chars:,} characters" in size["display"]


def test_without_prices_there_is_no_cost_and_bad_input_is_refused_in_words():
    size = run_size(2)
    assert size["input_cost_estimate"] is None and size["output_cost_cap"] is None
    assert "cost" not in size["display"] and "at most" not in size["display"]
    with pytest.raises(ValueError, match="number of runs must be a whole number from 1 to 100"):
        run_size(0)
    with pytest.raises(ValueError, match="The output price must be a number from 0"):
        run_size(1, 4000, 1.0, float("inf"))


def test_actual_usage_counts_every_call_of_the_runs_and_says_when_counts_are_missing():
    entries = full_run("run-1")  # 20 answers of 5000 in, 600 out
    entries.append(call("run-1", "C01", outcome="infrastructure_failure", time=50))
    entries.append({**call("run-1", "C02", time=51), "input_tokens": None, "output_tokens": None})
    entries += full_run("run-other", start=100)
    usage = actual_usage(entries, ["run-1"], price_in=2.0, price_out=10.0)
    assert (usage["calls"], usage["input_tokens"], usage["output_tokens"]) == (22, 100_000, 12_000)
    assert usage["answers_without_counts"] == 1
    assert usage["cost"] == pytest.approx(100_000 * 2.0 / 1e6 + 12_000 * 10.0 / 1e6)
    assert usage["display"] == ("22 calls used 100,000 input and 12,000 output tokens, as the provider reported "
                                "them; cost 0.3200 at 2 in and 10 out per million; 1 answer was given without "
                                "token counts, so these figures are too low.")


def test_the_page_gets_the_same_figures(worker):
    entries = full_run("run-1")
    worker.stored.extend(json.dumps(e) for e in entries)

    def handle(name: str, **args) -> dict:
        return json.loads(run_async(browser.handle(name, json.dumps(args))))

    assert handle("run_size_estimate", runs=3, max_tokens=4000, price_in=1.5) == {
        "ok": True, "value": run_size(3, 4000, 1.5)}
    assert handle("run_usage", run_ids=["run-1"], price_in=1.0, price_out=2.0) == {
        "ok": True, "value": actual_usage(entries, ["run-1"], 1.0, 2.0)}
    assert handle("run_size_estimate", runs=1, price_in=-1) == {
        "ok": False, "error": "The input price must be a number from 0 to 1,000,000 per million tokens."}


def test_one_call_and_one_run_are_said_in_the_singular():
    one = full_run("run-a")[:1]
    assert actual_usage(one, ["run-a"])["display"].startswith("1 call used ")
    assert run_size(1)["display"].startswith("1 run sends 20 calls")
    assert run_size(2)["display"].startswith("2 runs send 40 calls")
