"""What a build process keeps from one build to the next: every memo of the build, held by one object, `SESSION`.

A build reads, checks and renders afresh each time. What one process may
reuse across its builds (the dev server's rebuilds, a test session's many
builds) is kept here, so one place lists it and one call empties it
(`SESSION.forget()`). Each memo is only ever a faster way to the same
result: its key is its whole input, or its input is the code itself, which
cannot change under a running process (the dev server restarts its build
process after an edit under pysrc/). The memos, by the name they are kept
under, and the module that keeps each:

- "computed values" (kinds/computed.py): each `{{ … }}` expression's text;
- "drawn figures" (render/generated_figures.py): the figures the core draws;
- "chapter summary" (kinds/pages/base.py): what every page shows of the chapters;
- "search documents" (render/search_index.py): a page's search documents, for as long as the page lives;
- "search index" (render/search_index.py): the last index, which the next build patches;
- "file digests" (files/hashes.py): the SHA-256 of bytes hashed before, within 64 MB;
- "lab settings checked" (kinds/links/lab.py): the core's verdict on a widget's settings, which a `lab:` link sets.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class Clearable(Protocol):
    """A memo: anything the session can empty (a dict, a weak dictionary, a Slot)."""

    def clear(self) -> None: ...


C = TypeVar("C", bound=Clearable)


class Slot(Generic[T]):
    """One remembered value, or None: the last of something (an index, a summary)."""

    def __init__(self) -> None:
        self.value: T | None = None

    def clear(self) -> None:
        """Forget the value."""
        self.value = None


class Session:
    """The memos of one build process, by name."""

    def __init__(self) -> None:
        self._memos: dict[str, Clearable] = {}

    def keep(self, name: str, memo: C) -> C:
        """Hold a memo under its name and return it (a module keeps its memo as `_NAME = SESSION.keep(…)`)."""
        self._memos[name] = memo
        return memo

    def names(self) -> tuple[str, ...]:
        """Return the names of the memos held, in the order they were kept."""
        return tuple(self._memos)

    def forget(self) -> None:
        """Empty every memo: the next build computes everything again, as a fresh process would."""
        for memo in self._memos.values():
            memo.clear()


SESSION = Session()
