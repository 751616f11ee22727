"""The chapters: NN-slug.md, read in their numbers' order, each with its neighbours and its table of contents."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report
from sitegen.kinds.pages.base import PageKind, summarise_chapters
from sitegen.markup.tokens import SECTION_LEVELS, read_heading_text
from sitegen.messages import CHAPTER_NUMBER_MISMATCH
from sitegen.model import Chapter, FrontMatter, Page, Source

CHAPTER_FILE = re.compile(r"^([0-9][0-9])-([a-z0-9]+(?:-[a-z0-9]+)*)\.md\Z")


@dataclass(frozen=True)
class Section:
    """One heading of a page: its level (2 or 3), anchor and plain text."""

    level: int
    anchor: str
    text: str


def list_sections(page: Page) -> tuple[Section, ...]:
    """Return the page's h2 and h3 headings that carry an anchor, in reading order (the chapter's contents list).

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


def find_neighbours(chapters: Sequence[Page], page: Page) -> tuple[Page | None, Page | None]:
    """Return the chapters before and after a chapter in reading order (None at either end)."""
    position = chapters.index(page)
    return (chapters[position - 1] if position > 0 else None, chapters[position + 1] if position + 1 < len(chapters) else None)


class ChapterKind(PageKind):
    """A chapter of the tutorial."""

    name = "chapter"
    source_name = ""
    output_name = ""
    template = "chapter.html"
    fields = ("title", "lede", "chapter")
    searchable = True
    allows_figures = True

    def place(
        self, source: Source, front_matter: FrontMatter, title: str, lede: str
    ) -> tuple[str, Chapter | None, list[Diagnostic]]:
        """The file name gives the output name and the number, which the front matter must repeat."""
        match = CHAPTER_FILE.match(source.name)
        assert match, "load_project only passes NN-slug.md files as chapters"
        number, slug = int(match.group(1)), match.group(2)
        problems = []
        if front_matter.chapter is not None and front_matter.chapter != number:
            problems.append(
                report(
                    source.at(front_matter.chapter_line),
                    CHAPTER_NUMBER_MISMATCH,
                    chapter=front_matter.chapter,
                    number=match.group(1),
                )
            )
        chapter = Chapter(
            number=front_matter.chapter or number,
            slug=slug,
            title=title,
            lede=lede,
            location=source.at(front_matter.chapter_line),
        )
        return f"{match.group(1)}-{slug}.html", chapter, problems

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        """The sidebar's chapters, the neighbours, the sections."""
        previous, following = find_neighbours(site.chapters, page)
        return {
            "chapters": site.chapters,
            "previous": previous,
            "next": following,
            "description": page.lede,
            "sections": list_sections(page),
        }

    site_fields = frozenset({"chapters"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """The sidebar lists every chapter (its neighbours among them)."""
        return summarise_chapters(site)


KIND = ChapterKind()
