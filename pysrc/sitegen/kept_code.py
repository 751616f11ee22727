"""The methods `dataclass` and `namedtuple` write as source text, compiled once per installed Python: kept in the tool's cache.

A dataclass gets its `__init__`, `__repr__`, `__eq__` (and, frozen, `__hash__`,
`__setattr__`, `__delattr__`) written as Python source and compiled by `exec`
when the class is created, at every start: the ≈ 80 classes a build imports
cost ≈ 460 compilations, ≈ 80 ms of CPU at load (a quarter of the imports;
`namedtuple` adds ≈ 25 more). The source depends only on the class (its
fields, their defaults' names, the options), never on a book. So, inside
`reuse_generated_code`, `dataclasses` and `collections` are handed an `exec`
and an `eval` that run the code object kept for that exact source text in the
tool's cache (tool_cache.py), and that compile, as `exec` and `eval` would, and
keep, a source met for the first time.

Never wrong: the key is the whole source text and the mode, the file is named
after the Python build and its optimization level (marshal's format and the
bytecode belong to a build), a code object is kept only when the one marshal
gives back equals (`==`: the same bytecode, constants, names and line table)
the one compiled, and the file is checked on every read like every entry of
the tool's cache.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import dataclasses
import marshal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from sitegen.tool_cache import read_verified, write_verified

# The modules that compile source they write themselves; each gets the block's `exec` and `eval` as module globals,
# which its code finds before the built-in ones.
GENERATING_MODULES: tuple[ModuleType, ...] = (dataclasses, collections)
# (mode, source text) -> what compile(source, "<string>", mode) returns: what `exec`/`eval` of that text compile.
Kept = dict[tuple[str, str], CodeType]
# A file that grew past this many (many versions of the tool's code sharing one node_modules) keeps only the block's.
MOST_CODE = 4000


def name_code_file(folder: Path) -> Path:
    """Return the file for this Python's code objects: the interpreter's build and its -O level name it."""
    return folder / f"code-{sys.implementation.cache_tag}-{sys.hexversion:x}-O{sys.flags.optimize}.marshal"


def read_code(path: Path) -> Kept:
    """Return the code objects kept at `path` ({} when absent, damaged, or not marshal's data of this Python)."""
    data = read_verified(path)
    if data is None:
        return {}
    try:
        kept = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return {}
    return kept if isinstance(kept, dict) else {}


@contextlib.contextmanager
def reuse_generated_code(folder: Path | None) -> Iterator[None]:
    """While the block runs, `dataclasses` and `collections` run kept code for the source they write (none: as usual).

    Blocks may nest (the inner one then does nothing). On leaving, the code
    first met here is added to the file, when there is any.
    """
    if folder is None or any("exec" in vars(module) or "eval" in vars(module) for module in GENERATING_MODULES):
        yield
        return
    path = name_code_file(folder)
    kept = read_code(path)
    met: Kept = {}
    added = 0

    def compile_kept(source: str, mode: str) -> CodeType:
        nonlocal added
        code = kept.get((mode, source))
        if code is None:
            # What exec/eval compile for a string: the name "<string>", no future flags (the caller's are none).
            code = compile(source, "<string>", mode, dont_inherit=True)
            if marshal.loads(marshal.dumps(code)) == code:
                kept[(mode, source)] = code
                added += 1
        met[(mode, source)] = code
        return code

    # Both modules always pass the namespace; without one, exec and eval would use the caller's frame, which these
    # functions would hide, so that rare call is handed the caller's namespace as the built-ins would take it.
    def exec_kept(source: Any, globals: Any = None, locals: Any = None, /, **options: Any) -> None:
        if globals is None:
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        builtins.exec(compile_kept(source, "exec") if isinstance(source, str) else source, globals, locals, **options)

    def eval_kept(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        if globals is None:
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        return builtins.eval(compile_kept(source, "eval") if isinstance(source, str) else source, globals, locals)

    for module in GENERATING_MODULES:
        module.exec, module.eval = exec_kept, eval_kept  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in GENERATING_MODULES:
            del module.exec, module.eval
    if added:
        write_verified(path, marshal.dumps(kept if len(kept) <= MOST_CODE else met))
