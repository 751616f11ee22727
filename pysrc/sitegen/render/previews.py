"""What a page's term and source previews show, decided at build time.

A reader who hovers, focuses or taps a glossary term or a source link sees the
definition or the full reference in a small popover. The page carries exactly
the entries it links to, as inert <template> elements the script clones, so
nothing is fetched and nothing needs the network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from markdown_it.token import Token

from sitegen.check.markdown import find_matching
from sitegen.model import Page, Reference


@dataclass(frozen=True)
class TermPreview:
    """A glossary entry as a popover shows it: the term and its definition's HTML."""

    key: str
    title: str
    definition_html: str


@dataclass(frozen=True)
class PagePreviews:
    """The entries one page links to, in the order the page first uses them."""

    terms: tuple[TermPreview, ...]
    references: tuple[Reference, ...]


def find_definition_ranges(tokens: Sequence[Token]) -> dict[str, tuple[str, int, int]]:
    """Return {term key: (term text, first token, end token)} for each glossary definition's body.

    The range covers the tokens between the term's first `dd_open` and its
    matching `dd_close`, so the glossary page's "Used in" line is not part of it.
    """
    ranges: dict[str, tuple[str, int, int]] = {}
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "dt_open" and "key" in token.meta:
            opening = next((i for i in range(index, len(tokens)) if tokens[i].type == "dd_open"), None)
            if opening is None:
                break
            closing = find_matching(tokens, opening)
            ranges.setdefault(token.meta["key"], (token.meta.get("term", token.meta["key"]), opening + 1, closing))
            index = closing
        index += 1
    return ranges


def render_term_previews(glossary: Page | None, render_tokens: Callable[[Sequence[Token]], str]) -> dict[str, TermPreview]:
    """Render every glossary definition with `render_tokens` (the site's Markdown renderer)."""
    if glossary is None:
        return {}
    tokens = glossary.tokens
    return {
        key: TermPreview(key=key, title=title, definition_html=render_tokens(tokens[start:end]))
        for key, (title, start, end) in find_definition_ranges(tokens).items()
    }


def collect_page_previews(
    page: Page, term_previews: Mapping[str, TermPreview], references: Mapping[str, Reference]
) -> PagePreviews:
    """Return the previews a page needs: each term and reference it links to, once."""
    terms = tuple(term_previews[key] for key in dict.fromkeys(use.key for use in page.terms_used) if key in term_previews)
    cited = tuple(references[key] for key in dict.fromkeys(use.key for use in page.citations) if key in references)
    return PagePreviews(terms=terms, references=cited)
