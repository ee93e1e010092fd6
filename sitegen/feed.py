"""The Atom feed of the decision records, ``decisions/feed.xml`` (DR-001)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

from sitegen.documents import SITE_TITLE, Record


def atom_feed(records: list[Record]) -> str:
    """An Atom feed of the records; links are relative to the feed's own URL."""
    atom = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", atom)
    feed = ET.Element(f"{{{atom}}}feed")
    ET.SubElement(feed, f"{{{atom}}}title").text = f"{SITE_TITLE}: decision records"
    ET.SubElement(feed, f"{{{atom}}}id").text = "tag:kd-tree-explorer,2026:decisions"
    ET.SubElement(feed, f"{{{atom}}}link", {"rel": "self", "href": "feed.xml"})
    ET.SubElement(feed, f"{{{atom}}}link", {"rel": "alternate", "href": "./"})
    newest = max((r.date for r in records), default=dt.date(2026, 1, 1))
    ET.SubElement(feed, f"{{{atom}}}updated").text = f"{newest.isoformat()}T00:00:00Z"
    author = ET.SubElement(feed, f"{{{atom}}}author")
    ET.SubElement(author, f"{{{atom}}}name").text = SITE_TITLE
    for record in sorted(records, key=lambda r: (r.date, r.id), reverse=True):
        entry = ET.SubElement(feed, f"{{{atom}}}entry")
        ET.SubElement(entry, f"{{{atom}}}title").text = f"{record.id}: {record.title}"
        ET.SubElement(entry, f"{{{atom}}}id").text = f"tag:kd-tree-explorer,2026:{record.id}"
        ET.SubElement(entry, f"{{{atom}}}link", {"rel": "alternate", "href": f"{record.id}/"})
        ET.SubElement(entry, f"{{{atom}}}updated").text = f"{record.date.isoformat()}T00:00:00Z"
        ET.SubElement(entry, f"{{{atom}}}summary").text = record.summary
        for tag in record.tags:
            ET.SubElement(entry, f"{{{atom}}}category", {"term": tag})
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"
