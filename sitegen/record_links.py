"""The Markdown extension that links each mention of a known decision record (DR-001).

A module of its own so that a build whose documents all come from the cache does not import
Python-Markdown (DR-001).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import markdown

RECORD_MENTION = re.compile(r"\bDR-\d{3,}\b")


class RecordLinks(markdown.treeprocessors.Treeprocessor):
    """Turn every DR-NNN of a known record in text (not in code or an existing link) into a link to it."""

    def __init__(self, md: markdown.Markdown, state: RecordLinkExtension):
        super().__init__(md)
        self.state = state

    def run(self, root: ET.Element) -> None:
        self._walk(root)

    def _walk(self, element: ET.Element) -> None:
        if element.tag in ("a", "code", "pre"):
            return
        children = list(element)  # before links are added: their tails are already split
        for child in children:
            self._walk(child)
        element.text, new = self._split(element.text)
        for index, link in enumerate(new):
            element.insert(index, link)
        for child in children:
            child.tail, new = self._split(child.tail)
            position = list(element).index(child) + 1
            for offset, link in enumerate(new):
                element.insert(position + offset, link)

    def _split(self, text: str | None) -> tuple[str | None, list[ET.Element]]:
        """The text before the first known mention, and a link per known mention carrying the text after it."""
        if not text or not RECORD_MENTION.search(text):
            return text, []
        parts = RECORD_MENTION.split(text)
        head, links = parts[0], []
        for mention, tail in zip(RECORD_MENTION.findall(text), parts[1:], strict=True):
            if mention not in self.state.ids:
                self.state.missing.append(mention)
                if links:
                    links[-1].tail += mention + tail
                else:
                    head += mention + tail
                continue
            link = ET.Element("a", {"href": self.state.href(mention, self.state.page_url)})
            link.text = mention
            link.tail = tail
            links.append(link)
        return head, links


class RecordLinkExtension(markdown.extensions.Extension):
    """The record links' state for the document being converted: its URL and the mentions naming no record.

    Registered with the converter, so ``Markdown.reset()`` clears it with the rest (as MkDocs's
    per-page tree processors hold the page they convert).
    """

    def __init__(self, ids: set[str], href: Callable[[str, str], str]):
        super().__init__()
        self.ids = frozenset(ids)
        self.href = href  # (record id, URL of the page linking to it) -> the link's href
        self.page_url = "index.html"
        self.missing: list[str] = []

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.registerExtension(self)
        md.treeprocessors.register(RecordLinks(md, self), "record_links", 5)

    def reset(self) -> None:
        self.page_url = "index.html"
        self.missing = []
