"""The fixed, seeded sets of searches the evaluation page asks a model about (DR-006, DR-009).

``explain-eval-v2`` holds twenty cases; ``explain-eval-x80`` eighty, drawn by the
same rules from the same streams (below), so its first twenty cases are exactly
C01-C20 of the first set and a case id names the same search in both.

Four kinds of search, each on all five insertion orders (``pyapp.kdtree.tree.ORDERS``):

- ``near-business``: nearest neighbour of a point beside a business: a business
  drawn from the data file, moved by up to ``NEAR_OFFSET`` degrees on each axis;
- ``anywhere``: nearest neighbour of a point drawn uniformly in the data's
  bounding box;
- ``radius-small``: radius 0.0005° around a point beside a business, drawn like
  ``near-business``. The offset is smaller than the radius, so the business
  itself is always inside and the answer always has ids to list (a uniform point
  finds nothing within 0.0005° about 44% of the time in this data, which would
  make most of the kind test only the empty answer);
- ``radius-large``: radius 0.003° around a point drawn uniformly in the bounding
  box: long traces and many ids to list.

Each kind draws its five points, in order, from its own generator
``random.Random(f"{SEED}:{kind}")`` (a text seed is hashed with SHA-512, the
same on every platform and on Pyodide), using only ``Random.random()``, the one
output Python promises to keep stable. Point i of a kind goes with order i of
``ORDERS``, so the twenty cases are twenty different searches; changing one
kind's rule or stream never moves another kind's points. Coordinates are
rounded to 7 decimals (about 1 cm) so they print the same everywhere.

Case ids run C01-C05 for the first kind (orders in ``ORDERS`` order), C06-C10
for the second, and so on. A larger set is drawn in rounds of twenty: round r
takes points 5r+1 to 5r+5 of each kind's stream, laid out the same way, so
C21-C25 are the next five points of the first kind, C26-C30 of the second, and
every round is itself every kind on every order once.

The visitor's own cases make sets too (``pyapp.evaluation.own_cases``), but only in the log that
holds them: :class:`CaseSets` is what each set name means to one log, and the rebuild of that log
owns it. :data:`FIXED_SETS` knows the fixed sets alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from pyapp.auditlog.format import OWN_SET_NAME_RE
from pyapp.core.vocabulary import SearchKind
from pyapp.explanation.checks import Facts, facts_for
from pyapp.explanation.prompt import MAX_STEPS, Prompt, build_prompt
from pyapp.kdtree.geodata import COORD_DECIMALS, bounding_box, load_businesses
from pyapp.kdtree.search import SearchResult, search
from pyapp.kdtree.tree import ORDERS

EVAL_SET_VERSION = "explain-eval-v2"
LARGE_SET_VERSION = "explain-eval-x80"
# Rounds of twenty cases in each set (module doc); a set never changes once published, a new one gets a new name.
SET_ROUNDS = {EVAL_SET_VERSION: 1, LARGE_SET_VERSION: 4}
SET_VERSIONS = tuple(SET_ROUNDS)
SEED = 2026
NEAR_OFFSET = 0.0001  # degrees on each axis: at most 11 m north-south, 6 m east-west at 60° N

NEAR_BUSINESS = "near-business"
ANYWHERE = "anywhere"
RADIUS_SMALL = "radius-small"
RADIUS_LARGE = "radius-large"


@dataclass(frozen=True)
class CaseKind:
    """One kind of case: how its query points are drawn and which search they get."""

    name: str
    label: str
    search_kind: SearchKind
    radius: float | None
    near_business: bool


CASE_KINDS = (
    CaseKind(NEAR_BUSINESS, "nearest near a business", SearchKind.NEAREST, None, True),
    CaseKind(ANYWHERE, "nearest anywhere in the city", SearchKind.NEAREST, None, False),
    CaseKind(RADIUS_SMALL, "radius 0.0005°", SearchKind.RADIUS, 0.0005, True),
    CaseKind(RADIUS_LARGE, "radius 0.003°", SearchKind.RADIUS, 0.003, False),
)
CASE_KIND_NAMES = tuple(k.name for k in CASE_KINDS)
# The kinds of the visitor's own cases (pyapp.evaluation.own_cases): a search kept from the explorer as it was.
OWN_CASE_KINDS = (
    CaseKind("own-nearest", "your nearest search", SearchKind.NEAREST, None, False),
    CaseKind("own-radius", "your radius search", SearchKind.RADIUS, None, False),
)
_CASE_KIND = {k.name: k for k in CASE_KINDS + OWN_CASE_KINDS}

_ORDER_NOTES = {
    "file": "inserted in file order (ascending OSM id)",
    "lon-sorted": "inserted sorted by longitude",
    "lat-sorted": "inserted sorted by latitude",
    "shuffled": "inserted in a seeded random order",
    "median-first": "inserted median first, so balanced",
}


@dataclass(frozen=True)
class Case:
    """One search of the set; ``radius`` is None for nearest searches."""

    case_id: str
    kind: str
    order: str
    lon: float
    lat: float
    radius: float | None
    why_it_matters: str

    @property
    def search_kind(self) -> SearchKind:
        return _CASE_KIND[self.kind].search_kind

    def to_json(self) -> dict:
        return {
            "case_id": self.case_id,
            "kind": self.kind,
            "order": self.order,
            "lon": self.lon,
            "lat": self.lat,
            "radius": self.radius,
            "why_it_matters": self.why_it_matters,
        }


def stream_seed(kind: str) -> str:
    """The seed text of ``kind``'s own generator."""
    return f"{SEED}:{kind}"


@dataclass(frozen=True)
class _Draw:
    lon: float
    lat: float
    source_id: int | None  # the business a near-business point was drawn beside


def _round(x: float) -> float:
    return round(x, COORD_DECIMALS)


def draw_points(kind: CaseKind, rng: random.Random, count: int = len(ORDERS)) -> list[_Draw]:
    """``count`` query points for ``kind`` from ``rng``, in draw order (module doc gives the rules)."""
    points = load_businesses()
    box = bounding_box(points)
    draws = []
    for _ in range(count):
        if kind.near_business:
            # min() guards the float product against ever reaching len(points)
            b = points[min(len(points) - 1, int(rng.random() * len(points)))]
            dx = (2.0 * rng.random() - 1.0) * NEAR_OFFSET
            dy = (2.0 * rng.random() - 1.0) * NEAR_OFFSET
            draws.append(_Draw(_round(b.lon + dx), _round(b.lat + dy), b.id))
        else:
            lon = box.min_lon + rng.random() * (box.max_lon - box.min_lon)
            lat = box.min_lat + rng.random() * (box.max_lat - box.min_lat)
            draws.append(_Draw(_round(lon), _round(lat), None))
    return draws


def _why(kind: CaseKind, draw: _Draw, result: SearchResult, prompt: Prompt) -> str:
    """One line on what this particular case tests, from its own search."""
    ids = result.result_ids
    if kind.name == NEAR_BUSINESS:
        if ids and ids[0] == draw.source_id:
            what = "Nearest beside a business, which is itself the answer"
        else:
            what = "Nearest beside a business, yet another point is closer and must be named"
    elif kind.name == ANYWHERE:
        what = f"Nearest from an arbitrary spot, {result.result[0].distance:.5f}° from any business"
    else:
        count = len(ids)
        listed = "one id" if count == 1 else f"{count} ids"
        what = f"Radius {kind.radius:g}° with {listed} to list"
    depth = result.tree.depth
    tree = f"on a tree of depth {depth} {_ORDER_NOTES.get(result.order, result.order)}"
    if prompt.cut:
        trace = (f"the {prompt.steps_total}-step trace is cut at {MAX_STEPS}, so the counts must be taken "
                 "from the cut marker")
    else:
        trace = f"all {prompt.steps_total} steps are sent and can be cited"
    return f"{what}, {tree}; {trace}."


def build_cases(seed_for: Callable[[str], str] = stream_seed, rounds: int = 1) -> tuple[Case, ...]:
    """``rounds`` times twenty cases, drawing each kind's points from ``random.Random(seed_for(kind))``.

    ``seed_for`` exists so tests can show that one kind's stream moves no other kind.
    """
    per_round = len(ORDERS)
    draws = {kind.name: draw_points(kind, random.Random(seed_for(kind.name)), rounds * per_round)
             for kind in CASE_KINDS}
    cases = []
    for r in range(rounds):
        for kind in CASE_KINDS:
            for order, draw in zip(ORDERS, draws[kind.name][r * per_round:(r + 1) * per_round], strict=True):
                result = search(order, kind.search_kind, draw.lon, draw.lat, kind.radius)
                why = _why(kind, draw, result, build_prompt(result))
                number = len(cases) + 1
                cases.append(Case(f"C{number:02d}", kind.name, order, draw.lon, draw.lat, kind.radius, why))
    return tuple(cases)


def is_own_set(version: object) -> bool:
    """True for a name of the visitor's own set (``own-`` and 8 hex digits), known or not."""
    return isinstance(version, str) and OWN_SET_NAME_RE.match(version) is not None


def set_kinds(version: str) -> tuple[CaseKind, ...]:
    """The kinds of case set ``version`` holds, in the order the report lists them."""
    return OWN_CASE_KINDS if is_own_set(version) else CASE_KINDS


@lru_cache(maxsize=len(SET_ROUNDS))
def _fixed_cases(version: str) -> tuple[Case, ...]:
    return build_cases(rounds=SET_ROUNDS[version])


class CaseSets:
    """What each set name means to one log: the fixed sets, and the visitor's own sets that log holds.

    ``own`` maps an own set's name to its cases; the object reads it as it grows, so the owner
    (:class:`pyapp.evaluation.own_cases.OwnCases`, fed a log's entries) adds states and every holder
    sees them. An own set's name is a hash of its cases, so a name means the same cases in every log
    that holds it, and a log that does not hold it cannot name it. :data:`FIXED_SETS` knows no own set.
    """

    def __init__(self, own: Mapping[str, tuple[Case, ...]] | None = None) -> None:
        self._own = MappingProxyType(own if own is not None else {})
        self._ids: dict[str, dict[str, Case]] = {}

    def is_known(self, version: object) -> bool:
        """True for a fixed set and for an own set of this log."""
        return isinstance(version, str) and (version in SET_ROUNDS or version in self._own)

    def check(self, version: str) -> str:
        """``version`` when this log can name it; ``ValueError`` naming the sets otherwise."""
        if is_own_set(version) and version not in self._own:
            raise ValueError(f"no set of your own cases named {version} in this log; add searches from the "
                             "explorer to make one")
        if not self.is_known(version):
            raise ValueError(f"no evaluation set {_shown(version)}; the sets are {', '.join(SET_VERSIONS)}")
        return version

    def cases(self, version: str = EVAL_SET_VERSION) -> tuple[Case, ...]:
        """The cases of set ``version`` (default ``EVAL_SET_VERSION``: C01-C20), in set order."""
        own = self._own.get(version)
        return own if own is not None else _fixed_cases(self.check(version))

    def case_ids(self, version: str = EVAL_SET_VERSION) -> tuple[str, ...]:
        return tuple(c.case_id for c in self.cases(version))

    def by_id(self, version: str) -> Mapping[str, Case]:
        """The cases of set ``version`` by id."""
        found = self._ids.get(version)
        if found is None:
            found = self._ids[version] = {c.case_id: c for c in self.cases(version)}
        return found

    def case(self, case_id: str, version: str = EVAL_SET_VERSION) -> Case:
        """The case named ``case_id`` in set ``version``; ``ValueError`` for an unknown id."""
        found = self.by_id(version).get(case_id)
        if found is None:
            ids = self.case_ids(version)
            raise ValueError(f"no case {_shown(case_id)} in {version}; the cases are {ids[0]} to {ids[-1]}")
        return found


FIXED_SETS = CaseSets()


def _shown(value: object) -> str:
    """``value`` as an error message may echo it: quoted, at most about 40 characters."""
    text = repr(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= 42 else text[:40] + "…"


@lru_cache(maxsize=128)
def case_search(c: Case) -> SearchResult:
    """The search of case ``c`` on the data tree of its order."""
    return search(c.order, c.search_kind, c.lon, c.lat, c.radius)


@lru_cache(maxsize=128)
def case_prompt(c: Case) -> Prompt:
    """The exact prompt the site sends for case ``c`` today."""
    return build_prompt(case_search(c))


@lru_cache(maxsize=128)
def case_facts(c: Case) -> Facts:
    """What the checks compare an answer for case ``c`` with."""
    return facts_for(case_search(c), case_prompt(c))


def evalset_table(version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS) -> list[dict]:
    """One row per case of set ``version`` for review: the case, its trace length and prompt, whether it is cut."""
    rows = []
    for c in sets.cases(version):
        result = case_search(c)
        prompt = case_prompt(c)
        rows.append({
            **c.to_json(),
            "kind_label": _CASE_KIND[c.kind].label,
            "tree_depth": result.tree.depth,
            "results": len(result.result),
            "steps": len(result.trace),
            "steps_sent": prompt.steps_sent,
            "over_limit": len(result.trace) > MAX_STEPS,
            "prompt_chars": len(prompt.system) + len(prompt.user),
            "prompt_version": prompt.version,
            "prompt_hash": prompt.hash,
        })
    return rows


def evalset_summary(table: list[dict] | None = None, version: str = EVAL_SET_VERSION,
                    sets: CaseSets = FIXED_SETS) -> dict:
    """Counts over the table of set ``version``: cases, traces longer than ``MAX_STEPS``, prompt size of one run."""
    rows = evalset_table(version, sets) if table is None else table
    return {
        "eval_set_version": version,
        "seed": None if is_own_set(version) else SEED,  # the visitor's own cases are not drawn
        "cases": len(rows),
        "max_steps": MAX_STEPS,
        "over_limit": sum(1 for r in rows if r["over_limit"]),
        "prompt_chars": sum(r["prompt_chars"] for r in rows),
    }


