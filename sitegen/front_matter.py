"""The front matter of a record or page: the YAML between two ``---`` lines at its top (DR-001)."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re

from sitegen.document_cache import DocumentCache
from sitegen.problems import Problem


@functools.cache
def front_matter_loader() -> type:
    """YAML's safe loader, except that dates stay text: the build checks them itself, so an
    impossible date such as 2026-02-30 is a problem with a line, not an error inside YAML.

    PyYAML is imported here, only when some front matter is not in the cache (DR-001).
    """
    import yaml

    class FrontMatterLoader(yaml.SafeLoader):
        pass

    FrontMatterLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
    return FrontMatterLoader


def front_matter_data(front: str, cache: DocumentCache | None) -> tuple[object, Exception | None]:
    """The value of the YAML ``front``, or the error that YAML raised for it.

    Kept in the cache when JSON gives back an equal value (text keys; no sets, bytes or NaN), so a
    build whose front matter is unchanged does not import or run PyYAML.
    """
    key = cache.key("front matter", front) if cache is not None else ""
    kept = cache.get(key) if cache is not None else None
    if isinstance(kept, dict):
        return kept["value"], None
    import yaml

    try:
        value = yaml.load(front, Loader=front_matter_loader())
    except yaml.YAMLError as exc:
        return None, exc
    if cache is not None:
        try:
            if json.loads(json.dumps(value, allow_nan=False)) == value:
                cache.put(key, {"value": value})
        except (TypeError, ValueError):
            pass  # a value JSON cannot hold is parsed again on every build
    return value, None


def split_front_matter(text: str, path: str) -> tuple[str | None, str, int, list[Problem]]:
    """Return (front matter, body, body's first line, problems)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, text, 1, [Problem(path, 1, "missing front matter (a first line '---')")]
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), i + 2, []
    return None, text, 1, [Problem(path, 1, "front matter is not closed by a line '---'")]


def parse_date(value: object) -> dt.date | None:
    """A date written YYYY-MM-DD that exists in the calendar, else None."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def key_line(front: str, key: str) -> int:
    """The line of the file that gives ``key`` in the front matter ``front``, else 1."""
    for number, line in enumerate(front.split("\n"), start=2):
        if line.startswith(f"{key}:"):
            return number
    return 1
