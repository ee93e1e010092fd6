"""Markdown to HTML for records and Markdown pages, and the Markdown Python-Markdown reads otherwise than
it looks (DR-001)."""

from __future__ import annotations

import re

from sitegen.documents import Page, Record
from sitegen.links import record_href
from sitegen.problems import Problem


class MarkdownRenderer:
    """One Markdown converter, reset to a clean state before each document."""

    def __init__(self, ids: set[str]) -> None:
        import markdown  # only when a document is not in the cache (DR-001)

        from sitegen.record_links import RecordLinkExtension

        self.record_links = RecordLinkExtension(ids, record_href)
        self.md = markdown.Markdown(
            extensions=["tables", "fenced_code", "toc", "attr_list", self.record_links],
            # An aligned column gets align="…", not style="…", which the CSP would block (DR-001).
            extension_configs={"tables": {"use_align_attribute": True}},
            output_format="html",
        )

    def convert(self, text: str, url: str) -> tuple[str, list[str]]:
        """The HTML of the document at ``url``, and the DR-NNN mentions in its prose that name no record."""
        self.md.reset()
        self.record_links.page_url = url
        return self.md.convert(text), self.record_links.missing

    def sections(self) -> tuple[tuple[str, str], ...]:
        """The (id, text) of each second-level heading of the last document converted, for its contents."""
        found, tokens = [], list(self.md.toc_tokens)
        while tokens:
            token = tokens.pop(0)
            if token["level"] == 2:
                found.append((token["id"], token["name"]))
            tokens[:0] = token["children"]
        return tuple(found)


LIST_MARKER = re.compile(r"([-*+]|\d+\.)\s")


def list_indent_problems(document: Record | Page) -> list[Problem]:
    """A problem for each list whose Markdown Python-Markdown reads otherwise than it looks (DR-001).

    Python-Markdown nests a block in a list item only when it is indented by four spaces: with
    fewer, a nested list is flattened into its parent, and a table or paragraph after a blank line
    ends the list. And a block nested after a blank line takes every line up to the next blank
    line, so the items that follow it without one run together into a paragraph with literal dashes.
    """
    problems, in_list, nested, after_blank, fenced = [], False, False, False, False
    for number, line in enumerate(document.body.split("\n"), start=document.body_line):
        if re.match(r"\s{0,3}(```|~~~)", line):
            fenced = not fenced
        if fenced or not line.strip():
            after_blank = not fenced and not line.strip()
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            marker = bool(LIST_MARKER.match(line))
            if marker and in_list and nested and not after_blank:
                message = "this list item follows a block nested in the item before it: put a blank line before it"
                problems.append(Problem(document.source, number, message))
            in_list, nested = marker, False
        elif in_list and indent < 4 and (after_blank or LIST_MARKER.match(line.lstrip())):
            message = (f"this line inside a list item is indented by {indent} space(s); indent it by 4, "
                       "or Python-Markdown ends or flattens the list here")
            problems.append(Problem(document.source, number, message))
        elif in_list and after_blank:
            nested = True
        after_blank = False
    return problems
