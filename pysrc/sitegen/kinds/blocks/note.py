"""`::: note TITLE`: an aside beside the prose, with an optional title."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.kinds.blocks.base import TOP_LEVEL, BlockKind, BlockStart


@dataclass(frozen=True)
class NoteData:
    """The note's title ("" for none)."""

    title: str


class NoteKind(BlockKind[NoteData]):
    """An aside."""

    name = "note"
    partial = "partials/note.html"
    # An <aside> is a complementary landmark; inside an exercise or lab (labelled sections, so
    # landmarks too) or another note, screen readers' landmark lists cannot place it (axe:
    # landmark-complementary-is-top-level).
    parents = frozenset({TOP_LEVEL})
    parents_reason = "an aside inside an exercise, lab or note is a landmark inside a landmark"

    def check(self, start: BlockStart) -> NoteData:
        """Any words are the title."""
        return NoteData(" ".join(start.arguments))

    def render_context(self, data: NoteData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the title and the note."""
        return {"title": data.title, "body": body}


KIND = NoteKind()
