"""The registry of page kinds, in reading order: what a Markdown file in the content folder may be.

See base.py for the interface and how to add a kind (one module, one template).
"""

from __future__ import annotations

from sitegen.kinds.pages import chapter, contents, glossary, notation
from sitegen.kinds.pages.base import PageKind

PAGE_KINDS: dict[str, PageKind] = {kind.name: kind for kind in (contents.KIND, chapter.KIND, glossary.KIND, notation.KIND)}


def list_single_pages() -> tuple[PageKind, ...]:
    """Return the kinds read from one file of their own (every kind but the chapters), in reading order."""
    return tuple(kind for kind in PAGE_KINDS.values() if kind.source_name)
