"""What starts beside a cold build's stages so that they find work done: set up here, in one place (docs/speed.md).

`build_site` (pipeline.py) reads as its stages, check, make, write; it asks
this module for a `HeadStart` and hands its parts to the stages: the forked
copy of the build (beside.py), which parses and renders the later chapters on
the second core when other work leaves one free, and meanwhile does what the
caller asks (the runtime read, the cell runner keyed).

It changes no byte of the site: with the copy off (`ROLLOUTS_PLAIN=beside`) or
no core free, the parts are the plain functions. (The templates' scripts were
also minified on a thread while the pages parsed; measured paired on a quiet
machine it paid nothing, 1.00x a cold build, and was removed: docs/speed.md.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sitegen.check.parse import FigureParser, PageParser
from sitegen.model import Project
from sitegen.read.figures import parse_figure
from sitegen.render.site import PageRenderer
from sitegen.speed.beside import Beside, parse_and_render_beside


@dataclass(frozen=True)
class HeadStart:
    """The forked copy, if any: what the stages are handed."""

    beside: Beside | None

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


@contextmanager
def start_head_start(project: Project, free_cores: float | None, meanwhile: Callable[[], None]) -> Iterator[HeadStart]:
    """Fork the copy (when `free_cores` leave a core); end it on leaving.

    `meanwhile` is work the build would do later that the copy can do now.
    """
    with parse_and_render_beside(project, free_cores) as beside:
        if beside is not None:
            beside.meanwhile.append(meanwhile)
        yield HeadStart(beside)
