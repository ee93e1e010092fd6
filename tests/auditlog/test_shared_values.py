"""Entries keep one copy of each value that repeats from entry to entry (pyapp.auditlog.shared_values), and
still write back the same JSON."""

from __future__ import annotations

import json

from pyapp.auditlog.shared_values import REPEATED, SharedValues
from pyapp.evaluation.export import log_line
from synthetic_logs import synthetic_log

SETTINGS = {"provider": "openai", "model": "m", "max_tokens": 400, "temperature": 0.0, "base_url": None}


def read(entries: list[dict]) -> list[dict]:
    """The entries as a reader parses them: every value a new object."""
    return [json.loads(log_line(entry)) for entry in entries]


def test_repeated_texts_and_equal_settings_are_one_object_and_the_json_is_unchanged():
    entries = read(synthetic_log(400))
    before = [log_line(entry) for entry in entries]
    shared = SharedValues()
    for entry in entries:
        assert shared.share(entry) is entry
    assert [log_line(entry) for entry in entries] == before
    calls = [entry for entry in entries if entry["type"] == "call"]
    assert len({id(entry["settings"]) for entry in calls}) == 2  # the synthetic log's two settings
    for key in REPEATED:
        values = [entry[key] for entry in entries if type(entry.get(key)) is str]
        assert len({id(value) for value in values}) == len(set(values)), key


def test_settings_are_shared_only_when_they_write_the_same_json():
    variants = [SETTINGS, {**SETTINGS, "temperature": -0.0}, {**SETTINGS, "temperature": 0},
                {**SETTINGS, "max_tokens": 400.0}, {**SETTINGS, "temperature": False},
                dict(reversed(SETTINGS.items())), {**SETTINGS, "base_url": "http://127.0.0.1:8000/v1"}]
    entries = [json.loads(json.dumps({"type": "call", "settings": settings})) for settings in variants * 2]
    texts = [json.dumps(entry) for entry in entries]
    shared = SharedValues()
    for entry in entries:
        shared.share(entry)
    assert [json.dumps(entry) for entry in entries] == texts
    kept = [entry["settings"] for entry in entries]
    assert len({id(settings) for settings in kept}) == len(variants)
    assert all(first is second for first, second in zip(kept[:len(variants)], kept[len(variants):], strict=True))


def test_an_entry_without_settings_or_with_other_values_is_left_as_it_is():
    shared = SharedValues()
    entry = {"type": "decision", "run_id": None, "settings": ["not", "a", "dict"], "case_id": 7}
    assert shared.share(dict(entry)) == entry


def test_settings_read_for_figures_only_are_shared_when_equal():
    entries = [{"type": "call", "settings": {**SETTINGS, "temperature": value}} for value in (0.0, -0.0, 0)]
    shared = SharedValues(exact=False)
    assert len({id(shared.share(entry)["settings"]) for entry in entries}) == 1
