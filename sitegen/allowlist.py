"""What a record or Markdown page may hold besides Markdown: the allowed HTML tags, attributes and URLs (DR-001).

Rendered HTML is what browsers get, so it is checked after conversion: raw tags, attributes
written with attr_list and Markdown links are all seen. The same reader collects the links and
ids of every rendered page for the link check (``links``).
"""

from __future__ import annotations

import html.parser
import re

from sitegen.documents import Page, Record
from sitegen.problems import Problem, source_line

ALLOWED_TAGS = frozenset({
    # written by Markdown and its tables, fenced_code, toc and attr_list extensions
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong",
    "a", "img", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "div",
    # written by hand
    "abbr", "kbd", "sup", "sub", "details", "summary",
})
ALLOWED_ATTRIBUTES = {
    "*": {"id", "class", "title"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
    "details": {"open"},
}
LINK_SCHEMES = ("http", "https", "mailto")


def url_scheme(url: str) -> str:
    """The scheme of ``url`` as a browser reads it (it ignores spaces and control characters), or ''."""
    match = re.match(r"([a-z][a-z0-9+.-]*):", re.sub(r"[\x00-\x20]", "", url).lower())
    return match.group(1) if match else ""


def is_site_path(url: str) -> bool:
    """True for a relative path such as ``../static/x.png``: no scheme, no host, no leading slash."""
    return not url_scheme(url) and not re.sub(r"[\x00-\x20]", "", url).startswith(("/", "\\"))


class HtmlChecker(html.parser.HTMLParser):
    """Collect the links (href, src) and ids of rendered HTML and, with ``check_markup``, what it holds
    beyond the allowed tags, attributes and URLs.

    Comments, declarations and unfinished tags are refused outright: browsers and this parser
    do not always agree where they end (``<!-->``, ``<![CDATA[``), and markup hidden from one is
    live in the other. Markdown escapes every ``<`` of text, so a raw one left in the data is
    markup this parser gave up on.
    """

    def __init__(self, check_markup: bool = True) -> None:
        super().__init__(convert_charrefs=False)
        self.check_markup = check_markup
        self.links: list[tuple[str, int]] = []  # (href or src, its line in the HTML)
        self.ids: set[str] = set()
        self.refused: list[tuple[str, tuple[str, ...]]] = []  # (message, expressions to find it in the source)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((value, self.getpos()[0]))
            elif name == "id" and value:
                self.ids.add(value)
        if not self.check_markup:
            return
        if tag not in ALLOWED_TAGS:
            self.refused.append((f"the tag <{tag}> is not allowed", (rf"<\s*{re.escape(tag)}\b",)))
            return
        allowed = ALLOWED_ATTRIBUTES["*"] | ALLOWED_ATTRIBUTES.get(tag, set())
        for name, value in attrs:
            value = value or ""
            attribute = rf"\b{re.escape(name)}\s*="
            clues = (re.escape(value), attribute) if value else (attribute,)
            if name not in allowed:
                self.refused.append((f"the attribute '{name}' on <{tag}> is not allowed", clues))
            elif name == "href" and url_scheme(value) not in ("", *LINK_SCHEMES):
                message = f"a link to '{url_scheme(value)}:' is not allowed; use {', '.join(LINK_SCHEMES)} or a path"
                self.refused.append((message, clues))
            elif name == "src" and not is_site_path(value):
                message = "an image must come from this site: give its src as a relative path"
                self.refused.append((message, clues))

    def handle_data(self, data: str) -> None:
        if self.check_markup and "<" in data:
            unfinished = data[data.index("<"):][:20]
            self.refused.append((f"unfinished HTML {unfinished!r}", (re.escape(unfinished),)))

    def handle_comment(self, data: str) -> None:
        if self.check_markup:
            self.refused.append(("HTML comments are not allowed", (r"<!",)))

    def handle_decl(self, decl: str) -> None:
        if self.check_markup:
            self.refused.append(("declarations such as <!...> are not allowed", (r"<!",)))

    unknown_decl = handle_decl

    def handle_pi(self, data: str) -> None:
        if self.check_markup:
            self.refused.append(("processing instructions <?...> are not allowed", (r"<\?",)))


def refused_html(document: Record | Page) -> list[Problem]:
    """A problem for everything in the document's rendered HTML that a record may not hold.

    The HTML is what browsers get, so raw tags, attr_list attributes and Markdown links are all seen;
    the line is found by searching the source for clues to what was refused.
    """
    checker = HtmlChecker()
    try:
        checker.feed(document.html)
        checker.close()
    except AssertionError:  # how html.parser meets a section such as <![foo[ … ]]>
        checker.refused.append(("a <![…[ section is not allowed", (r"<!\[",)))
    hint = " (DR-001 lists the HTML a record may hold)"
    return [Problem(document.source, source_line(document, clues), message + hint)
            for message, clues in checker.refused]
