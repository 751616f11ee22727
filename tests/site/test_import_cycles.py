"""No import cycle anywhere in pysrc/: the modules form layers, read from the imports themselves.

Every import counts, wherever it stands: at the top, inside a function, or
under `if TYPE_CHECKING:`. A cycle hidden in a function or behind
TYPE_CHECKING is still two modules that each need the other to be read, and
it is how the one cycle this rule replaced (blocks/* and render.py through
SiteContext) stayed unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from site_testing import PROJECT_ROOT

PYSRC = PROJECT_ROOT / "pysrc"


def module_name(path: Path) -> str:
    """Return the dotted name of a module file under pysrc/ (a package's __init__.py is the package)."""
    parts = path.relative_to(PYSRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def list_modules() -> dict[str, Path]:
    """Return every module of pysrc/'s packages by its dotted name."""
    return {module_name(path): path for path in sorted(PYSRC.rglob("*.py")) if "egg-info" not in str(path)}


def find_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Return the pysrc/ modules a module imports, wherever the import stands.

    `from package import name` is an import of package.name when that is a
    module, else of the package.
    """
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)
                elif node.module in modules:
                    found.add(node.module)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one import cycle as a path of module names (first == last), or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str] | None:
        path.append(module)
        on_path.add(module)
        for imported in sorted(graph[module]):
            if imported in on_path:
                return path[path.index(imported) :] + [imported]
            if imported not in done and (cycle := visit(imported)):
                return cycle
        on_path.discard(path.pop())
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done and (cycle := visit(module)):
            return cycle
    return None


def test_no_module_in_pysrc_imports_itself_through_others():
    modules = list_modules()
    graph = {name: find_imports(path, modules) - {name} for name, path in modules.items()}
    assert find_cycle(graph) is None


def test_the_cycle_finder_finds_a_cycle_through_three_modules():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_imports_inside_functions_and_type_checking_blocks_count(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sitegen.model import Page\n"
        "def f():\n    from sitegen.check import parse\n",
        encoding="utf-8",
    )
    modules = list_modules()
    assert find_imports(source, modules) == {"sitegen.model", "sitegen.check.parse"}
