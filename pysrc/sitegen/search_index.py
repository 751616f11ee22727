"""The search index: chapters, their section headings and the glossary's terms, written once at build time.

The browser loads it from assets/search-index.HASH.json (same origin, so it
works offline) and matches locally; there is no server to ask. Each entry
says where it lives ("Chapter 2 · Possibilities are not counts") and links
straight to its heading.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from markdown_it.token import Token

from sitegen.model import Page
from sitegen.previews import find_definition_ranges
from sitegen.sections import list_sections


@dataclass(frozen=True)
class SearchEntry:
    """One thing a reader can find: its title, where it is, its link and a line of text to show."""

    kind: str
    title: str
    context: str
    url: str
    text: str = ""


def describe_chapter(page: Page) -> str:
    """Return "Chapter 2 · Possibilities are not counts" for a chapter page."""
    number = page.chapter.number if page.chapter else 0
    return f"Chapter {number} · {page.title}"


def read_plain_text(tokens: Sequence[Token]) -> str:
    """Return the readable text of a run of block tokens (math and markup dropped, computed values filled in)."""
    parts: list[str] = []
    for token in tokens:
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type == "computed_value":
                parts.append(str(child.meta.get("text", "")))
            elif child.type in ("softbreak", "hardbreak", "math_inline"):
                parts.append(" ")
    return " ".join("".join(parts).split())


def list_search_entries(chapters: Sequence[Page], glossary: Page | None) -> tuple[SearchEntry, ...]:
    """Return every chapter, every section heading of every chapter, then every glossary term."""
    entries: list[SearchEntry] = []
    for page in chapters:
        number = page.chapter.number if page.chapter else 0
        entries.append(SearchEntry("chapter", page.title, f"Chapter {number}", page.output_name, page.lede))
        for section in list_sections(page):
            entries.append(SearchEntry("section", section.text, describe_chapter(page), f"{page.output_name}#{section.anchor}"))
    if glossary is not None:
        for key, (title, start, end) in find_definition_ranges(glossary.tokens).items():
            entries.append(
                SearchEntry(
                    "term", title, "Glossary", f"{glossary.output_name}#{key}", read_plain_text(glossary.tokens[start:end])
                )
            )
    return tuple(entries)


def write_search_index(entries: Sequence[SearchEntry]) -> bytes:
    """Serialise the entries compactly (the file is fetched on first use of the search box)."""
    return json.dumps({"entries": [asdict(entry) for entry in entries]}, ensure_ascii=False, separators=(",", ":")).encode()
