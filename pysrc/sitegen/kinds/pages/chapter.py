"""The chapters: NN-slug.md, read in their numbers' order, each with its neighbours and its table of contents."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sitegen.check.sections import list_sections
from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report_error
from sitegen.kinds.pages.base import PageKind, summarise_chapters
from sitegen.model import Chapter, Page, Source
from sitegen.read.front_matter import FrontMatter

CHAPTER_FILE = re.compile(r"^([0-9][0-9])-([a-z0-9]+(?:-[a-z0-9]+)*)\.md\Z")


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
                report_error(
                    source.at(front_matter.chapter_line),
                    f"front matter says chapter {front_matter.chapter} but the file name says {match.group(1)}",
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

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """The sidebar lists every chapter (its neighbours among them)."""
        return summarise_chapters(site)


KIND = ChapterKind()
