"""Reading markdown-it's flat token list, as every stage that meets tokens reads it: pairs, lines, inline children.

A module of the ground floor, importing nothing of the site: the parser
(check/markdown.py), the kinds (a glossary definition's range, a container's
body, a chapter's sections), the render and the search index all walk tokens
the same way, without importing one another.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markdown_it.token import Token

# Every `:::` block becomes one token pair of this type (check/markdown.py installs the container plugin under
# CONTAINER_NAME); the kind (figure, lab, ...) is the first word of its info. One catch-all container (rather
# than one plugin instance per kind) lets parse report an unknown kind instead of silently rendering it as a
# paragraph of colons.
CONTAINER_NAME = "block"
# The meta key of an inline token whose text was over the limit and left unparsed (check/markdown.py).
TOO_LONG = "too_long"
CONTAINER = f"container_{CONTAINER_NAME}"
CONTAINER_OPEN = CONTAINER + "_open"
CONTAINER_CLOSE = CONTAINER + "_close"

# The headings a page's sections are made of (a chapter's contents list, the search index's documents).
SECTION_LEVELS = ("h2", "h3")


def find_matching(tokens: Sequence[Token], index: int) -> int:
    """Return the index of the token that closes the `X_open` at `index`, or opens the `X_close` there.

    Nested pairs of the same type are skipped. Unmatched (markdown-it always
    closes what it opens, so only for hand-made tokens): len(tokens) going
    forward, -1 going back.
    """
    token = tokens[index]
    step = 1 if token.nesting == 1 else -1
    name = token.type.rsplit("_", 1)[0]
    depth = 0
    position = index
    while 0 <= position < len(tokens):
        other = tokens[position]
        if other.nesting != 0 and other.type.rsplit("_", 1)[0] == name:
            depth += other.nesting * step
            if depth == 0:
                return position
        position += step
    return position


def block_line(token: Token, fallback: int = 1) -> int:
    """Return the 1-based first line of a block token."""
    return token.map[0] + 1 if token.map else fallback


def iterate_inline_children(tokens: Sequence[Token]) -> Iterator[tuple[Token, Token, int]]:
    """Yield (inline token, child, 1-based line) for every inline child.

    markdown-it gives inline children no line map, so the line is the parent
    block's first line plus the line breaks seen before the child. (A code
    span that runs over a line break loses its newline in parsing, so a
    problem after one on the same paragraph is reported a line early.)
    """
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        line = (token.map[0] if token.map else 0) + 1
        for child in token.children:
            yield token, child, line
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "math_inline":
                line += child.content.count("\n")  # inline math may run over a line break


def read_heading_text(inline: Token) -> str:
    """Return a heading's plain text as the reader sees it (computed values filled in, markup dropped)."""
    parts = []
    for child in inline.children or []:
        if child.type == "computed_value":
            parts.append(str(child.meta.get("text", "")))
        elif child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())
