"""No import cycle anywhere in pysrc/, and sitegen's folders layered in the order docs/architecture.md states.

Every import counts, wherever it stands: at the top, inside a function, or
under `if TYPE_CHECKING:`. A cycle hidden in a function or behind
TYPE_CHECKING is still two modules that each need the other to be read, and
it is how the one cycle this rule replaced (blocks/* and render.py through
SiteContext) stayed unnoticed; so is an import of a later layer (a stage
that runs later), which is how read/, kinds/, check/, render/ and assets/
came to import each other in one cycle through function-level imports.

The layers are read from architecture.md's table ("The layers"), the one
place that states them: a folder moved to another layer there moves here.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT

PYSRC = PROJECT_ROOT / "pysrc"
ARCHITECTURE = PROJECT_ROOT / "docs" / "architecture.md"
LAYERS_HEADING = "## The layers"
PACKAGE = "sitegen"


def module_name(path: Path, root: Path = PYSRC) -> str:
    """Return the dotted name of a module file under pysrc/ (a package's __init__.py is the package)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def list_modules(root: Path = PYSRC) -> dict[str, Path]:
    """Return every module of pysrc/'s packages by its dotted name."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py")) if "egg-info" not in str(path)}


def build_import_graph(root: Path = PYSRC) -> dict[str, set[str]]:
    """Return {module: the pysrc/ modules it imports} for every module under `root`."""
    modules = list_modules(root)
    return {name: find_imports(path, modules) - {name} for name, path in modules.items()}


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


def read_layers(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Return the layers of architecture.md's table, first to last: (layer, its folders `x/` and modules `x.py`).

    The table is the one in the section under LAYERS_HEADING; its second
    column names the layer, its third lists the members in backquotes.
    """
    section = text.split(f"\n{LAYERS_HEADING}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    layers = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        layers.append((cells[1], tuple(re.findall(r"`([^`]+)`", cells[2]))))
    return layers


def find_layer(module: str, layers: list[tuple[str, tuple[str, ...]]]) -> int | None:
    """Return the index of the layer a sitegen module belongs to: its folder's, or its own as a module; None: no layer."""
    parts = module.split(".")[1:]
    member = "__init__.py" if not parts else f"{parts[0]}/" if len(parts) > 1 else f"{parts[0]}.py"
    folder = f"{parts[0]}/" if parts else ""
    return next((index for index, (_name, members) in enumerate(layers) if member in members or folder in members), None)


def find_back_imports(graph: dict[str, set[str]], layers: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Return one line per import of a later layer by an earlier one, and per sitegen module that is in no layer."""
    problems = []
    for module in sorted(name for name in graph if name.split(".")[0] == PACKAGE):
        layer = find_layer(module, layers)
        if layer is None:
            problems.append(f"{module} is in no layer of the table in docs/architecture.md")
            continue
        for imported in sorted(graph[module]):
            later = find_layer(imported, layers) if imported.split(".")[0] == PACKAGE else None
            if later is not None and later > layer:
                problems.append(
                    f"{module} ({layers[layer][0]}) imports {imported} ({layers[later][0]}), a layer that comes later"
                )
    return problems


def check_layers(root: Path) -> None:
    """Fail, naming each offending import, unless sitegen's modules under `root` keep architecture.md's layers."""
    problems = find_back_imports(build_import_graph(root), read_layers(ARCHITECTURE.read_text(encoding="utf-8")))
    if problems:
        raise AssertionError("imports against the layers of docs/architecture.md:\n" + "\n".join(problems))


def test_no_module_in_pysrc_imports_itself_through_others():
    assert find_cycle(build_import_graph()) is None


def test_no_folder_of_sitegen_imports_a_layer_that_comes_later():
    check_layers(PYSRC)


def test_the_layers_are_read_from_architecture_md_in_its_order():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    names = [name for name, _members in layers]
    assert names == ["ground", "kinds", "read", "check", "assets", "render", "publish", "pipeline", "serve", "commands"]
    assert ("model.py" in layers[0][1], "kinds/" in layers[1][1], layers[7][1]) == (True, True, ("pipeline.py", "speed/"))


def test_a_planted_back_import_fails_naming_the_import(tmp_path):
    scratch = tmp_path / "pysrc"
    shutil.copytree(PYSRC, scratch, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    check_layers(scratch)  # the copy keeps the layers
    load = scratch / "sitegen" / "read" / "load.py"
    # Inside a function, as the imports that hid the old cycle were.
    load.write_text(
        load.read_text(encoding="utf-8") + "\n\ndef planted():\n    from sitegen.render.pages import render_page\n",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError) as failure:
        check_layers(scratch)
    assert str(failure.value).split("\n")[1:] == [
        "sitegen.read.load (read) imports sitegen.render.pages (render), a layer that comes later"
    ]


def test_a_module_in_no_layer_fails(tmp_path):
    scratch = tmp_path / "pysrc"
    shutil.copytree(PYSRC, scratch, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (scratch / "sitegen" / "helpers.py").write_text("from sitegen.model import Page\n", encoding="utf-8")
    with pytest.raises(AssertionError) as failure:
        check_layers(scratch)
    assert str(failure.value).split("\n")[1:] == ["sitegen.helpers is in no layer of the table in docs/architecture.md"]


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
