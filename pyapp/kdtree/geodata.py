"""The business locations the explorer searches (DR-003).

The data file is package data (``data/businesses.csv``), read through
``importlib.resources``: from the source tree on CPython, from the wheel itself under
Pyodide, where the wheel's zip is on ``sys.path`` (DR-002). Coordinates are
(longitude, latitude) in degrees.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

HEADER = ("id", "name", "category", "lon", "lat")

# The decimals a stored query point keeps, in the evaluation sets and the visitor's own cases: about 1 cm.
COORD_DECIMALS = 7

# The box DR-003 promises every point lies in (min_lon, min_lat, max_lon, max_lat).
DOCUMENTED_BBOX = (24.935, 60.164, 24.954, 60.180)


@dataclass(frozen=True)
class Business:
    """One named OpenStreetMap node; ``id`` is its OSM node id."""

    id: int
    name: str
    category: str
    lon: float
    lat: float


@dataclass(frozen=True)
class BBox:
    """An axis-aligned rectangle in degrees."""

    min_lon: float
    min_lat: float
    max_lon: float
    max_lat: float

    def contains(self, lon: float, lat: float) -> bool:
        return self.min_lon <= lon <= self.max_lon and self.min_lat <= lat <= self.max_lat

    def to_json(self) -> dict:
        return {
            "min_lon": self.min_lon,
            "min_lat": self.min_lat,
            "max_lon": self.max_lon,
            "max_lat": self.max_lat,
        }


def parse_businesses(text: str) -> tuple[Business, ...]:
    """Businesses from the CSV text, in file order; raises ValueError on a wrong header."""
    reader = csv.reader(text.splitlines())
    header = tuple(next(reader, ()))
    if header != HEADER:
        raise ValueError(f"unexpected header {header!r}, expected {HEADER!r}")
    return tuple(
        Business(id=int(row[0]), name=row[1], category=row[2], lon=float(row[3]), lat=float(row[4]))
        for row in reader
    )


@lru_cache(maxsize=1)
def load_businesses() -> tuple[Business, ...]:
    """Every business in the committed data file, in file order (ascending id)."""
    return parse_businesses(files(__package__).joinpath("data", "businesses.csv").read_text(encoding="utf-8"))


def bounding_box(points: tuple[Business, ...] | list[Business] | None = None) -> BBox:
    """The smallest rectangle holding the points (default: the whole data set)."""
    pts = load_businesses() if points is None else points
    if not pts:
        raise ValueError("bounding box of no points")
    lons = [p.lon for p in pts]
    lats = [p.lat for p in pts]
    return BBox(min(lons), min(lats), max(lons), max(lats))


@lru_cache(maxsize=1)
def businesses_by_id() -> dict[int, Business]:
    """Lookup from OSM node id to business."""
    return {b.id: b for b in load_businesses()}
