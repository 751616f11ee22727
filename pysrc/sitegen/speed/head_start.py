"""What starts beside a cold build's stages so that they find work done: set up here, in one place (docs/speed.md).

`build_site` (pipeline.py) reads as its stages, check, make, write; it asks
this module for a `HeadStart` and hands its parts to the stages:

- the forked copy of the build (beside.py), which parses and renders the
  later chapters on the second core when other work leaves one free, and
  meanwhile does what the caller asks (the runtime read, the cell runner
  keyed);
- the templates' scripts minified on a thread (esbuild, on the other core)
  while the pages are parsed, for the guess, made from the text, of whether
  any page has a Python cell (a wrong guess only loses the head start).

Neither changes a byte of the site: each has its name in `ROLLOUTS_PLAIN`
(`beside`, `scripts`), and with it off (or, for the copy, no core free) the
stages do the same work themselves, in turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from sitegen.assets.plan import plan_static_files
from sitegen.check.parse import FigureParser, PageParser
from sitegen.model import Project
from sitegen.read.figures import parse_figure
from sitegen.render.site import PageRenderer
from sitegen.speed.beside import Beside, parse_and_render_beside

_CELL_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*\{python\}", re.MULTILINE)


def mentions_cells(project: Project) -> bool:
    """Guess, before parsing, whether any page has a Python cell (and so needs the cell editor's bundle)."""
    sources = [*project.chapters, *(source for _kind, source in project.page_sources)]
    return any(_CELL_FENCE.search(source.text) for source in sources)


@dataclass(frozen=True)
class HeadStart:
    """The forked copy, if any, and the scripts being minified: what the stages are handed."""

    beside: Beside | None
    static: Future[dict[str, tuple[str, bytes]]] | None
    with_editor: bool

    @property
    def parse(self) -> PageParser | None:
        """The copy's parser of the later chapters (None: the build parses every page itself)."""
        return self.beside.parse if self.beside is not None else None

    @property
    def parse_figure(self) -> FigureParser:
        """How a figure's SVG is read: by the copy while it parses, else the plain reader."""
        return self.beside.parse_figure if self.beside is not None else parse_figure

    def renderer(self, render: PageRenderer) -> PageRenderer:
        """Return `render`, leaving the copy's pages to the copy."""
        return self.beside.renderer(render) if self.beside is not None else render

    def static_files(self, has_cells: bool) -> dict[str, tuple[str, bytes]] | None:
        """Return the minified scripts when they were started and the guess about cells was right; None: make_site
        plans them itself."""
        return self.static.result() if self.static is not None and self.with_editor == has_cells else None


@contextmanager
def start_head_start(
    project: Project, free_cores: float | None, meanwhile: Callable[[], None], scripts: bool = True
) -> Iterator[HeadStart]:
    """Fork the copy (when `free_cores` leave a core), then start the scripts' thread (unless `scripts` is off); end
    both on leaving.

    `meanwhile` is work the build would do later that the copy can do now. The copy is forked before the thread
    starts: it must not inherit a lock the thread holds.
    """
    with_editor = mentions_cells(project)
    with parse_and_render_beside(project, free_cores) as beside:
        if beside is not None:
            beside.meanwhile.append(meanwhile)
        if not scripts:
            yield HeadStart(beside, None, with_editor)
            return
        with ThreadPoolExecutor(max_workers=1) as early:
            yield HeadStart(beside, early.submit(plan_static_files, project, with_editor), with_editor)
