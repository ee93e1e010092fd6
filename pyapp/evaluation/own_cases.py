"""The visitor's own cases: searches kept from the explorer as a personal evaluation set (DR-009).

"Add this search to my cases" appends an ``own_case`` entry holding the search
(insertion order, kind, query point, radius). The log's own cases, in log order
with repeats of a search dropped, are the visitor's set: case ``Y01`` is the first
search added, ``Y02`` the next, so a case keeps its id as the set grows. The set is
named ``own-`` and the first 8 hex digits of the sha256 of its canonical case list
(:func:`own_set_name`), so a name always means one list of searches. Every earlier
state of the list names a set too, so a run of the set as it was when the run
started is rebuilt after more cases are added.

An own set is labelled as the visitor's wherever it appears, and its runs are
never grouped or compared with runs of a fixed set (``pyapp.presentation.report``,
``pyapp.presentation.repeat_report`` refuse by name).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.evalset import (
    OWN_SET_PREFIX,
    Case,
    CaseSets,
    case_search,
    is_own_set,
)
from pyapp.explanation.prompt import MAX_STEPS

# At most as many cases as the larger fixed set: every case is one paid call per run.
MAX_OWN_CASES = 80
# The version of the canonical list the name hashes; a change of the list's form is a new version.
CANONICAL_VERSION = "own-cases-v1"
OWN_LABEL = "your own cases"
# What the command line's --set takes for the visitor's cases as the log holds them now.
OWN = "own"


def _key(search: dict) -> tuple:
    # Numbers as floats, so 25 and 25.0 (a number that went through JavaScript) are one search.
    radius = search["radius"]
    return (search["order"], search["kind"], float(search["lon"]), float(search["lat"]),
            None if radius is None else float(radius))


def own_set_name(keys: Iterable[tuple]) -> str:
    """``own-`` and the first 8 hex digits of the sha256 of the canonical list of ``keys`` (module doc)."""
    text = json.dumps([CANONICAL_VERSION, [list(k) for k in keys]], separators=(",", ":"), ensure_ascii=True)
    return OWN_SET_PREFIX + hashlib.sha256(text.encode("ascii")).hexdigest()[:8]


def _why(search_kind: str, order: str, steps: int) -> str:
    sent = f"the {steps}-step trace is cut at {MAX_STEPS}" if steps > MAX_STEPS else f"all {steps} steps are sent"
    return f"Your own {search_kind} search from the explorer, on the {order} tree; {sent}."


class OwnCases:
    """The visitor's cases, fed the log's ``own_case`` entries in log order.

    ``sets`` is what each set name means to this log: the fixed sets and every state of this list.
    """

    def __init__(self) -> None:
        self.keys: list[tuple] = []
        self.cases: list[Case] = []
        self._seen: set[tuple] = set()
        self.beyond_limit = 0  # distinct searches added after the set was full; never cases
        self.name: str | None = None
        self._states: dict[str, tuple[Case, ...]] = {}
        self.sets = CaseSets(self._states)

    def add(self, entry: dict) -> bool:
        """Take one valid ``own_case`` entry; True when it added a case (a new set name)."""
        key = _key(entry["search"])
        if key in self._seen:
            return False
        self._seen.add(key)
        if len(self.keys) >= MAX_OWN_CASES:
            self.beyond_limit += 1
            return False
        order, kind, lon, lat, radius = key
        case_id = f"Y{len(self.keys) + 1:02d}"
        provisional = Case(case_id, f"own-{kind}", order, lon, lat, radius, "")
        steps = len(case_search(provisional).trace)
        self.keys.append(key)
        self.cases.append(Case(case_id, provisional.kind, order, lon, lat, radius, _why(kind, order, steps)))
        self.name = own_set_name(self.keys)
        self._states[self.name] = tuple(self.cases)
        return True

    def case_id_of(self, search: dict) -> str | None:
        """The id of the case that is ``search`` (as :func:`own_case_search` keeps it), or None."""
        key = _key(search)
        return next((c.case_id for c, k in zip(self.cases, self.keys, strict=True) if k == key), None)

    @property
    def full(self) -> bool:
        return len(self.keys) >= MAX_OWN_CASES

    def summary(self) -> str:
        """One sentence naming the set as it is now, for the explorer and the evaluation page."""
        if self.name is None:
            return "You have no cases of your own yet."
        count = len(self.cases)
        text = f"Your cases are {set_label(self.name)}: {count} {'search' if count == 1 else 'searches'}."
        if self.beyond_limit:
            text += (f" {self.beyond_limit} more came after the set was full ({MAX_OWN_CASES} searches) and are "
                     "not in it.")
        return text

    def add_entries(self, entries: Iterable[dict]) -> OwnCases:
        for entry in entries:
            if entry["type"] == EntryType.OWN_CASE:
                self.add(entry)
        return self


def own_cases_of(entries: Iterable[dict]) -> OwnCases:
    """The visitor's cases in ``entries`` (valid audit entries, log order), every state of them a set."""
    return OwnCases().add_entries(entries)


def set_label(version: str) -> str:
    """How every view names set ``version``: a fixed set by its name, an own set as the visitor's."""
    return f"{version} ({OWN_LABEL})" if is_own_set(version) else version


def refuse_own_with_fixed(version_a: str, version_b: str) -> None:
    """``ValueError`` by name when one of two sets is the visitor's own and the other a fixed set (DR-009)."""
    if is_own_set(version_a) != is_own_set(version_b):
        own, fixed = (version_a, version_b) if is_own_set(version_a) else (version_b, version_a)
        raise ValueError(f"{own} is a set of your own cases and {fixed} a fixed set; your own cases are never "
                         "compared or grouped with a fixed set (DR-009)")
