"""`::: listing FILE NAME...`: functions from the core's own source, with a caption (the container's Markdown).

The code is cut from the core's source at build time, so a listing can never
drift from what runs.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Finding, finding, suggest_name
from sitegen.kinds.blocks.base import BlockError, BlockKind, BlockStart
from sitegen.markup.highlight import render_code_block
from sitegen.messages import (
    LISTING_ARGUMENTS,
    LISTING_NO_FUNCTIONS,
    LISTING_UNKNOWN_FILE,
    LISTING_UNKNOWN_FUNCTION,
)


@dataclass(frozen=True)
class ListingData:
    """The core file, the names shown, and their source text."""

    file: str
    names: tuple[str, ...]
    code: str


class ListingKind(BlockKind[ListingData]):
    """A listing of the core's code, taken from the source at build time so it cannot drift."""

    name = "listing"
    partial = "partials/listing.html"

    def check(self, start: BlockStart) -> ListingData:
        """The first word is a core file, the rest names in it."""
        if not start.arguments:
            raise start.fail(LISTING_ARGUMENTS)
        file, names = start.arguments[0], start.arguments[1:]
        try:
            code = extract_listing(dict(start.core_modules), file, names)
        except ListingError as error:
            raise BlockError(error.problem.at(start.location)) from error
        return ListingData(file=file, names=names, code=code)

    def render_context(self, data: ListingData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the file, the names, the code and the caption."""
        return {"file": data.file, "names": data.names, "code": Markup(render_code_block(data.code, "python")), "caption": body}


class ListingError(ValueError):
    """A listing that names a file or function the core does not have."""

    def __init__(self, problem: Finding) -> None:
        super().__init__(problem.text())
        self.problem = problem


@cache
def _definitions(source: str) -> dict[str, tuple[int, int]]:
    """Return {name: (first line, last line)} of the module's top-level functions, classes and constants."""
    tree = ast.parse(source)
    spans: dict[str, tuple[int, int]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[node.name] = (first, node.end_lineno or node.lineno)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    spans[target.id] = (node.lineno, node.end_lineno or node.lineno)
    return spans


def extract_listing(core_modules: dict[str, str], path: str, names: tuple[str, ...]) -> str:
    """Return the source of the named definitions from one core module, in the order named."""
    if path not in core_modules:
        raise ListingError(finding(LISTING_UNKNOWN_FILE, file=path, suggestion=suggest_name(path, core_modules)))
    if not names:
        raise ListingError(finding(LISTING_NO_FUNCTIONS, file=path))
    source = core_modules[path]
    spans = _definitions(source)
    lines = source.splitlines()
    pieces = []
    for name in names:
        if name not in spans:
            raise ListingError(finding(LISTING_UNKNOWN_FUNCTION, file=path, name=name, suggestion=suggest_name(name, spans)))
        first, last = spans[name]
        pieces.append("\n".join(lines[first - 1 : last]))
    return "\n\n".join(pieces) + "\n"


KIND = ListingKind()
