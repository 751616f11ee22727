"""A smaller KaTeX stylesheet for every page: its rules pruned to the classes the site's math uses.

This runs at build time on text we know: KaTeX's own minified stylesheet (no
nested blocks but @font-face). Every formula is rendered at build time, so
the set of KaTeX classes a page can ever show is known before anything is
written. Our own CSS (site_templates/static/css/*.css) is minified by esbuild
with the scripts (scripts.py).
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


def collect_classes(html_fragments: Iterable[str]) -> set[str]:
    """Return every class name used in the fragments' class attributes."""
    used: set[str] = set()
    for fragment in html_fragments:
        used |= classes_in(fragment)
    return used


# A formula's HTML is the same string on every rebuild of a dev-server session (KaTeX's results are remembered), and
# a string keeps its hash: looking its classes up costs far less than finding them again in every formula after each save.
@lru_cache(maxsize=65_536)
def classes_in(fragment: str) -> frozenset[str]:
    """Return the class names in one fragment's class attributes."""
    return frozenset(name for value in _CLASS_ATTRIBUTE.findall(fragment) for name in value.split())


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


def shrink_stylesheets(planned: dict[str, tuple[str, bytes]], math_html: Iterable[str]) -> dict[str, tuple[str, bytes]]:
    """Return the planned assets with KaTeX's stylesheet pruned to the math's classes, re-hashed.

    Every page loads these render-blocking stylesheets, so they are most of a
    page's weight: KaTeX's full stylesheet is 25 KB, the part the site's
    formulas use about 5 KB.
    """
    used_classes = frozenset(collect_classes(math_html))
    shrunk = dict(planned)
    for name, (url, data) in planned.items():
        if name == "katex.css":
            small = prune_stylesheet_cached(data.decode(), used_classes).encode()
            folder = url.rpartition("/")[0]
            shrunk[name] = (f"{folder}/{hash_name(name, small)}", small)
    return shrunk


# The dev server's build process rebuilds after every save with the same
# stylesheet and, mostly, the same math: remembering the result saves
# milliseconds of every incremental rebuild.
@lru_cache(maxsize=8)
def prune_stylesheet_cached(css: str, used_classes: frozenset[str]) -> str:
    """Prune KaTeX's stylesheet to the classes in use (prune_stylesheet, remembered)."""
    return prune_stylesheet(css, used_classes)
