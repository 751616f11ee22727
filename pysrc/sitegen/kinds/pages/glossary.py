"""The glossary, glossary.md: a definition list of terms, each with its anchor and the chapters that use it.

`term:` links (kinds/links/term.py) point here; a term's key is its `{#key}`
or its text made an anchor (`mark_glossary_keys`, a parse rule of this kind's).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, quote, report
from sitegen.kinds.links.term import find_definition_ranges, first_use_anchor
from sitegen.kinds.pages.base import PageFindings, PageKind
from sitegen.markup.anchors import is_reserved_id, slugify
from sitegen.markup.tokens import TOO_LONG, block_line, find_matching
from sitegen.messages import (
    DUPLICATE_TERM_KEY,
    EMPTY_DEFINITION,
    MISSING_GLOSSARY,
    RESERVED_TERM_KEY,
    TERM_WITHOUT_ANCHOR,
    TERMS_OUT_OF_ORDER,
)
from sitegen.model import GLOSSARY_PAGE, Page, Source, Term

NAME = "glossary"
_EXPLICIT_KEY = re.compile(r"\s*\{#([A-Za-z0-9][\w-]*)\}\s*$")


class GlossaryKind(PageKind):
    """The terms the chapters link to."""

    name = NAME
    source_name = "glossary.md"
    output_name = GLOSSARY_PAGE
    template = "glossary.html"
    missing = MISSING_GLOSSARY

    def collect(self, source: Source, tokens: Sequence[Token], found: PageFindings) -> None:
        """Each term of the definition list, its anchor; keys unique, terms in alphabetical order, none defined by nothing."""
        term: Token | None = None
        for index, token in enumerate(tokens):
            if token.type == "dt_open":
                term = token
                found.terms.append(Term(token.meta["key"], token.meta["term"], source.at(block_line(token))))
                found.anchors.append(token.meta["key"])
            elif (
                token.type == "dd_open" and term is not None and defines_nothing(tokens[index + 1 : find_matching(tokens, index)])
            ):
                found.problems.append(report(source.at(block_line(term)), EMPTY_DEFINITION, term=quote(term.meta["term"])))
            elif token.type == "paragraph_open" and index + 1 < len(tokens):
                # `Term` over a lone `:` is no definition list at all, only a paragraph: the term would vanish.
                lines = tokens[index + 1].content.split("\n")
                if len(lines) >= 2 and lines[-1].strip() in DEFINITION_MARKERS:
                    line = block_line(token) + len(lines) - 2
                    found.problems.append(report(source.at(line), EMPTY_DEFINITION, term=quote(lines[-2].strip())))
        found.problems.extend(check_glossary_terms(found.terms))

    def add_parse_rules(self, md: MarkdownIt) -> None:
        """Each definition-list term gets its key, right after the block rules (before the inline ones)."""
        md.core.ruler.after("block", "glossary_keys", mark_glossary_keys)

    def add_render_rules(self, md: MarkdownIt) -> None:
        """Terms get their anchors; definitions end with the chapters that use the term."""
        md.add_render_rule("dt_open", render_dt_open)
        md.add_render_rule("dd_close", render_dd_close)

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        """The A–Z letters above the terms."""
        return {"description": page.lede, "letters": list_glossary_letters(page.tokens)}

    site_fields = frozenset({"term_users"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each term's "Used in" line names the chapters that link to it."""
        return tuple(
            (key, tuple((user.output_name, user.title, user.lede, user.chapter) for user in pages))
            for key, pages in sorted(site.term_users.items())
        )


def mark_glossary_keys(state: StateCore) -> None:
    """Core rule: read the `{#key}` at the end of a definition-list term and give the term its anchor."""
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "dt_open" or index + 1 >= len(tokens):
            continue
        inline = tokens[index + 1]
        match = _EXPLICIT_KEY.search(inline.content)
        if match:
            inline.content = inline.content[: match.start()].rstrip()
            token.meta["key"] = match.group(1)
            token.meta["explicit_key"] = True
        else:
            token.meta["key"] = slugify(inline.content)
        token.meta["term"] = inline.content


@dataclass(frozen=True)
class Letter:
    """One letter of the glossary's A–Z bar and the anchor of its first term ("" when no term starts with it)."""

    letter: str
    anchor: str


def list_glossary_letters(tokens: Sequence[Token]) -> tuple[Letter, ...]:
    """Return A–Z, each with the anchor of the first glossary term under that letter ("" for none)."""
    first: dict[str, str] = {}
    for key, (title, _start, _end) in find_definition_ranges(tokens).items():
        initial = title[:1].upper()
        first.setdefault(initial, key)
    return tuple(Letter(letter, first.get(letter, "")) for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


DEFINITION_MARKERS = (":", "~")  # what opens a definition (mdit-py-plugins' deflist)
# Content that shows something even without a word of text.
SHOWING_TOKENS = frozenset({"math_block", "math_block_label", "fence", "code_block", "table_open", "hr"})
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))  # zero-width characters


def defines_nothing(body: Sequence[Token]) -> bool:
    """Say whether a definition's tokens show nothing: no text (a link without words, `&nbsp;`), no math or code."""
    for token in body:
        if token.type in SHOWING_TOKENS:
            return False
        if token.type == "inline" and TOO_LONG in token.meta:
            return False  # far from empty: too long to parse (reported on its own)
        if token.type == "inline":
            text = "".join(child.content for child in token.children or [] if child.content)
            if text.translate(INVISIBLE).strip():
                return False
    return True


def check_glossary_terms(terms: Sequence[Term]) -> list[Diagnostic]:
    """Glossary keys must be unique and the entries alphabetical, so readers can scan them."""
    problems = []
    seen: dict[str, Term] = {}
    for term in terms:
        if not term.key:
            problems.append(report(term.location, TERM_WITHOUT_ANCHOR, term=quote(term.text), text=term.text))
        elif is_reserved_id(term.key):
            problems.append(report(term.location, RESERVED_TERM_KEY, key=term.key))
        elif term.key in seen:
            problems.append(report(term.location, DUPLICATE_TERM_KEY, key=term.key, first=seen[term.key].location.line))
        else:
            seen[term.key] = term
    for previous, term in itertools.pairwise(terms):
        if term.text.casefold() < previous.text.casefold():
            problems.append(report(term.location, TERMS_OUT_OF_ORDER, term=term.text, previous=previous.text))
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
