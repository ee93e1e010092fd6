"""What a run sends and what it may cost, before and after (DR-008).

Before a run, :func:`run_size` counts the characters every call hands the model (the
system and user prompt and the answer schema sent beside them) for k runs, and
estimates input tokens at :data:`CHARS_PER_TOKEN` characters a token, the usual rule
of thumb for English text; the prompts are mostly numbers, which tokenise into shorter
pieces, so the estimate is a guess to be checked against the provider's counts after a
run (:func:`actual_usage`). Output is bounded by max tokens per call, so its cost is
given as an upper bound. Prices are the visitor's own, per million tokens, in their
currency: no price table ships with the site, since one would go stale.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence

from pyapp.core.formatting import counted, fmt_count, fmt_money
from pyapp.core.jsontypes import is_int
from pyapp.core.vocabulary import ANSWERED, EntryType
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, Case, CaseSets, case_prompt
from pyapp.explanation.schema import load_schema
from pyapp.providers.api import schema_for_sending

CHARS_PER_TOKEN = 4
MAX_RUNS = 100
MAX_PRICE = 1_000_000.0  # per million tokens; anything above is a typing slip


def characters_per_run(set_version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS,
                       cases: Sequence[Case] | None = None) -> tuple[int, int]:
    """(calls, characters the model is handed) for one run of set ``set_version``, or of its ``cases`` alone."""
    schema = json.dumps(schema_for_sending(load_schema()))
    prompts = [case_prompt(c) for c in (sets.cases(set_version) if cases is None else cases)]
    return len(prompts), sum(len(p.system) + len(p.user) + len(schema) for p in prompts)


def check_runs(runs: object) -> int:
    if not is_int(runs) or not 1 <= runs <= MAX_RUNS:
        raise ValueError(f"The number of runs must be a whole number from 1 to {MAX_RUNS}.")
    return runs


def check_price(price: object, name: str) -> float | None:
    """A price per million tokens, or None when not given; ValueError in words otherwise."""
    if price is None:
        return None
    if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price) \
            or not 0 <= price <= MAX_PRICE:
        raise ValueError(f"The {name} price must be a number from 0 to {MAX_PRICE:,.0f} per million tokens.")
    return float(price)


def run_size(runs: int = 1, max_tokens: int | None = None, price_in: float | None = None,
             price_out: float | None = None, set_version: str = EVAL_SET_VERSION,
             sets: CaseSets = FIXED_SETS, cases: Sequence[Case] | None = None) -> dict:
    """The size of ``runs`` runs of set ``set_version`` (a name ``sets`` knows), or of its ``cases`` alone (what
    a continued run asks), and with prices their estimated cost (module doc)."""
    runs = check_runs(runs)
    per_run_calls, per_run_chars = characters_per_run(set_version, sets, cases)
    calls = per_run_calls * runs
    opening = f"{counted(runs, 'run')} {'sends' if runs == 1 else 'send'} {counted(calls, 'call')}"
    return {"runs": runs, **_size(opening, calls, per_run_chars * runs, max_tokens, price_in, price_out)}


def judging_size(calls: int, prompt_chars: int, schema: dict, max_tokens: int | None = None,
                 price_in: float | None = None, price_out: float | None = None) -> dict:
    """The size of ``calls`` calls to a model judge whose prompts hold ``prompt_chars`` characters, each answered
    in ``schema``, and with prices its estimated cost, as for a run (module doc)."""
    chars = prompt_chars + calls * len(json.dumps(schema_for_sending(schema)))
    opening = f"Judging sends {counted(calls, 'call')}"
    return _size(opening, calls, chars, max_tokens, price_in, price_out)


def _size(opening: str, calls: int, chars: int, max_tokens: int | None, price_in: float | None,
          price_out: float | None) -> dict:
    price_in, price_out = check_price(price_in, "input"), check_price(price_out, "output")
    tokens = math.ceil(chars / CHARS_PER_TOKEN)
    output_cap = None if max_tokens is None else max_tokens * calls
    size = {"calls": calls, "characters": chars, "input_tokens_estimate": tokens,
            "output_tokens_cap": output_cap, "input_cost_estimate": None, "output_cost_cap": None}
    shown = [f"{opening} with {fmt_count(chars)} characters of prompts and schema, about {fmt_count(tokens)} input "
             f"tokens (at {CHARS_PER_TOKEN} characters a token)"]
    if price_in is not None:
        size["input_cost_estimate"] = tokens * price_in / 1e6
        shown.append(f"input about {fmt_money(size['input_cost_estimate'])} at {price_in:g} per million tokens")
    if price_out is not None and output_cap is not None:
        size["output_cost_cap"] = output_cap * price_out / 1e6
        shown.append(f"output at most {fmt_money(size['output_cost_cap'])} ({fmt_count(max_tokens)} tokens a "
                     f"call at {price_out:g} per million)")
    size["display"] = "; ".join(shown) + "."
    return size


def actual_usage(entries: Iterable[dict], run_ids: Sequence[str], price_in: float | None = None,
                 price_out: float | None = None) -> dict:
    """Token counts the provider reported for every call of ``run_ids`` (failed and repeated calls too:
    they were sent), and with prices their cost. Calls answered without counts are counted apart."""
    wanted = set(run_ids)
    calls = [e for e in entries if e["type"] == EntryType.CALL and e["run_id"] in wanted]
    return {"runs": len(wanted), **_usage(calls, lambda e: e["outcome"] in ANSWERED, price_in, price_out)}


def judging_usage(entries: Iterable[dict], judging_ids: Sequence[str], price_in: float | None = None,
                  price_out: float | None = None) -> dict:
    """Token counts the provider reported for every call of the judgings ``judging_ids``, as for runs."""
    wanted = set(judging_ids)
    calls = [e for e in entries if e["type"] == EntryType.JUDGEMENT and e["judging_id"] in wanted]
    return {"judgings": len(wanted), **_usage(calls, lambda e: e["reply"] is not None, price_in, price_out)}


def _usage(calls: list[dict], answered, price_in: float | None, price_out: float | None) -> dict:
    price_in, price_out = check_price(price_in, "input"), check_price(price_out, "output")
    input_tokens = sum(e["input_tokens"] or 0 for e in calls)
    output_tokens = sum(e["output_tokens"] or 0 for e in calls)
    uncounted = sum(1 for e in calls if answered(e) and (e["input_tokens"] is None or e["output_tokens"] is None))
    usage = {"calls": len(calls), "input_tokens": input_tokens, "output_tokens": output_tokens,
             "answers_without_counts": uncounted, "cost": None}
    shown = (f"{counted(len(calls), 'call')} used {fmt_count(input_tokens)} input and {fmt_count(output_tokens)} "
             "output tokens, as the provider reported them")
    if price_in is not None and price_out is not None:
        usage["cost"] = input_tokens * price_in / 1e6 + output_tokens * price_out / 1e6
        shown += f"; cost {fmt_money(usage['cost'])} at {price_in:g} in and {price_out:g} out per million"
    if uncounted:
        shown += (f"; {counted(uncounted, 'answer was', 'answers were')} given without token counts, "
                  "so these figures are too low")
    usage["display"] = shown + "."
    return usage
