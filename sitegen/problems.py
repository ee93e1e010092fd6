"""A problem of the site's sources with its file and line, and how that line is found in a document (DR-001).

The build never stops at the first problem: it collects every one, and ``BuildFailed`` carries them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol


class Source(Protocol):
    """What the line finders need of a record or a page (``sitegen.documents``): its body and the body's first line."""

    body: str
    body_line: int


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class BuildFailed(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def line_of(text: str, offset: int, first_line: int = 1) -> int:
    return first_line + text.count("\n", 0, offset)


def prose_line(document: Source, mention: str) -> int:
    """The line of the first ``mention`` outside fenced code and code spans, else the document's first line."""
    fenced = False
    for number, line in enumerate(document.body.split("\n"), start=document.body_line):
        if re.match(r"\s{0,3}(```|~~~)", line):
            fenced = not fenced
        elif not fenced and re.search(rf"\b{mention}\b", re.sub(r"`[^`]*`", "", line)):
            return number
    return document.body_line


def source_line(document: Source, clues: tuple[str, ...]) -> int:
    """The line of the first match of the first clue that matches the document's source, else its first line."""
    for clue in clues:
        match = re.search(clue, document.body, flags=re.IGNORECASE)
        if match:
            return line_of(document.body, match.start(), document.body_line)
    return document.body_line
