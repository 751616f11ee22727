"""`[](figure:name)`: a figure's number, "Figure 001", linking to the figure wherever it is shown.

Figures are numbered site-wide in reading order (kinds/blocks/figure.py's
`number_figures`), so the text is written at render time; a link with text of
its own keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, report, suggest_name
from sitegen.kinds.links.base import LinkScheme, list_uses, site_of
from sitegen.messages import (
    FIGURE_LINK_NOT_SHOWN,
    UNKNOWN_FIGURE,
)
from sitegen.model import Page, ParsedProject


def format_figure_number(number: int) -> str:
    """Write a figure number with three digits: Figure 001."""
    return f"Figure {number:03d}"


class FigureScheme(LinkScheme):
    """A reference to a figure some chapter shows (`::: figure NAME`)."""

    name = "figure"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Remember the figure's name; its number and page are known only at render time."""
        link.meta["key"] = target

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Each reference must name a figure that has its SVG and is shown in a chapter."""
        shown = {p.name for page in parsed.chapters for p in page.figure_placements if p.name in figure_files}
        problems = []
        for _page, use in list_uses(parsed.pages, self.name):
            if use.key not in shown and use.key not in figure_files:
                problems.append(
                    report(use.location, UNKNOWN_FIGURE, name=use.key, suggestion=suggest_name(use.key, figure_files))
                )
            elif use.key not in shown:
                problems.append(report(use.location, FIGURE_LINK_NOT_SHOWN, name=use.key))
        return problems

    site_fields = frozenset({"figures", "figure_numbers"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each figure the page points at: its number (and its drawing)."""
        names = [use.key for use in page.uses_of(self.name)]
        return tuple((name, site.figure_numbers.get(name), site.figures.get(name)) for name in names)

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        """Link to the figure (on this page: its anchor only); an empty link's text is the figure's number."""
        name = tokens[index].meta["key"]
        number, page_name = site_of(env).figure_numbers.get(name, (0, ""))
        target = "" if page_name == env.get("page_name") else page_name
        text = format_figure_number(number) if tokens[index + 1].type == "link_close" else ""
        return f'<a class="figure-ref" href="{escape(target)}#figure-{escape(name)}">{text}'


SCHEME = FigureScheme()
