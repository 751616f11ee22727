"""The registry of block kinds: what a `:::` container or a ```` ```{name} ```` fence may be.

See base.py for the interface and how to add a kind (one module, one partial, one fixture of each sort).
"""

from __future__ import annotations

from typing import Any

from sitegen.kinds.blocks import cell, exercise, figure, lab, listing, note
from sitegen.kinds.blocks.base import BlockKind, Syntax

KINDS: dict[str, BlockKind[Any]] = {
    kind.name: kind for kind in (cell.KIND, exercise.ANSWER, exercise.EXERCISE, figure.KIND, lab.KIND, listing.KIND, note.KIND)
}


def list_kind_names(syntax: Syntax) -> tuple[str, ...]:
    """Return the names of the kinds written with this syntax, sorted."""
    return tuple(sorted(name for name, kind in KINDS.items() if kind.syntax == syntax))


def find_kind(syntax: Syntax, name: str) -> BlockKind[Any] | None:
    """Return the kind of this name written with this syntax, or None."""
    kind = KINDS.get(name)
    return kind if kind is not None and kind.syntax == syntax else None
