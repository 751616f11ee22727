"""`[text](term:key)`: a glossary term. `[reward](term:)` takes its key from its text.

The link goes to the term's entry on the glossary page; a chapter's first link
to a term carries the anchor the glossary's "Used in" line points back at.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from html import escape

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report, suggest_name
from sitegen.kinds.links.base import LinkScheme, Preview, RenderTokens, link_text, list_uses
from sitegen.markup.anchors import slugify
from sitegen.markup.tokens import find_matching
from sitegen.messages import (
    TERM_NOT_USED,
    UNKNOWN_TERM,
)
from sitegen.model import GLOSSARY_PAGE, Page, ParsedProject


def first_use_anchor(key: str) -> str:
    """Return the anchor of a chapter's first use of a glossary term: use-KEY."""
    return f"use-{key}"


def find_term_users(chapters: Sequence[Page]) -> dict[str, tuple[Page, ...]]:
    """Return, for each term key, the chapters that link to it, in chapter order (the glossary's "Used in" lines)."""
    users: dict[str, list[Page]] = {}
    for page in chapters:
        for key in dict.fromkeys(use.key for use in page.terms_used):
            users.setdefault(key, []).append(page)
    return {key: tuple(pages) for key, pages in users.items()}


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


@lru_cache(maxsize=2)
def render_definitions(site: SiteContext, render_tokens: RenderTokens) -> dict[str, Preview]:
    """Render every glossary definition once per site (SiteContext compares by identity)."""
    if site.glossary is None:
        return {}
    tokens = site.glossary.tokens
    return {
        key: Preview(f"{GLOSSARY_PAGE}#{key}", "Glossary", title, Markup(render_tokens(tokens[start:end])))
        for key, (title, start, end) in find_definition_ranges(tokens).items()
    }


class TermScheme(LinkScheme):
    """A glossary term; every term must be used by some chapter."""

    name = "term"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Link to the term's entry on the glossary page."""
        key = target or slugify(link_text(siblings, link))
        link.meta["key"] = key
        link.attrSet("href", f"{GLOSSARY_PAGE}#{key}")
        link.attrJoin("class", "term")

    def page_ids(self, link: Token) -> Iterable[str]:
        """A chapter's first link to a term carries use-KEY (render_open): a heading "Use KEY" takes another id."""
        key = link.meta.get("key", "")
        return (first_use_anchor(key),) if key else ()

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Every term used must be in the glossary; warn about glossary terms no chapter uses.

        Without a glossary that one problem is reported (validate.py); every use would only repeat it.
        """
        if parsed.glossary is None:
            return []
        problems = []
        term_keys = {term.key for term in parsed.glossary.terms}
        used_terms: set[str] = set()
        for page, use in list_uses(parsed.pages, self.name):
            if use.key in term_keys:
                if page.kind == "chapter":
                    used_terms.add(use.key)
            else:
                problems.append(report(use.location, UNKNOWN_TERM, key=use.key, suggestion=suggest_name(use.key, term_keys)))
        for term in parsed.glossary.terms:
            if term.key and term.key not in used_terms:  # a term without a key is an error of its own (glossary.py)
                problems.append(report(term.location, TERM_NOT_USED, key=term.key))
        return problems

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        """The chapter's first link to a term carries an anchor, the target of the glossary's "Used in" link."""
        html = renderer.renderToken(tokens, index, options, env)
        if env.get("page_kind") != "chapter":
            return html
        seen = env.setdefault("terms_seen", set())
        key = tokens[index].meta.get("key", "")
        if not key or key in seen:
            return html
        seen.add(key)
        return html.replace("<a ", f'<a id="{escape(first_use_anchor(key))}" ', 1)

    def previews(self, keys: Sequence[str], site: SiteContext, render_tokens: RenderTokens) -> list[Preview]:
        """A term's preview is its glossary definition."""
        definitions = render_definitions(site, render_tokens)
        return [definitions[key] for key in keys if key in definitions]


SCHEME = TermScheme()
