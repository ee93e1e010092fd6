"""The visitor's own cases: searches kept from the explorer as a personal evaluation set (DR-009).

"Add this search to my cases" appends an ``own_case`` entry holding the search
(insertion order, kind, query point, radius). The log's own cases, in log order
with repeats of a search dropped, are the visitor's set: case ``Y01`` is the first
search added, ``Y02`` the next, so a case keeps its id as the set grows. The set is
named ``own-`` and the first 8 hex digits of the sha256 of its canonical case list
(:func:`own_set_name`), so a name always means one list of searches. Every earlier
state of the list names a set too, so a run of the set as it was when the run
started is rebuilt after more cases are added.

Each entry also carries the name of the set once its search is in it (``set``), so a
log that imports another log's cases knows that log's sets too: an entry whose declared
name extends a list already known (the hash of that list and its search) makes that
list a set of this log, with its own case ids. So a run of a visitor's set, exported and
imported into a log that holds other cases of its own, stays gradable on the cases it
was asked. Entries written before the key existed declare nothing; their log's own
order is all there is to go on.

An own set is labelled as the visitor's wherever it appears, and its runs are
never grouped or compared with runs of a fixed set (``pyapp.presentation.report``,
``pyapp.presentation.repeat_report`` refuse by name).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from pyapp.auditlog.format import OWN_CASE_SET_KEY, OWN_SET_PREFIX
from pyapp.core.formatting import counted
from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.evalset import (
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


def _case(number: int, key: tuple) -> Case:
    """Case ``Y{number}`` of a set, the search ``key``."""
    order, kind, lon, lat, radius = key
    provisional = Case(f"Y{number:02d}", f"own-{kind}", order, lon, lat, radius, "")
    steps = len(case_search(provisional).trace)
    return Case(provisional.case_id, provisional.kind, order, lon, lat, radius, _why(kind, order, steps))


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
        self._lists: dict[str | None, tuple[tuple, ...]] = {None: ()}  # every list known, by its set's name
        self.sets = CaseSets(self._states)

    def add(self, entry: dict) -> bool:
        """Take one valid ``own_case`` entry; True when it made a new set (of this log's list or a declared one)."""
        key = _key(entry["search"])
        added = key not in self._seen and len(self.keys) < MAX_OWN_CASES
        if key not in self._seen:
            self._seen.add(key)
            self.beyond_limit += not added
        if added:
            self.keys.append(key)
            self.cases.append(_case(len(self.keys), key))
            self.name = own_set_name(self.keys)
            self._known(self.name, tuple(self.keys), tuple(self.cases))
        return self._declared(key, entry.get(OWN_CASE_SET_KEY)) or added

    def name_with(self, search: dict) -> str:
        """The set's name once ``search`` (not yet a case) is added: what its entry declares."""
        return own_set_name([*self.keys, _key(search)])

    def _known(self, name: str, keys: tuple[tuple, ...], cases: tuple[Case, ...]) -> None:
        self._lists.setdefault(name, keys)
        self._states.setdefault(name, cases)

    def _declared(self, key: tuple, name: object) -> bool:
        """Know the set ``name`` an entry declares, when it is a known list with ``key`` added; True if new."""
        if not isinstance(name, str) or name in self._states:
            return False
        for keys in list(self._lists.values()):
            if len(keys) < MAX_OWN_CASES and key not in keys and own_set_name([*keys, key]) == name:
                grown = (*keys, key)
                self._known(name, grown, tuple(_case(i, k) for i, k in enumerate(grown, 1)))
                return True
        return False

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
        text = f"Your cases are {set_label(self.name)}: {counted(count, 'search', 'searches')}."
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
