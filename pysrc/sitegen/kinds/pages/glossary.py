"""The glossary, glossary.md: a definition list of terms, each with its anchor and the chapters that use it.

`term:` links (kinds/links/term.py) point here; a term's key is its `{#key}`
or its text made an anchor (check/markdown.py's `mark_glossary_keys`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from sitegen.check.markdown import block_line
from sitegen.check.tokens import find_matching
from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report_error
from sitegen.kinds.links.term import first_use_anchor
from sitegen.kinds.pages.base import PageFindings, PageKind
from sitegen.model import GLOSSARY_PAGE, Page, Source, Term
from sitegen.render.page_meta import list_glossary_letters

NAME = "glossary"


class GlossaryKind(PageKind):
    """The terms the chapters link to."""

    name = NAME
    source_name = "glossary.md"
    output_name = GLOSSARY_PAGE
    template = "glossary.html"
    missing = "missing glossary: add glossary.md with front matter title: and lede:, then a definition list of terms"

    def collect(self, source: Source, tokens: Sequence[Token], found: PageFindings) -> None:
        """Each term of the definition list, its anchor; keys unique, terms in alphabetical order."""
        for token in tokens:
            if token.type == "dt_open":
                found.terms.append(Term(token.meta["key"], token.meta["term"], source.at(block_line(token))))
                found.anchors.append(token.meta["key"])
        found.problems.extend(check_glossary_terms(found.terms))

    def add_render_rules(self, md: MarkdownIt) -> None:
        """Terms get their anchors; definitions end with the chapters that use the term."""
        md.add_render_rule("dt_open", render_dt_open)
        md.add_render_rule("dd_close", render_dd_close)

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        """The A–Z letters above the terms."""
        return {"description": page.lede, "letters": list_glossary_letters(page.tokens)}

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each term's "Used in" line names the chapters that link to it."""
        return tuple(
            (key, tuple((user.output_name, user.title, user.lede, user.chapter) for user in pages))
            for key, pages in sorted(site.term_users.items())
        )


def check_glossary_terms(terms: Sequence[Term]) -> list[Diagnostic]:
    """Glossary keys must be unique and the entries alphabetical, so readers can scan them."""
    problems = []
    seen: dict[str, Term] = {}
    for term in terms:
        if term.key in seen:
            problems.append(
                report_error(
                    term.location,
                    f"duplicate glossary term key '{term.key}' (first at line {seen[term.key].location.line})",
                )
            )
        else:
            seen[term.key] = term
    for previous, term in itertools.pairwise(terms):
        if term.text.casefold() < previous.text.casefold():
            problems.append(
                report_error(
                    term.location,
                    f"glossary terms must be in alphabetical order: '{term.text}' comes after '{previous.text}'",
                )
            )
    return problems


def render_dt_open(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Give each glossary term its anchor."""
    if env.get("page_kind") == NAME and "key" in tokens[index].meta:
        return f'<dt id="{escape(tokens[index].meta["key"])}">'
    return "<dt>"


def render_dd_close(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """End a glossary definition with the chapters that use the term."""
    if env.get("page_kind") != NAME:
        return "</dd>\n"
    opening = find_matching(tokens, index)
    term = next((t for t in reversed(tokens[: max(opening, 0)]) if t.type == "dt_open"), None)
    site: SiteContext = env["site"]
    users = site.term_users.get(term.meta.get("key", "") if term else "", ())
    if not users:
        return "</dd>\n"
    key = term.meta.get("key", "") if term else ""
    links = ", ".join(
        f'<a href="{p.output_name}#{first_use_anchor(key)}">{p.chapter.number if p.chapter else ""}. {escape(p.title)}</a>'
        for p in users
    )
    return f'<p class="used-in"><span class="used-in-label">Used in:</span> {links}</p>\n</dd>\n'


KIND = GlossaryKind()
