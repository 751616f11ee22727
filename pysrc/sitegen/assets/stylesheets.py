"""Smaller stylesheets for every page: KaTeX's rules pruned to the classes the site's math uses, our own CSS minified.

Both run at build time on text we know: KaTeX's own minified stylesheet (no
nested blocks but @font-face) and site_templates/static/css/*.css. Every
formula is rendered at build time, so the set of KaTeX classes a page can
ever show is known before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set as AbstractSet
from functools import lru_cache

from sitegen.assets.site_assets import hash_name

_CLASS_ATTRIBUTE = re.compile(r'class="([^"]*)"')
_CLASS_SELECTOR = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_NEGATION = re.compile(r":not\([^)]*\)")
_FONT_FAMILY = re.compile(r"font-family:\s*([\w-]+)")
# Strings and comments are copied (or dropped) whole; only the text between them is squeezed.
_CSS_TOKENS = re.compile(r'("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|(/\*.*?\*/)|([^"\'/]+|/)', re.S)
_SPACE_AROUND_PUNCTUATION = re.compile(r"\s*([{};,])\s*")


def collect_classes(html_fragments: Iterable[str]) -> set[str]:
    """Return every class name used in the fragments' class attributes."""
    return {name for fragment in html_fragments for value in _CLASS_ATTRIBUTE.findall(fragment) for name in value.split()}


def split_rules(css: str) -> list[str]:
    """Split a stylesheet into its top-level rules (a rule ends where its braces close)."""
    rules, depth, start = [], 0, 0
    for position, character in enumerate(css):
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                rules.append(css[start : position + 1].strip())
                start = position + 1
    return [rule for rule in rules if rule]


def keeps_selector(selector: str, used_classes: AbstractSet[str]) -> bool:
    """Say whether a selector can match: every class it requires is used (classes inside :not() require nothing)."""
    return all(name in used_classes for name in _CLASS_SELECTOR.findall(_NEGATION.sub("", selector)))


def prune_stylesheet(css: str, used_classes: AbstractSet[str]) -> str:
    """Drop the rules (and selectors) that need a class no page uses, then the @font-face rules no kept rule names."""
    kept: list[str] = []
    font_faces: list[str] = []
    for rule in split_rules(css):
        if rule.startswith("@font-face"):
            font_faces.append(rule)
            continue
        if rule.startswith("@"):
            kept.append(rule)  # KaTeX has no other at-rules; keep any that appear rather than guess
            continue
        selectors, _, body = rule.partition("{")
        matching = [s for s in selectors.split(",") if keeps_selector(s, used_classes)]
        if matching:
            kept.append(",".join(matching) + "{" + body)
    # Rules name fonts in `font-family:` or in the `font:` shorthand, so look for each family's name anywhere.
    text = "".join(kept)
    fonts = [rule for rule in font_faces if any(re.search(rf"\b{re.escape(f)}\b", text) for f in _FONT_FAMILY.findall(rule))]
    return "".join(fonts + kept)


def minify_stylesheet(css: str) -> str:
    """Remove comments and the white space a browser ignores (strings are left exactly as written)."""
    parts = []
    for string, _comment, other in _CSS_TOKENS.findall(css):
        if string:
            parts.append(string)
        elif other:
            parts.append(_SPACE_AROUND_PUNCTUATION.sub(r"\1", re.sub(r"\s+", " ", other)))
    return "".join(parts).replace(";}", "}").strip() + "\n"


def shrink_stylesheets(planned: dict[str, tuple[str, bytes]], math_html: Iterable[str]) -> dict[str, tuple[str, bytes]]:
    """Return the planned assets with KaTeX's stylesheet pruned to the math's classes and our CSS minified, re-hashed.

    Every page loads these render-blocking stylesheets, so they are most of a
    page's weight: KaTeX's full stylesheet is 25 KB, the part the site's
    formulas use about 5 KB.
    """
    used_classes = frozenset(collect_classes(math_html))
    shrunk = dict(planned)
    for name, (url, data) in planned.items():
        if name == "katex.css" or (name.startswith("css/") and name.endswith(".css")):
            small = shrink_stylesheet(name, data.decode(), used_classes).encode()
            folder = url.rpartition("/")[0]
            shrunk[name] = (f"{folder}/{hash_name(name, small)}", small)
    return shrunk


# The dev server's build process rebuilds after every save with the same
# stylesheets and, mostly, the same math: remembering the result saves
# about 17 ms of a ~40 ms incremental rebuild.
@lru_cache(maxsize=8)
def shrink_stylesheet(name: str, css: str, used_classes: frozenset[str]) -> str:
    """Prune KaTeX's stylesheet to the classes in use; minify ours."""
    return prune_stylesheet(css, used_classes) if name == "katex.css" else minify_stylesheet(css)
