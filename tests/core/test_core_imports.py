"""The core imports only from the standard library's pure-computation modules.

Anything else would break the promise that the browser runs the very code the
build ran: numpy and random are not in the shipped runtime or not
deterministic across runtimes, js/pyodide tie the core to the browser, and
modules that do I/O have no place in pure functions.
"""

import ast
from pathlib import Path

import pytest

import rollout_lab

ALLOWED_MODULES = {
    "__future__",
    "bisect",  # bisect, functools and itertools: pure computation, for the speedups suggested in
    "functools",  # benchmarks/bench_core.py's findings (cumulative totals, a softmax cache)
    "itertools",
    "collections.abc",
    "dataclasses",
    "decimal",
    "html",
    "json",
    "math",
    "re",
    "typing",
}
# Builtins that do I/O or import by name, out of sight of the import check.
FORBIDDEN_CALLS = {"__import__", "open", "print", "input", "eval", "exec", "compile", "breakpoint"}

CORE_DIRECTORY = Path(rollout_lab.__file__).parent
CORE_MODULES = sorted(CORE_DIRECTORY.rglob("*.py"))


def list_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """Return (line, module) for every import statement; relative imports count as rollout_lab."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, "rollout_lab" if node.level else node.module or ""))
    return found


def is_allowed(module: str) -> bool:
    return module in ALLOWED_MODULES or module == "rollout_lab" or module.startswith("rollout_lab.")


def test_the_core_modules_are_found():
    names = {path.name for path in CORE_MODULES}
    assert {"__init__.py", "display.py", "record.py", "sampling.py", "statistics.py", "validation.py", "world.py"} <= names


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda path: path.relative_to(CORE_DIRECTORY).as_posix())
def test_module_imports_only_allowed_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    refused = [f"{path.name}:{line}: imports {module}" for line, module in list_imports(tree) if not is_allowed(module)]
    assert refused == []


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda path: path.relative_to(CORE_DIRECTORY).as_posix())
def test_module_calls_no_io_or_dynamic_import(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    calls = [
        f"{path.name}:{node.lineno}: calls {node.func.id}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
    ]
    assert calls == []


@pytest.mark.parametrize(
    ("source", "refused"),
    [
        ("import numpy as np", ["numpy"]),
        ("import random", ["random"]),
        ("from js import document", ["js"]),
        ("import pyodide.ffi", ["pyodide.ffi"]),
        ("import os, math", ["os"]),
        ("from collections import Counter", ["collections"]),
        ("from . import world\nfrom .sampling import next_state", []),
        ("from rollout_lab.world import PROMPT\nimport decimal", []),
    ],
)
def test_the_check_itself_catches_forbidden_imports(source, refused):
    found = [module for _, module in list_imports(ast.parse(source)) if not is_allowed(module)]
    assert found == refused
