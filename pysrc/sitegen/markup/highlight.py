"""Code shown to readers, highlighted at build time with Pygments: fences, core listings and Python cells.

Pygments writes spans with classes (never inline styles, which the site's
CSP refuses); css/code.css colours the classes for both schemes. Every block
gets its row of buttons ("Wrap lines", "Copy") from the build, so the row is
in place at the first paint and nothing moves when js/code.js connects it;
code.css shows it only on a page that runs scripts (`html.js`, set by
theme.js before the first paint): readers without JavaScript see no dead control.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

TOKEN_CLASS_PREFIX = "tok-"
CODE_TOOLS = (
    '<div class="code-tools"><button type="button" class="wrap-code" aria-pressed="false">Wrap lines</button>'
    '<button class="copy-code" type="button" data-copy-code>Copy</button></div>'
)


@cache
def find_lexer(language: str) -> Lexer | None:
    """Return the Pygments lexer for a fence's language, or None (the block is then shown as plain text)."""
    if not language:
        return None
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter[str]:
    return HtmlFormatter(nowrap=True, classprefix=TOKEN_CLASS_PREFIX)


# Remembered: the dev server renders a page again after any edit of it, and
# its code blocks, listings and cells are mostly unchanged (Pygments costs
# ~10 ms per block). A pure function of its arguments, so the HTML is the same.
@lru_cache(maxsize=1024)
def highlight_code(code: str, language: str) -> str:
    """Return the code as HTML spans (escaped plain text when the language is unknown); the text itself is unchanged."""
    lexer = find_lexer(language)
    html = escape(code, quote=False) if lexer is None else str(highlight(code, lexer, _formatter()))
    return mark_lines(html)


# A line's indentation: bare spaces, or Pygments' whitespace token.
_LEADING_SPACE = re.compile(r'^(?:<span class="tok-w">([ \t]+)</span>|([ \t]*))')


def mark_lines(html: str) -> str:
    """Return highlighted HTML with each line in a span that keeps its indentation apart from its text.

    Wrapped code must keep Python's indentation: css/code.css lays a line out
    as its indent beside its text, so a wrapped line continues under its own
    first character (plus a hanging indent and a mark), never at column 0.
    Pygments closes its spans at each line's end, so every line is whole HTML.
    The text is unchanged: the newline stays inside the line.
    """
    lines = html.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None
    marked = []
    for index, line in enumerate(lines):
        newline = "\n" if index < len(lines) - 1 or last is not None else ""
        leading = _LEADING_SPACE.match(line)
        assert leading is not None  # the pattern matches every string
        indent = leading[1] or leading[2]
        marked.append(
            f'<span class="code-line"><span class="code-indent">{indent}</span>'
            f'<span class="code-text">{line[leading.end() :]}{newline}</span></span>'
        )
    return "".join(marked)


def render_code_block(code: str, language: str) -> str:
    """Return a highlighted block: its buttons, then a focusable <pre> (long lines scroll, also by keyboard)."""
    language_class = f' class="language-{escape(language)}"' if language else ""
    return (
        f'<div class="code-block">{CODE_TOOLS}<pre tabindex="0"><code{language_class}>{highlight_code(code, language)}</code></pre>'
        "</div>\n"
    )
