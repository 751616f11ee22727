"""The notation page, notation.md (optional): the symbols every chapter links to, a plain prose page."""

from __future__ import annotations

from sitegen.kinds.pages.base import PageKind
from sitegen.model import NOTATION_PAGE


class NotationKind(PageKind):
    """Prose only; its sections are searchable like a chapter's."""

    name = "notation"
    source_name = "notation.md"
    output_name = NOTATION_PAGE
    template = "notation.html"
    searchable = True
    # The rule "figures belong in chapters" has only ever named the contents page and the glossary.
    allows_figures = True


KIND = NotationKind()
