"""A big book parsed on two cores: a forked copy of this process parses the later chapters while this one parses the rest.

Parsing is most of a big book's build (markdown-it-py: about 45 ms a chapter
on a 2-core EPYC, 96 chapters ≈ 2.3 s of a 4.9 s build), every page on its
own (parse.parse_page is a pure function of its source), and the second core
is idle meanwhile (KaTeX's Node process needs it only briefly). A copy made by
fork() starts with everything imported and the project read, so it costs
nothing to start; it parses its chapters and sends their pages back pickled,
in one message, with the computed values' texts it worked out. A page's
tokens are pickled as their constructor's arguments (about half the time of
pickle's way for a class with slots).

The result is the pages parse_page returns, whichever process made them. A
copy that fails (no fork() on this system, a page that cannot be pickled, the
copy killed) costs only time: this process parses its chapters then. A small
book (fewer than FORK_FROM chapters) is parsed here alone: sending pages back
costs about a quarter of parsing them, and a copy's start more than a few
chapters' parse.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import signal
from collections.abc import Iterator
from typing import Any

from markdown_it.token import Token

from sitegen.check.parse import PageParser, parse_page
from sitegen.kinds.computed import list_computed_values, remember_computed_values
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.model import Page, Project, Source

# Chapters from which a book's later chapters are parsed in a forked copy (measured: 96 chapters gain, 6 would lose).
FORK_FROM = 12
# The share of the chapters' text the copy parses: this process also reads the copy's pages back (≈ a third of
# parsing them) and parses the pages that are not chapters, so the copy takes a little more than half.
COPY_SHARE = 0.55


class TokenPickler(pickle.Pickler):
    """Pickles markdown-it's tokens as their constructor's arguments, not as a class with slots (twice as fast)."""

    def reducer_override(self, obj: object) -> Any:  # a reduce tuple, or NotImplemented: pickle's own way
        """Return how a token is made again; anything else is pickled as usual."""
        if type(obj) is not Token:
            return NotImplemented
        return Token, (
            obj.type,
            obj.tag,
            obj.nesting,
            obj.attrs,
            obj.map,
            obj.level,
            obj.children,
            obj.content,
            obj.markup,
            obj.info,
            obj.meta,
            obj.block,
            obj.hidden,
        )


def choose_copys_chapters(chapters: tuple[Source, ...]) -> tuple[Source, ...]:
    """Return the later chapters the copy parses: COPY_SHARE of the chapters' text, none for a small book."""
    if len(chapters) < FORK_FROM or not hasattr(os, "fork"):
        return ()
    total = sum(len(source.text) for source in chapters)
    taken = 0
    first = len(chapters)
    while first > 1 and taken + len(chapters[first - 1].text) <= total * COPY_SHARE:
        first -= 1
        taken += len(chapters[first].text)
    return chapters[first:]


@contextlib.contextmanager
def parse_beside(project: Project, parse: PageParser = parse_page) -> Iterator[PageParser]:
    """Yield a parser for the project's pages: the later chapters' pages come from a forked copy parsing them meanwhile.

    The copy is started on entering; on leaving, it is ended if its pages were
    never asked for (a build stopped early).
    """
    copys = choose_copys_chapters(project.chapters)
    if not copys:
        yield parse
        return
    copys_paths = {source.path for source in copys}
    chapter_count = max(len(project.chapters), 1)
    core = dict(project.core_modules)
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the copy: parse, send, and leave without running anything of the parent's (atexit, buffers)
        os.close(reading)
        status = 1
        try:
            pages = [parse(source, CHAPTERS.name, chapter_count, core) for source in copys]
            buffer = io.BytesIO()
            TokenPickler(buffer, pickle.HIGHEST_PROTOCOL).dump((pages, list_computed_values()))
            with open(writing, "wb") as pipe:
                pipe.write(buffer.getbuffer())
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    received: dict[str, Page] | None = None

    def receive() -> dict[str, Page]:
        nonlocal received
        if received is None:
            received = {}
            with open(reading, "rb") as pipe:
                data = pipe.read()
            _pid, status = os.waitpid(child, 0)
            if status == 0 and data:
                pages, values = pickle.loads(data)
                remember_computed_values(values)
                received = {page.source.path: page for page in pages}
        return received

    def parse_or_receive(source: Source, kind: str, count: int, core_modules: dict[str, str]) -> Page:
        if kind == CHAPTERS.name and source.path in copys_paths:
            page = receive().get(source.path)
            if page is not None and page.source == source:
                return page
        return parse(source, kind, count, core_modules)

    try:
        yield parse_or_receive
    finally:
        if received is None:
            os.close(reading)
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
