"""What every page kind says about itself: the interface load, parse, validate, render and the dev server use.

A *page kind* is a sort of Markdown page: the chapters (NN-slug.md), the
contents page (index.md), the glossary, the notation page. Each kind is one
module in kinds/pages/ with a `PageKind` subclass, registered in `PAGE_KINDS`
(kinds/pages/__init__.py, in reading order), plus its template under
site_templates/. The module holds everything particular to the kind:

- read: `source_name`, the one content file it is read from ("" for the
  chapters, whose files are NN-slug.md); any other Markdown file in the
  content folder is reported as unexpected. `missing`: the problem when the
  file is absent (a catalogue entry, messages.py; None when the page is optional).
- parse: `fields`, the front matter it takes (all required); `place` turns
  the checked front matter into the page's output name (and, for a chapter,
  its number); `collect` reads what only this kind defines (the glossary's
  terms) while the page is parsed; `add_parse_rules` adds markdown-it rules
  of its own (the glossary terms' keys).
- render: `template` and `template_context` (the variables beyond those
  every page gets); `add_render_rules` for Markdown written differently on
  this kind of page (the glossary's terms and "Used in" lines).
- `searchable`: its sections go into the search index; `allows_figures`:
  a figure may stand on it (only chapters number theirs); elsewhere a figure is a
  problem.
- `render_inputs`: what else of the site its HTML reads, for the dev
  server's incremental rebuild (serve/incremental.py) to compare.

Adding a kind is one module and one template; tests/site/kinds/test_page_kinds.py
adds one the way a test would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Protocol

from markdown_it import MarkdownIt
from markdown_it.token import Token

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, Message
from sitegen.model import Chapter, FrontMatter, Page, Source, Term
from sitegen.session import SESSION, Slot


class PageFindings(Protocol):
    """The parts of a page's scratch pad (parse.PageContents) a kind's `collect` may add to."""

    anchors: list[str]
    terms: list[Term]
    problems: list[Diagnostic]


class PageKind:
    """One kind of page. Subclasses set `name`, `source_name`, `output_name` and `template`."""

    name: ClassVar[str]
    source_name: ClassVar[str]  # e.g. "notation.md"; "" for the chapters (NN-slug.md)
    output_name: ClassVar[str]  # e.g. "notation.html"; the chapters' come from their file names
    template: ClassVar[str]  # under site_templates/, e.g. "notation.html"
    fields: ClassVar[tuple[str, ...]] = ("title", "lede")
    missing: ClassVar[Message | None] = None  # the problem when the content folder has no such page; None: optional
    searchable: ClassVar[bool] = False
    allows_figures: ClassVar[bool] = False
    # The SiteContext fields `render_inputs` reads in parts (the dev server compares every other field whole).
    site_fields: ClassVar[frozenset[str]] = frozenset()

    def place(
        self, source: Source, front_matter: FrontMatter, title: str, lede: str
    ) -> tuple[str, Chapter | None, list[Diagnostic]]:
        """Return the page's output name, its chapter (None for any other kind) and any problem with them."""
        return self.output_name, None, []

    def collect(self, source: Source, tokens: Sequence[Token], found: PageFindings) -> None:
        """Record what only this kind of page defines, after the walk over its tokens (default: nothing)."""

    def add_parse_rules(self, md: MarkdownIt) -> None:
        """Add parse rules for Markdown this kind of page gives a meaning of its own (default: none).

        The parser is shared by every page (check/markdown.py), so a rule runs on
        every page: the glossary's reads each definition-list term's `{#key}`.
        """

    def add_render_rules(self, md: MarkdownIt) -> None:
        """Add render rules for Markdown written differently on this kind of page (default: none).

        The renderer is shared by every page; a rule checks `env["page_kind"]`.
        """

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        """Return the template's variables beyond those every page gets (default: the lede as the description)."""
        return {"description": page.lede}

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Return what `template_context` and the render rules read of the site beyond the page (default: nothing)."""
        return ()


# The last summary, with the chapters it summarises: every chapter page of one build asks for the same one, and a
# 96-chapter book would otherwise build it 96 times per build.
_LAST_SUMMARY: Slot[tuple[Sequence[Page], tuple[tuple[object, ...], ...]]] = SESSION.keep("chapter summary", Slot())


def summarise_chapters(site: SiteContext) -> tuple[tuple[object, ...], ...]:
    """Return what a page shows of each chapter (a list of chapters): its file, title, lede and number."""
    last = _LAST_SUMMARY.value
    if last is None or last[0] is not site.chapters:
        last = _LAST_SUMMARY.value = (site.chapters, tuple((p.output_name, p.title, p.lede, p.chapter) for p in site.chapters))
    return last[1]


def join_names(names: Sequence[str]) -> str:
    """Return "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
