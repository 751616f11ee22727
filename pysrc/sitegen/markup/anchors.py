"""Anchors: how heading and term text becomes an id, and the ids the page templates keep for themselves."""

from __future__ import annotations

import re

# Ids the page templates give their own elements (the skip link's target, the
# search box, ...): a heading "Main" must not take id="main" and break them.
# tests/site/test_robustness.py checks this list against site_templates/.
RESERVED_IDS = frozenset(
    (
        "main",
        "chapter-text",
        "toc-title",
        "chapter-toc-title",
        "printed-answers-title",
        "printed-sources-title",
        "site-search-hint",
        "site-search-input",
        "site-search-results",
        "rollouts-cells",
        "rollouts-lab",
        "shortcuts-title",
    )
)


def slugify(text: str) -> str:
    """Turn heading or term text into an anchor: lower case, words joined by hyphens, never a template's own id."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    slug = re.sub(r"[\s-]+", "-", text).strip("-")
    return f"{slug}-section" if slug in RESERVED_IDS else slug
