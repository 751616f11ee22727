"""A book's later chapters parsed and rendered by a forked copy of the build, on the second core.

Parsing and rendering are most of a build's Python (markdown-it-py, Jinja),
each page on its own, while the second core mostly waits (KaTeX's and
esbuild's Node processes want it only briefly). A copy made by fork() starts
with everything imported and the project read. It parses the later chapters
and the book's figures, and sends back the figures and the pages without their
tokens (`summarise_page`: what the checks, the site context and the other
pages' sidebars read), with the computed values it worked out; the build
parses the rest meanwhile. Once the
build has checked the whole book, it sends the copy the search documents of
its own pages (with the glossary's terms and the references), and the copy
makes the whole search index from them and its own pages' while the build
plans the assets. The build then hands the copy the site context; the copy
renders its chapters (with their tokens, which never crossed) while the build
renders the others, and sends back their HTML, their search documents and the
index, which the build would otherwise make alone after its last page.

While it waits for the copy's summaries, the build does work of its own that
needs no page from it (`Beside.meanwhile`): reading the runtime.

An earlier try sent whole pages back, tokens pickled: that cost about half of
what parsing them saved, and rendering stayed on one core
(docs/benchmarks.md, issue 41's third round). Here what crosses is small:
summaries and figures, search documents, one site context, HTML and the index.

The copy runs only when a core is free (free_cores.py): on a busy
machine it would only queue behind other work and cost CPU. Whichever process
parses and renders a page, the result is the same bytes (tests/site/speed/test_beside.py
builds both ways). A copy that fails (killed, a page it cannot render) costs only
time: the build parses and renders its chapters itself, and reports any
problem as usual. Where there is no fork() (Windows), every page is done here.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import BinaryIO, TypeVar

from sitegen.check.parse import parse_page
from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic
from sitegen.kinds.computed import list_computed_values, remember_computed_values
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.model import Figure, Page, ParsedProject, Project, Source
from sitegen.read.figures import parse_figure
from sitegen.render.pages import render_page
from sitegen.render.search_index import (
    SearchDocument,
    list_other_documents,
    list_page_documents,
    prepare_documents,
    remember_page_documents,
    write_search_index,
)
from sitegen.render.site import IndexWriter, PageRenderer
from sitegen.speed.free_cores import count_free_cores

# The fewest chapters for a copy. At 6 the copy saves about a tenth of a cold build (docs/benchmarks.md), at 96 a
# third; smaller books were not measured: the fork has its own price (the page tables copied, and every page of
# memory either process writes to after it), and a copy of one page has little to take.
FORK_FROM = 4
# The share of the Markdown's text (every page's) the copy takes, in whole chapters from the last: the build parses
# and renders the rest, the pages that are not chapters among them.
COPY_SHARE = 0.5
# The free cores (free_cores.py) below which there is no copy: it would only queue behind other work.
MIN_FREE_CORES = 0.5
_LENGTH = struct.Struct("<Q")
# What each pipe between the build and its copy may hold: Linux's default most an unprivileged process may ask for
# (/proc/sys/fs/pipe-max-size). At 96 chapters the site context is 0.85 MB and the search documents 0.8 MB (the
# summaries, 1.3 MB, and the HTML, 11.5 MB, wait for the build to read them, which it is then ready to do).
PIPE_SIZE = 1024 * 1024
Message = TypeVar("Message")


def choose_copys_chapters(project: Project, free_cores: float) -> tuple[Source, ...]:
    """Return the later chapters a copy parses and renders (COPY_SHARE of all the Markdown's text), or none.

    None when the book is small (fewer than FORK_FROM chapters), when there is
    no fork(), or when other work leaves less than MIN_FREE_CORES besides the
    build's own core (free_cores.py: about 1 on a quiet 2-core machine).
    """
    chapters = project.chapters
    if len(chapters) < FORK_FROM or not hasattr(os, "fork") or free_cores < MIN_FREE_CORES:
        return ()
    total = sum(len(source.text) for source in chapters) + sum(len(source.text) for _kind, source in project.page_sources)
    taken = 0
    first = len(chapters)
    while first > 1 and taken + len(chapters[first - 1].text) <= total * COPY_SHARE:
        first -= 1
        taken += len(chapters[first].text)
    return tuple(chapters[first:])


def summarise_page(page: Page) -> Page:
    """Return a page without its tokens: all that is read of a page that is not being rendered."""
    return replace(page, tokens=())


def list_in_sidebar(page: Page) -> Page:
    """Return a chapter as another chapter's page reads it: its name, kind, file, title, lede and number.

    What the copy is handed of the chapters it does not render: the sidebar,
    the neighbours, the contents and the glossary's users read only these
    (kinds/pages/base.py's `summarise_chapters`). A template that reads more
    of other chapters must keep it here; tests/site/speed/test_beside.py compares
    both ways of building, byte for byte.
    """
    return Page(
        kind=page.kind,
        source=replace(page.source, text=""),
        output_name=page.output_name,
        title=page.title,
        lede=page.lede,
        chapter=page.chapter,
        tokens=(),
        anchors=frozenset(),
    )


class CopyFailed(Exception):
    """The copy ended without the answer the build waited for."""


@dataclass(frozen=True, eq=False)
class Summaries:
    """The copy's first message: its chapters without their tokens, the computed values it worked out, and every
    figure of the book parsed, with its problems (by the SVG's path, with the source it parsed)."""

    pages: tuple[Page, ...]
    computed_values: dict[str, str]
    figures: dict[str, tuple[Source, Figure | None, list[Diagnostic]]]


@dataclass(frozen=True, eq=False)
class SearchDocuments:
    """What the search index holds besides the copy's chapters, in the index's order: each searchable page's
    documents (a page of the copy's by its output name, for the copy to put its own there), then the rest (the
    glossary's terms, the references)."""

    pages: tuple[tuple[SearchDocument, ...] | str, ...]
    rest: tuple[SearchDocument, ...]


@dataclass(frozen=True, eq=False)
class Rendered:
    """The copy's last message: its chapters' HTML and search documents, by output name, and the search index (None
    when the build sent no documents)."""

    html: dict[str, str]
    documents: dict[str, tuple[SearchDocument, ...]]
    search_index: bytes | None


def send(pipe: BinaryIO, message: object) -> None:
    """Write one message: its length, then its pickle."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    pipe.write(_LENGTH.pack(len(data)))
    pipe.write(data)
    pipe.flush()


def receive(pipe: BinaryIO) -> object:
    """Read one message written by `send`; raise CopyFailed when the pipe ends before it does."""
    head = pipe.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise CopyFailed("the copy's pipe ended")
    (length,) = _LENGTH.unpack(head)
    data = pipe.read(length)
    if len(data) < length:
        raise CopyFailed("the copy's pipe ended mid-message")
    return pickle.loads(data)


def run_copy(
    sources: Sequence[Source],
    chapter_count: int,
    core: dict[str, str],
    figures: Sequence[Source],
    reading: BinaryIO,
    writing: BinaryIO,
) -> None:
    """The copy's whole life: parse its chapters and the book's figures, send them, make the search index from the
    documents it is given and its own, render its chapters in the site it is given, send the HTML and the index."""
    pages = [parse_page(source, CHAPTERS.name, chapter_count, core) for source in sources]
    # The figures too (an SVG's checks cost ~1 ms; 48 of them at 96 chapters), before the summaries: the build reads
    # those only once its own chapters are parsed and its runtime read, and would parse the figures after them.
    parsed_figures = {source.path: (source, *parse_figure(source)) for source in figures}
    send(writing, Summaries(tuple(summarise_page(page) for page in pages), list_computed_values(), parsed_figures))
    documents = {page.output_name: list_page_documents(page) for page in pages if PAGE_KINDS[page.kind].searchable}
    prepare_documents(document for page_documents in documents.values() for document in page_documents)
    message = receive(reading)
    search_index = None
    if isinstance(message, SearchDocuments):
        search_index = write_search_index(
            [
                *(document for part in message.pages for document in (documents[part] if isinstance(part, str) else part)),
                *message.rest,
            ]
        )
        message = receive(reading)
    site = message
    assert isinstance(site, SiteContext)
    # The site's chapters hold this copy's pages as summaries: the templates find a page among them by identity.
    own = {page.output_name: page for page in pages}
    site = replace(site, chapters=tuple(own.get(chapter.output_name, chapter) for chapter in site.chapters))
    html = {page.output_name: render_page(page, site) for page in pages}
    send(writing, Rendered(html, documents, search_index))


@contextlib.contextmanager
def parse_and_render_beside(project: Project, free_cores: float | None = None) -> Iterator[Beside | None]:
    """Yield the build's side of a copy forked now to parse and render the later chapters, or None (no copy).

    `free_cores`: as `count_free_cores` says, unless given (tests choose both
    ways). Fork before any thread of the build's starts: the copy must not
    inherit a lock some thread holds. On leaving, the copy is ended and reaped,
    whatever it was doing (a build stopped by a problem, Ctrl-C).
    """
    sources = choose_copys_chapters(project, count_free_cores() if free_cores is None else free_cores)
    if not sources:
        yield None
        return
    chapter_count = max(len(project.chapters), 1)
    core = dict(project.core_modules)
    down_reading, down_writing = os.pipe()
    up_reading, up_writing = os.pipe()
    widen_pipes(down_writing, up_writing)
    sys.stdout.flush()  # or the copy's exit could print what this process had buffered: it leaves by os._exit, unflushed
    sys.stderr.flush()
    # What both processes hold is moved out of the collector's reach while the copy lives (Beside.close gives it
    # back): a full collection in either would write to every shared object's header, and so copy every page of
    # memory the two share.
    gc.freeze()
    try:
        child = os.fork()
    except OSError:  # no memory or no process left for a copy: the build does every page itself
        gc.unfreeze()
        for descriptor in (down_reading, down_writing, up_reading, up_writing):
            os.close(descriptor)
        yield None
        return
    if child == 0:  # the copy: run, and leave without running anything of the build's (atexit, buffers, a traceback)
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the build's to handle; it ends the copy
            os.close(down_writing)
            os.close(up_reading)
            with open(down_reading, "rb") as reading, open(up_writing, "wb") as writing:
                run_copy(sources, chapter_count, core, project.figures, reading, writing)
            status = 0
        finally:
            os._exit(status)
    os.close(down_reading)
    os.close(up_writing)
    to_copy, from_copy = open(down_writing, "wb"), open(up_reading, "rb")  # noqa: SIM115 - Beside.close closes them
    beside = Beside(sources, chapter_count, core, child, to_copy, from_copy)
    try:
        yield beside
    finally:
        beside.close()


def widen_pipes(*pipes: int) -> None:
    """Let each pipe hold up to PIPE_SIZE: a message fits whole, so the sender goes on while the other side is busy
    (the site context is sent while the copy makes the search index). Where the size cannot be set, a send waits."""
    import fcntl  # here: a module of POSIX systems only, and only those have a copy

    for pipe in pipes:
        with contextlib.suppress(OSError, AttributeError):  # F_SETPIPE_SZ is Linux's
            fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


def do_meanwhile(tasks: list[Callable[[], object]]) -> None:
    """Do the tasks (once: each is taken off the list) while the copy works, whatever they raise.

    They only do early what a later stage does anyway, and remember it; that
    stage does it again if it failed here, and reports what went wrong as it
    would without a copy.
    """
    while tasks:
        task = tasks.pop(0)
        with contextlib.suppress(Exception):
            task()


class Beside:
    """The build's side of a copy: a parser that answers the copy's chapters with its summaries, and a renderer."""

    def __init__(
        self,
        sources: tuple[Source, ...],
        chapter_count: int,
        core: dict[str, str],
        child: int,
        to_copy: BinaryIO,
        from_copy: BinaryIO,
    ) -> None:
        self.sources = {source.path: source for source in sources}
        self._chapter_count = chapter_count
        self._core = core
        self._child = child
        self._to_copy: BinaryIO | None = to_copy
        self._from_copy: BinaryIO | None = from_copy
        self._summaries: dict[str, Page] | None = None  # by output name, once received
        self._summaries_by_path: dict[str, Page] = {}  # the same by source path, for the parser
        self._figures: dict[str, tuple[Source, Figure | None, list[Diagnostic]]] = {}  # by the SVG's path, once received
        self._rendered: dict[str, str] | None = None  # by output name, once received
        self._search_index: bytes | None = None  # once received
        self._documents_sent = False
        # Work of the build's own that needs no page, done before it first waits for the copy's summaries (its own
        # parse is done by then): what would otherwise follow the parse while the copy has nothing to do.
        self.meanwhile: list[Callable[[], object]] = []
        self.failed = False

    @property
    def pid(self) -> int:
        """Return the copy's process id (0 once it is reaped)."""
        return self._child

    @property
    def output_names(self) -> frozenset[str]:
        """Return the output names of the pages the copy renders (none once it failed)."""
        return frozenset(self._summaries or {}) if not self.failed else frozenset()

    def parse(self, source: Source, kind: str, chapter_count: int, core: dict[str, str]) -> Page:
        """Return a page: the copy's summary for one of its chapters, else parsed here (and after the copy failed)."""
        if kind == CHAPTERS.name and source.path in self.sources and not self.failed:
            self._receive_summaries()
            summary = self._summaries_by_path.get(source.path)
            if summary is not None and summary.source == source:
                return summary
        return parse_page(source, kind, chapter_count, core)

    def parse_figure(self, source: Source) -> tuple[Figure | None, list[Diagnostic]]:
        """Return a figure and its problems as the copy parsed them, else parsed here (and after the copy failed)."""
        self._receive_summaries()
        parsed = self._figures.get(source.path) if not self.failed else None
        if parsed is not None and parsed[0] == source:
            return parsed[1], list(parsed[2])
        return parse_figure(source)

    def _receive_summaries(self) -> None:
        if self._summaries is None:
            do_meanwhile(self.meanwhile)
            try:
                summaries = self._read(Summaries)
            except CopyFailed:
                self._fail()
                return
            remember_computed_values(summaries.computed_values)
            self._summaries = {page.output_name: page for page in summaries.pages}
            self._summaries_by_path = {page.source.path: page for page in summaries.pages}
            self._figures = summaries.figures

    def send_documents(self, parsed: ParsedProject) -> None:
        """Send the copy what the search index holds besides its chapters, for it to make the index meanwhile."""
        if self.failed or self._summaries is None or self._to_copy is None:
            return
        pages = tuple(
            page.output_name if self._summaries.get(page.output_name) is page else list_page_documents(page)
            for page in parsed.pages
            if PAGE_KINDS[page.kind].searchable
        )
        try:
            send(self._to_copy, SearchDocuments(pages, list_other_documents(parsed.glossary, parsed.references)))
        except OSError:
            self._fail()
            return
        self._documents_sent = True

    def hand_over(self, site: SiteContext) -> None:
        """Give the copy the site context, so that it renders its chapters while the build renders the others."""
        if self.failed or self._summaries is None or self._to_copy is None:
            return
        # The chapters go as the sidebar shows them, the copy's own too: it holds them whole.
        light = {page.output_name: list_in_sidebar(page) for page in site.chapters}
        users = {
            term: tuple(light.get(page.output_name) or list_in_sidebar(page) for page in pages)
            for term, pages in site.term_users.items()
        }
        try:
            send(self._to_copy, replace(site, chapters=tuple(light.values()), term_users=users))
        except OSError:
            self._fail()

    def renderer(self, render: PageRenderer = render_page) -> PageRenderer:
        """Return `render` for the build's own pages and the copy's HTML for the copy's, or the build's after it failed."""

        def render_here_or_take(page: Page, site: SiteContext) -> str:
            if self._summaries is None or self._summaries.get(page.output_name) is not page:
                return render(page, site)
            html = self._receive_rendered()
            if html is not None and page.output_name in html:
                return html[page.output_name]
            return self._render_here(page, site, render)

        return render_here_or_take

    def index_writer(self) -> IndexWriter:
        """Return a writer of the search index that answers with the copy's: made from the same documents in the same
        order (the build's, sent by `send_documents`, and the copy's own). Without one, the index is written here."""

        def take_or_write(documents: Sequence[SearchDocument]) -> bytes:
            if self._documents_sent:
                self._receive_rendered()
            return self._search_index if self._search_index is not None else write_search_index(documents)

        return take_or_write

    def _receive_rendered(self) -> dict[str, str] | None:
        if self._rendered is None and not self.failed:
            try:
                rendered = self._read(Rendered)
            except CopyFailed:
                self._fail()
                return None
            assert self._summaries is not None
            for name, page_documents in rendered.documents.items():
                remember_page_documents(self._summaries[name], page_documents)
            self._rendered = rendered.html
            self._search_index = rendered.search_index
            self.close()
        return self._rendered

    def _render_here(self, summary: Page, site: SiteContext, render: PageRenderer) -> str:
        """Parse and render a chapter the copy failed to render, in the site with its whole page in the sidebar's place."""
        page = parse_page(summary.source, CHAPTERS.name, self._chapter_count, self._core)
        remember_page_documents(summary, list_page_documents(page))
        swapped = tuple(page if chapter is summary else chapter for chapter in site.chapters)
        return render(page, replace(site, chapters=swapped))

    def _read(self, kind: type[Message]) -> Message:
        if self._from_copy is None:
            raise CopyFailed("the copy is closed")
        try:
            message = receive(self._from_copy)
        except (OSError, EOFError, pickle.UnpicklingError) as error:
            raise CopyFailed(str(error)) from error
        if not isinstance(message, kind):
            raise CopyFailed(f"the copy sent {type(message).__name__}, not {kind.__name__}")
        return message

    def _fail(self) -> None:
        self.failed = True
        self.close()

    def close(self) -> None:
        """End the copy (if it still runs), reap it, close the pipes."""
        for pipe in (self._to_copy, self._from_copy):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self._to_copy = self._from_copy = None
        if self._child:
            with contextlib.suppress(OSError):
                os.kill(self._child, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._child, 0)
            self._child = 0
            gc.unfreeze()
