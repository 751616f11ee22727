"""`::: figure NAME`: an SVG from content/figures/, numbered site-wide, with its caption (the container's Markdown)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Location
from sitegen.kinds.blocks.base import BlockKind, BlockStart, PageRecord
from sitegen.model import FIGURE_PLACEMENTS, FigurePlacement
from sitegen.read.figures import inline_figure_svg


@dataclass(frozen=True)
class FigureData:
    """Which figure the container shows (validate.py checks that the file exists and is shown once)."""

    figure: str

    @property
    def anchor(self) -> str:
        """Return the figure's anchor, which `figure:` links point at."""
        return f"figure-{self.figure}"


class FigureKind(BlockKind[FigureData]):
    """A numbered figure."""

    name = "figure"
    partial = "partials/figure.html"

    def check(self, start: BlockStart) -> FigureData:
        """A figure container names exactly one figure."""
        if len(start.arguments) != 1:
            raise start.fail("figure container takes one figure name, e.g. '::: figure context-growth'")
        return FigureData(start.arguments[0])

    def anchor(self, data: FigureData) -> str:
        """Return figure-NAME."""
        return data.anchor

    def record(self, data: FigureData, location: Location, page: PageRecord) -> None:
        """Note where the figure is shown: figures are numbered in reading order, and shown once."""
        page.add_record(FIGURE_PLACEMENTS, FigurePlacement(data.figure, location))

    def render_context(self, data: FigureData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the figure, its number, its inline SVG and its caption."""
        figure = site.figures[data.figure]
        return {
            "anchor": data.anchor,
            "number": site.figure_numbers[data.figure][0],
            "figure": figure,
            "svg": Markup(inline_figure_svg(figure, data.anchor)),
            "caption": body,
        }


KIND = FigureKind()
