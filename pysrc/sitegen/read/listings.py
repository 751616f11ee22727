"""`::: listing` blocks: the core's own source code, so a listing can never drift from what runs."""

from __future__ import annotations

import ast
from functools import cache


class ListingError(ValueError):
    """A listing that names a file or function the core does not have."""


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
    from sitegen.diagnostics import suggest_name

    if path not in core_modules:
        raise ListingError(f"listing names unknown file '{path}'{suggest_name(path, core_modules)}")
    if not names:
        raise ListingError(f"listing of '{path}' names no functions (e.g. '::: listing {path} function_name')")
    source = core_modules[path]
    spans = _definitions(source)
    lines = source.splitlines()
    pieces = []
    for name in names:
        if name not in spans:
            raise ListingError(f"listing: '{path}' has no function '{name}'{suggest_name(name, spans)}")
        first, last = spans[name]
        pieces.append("\n".join(lines[first - 1 : last]))
    return "\n\n".join(pieces) + "\n"
