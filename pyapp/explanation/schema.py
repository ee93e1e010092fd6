"""Validating a model's answer against the published answer schema (DR-005).

The schema file ``answer_schema.json`` is package data beside this module; the site serves
the same file. Before the schema, every number must lie in JavaScript's exact-integer
range and every text must be valid Unicode (:func:`pyapp.core.jsontypes.hostile_values`): a
number out of range is a schema mismatch, never an arithmetic error (DR-006).
Validation uses ``fastjsonschema``, a pure-Python wheel that the
page loads before ``pyapp`` (see ``vendor/README.md``); it compiles the schema
into a Python function once, with ``exec``, which works the same under Pyodide.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib.resources import files
from operator import itemgetter

import fastjsonschema

from pyapp.core.jsontypes import MAX_SAFE_INTEGER, has_lone_surrogate, hostile_values


@lru_cache(maxsize=1)
def schema_text() -> str:
    """The schema file's exact text."""
    return files(__package__).joinpath("answer_schema.json").read_text(encoding="utf-8")


def load_schema() -> dict:
    """A fresh copy of the answer schema as a dict (keys in file order)."""
    return json.loads(schema_text())


@lru_cache(maxsize=1)
def _validator():
    # use_default=False: validation must never fill in or change the answer.
    # fast_fail=False: report every problem at once, not just the first.
    return fastjsonschema.compile(load_schema(), use_default=False, fast_fail=False)


def validate_answer(obj: object) -> list[str]:
    """Every way ``obj`` fails the answer schema, as readable sentences; [] when it fits."""
    if plain_claims(obj):
        return []
    hostile = hostile_values(obj)
    if hostile:
        return [f"{where or 'the answer'} {what}" for where, what in hostile]
    try:
        _validator()(_without_plain_ids(obj))
    except fastjsonschema.JsonSchemaValuesException as exc:
        errors = exc.errors
    except fastjsonschema.JsonSchemaValueException as exc:
        errors = [exc]
    else:
        return []
    messages = [_readable(err) for err in errors]
    # One sentence per problem, in a stable order (the library may repeat one).
    return sorted(set(messages))


@lru_cache(maxsize=1)
def _plain_shape() -> tuple[frozenset[str], itemgetter, set[int], frozenset[str]]:
    """The answer's keys; what reads a cited step's fields, in the schema file's order (step, action, node id, the
    order of the checks' key) and how many it has; and the actions, as the schema file names them."""
    properties = load_schema()["properties"]
    step = properties["cited_steps"]["items"]["properties"]
    return frozenset(properties), itemgetter(*step), {len(step)}, frozenset(step["action"]["enum"])


def plain_claims(obj: object) -> tuple | None:
    """For an answer that fits the schema as most answers do, what the checks read of it; None for any other.

    Such an answer has every key and no other, each value of its JSON type exactly, no number out of range and no
    lone surrogate. Deciding that takes a few checks in C where the hostile-value walk and the validator take a
    step per value (DR-006); anything else, valid or not, goes the full way, which alone says what is wrong. What
    the checks read comes out of the same checks: the key their verdicts are kept under
    (:func:`pyapp.explanation.checks.run_checks`).
    """
    keys, fields, step_size, actions = _plain_shape()
    if type(obj) is not dict or obj.keys() != keys:
        return None
    walkthrough, ids, distance, steps = obj["walkthrough"], obj["result_ids"], obj["distance"], obj["cited_steps"]
    if type(walkthrough) is not str or has_lone_surrogate(walkthrough) or type(ids) is not list \
            or type(steps) is not list:
        return None
    counts = obj["nodes_visited"], obj["subtrees_pruned"]
    numbers = [*ids, *counts]
    cited = ()
    if steps:
        # Only a dict has items by name, so each step is a dict of exactly the step's keys, and its action one of
        # the enum's; its numbers are checked with the others.
        try:
            cited = tuple(map(fields, steps))
        except (KeyError, TypeError):
            return None
        ordinals, said, nodes = zip(*cited, strict=True)
        if set(map(len, steps)) != step_size or set(map(type, said)) != _STR or not actions.issuperset(said):
            return None
        numbers += ordinals
        numbers += nodes
    if set(map(type, numbers)) != _INT or min(numbers) < -MAX_SAFE_INTEGER or max(numbers) > MAX_SAFE_INTEGER:
        return None
    if not (distance is None or (type(distance) is float and math.isfinite(distance))
            or (type(distance) is int and -MAX_SAFE_INTEGER <= distance <= MAX_SAFE_INTEGER)):
        return None
    return tuple(ids), distance, type(distance), counts, cited


_INT, _STR = {int}, {str}


def _without_plain_ids(obj: object) -> object:
    """``obj`` with a ``result_ids`` list of plain integers replaced by an empty one, for the validator.

    The schema asks only that each id be an integer; a list that passes that check
    in C here leaves nothing for the validator's per-item loop to find, and the
    loop was the validator's largest cost on the page's long logs (DR-006).
    """
    if type(obj) is dict and type(ids := obj.get("result_ids")) is list and set(map(type, ids)) <= {int}:
        return {**obj, "result_ids": []}
    return obj


def _where(name: str | None) -> str:
    if not name or name == "data":
        return "the answer"
    return name.removeprefix("data.").removeprefix("data")


def _readable(err: fastjsonschema.JsonSchemaValueException) -> str:
    where = _where(err.name)
    value = err.value
    definition = err.definition if isinstance(err.definition, dict) else {}
    if err.rule == "required" and isinstance(value, dict):
        missing = [key for key in definition.get("required", []) if key not in value]
        return f"{where} is missing {_names(missing)}"
    if err.rule == "additionalProperties" and isinstance(value, dict):
        allowed = definition.get("properties", {})
        extra = sorted(str(key) for key in value if key not in allowed)
        return f"{where} has unexpected {_names(extra)}"
    if err.rule == "type":
        wanted = definition.get("type")
        wanted_list = wanted if isinstance(wanted, list) else [str(wanted)]
        wanted_text = " or ".join(_ARTICLE.get(name, name) for name in wanted_list)
        return f"{where} must be {wanted_text}, not {_json_type(value)}"
    if err.rule == "enum":
        options = ", ".join(str(item) for item in definition.get("enum", []))
        return f"{where} must be one of: {options} (got {json.dumps(value, ensure_ascii=False)[:60]})"
    return err.message.replace(err.name or "data", where, 1)


_ARTICLE = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "object": "an object",
    "boolean": "a boolean",
}


def _names(keys: list[str]) -> str:
    label = "field" if len(keys) == 1 else "fields"
    return f"{label} " + ", ".join(f'"{key}"' for key in keys)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not value.is_integer():
        return "a fractional number"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
