"""`::: figure NAME`: an SVG from content/figures/, numbered site-wide, with its caption (the container's Markdown).

read/figures.py checks each SVG and re-serialises it; this kind places a
figure on a chapter, checks across pages that each is shown once, numbers
them in reading order and inlines the SVG, labelled by its own title and desc.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, Location, report
from sitegen.kinds.blocks.base import BlockKind, BlockStart, PageRecord
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.messages import (
    FIGURE_CONTAINER_ARGUMENTS,
    FIGURE_NOT_SHOWN,
    FIGURE_OUTSIDE_CHAPTER,
    FIGURE_SHOWN_TWICE,
    MISSING_FIGURE_FILE,
)
from sitegen.model import FIGURE_PLACEMENTS, Figure, FigurePlacement, Page, ParsedProject


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
            raise start.fail(FIGURE_CONTAINER_ARGUMENTS)
        return FigureData(start.arguments[0])

    def anchor(self, data: FigureData) -> str:
        """Return figure-NAME."""
        return data.anchor

    def record(self, data: FigureData, location: Location, page: PageRecord) -> None:
        """Note where the figure is shown: figures are numbered in reading order, and shown once."""
        page.add_record(FIGURE_PLACEMENTS, FigurePlacement(data.figure, location))

    def check_across_pages(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Each figure shown must have its SVG and be shown once, in a chapter (references to figures: kinds/links/figure.py)."""
        problems = []
        shown: dict[str, Location] = {}
        for page in parsed.chapters:
            for placement in page.figure_placements:
                if placement.name not in figure_files:
                    expected = f"figures/{placement.name}.svg"
                    problems.append(report(placement.location, MISSING_FIGURE_FILE, file=expected))
                elif placement.name in shown:
                    problems.append(
                        report(placement.location, FIGURE_SHOWN_TWICE, name=placement.name, first=shown[placement.name])
                    )
                else:
                    shown[placement.name] = placement.location
        for other in parsed.pages:
            for placement in other.figure_placements if not PAGE_KINDS[other.kind].allows_figures else ():
                problems.append(report(placement.location, FIGURE_OUTSIDE_CHAPTER))
        for name, path in sorted(figure_files.items()):
            if name not in shown:
                problems.append(report(Location(path, 0), FIGURE_NOT_SHOWN))
        return problems

    site_fields = frozenset({"figures", "figure_numbers"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each figure shown here: its number and its drawing."""
        names = [placement.name for placement in page.figure_placements]
        return tuple((name, site.figure_numbers.get(name), site.figures.get(name)) for name in names)

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


def number_figures(chapters: Sequence[Page]) -> dict[str, tuple[int, str]]:
    """Number figures site-wide in reading order: {name: (number, page file)}."""
    numbers: dict[str, tuple[int, str]] = {}
    for page in chapters:
        for placement in page.figure_placements:
            if placement.name not in numbers:
                numbers[placement.name] = (len(numbers) + 1, page.output_name)
    return numbers


def inline_figure_svg(figure: Figure, anchor: str) -> str:
    """Return the SVG markup for the page: labelled by its own title and desc."""
    anchor = escape(anchor, quote=True)
    svg = figure.svg
    svg = re.sub(r"<title\b[^>]*>", f'<title id="{anchor}-title">', svg, count=1)
    svg = re.sub(r"<desc\b[^>]*>", f'<desc id="{anchor}-desc">', svg, count=1)
    root = re.match(r"<svg\b[^>]*>", svg)
    assert root is not None
    tag = root.group(0)
    tag = re.sub(r'\s(?:role|aria-labelledby|aria-describedby)="[^"]*"', "", tag)
    tag = tag[:-1].rstrip("/ ").rstrip() + f' role="img" aria-labelledby="{anchor}-title" aria-describedby="{anchor}-desc">'
    return tag + svg[root.end() :]


KIND = FigureKind()
