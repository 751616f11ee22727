"""`[§3](cite:key#section)`: a source from references.yaml, optionally one of the sections it lists.

In a paragraph, citations leave the prose for a line of their own below it
("Sources: PPO §3 · DeepSeekMath §4.1.1"); elsewhere (a heading, a table
cell) a citation stays a link. A citation with a section links to the source's
own page at that section (`url#section`), one without to its full entry on the
references page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report, suggest_name
from sitegen.kinds.links.base import LINK_KIND, USES, LinkScheme, Preview, RenderTokens, list_uses, site_of
from sitegen.messages import (
    REFERENCE_NEVER_CITED,
    SOURCE_WITHOUT_SECTIONS,
    UNKNOWN_SOURCE_KEY,
    UNKNOWN_SOURCE_SECTION,
)
from sitegen.model import REFERENCES_PAGE, NameUse, Page, ParsedProject, Reference

NAME = "cite"


def format_authors(authors: Sequence[str]) -> str:
    """Join author names with commas; a final "et al." follows the last name without one."""
    names = list(authors)
    if len(names) > 1 and names[-1].strip().rstrip(".").lower() == "et al":
        return ", ".join(names[:-1]) + " et al."
    return ", ".join(names)


def describe_reference(reference: Reference) -> Markup:
    """Return a source's full entry as a preview shows it: authors (year). Title. Venue. arXiv."""
    entry = Markup("{} ({}). <cite>{}</cite>.").format(format_authors(reference.authors), reference.year, reference.title)
    if reference.venue:
        entry += Markup(" {}.").format(reference.venue)
    if reference.arxiv:
        entry += Markup(" arXiv:{}.").format(reference.arxiv)
    return Markup("<p>{}</p>").format(entry)


class CiteScheme(LinkScheme):
    """A source; every source must be cited, and a cited section must be one its entry lists."""

    name = NAME

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Split `key#section`; link to the entry on the references page until render knows the source."""
        link.meta["key"], _, link.meta["anchor"] = target.partition("#")
        link.attrSet("href", f"{REFERENCES_PAGE}#{link.meta['key']}")

    def add_parse_rules(self, md: MarkdownIt) -> None:
        """Move a paragraph's citations to a sources line after it (once every link is classified)."""
        md.core.ruler.after("mark_links", "move_citations", move_citations)

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Every source cited must be in references.yaml (with the section, if one is named); warn about sources never cited.

        Without references.yaml, or with one that is not a list, that one problem is reported (validate.py,
        references.py); every citation would only repeat it.
        """
        problems = []
        references = {reference.key: reference for reference in parsed.references}
        cited: set[str] = set()
        checkable = parsed.has_references_file and parsed.references_readable
        for _page, use in list_uses(parsed.pages, self.name) if checkable else ():
            if use.key in references:
                cited.add(use.key)
                problems += check_citation_anchor(use, references[use.key])
            else:
                problems.append(
                    report(use.location, UNKNOWN_SOURCE_KEY, key=use.key, suggestion=suggest_name(use.key, references))
                )
        for reference in parsed.references:
            if reference.key not in cited:
                problems.append(report(reference.location, REFERENCE_NEVER_CITED, key=reference.key))
        return problems

    site_fields = frozenset({"references"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each source the page cites, as references.yaml gives it."""
        uses = page.uses_of(self.name)
        references = site.references_by_key if uses else {}
        return tuple((use.key, references.get(use.key)) for use in uses)

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        """A citation left in place (a heading, a table cell) starts with the source's short name."""
        token = tokens[index]
        reference = site_of(env).references_by_key.get(token.meta["key"])
        short = escape(reference.short) + " " if reference else ""
        href = citation_href(reference, token.meta["key"], token.meta["anchor"])
        return f'<a class="cite" href="{escape(href)}">{short}'

    def add_render_rules(self, md: MarkdownIt) -> None:
        """Render the sources line."""
        md.add_render_rule("sources", render_sources)

    def previews(self, keys: Sequence[str], site: SiteContext, render_tokens: RenderTokens) -> list[Preview]:
        """A source's preview is its full entry, as on the references page."""
        references = site.references_by_key
        return [
            Preview(f"{REFERENCES_PAGE}#{key}", "Source", references[key].short, describe_reference(references[key]))
            for key in keys
            if key in references
        ]


def check_citation_anchor(use: NameUse, reference: Reference) -> list[Diagnostic]:
    """A `cite:key#anchor` must name a section the reference lists under `sections:` (we cannot fetch the page)."""
    if not use.anchor:
        return []
    anchors = [anchor for anchor, _title in reference.sections]
    if not anchors:
        return [report(use.location, SOURCE_WITHOUT_SECTIONS, key=use.key, anchor=use.anchor)]
    if use.anchor not in anchors:
        return [
            report(
                use.location,
                UNKNOWN_SOURCE_SECTION,
                key=use.key,
                anchor=use.anchor,
                suggestion=suggest_name(use.anchor, anchors),
                sections=", ".join(anchors),
            )
        ]
    return []


def citation_href(reference: Reference | None, key: str, anchor: str) -> str:
    """Link a citation to the cited section of the source itself, or (without a section) to its full entry."""
    if anchor and reference is not None:
        return f"{reference.url.partition('#')[0]}#{anchor}"
    return f"{REFERENCES_PAGE}#{key}"


def render_sources(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write the sources line that follows a paragraph: "PPO §3 · DeepSeekMath §4.1.1"."""
    references = site_of(env).references_by_key
    links = []
    for citation in tokens[index].meta[USES]:
        reference = references.get(citation["key"])
        short = reference.short if reference else citation["key"]
        text = f"{short} {citation['label']}".strip()
        links.append(f'<a href="{escape(citation_href(reference, citation["key"], citation["anchor"]))}">{escape(text)}</a>')
    return f'<p class="sources"><span class="sources-label">Sources:</span> {" · ".join(links)}</p>\n'


def move_citations(state: StateCore) -> None:
    """Core rule: take `cite:` links out of each paragraph and put a `sources` token after it.

    Readers get the prose uninterrupted and the sources on one line below,
    "PPO §3 · DeepSeekMath §4.1.1". Outside paragraphs (headings, table cells)
    a citation stays where it is, as a link to the references page.
    """
    tokens = state.tokens
    index = 0
    while index < len(tokens) - 1:
        token = tokens[index]
        closing = tokens[index + 1]
        if (
            token.type == "inline"
            and closing.type == "paragraph_close"
            and any(c.type == "link_open" and c.meta.get(LINK_KIND) == NAME for c in token.children or [])
        ):
            citations, kept = _split_citations(token.children or [])
            token.children = kept
            sources = Token("sources", "p", 0)
            sources.block = True
            sources.map = token.map
            sources.meta[USES] = citations
            tokens.insert(index + 2, sources)
            index += 2
        index += 1


def _split_citations(children: list[Token]) -> tuple[list[dict[str, Any]], list[Token]]:
    """Return the citations in a paragraph and the children without them."""
    citations: list[dict[str, Any]] = []
    kept: list[Token] = []
    position = 0
    after_citation = False
    while position < len(children):
        child = children[position]
        if child.type == "link_open" and child.meta.get(LINK_KIND) == NAME:
            end = position + 1
            while children[end].type != "link_close":
                end += 1
            label = "".join(c.content for c in children[position + 1 : end])
            citations.append(
                {
                    "scheme": NAME,
                    "key": child.meta["key"],
                    "anchor": child.meta["anchor"],
                    "label": label,
                    "line": child.meta["line"],
                }
            )
            position = end + 1
            after_citation = True
            continue
        if after_citation and _is_blank(child) and kept and _ends_blank(kept[-1]):
            # A space or line break between two citations (or after one at a line's end) would
            # otherwise survive into the prose: "text\n[a](cite:x) [b](cite:y)." became "text ."
            position += 1
            continue
        if after_citation and (child.type != "text" or child.content[:1] in _CLOSING or child.content[:1].isspace()):
            _close_gap(kept, keep_line_break=child.type != "text" or child.content[:1].isspace())
        after_citation = False
        kept.append(child)
        position += 1
    if after_citation:
        _close_gap(kept, keep_line_break=False)
    return citations, kept


_CLOSING = tuple(".,;:!?)\u2019\u201d")


def _is_blank(token: Token) -> bool:
    """Say whether a token is only a line break or spaces."""
    return token.type == "softbreak" or (token.type == "text" and not token.content.strip())


def _ends_blank(token: Token) -> bool:
    """Say whether a token ends in a line break or a space."""
    return _is_blank(token) or (token.type == "text" and token.content[-1:].isspace())


def _close_gap(kept: list[Token], keep_line_break: bool) -> None:
    """Remove the space (or line break) a removed citation leaves before punctuation or the paragraph's end."""
    if not keep_line_break:
        while kept and _is_blank(kept[-1]):
            kept.pop()
    if kept and kept[-1].type == "text":
        kept[-1].content = kept[-1].content.rstrip()


SCHEME = CiteScheme()
