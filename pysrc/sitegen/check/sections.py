"""A page's sections, read from its `##` and `###` headings: for the chapter's contents list and the search index."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from sitegen.model import Page

SECTION_LEVELS = ("h2", "h3")


@dataclass(frozen=True)
class Section:
    """One heading of a page: its level (2 or 3), anchor and plain text."""

    level: int
    anchor: str
    text: str


def read_heading_text(inline: Token) -> str:
    """Return a heading's plain text as the reader sees it (computed values filled in, markup dropped)."""
    parts = []
    for child in inline.children or []:
        if child.type == "computed_value":
            parts.append(str(child.meta.get("text", "")))
        elif child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def list_sections(page: Page) -> tuple[Section, ...]:
    """Return the page's h2 and h3 headings that carry an anchor, in reading order.

    Headings inside `:::` containers (an exercise's or a lab's title) are the
    partials' business, and markdown headings never appear inside them here.
    """
    return tuple(_iterate_sections(page.tokens))


def _iterate_sections(tokens: Sequence[Token]) -> Iterator[Section]:
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag not in SECTION_LEVELS:
            continue
        anchor = token.attrGet("id")
        if anchor and index + 1 < len(tokens):
            yield Section(level=int(token.tag[1]), anchor=str(anchor), text=read_heading_text(tokens[index + 1]))
