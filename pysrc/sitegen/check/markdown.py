"""The Markdown dialect of the tutorial: markdown-it-py, its plugins and our conventions.

Everything here is about turning text into tokens (parsing); the HTML for the
site-wide pieces (math, figure numbers, sources) is looked up at render time in
the `site` entry of the renderer's env, so parsing a page never depends on any
other page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from sitegen.kinds.computed import add_computed_values
from sitegen.kinds.links import SCHEMES, find_scheme
from sitegen.kinds.links.base import LINK_KIND
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.markup.anchors import RESERVED_IDS, slugify
from sitegen.markup.tokens import CONTAINER_NAME, TOO_LONG, iterate_inline_children

_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")
# The only external links a page may carry; any other scheme is reported (parse.py), not published.
_WEB_LINK = re.compile(r"^(?:https?://|mailto:)", re.IGNORECASE)


# A `$...$` or `$$...$$` the math rule took, and a code span: what may hold a `$` legitimately.
# Each `$` is matched first and what comes before it checked after (`\$(?<![\\$]\$)`, not `(?<![\\$])\$`): the same
# matches, but a pattern that starts with a character lets `re` jump from one `$` to the next instead of trying every
# position (several times faster on a page).
_CLOSED_MATH_OR_CODE = re.compile(r"(`+)[^`]*?\1|\$\$.+?\$\$|\$(?<![\\$]\$)(?![\s$])(?:[^$\\\n]|\\.)+?(?<!\s)\$(?!\d)", re.DOTALL)
_UNCLOSED_DOLLARS = re.compile(r"\$\$(?<!\\\$\$)|\$(?<![\\$]\$)(?![\s\d$])")


def find_unclosed_dollar(text: str) -> tuple[int, str] | None:
    """Return (offset, marker) of a `$` or `$$` that opens a formula never closed (left as literal text), or None.

    A dollar sign before a digit (`$5`) or a space is prose, as the math rule
    reads it; `\\$` is an escaped one.
    """
    blanked = _CLOSED_MATH_OR_CODE.sub(lambda match: " " * len(match.group(0)), text)
    match = _UNCLOSED_DOLLARS.search(blanked)
    return (match.start(), match.group(0)) if match else None


def typeset_plain_text(text: str) -> str:
    """Give plain text (a title, a lede) the prose's typography: curly quotes, dashes, ellipses.

    Titles and ledes are plain text everywhere (<title>, meta description, table
    of contents), so any Markdown in them is reduced to its text.
    """
    tokens = create_markdown().parseInline(text, {})
    return "".join(
        " " if child.type in ("softbreak", "hardbreak") else child.content
        for child in tokens[0].children or []
        if child.type in ("text", "code_inline", "softbreak", "hardbreak")
    ).strip()


# --- bounded work: a paragraph too long to parse inline ------------------------

# markdown-it's inline rules grow faster than linearly on some inputs (100 KB
# of `[` takes about 20 s); no prose paragraph comes near this many characters.
INLINE_TEXT_LIMIT = 20_000


def bound_inline_text(state: StateCore) -> None:
    """Core rule: leave a block whose inline text is over the limit unparsed (parse.py reports it)."""
    for token in state.tokens:
        if token.type == "inline" and len(token.content) > INLINE_TEXT_LIMIT:
            token.meta[TOO_LONG] = len(token.content)
            token.content = ""


# --- bounded nesting: what markdown-it would drop -------------------------------

# markdown-it stops at `maxNesting` levels (20 in the commonmark preset: a list
# level counts two, a list and its item; a quote or a container one) and then
# silently skips everything left in the enclosing block: for a list item,
# the rest of the page. The block parser is watched for that moment, and a
# token marks where it came (parse.py reports it at its line).
NESTING_TOO_DEEP = "nesting_too_deep"


def watch_nesting(md: MarkdownIt) -> None:
    """Wrap the block parser so that reaching the nesting limit leaves a NESTING_TOO_DEEP token (map: the lines lost)."""
    tokenize = md.block.tokenize

    def tokenize_watched(state: StateBlock, start_line: int, end_line: int) -> None:
        if state.level >= state.md.options.maxNesting:
            first = state.skipEmptyLines(start_line)
            # markdown-it skips to end_line unless this nested call ends at once (a line indented less)
            if first < end_line and state.sCount[first] >= state.blkIndent:
                marker = state.push(NESTING_TOO_DEEP, "", 0)
                marker.map = [first, end_line]
                marker.meta["limit"] = state.md.options.maxNesting
        tokenize(state, start_line, end_line)

    md.block.tokenize = tokenize_watched  # type: ignore[method-assign,assignment]  # markdown-it offers no hook for this


# --- links: a scheme's (kinds/links/), other pages, the web ---------------


def mark_links(state: StateCore) -> None:
    """Core rule: classify each link by its address; a link scheme's (term:, cite:, ...) is its module's to read."""
    for inline, child, line in iterate_inline_children(state.tokens):
        if child.type != "link_open":
            continue
        href = str(child.attrGet("href") or "")
        child.meta["line"] = line
        scheme = find_scheme(href)
        if scheme is not None:
            child.meta[LINK_KIND] = scheme.name
            scheme.classify(child, href[len(scheme.prefix) :], inline.children or [])
        elif href.startswith("#"):
            child.meta[LINK_KIND] = "internal"
            child.meta["page"] = ""
            child.meta["anchor"] = href[1:]
        elif not _EXTERNAL.match(href):
            page, _, anchor = href.partition("#")
            child.meta[LINK_KIND] = "internal"
            child.meta["page"] = page
            child.meta["anchor"] = anchor or None
            if page.endswith(".md"):
                page = page[: -len(".md")] + ".html"
            child.attrSet("href", page + (f"#{anchor}" if anchor else ""))
        elif _WEB_LINK.match(href):
            child.meta[LINK_KIND] = "external"
        else:  # javascript:, data:, file:, ... (markdown-it would have left the link as literal text, silently)
            child.meta[LINK_KIND] = "refused"
            child.attrSet("href", "#")


# --- heading ids ----------------------------------------------------------------

HEADING_TAGS = frozenset({"h1", "h2", "h3"})
UNNAMED_HEADING = "section"  # the id of a heading whose text gives none (`## !!!`, `## 🎉`)


def assign_heading_ids(state: StateCore) -> None:
    """Core rule: give every h1–h3 an id from its text, in one pass.

    Never empty, never a page template's id (slugify), never an id a link
    gives the page when rendered (a term's first use: `use-KEY`), never an
    earlier heading's: a repeat takes the first free `-1`, `-2`, …, as
    markdown-it's anchors plugin numbered them (so ids links point at stay).
    Each base remembers its next number, so 40 000 equal headings cost as
    little as 40 000 different ones.
    """
    taken = set(RESERVED_IDS)
    for _inline, child, _line in iterate_inline_children(state.tokens):
        scheme = SCHEMES.get(child.meta.get(LINK_KIND, "")) if child.type == "link_open" else None
        if scheme is not None:
            taken.update(scheme.page_ids(child))
    next_number: dict[str, int] = {}
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open" or token.tag not in HEADING_TAGS or index + 1 >= len(state.tokens):
            continue
        children = state.tokens[index + 1].children or []
        title = "".join(child.content for child in children if child.type in ("text", "code_inline"))
        base = slugify(title) or UNNAMED_HEADING
        anchor, number = base, next_number.get(base, 1)
        while anchor in taken:
            anchor, number = f"{base}-{number}", number + 1
        next_number[base] = number
        taken.add(anchor)
        token.attrSet("id", anchor)


# --- renderer rules that need nothing from other pages ----------------------


def render_heading_close(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Close a heading, adding a permalink to its anchor."""
    opening = tokens[index - 2]
    anchor = opening.attrGet("id")
    if anchor and opening.tag in ("h2", "h3"):
        return (
            f'<a class="permalink" href="#{escape(str(anchor))}" aria-label="Link to this section">#</a></{tokens[index].tag}>\n'
        )
    return f"</{tokens[index].tag}>\n"


@cache
def create_markdown() -> MarkdownIt:
    """Return the one shared parser (cached: building it costs more than parsing a page). Treat it as read-only."""
    return build_markdown()


def build_markdown() -> MarkdownIt:
    """Return a new parser with our dialect and its site-independent render rules."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": True})
    md.enable(["table", "strikethrough", "replacements", "smartquotes"])
    # Every link becomes a token, so mark_links can report a javascript: or data: link instead of
    # markdown-it leaving it as literal text without a word; none of them reaches a page.
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # markdown-it's documented hook for this
    # With html off these two only ever answer "no", but they are asked at every line and
    # every '<' (a 96-chapter book: ~15 000 calls); without them the output is the same.
    md.disable(["html_block", "html_inline"])
    front_matter_plugin(md)
    dollarmath_plugin(md, allow_space=False, allow_digits=False, allow_labels=False, double_inline=False)
    container_plugin(md, CONTAINER_NAME, validate=lambda params, markup: True)
    deflist_plugin(md)
    footnote_plugin(md)
    attrs_plugin(md, allowed=("id", "class"))
    add_computed_values(md)
    md.core.ruler.after("block", "bound_inline_text", bound_inline_text)
    for kind in PAGE_KINDS.values():
        kind.add_parse_rules(md)
    md.core.ruler.after("inline", "mark_links", mark_links)
    for scheme in SCHEMES.values():
        scheme.add_parse_rules(md)
    md.core.ruler.push("heading_ids", assign_heading_ids)
    watch_nesting(md)
    md.add_render_rule("front_matter", lambda self, tokens, index, options, env: "")
    md.add_render_rule(NESTING_TOO_DEEP, lambda self, tokens, index, options, env: "")
    md.add_render_rule("heading_close", render_heading_close)
    return md
