"""One copy of each value that repeats from entry to entry of the audit log (DR-006, DR-008).

A log names each run, case, set, prompt and outcome thousands of times over, and its calls carry
one of a few request settings. Kept once, they take less memory; a run's settings are keyed once
per object rather than once per call (``pyapp.evaluation.rebuild``); and ``marshal`` writes and
loads each of them once in a checkpoint (``pyapp.auditlog.checkpoint``). Shared exactly (the
default), the entries still write back the same JSON.
"""

from __future__ import annotations

import math
import sys

# The keys whose texts repeat, of any kind of entry.
REPEATED = ("type", "run_id", "case_id", "eval_set_version", "prompt_version", "prompt_hash", "outcome", "stop",
            "model_reported", "system_fingerprint", "error")


class SharedValues:
    """Makes entries hold one copy of each repeated text (``sys.intern``) and of each request's settings.

    Settings are one object when they write the same JSON; with ``exact`` False, when they are equal in Python
    (0, 0.0 and -0.0 alike): for entries read only for their figures, where those are one setting anyway
    (``pyapp.evaluation.rebuild``), and whose key costs a third as much.
    """

    def __init__(self, *, exact: bool = True) -> None:
        self._settings: dict[tuple, dict] = {}
        self._key = _exact_key if exact else _equal_key

    def share(self, entry: dict) -> dict:
        """``entry``, a valid audit entry (its settings hold only plain values), itself, its repeated texts and
        its settings now the copies kept."""
        for key in REPEATED:
            value = entry.get(key)
            if type(value) is str:
                entry[key] = sys.intern(value)
        settings = entry.get("settings")
        if type(settings) is dict:
            entry["settings"] = self._settings.setdefault(self._key(settings), settings)
        return entry


def _exact_key(settings: dict) -> tuple:
    """A key equal for two settings only when they write the same JSON: in the same order, each value of the same
    type (1, 1.0 and true are equal in Python) and, for a zero, of the same sign (0.0 and -0.0 are too)."""
    values = settings.values()
    signs = tuple(math.copysign(1.0, v) for v in values if type(v) is float) if 0.0 in values else ()
    return tuple(settings.items()), tuple(map(type, values)), signs


def _equal_key(settings: dict) -> tuple:
    """A key equal for two settings with equal pairs in the same order."""
    return tuple(settings.items())
