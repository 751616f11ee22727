"""```` ```{python} ````: an executable Python cell, run at build time and again, editable, in the reader's browser.

The code is the fence's text after any leading `#| key: value` option lines
(`read_cell`, below). Parsing only reads the cell; the check stage runs every
page's cells after parsing (check/cell_runner.py: a node process per page,
outputs cached by content, check/cell_cache.py) and render finds each cell's
output in `SiteContext.cells` by the cell's location.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, Finding, Location, finding, report, suggest_name
from sitegen.kinds.blocks.base import BlockError, BlockKind, BlockStart, PageRecord
from sitegen.markup.highlight import highlight_code
from sitegen.messages import (
    BAD_CELL_EXPECT,
    BAD_CELL_OPTION_LINE,
    BAD_CELL_TIMEOUT,
    CELL_ARGUMENTS,
    EMPTY_CELL,
    UNKNOWN_CELL_OPTION,
)
from sitegen.model import CELLS, Cell, CellOptions, CellOutput, Page

OPTIONS = ("expect", "timeout")
MAX_TIMEOUT = 120.0
_OPTION_LINE = re.compile(r"#\|\s*(?P<key>[\w-]*)\s*(?::\s*(?P<value>.*?))?\s*$")


class CellKind(BlockKind[Cell]):
    """A Python cell: code, the build's output, and the controls that run it again in the browser."""

    name = "python"
    syntax = "fence"
    partial = "partials/cell.html"

    def check(self, start: BlockStart) -> Cell:
        """No words after `{python}`; options are `#|` lines, checked one by one."""
        if start.arguments:
            raise start.fail(CELL_ARGUMENTS, words=" ".join(start.arguments))
        cell, problem = read_cell(start.content, start.location)
        if problem is not None:
            raise BlockError(problem)
        assert cell is not None
        return replace(cell, number=start.number)

    def record(self, data: Cell, location: Location, page: PageRecord) -> None:
        """The page lists its cells, in order, for the pipeline to run."""
        page.add_record(CELLS, data)

    site_fields = frozenset({"cells"})

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Each cell's output from the build."""
        return tuple(site.cells.get(cell.location) for cell in page.cells)

    def render_context(self, data: Cell, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the cell, its highlighted code and the build's output."""
        return {
            "cell": data,
            "code": Markup(highlight_code(data.code, "python")),
            "output": site.cells.get(data.location, NO_OUTPUT),
        }


def read_cell(content: str, location: Location) -> tuple[Cell | None, Diagnostic | None]:
    """Read a cell's leading `#| key: value` lines and its code; return the cell, or the first problem."""
    lines = content.split("\n")
    options: dict[str, object] = {}
    count = 0
    while count < len(lines) and lines[count].lstrip().startswith("#|"):
        problem = read_option(lines[count].strip(), options)
        if problem is not None:
            return None, problem.at(Location(location.path, location.line + 1 + count))
        count += 1
    code = "\n".join(lines[count:]).rstrip("\n") + "\n"
    if not code.strip():
        return None, report(location, EMPTY_CELL)
    return Cell(0, code, CellOptions(**options), location, location.line + 1 + count), None  # type: ignore[arg-type]  # read_option checks each value


def read_option(line: str, options: dict[str, object]) -> Finding | None:
    """Read one `#| key: value` line into options (as CellOptions fields); return a problem, or None."""
    match = _OPTION_LINE.fullmatch(line)
    key, value = (match["key"], match["value"]) if match else ("", None)
    if not key or value is None:
        return finding(BAD_CELL_OPTION_LINE, line=line)
    if key not in OPTIONS:
        return finding(UNKNOWN_CELL_OPTION, key=key, suggestion=suggest_name(key, OPTIONS), options=", ".join(OPTIONS))
    if key == "expect":
        if value != "error":
            return finding(BAD_CELL_EXPECT, value=value)
        options["expect_error"] = True
    elif key == "timeout":
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not 0 < seconds <= MAX_TIMEOUT:
            return finding(BAD_CELL_TIMEOUT, value=value, limit=MAX_TIMEOUT)
        options["timeout"] = seconds
    return None


NO_OUTPUT = CellOutput(())
KIND = CellKind()
