"""The contents page, index.md: the one-paragraph promise and the list of chapters."""

from __future__ import annotations

from collections.abc import Mapping

from sitegen.context import SiteContext
from sitegen.kinds.pages.base import PageKind, summarise_chapters
from sitegen.messages import (
    MISSING_CONTENTS_PAGE,
)
from sitegen.model import INDEX_PAGE, Page


class ContentsKind(PageKind):
    """The site's front page."""

    name = "index"
    source_name = "index.md"
    output_name = INDEX_PAGE
    template = "index.html"
    missing = MISSING_CONTENTS_PAGE

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        """The chapters it lists."""
        return {"chapters": site.chapters, "description": page.lede}

    site_fields = frozenset({"chapters"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """It lists every chapter."""
        return summarise_chapters(site)


KIND = ContentsKind()
