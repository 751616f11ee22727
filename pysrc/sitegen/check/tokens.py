"""Walking markdown-it's flat token list: pairs of opening and closing tokens.

A module of its own, importing nothing of the site, so the kinds (a glossary
definition's range, a container's body) can use it without importing the parser.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token


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
