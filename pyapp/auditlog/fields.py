"""The checks of single fields of an audit entry, shared by the full validation
(:mod:`pyapp.auditlog.validation`) and the call entry passed on sight (:mod:`pyapp.auditlog.plain_call`)."""

from __future__ import annotations

import math
import re
from typing import Any

from pyapp.core.jsontypes import is_int, storable
from pyapp.core.vocabulary import Stop
from pyapp.providers.settings import Settings

ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}"
ID_RE = re.compile(rf"^{ID_PATTERN}\Z")  # \Z: "$" would accept a final line break
HASH_RE = re.compile(r"^[0-9a-f]{64}\Z")
STOPS = tuple(Stop)
MAX_SETTINGS_REMEMBERED = 256
_SETTINGS_PROBLEMS: dict[tuple, str | None] = {}


def is_number(value: Any) -> bool:
    # math.isfinite would raise OverflowError on a huge int; ints are compared with bounds exactly.
    return is_int(value) or (isinstance(value, float) and math.isfinite(value))


def settings_problem(settings: Any) -> str | None:
    """Why ``settings`` are not valid request settings, or None; remembered, as a log repeats a few settings."""
    key = None
    if type(settings) is dict:
        # The types belong in the key: 1, 1.0 and true are equal in Python but not the same setting.
        key = (tuple(settings.items()), tuple(map(type, settings.values())))
        try:
            hash(key)
        except TypeError:  # a list or an object as a value: not remembered
            key = None
    if key is not None and key in _SETTINGS_PROBLEMS:
        return _SETTINGS_PROBLEMS[key]
    try:
        Settings.from_dict(settings)
        problem = None
    except (TypeError, ValueError, OverflowError) as exc:
        problem = storable(str(exc)[:200])
    if key is not None:
        if len(_SETTINGS_PROBLEMS) >= MAX_SETTINGS_REMEMBERED:
            _SETTINGS_PROBLEMS.clear()
        _SETTINGS_PROBLEMS[key] = problem
    return problem
