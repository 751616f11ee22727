"""Anchors: how heading and term text becomes an id, and the ids the page templates keep for themselves."""

from __future__ import annotations

import re

# Ids the page templates and the page scripts give their own elements (the skip link's target, the
# search box, ...): a heading "Main" must not take id="main" and break them.
# tests/site/test_robustness.py checks this list against site_templates/ and client/.
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
        "reader-preview",
        "reader-preview-content",
        "site-search-message",
        "rollouts-dev-overlay-title",
    )
)
# The starts of ids a page script numbers (`site-search-result-3`), checked alike.
RESERVED_PREFIXES = ("site-search-result-",)


def is_reserved_id(anchor: str) -> bool:
    """Say whether the page templates or scripts may give an element this id (RESERVED_IDS, RESERVED_PREFIXES)."""
    return anchor in RESERVED_IDS or anchor.startswith(RESERVED_PREFIXES)


def slugify(text: str) -> str:
    """Turn heading or term text into an anchor: lower case, words joined by hyphens, never a template's own id."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    slug = re.sub(r"[\s-]+", "-", text).strip("-")
    if slug in RESERVED_IDS:
        return f"{slug}-section"
    return f"section-{slug}" if slug.startswith(RESERVED_PREFIXES) else slug
