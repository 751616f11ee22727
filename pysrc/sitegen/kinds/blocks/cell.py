"""```` ```{python} ````: an executable Python cell, run at build time and again, editable, in the reader's browser.

The code is the fence's text after any leading `#| key: value` option lines
(see sitegen/check/cells.py for the options, the runner and the cache). Parsing only
reads the cell; the pipeline runs every page's cells after parsing (one node
process, outputs cached by content) and render finds each cell's output in
`SiteContext.cells` by the cell's location.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from markupsafe import Markup

from sitegen.check.cells import Cell, CellOutput, read_cell
from sitegen.context import SiteContext
from sitegen.diagnostics import Location
from sitegen.kinds.blocks.base import BlockError, BlockKind, BlockStart, PageRecord
from sitegen.model import CELLS
from sitegen.render.highlight import highlight_code


class CellKind(BlockKind[Cell]):
    """A Python cell: code, the build's output, and the controls that run it again in the browser."""

    name = "python"
    syntax = "fence"
    partial = "partials/cell.html"

    def check(self, start: BlockStart) -> Cell:
        """No words after `{python}`; options are `#|` lines, checked one by one."""
        if start.arguments:
            raise start.fail(
                f"a python cell takes no words after '{{python}}' (got '{' '.join(start.arguments)}'); "
                "write options as '#| key: value' lines at the top of the cell"
            )
        cell, problem = read_cell(start.content, start.location)
        if problem is not None:
            raise BlockError(problem)
        assert cell is not None
        return replace(cell, number=start.number)

    def record(self, data: Cell, location: Location, page: PageRecord) -> None:
        """The page lists its cells, in order, for the pipeline to run."""
        page.add_record(CELLS, data)

    def render_context(self, data: Cell, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the cell, its highlighted code and the build's output."""
        return {
            "cell": data,
            "code": Markup(highlight_code(data.code, "python")),
            "output": site.cells.get(data.location, NO_OUTPUT),
        }


NO_OUTPUT = CellOutput(())
KIND = CellKind()
