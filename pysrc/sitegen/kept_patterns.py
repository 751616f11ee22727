"""Regular expressions compiled once per installed version: their programs kept in the tool's cache.

CPython's `re` turns a pattern into a program for its matching engine (`_sre`)
in Python code: parsing the pattern and generating the program cost about
0.3 ms a pattern, and a cold build compiles about 300 of them, most while
importing (markdown-it, PyYAML, Jinja, this tool's modules) and about 110 for
Pygments' Python lexer, which compiles every rule of every state on first use.
A program depends only on the pattern, its flags and the Python that compiled
it, never on a book. So, inside `reuse_compiled_patterns`, each pattern is
handed to `_sre` with its program kept in the tool's cache (tool_cache.py),
and a pattern met for the first time is compiled as `re` compiles it and kept.

Only the tool's own patterns are kept: the block is entered around importing
the pipeline and around building a lexer, and only patterns compiled by the
thread that entered it are kept (a book's words never make a pattern there).
Never wrong: a program is kept only when the pattern made from it equals
(`==`: same pattern, flags and program) the one `re` itself compiled, the file
is named after the Python build and the matching engine's version, and it is
checked on every read like every entry of the tool's cache.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's matching engine, which has no type stubs
import contextlib
import marshal
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]  # re's own compiler, as re.compile calls it
from typing import Any

from sitegen.tool_cache import read_verified, write_verified

# re's own compiler, as re.compile calls it (kept before any block replaces it).
_COMPILE = _compiler.compile
# (pattern, flags as passed) -> (flags of the compiled pattern, program, groups, group index, index group): _sre.compile's arguments.
Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
# A file that grew past this many programs (many versions of the tool's code sharing one node_modules) keeps only
# the programs of the block that wrote it.
MOST_PROGRAMS = 4000


def name_programs_file(folder: Path) -> Path:
    """Return the file for this Python's programs: the interpreter's build and the matching engine's version name it."""
    build = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-sre{_sre.MAGIC}"
    return folder / f"patterns-{build}.marshal"


def read_programs(path: Path) -> dict[tuple[str | bytes, int], Program]:
    """Return the programs kept at `path` ({} when absent, damaged, or not marshal's data of this Python)."""
    data = read_verified(path)
    if data is None:
        return {}
    try:
        programs = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return {}
    return programs if isinstance(programs, dict) else {}


def make_program(pattern: str | bytes, flags: int) -> Program:
    """Compile `pattern` as re._compiler.compile does, stopping before `_sre`: return _sre.compile's other arguments."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # Plain ints: the program's opcodes are named int constants, which marshal does not store.
    return (
        int(flags | parsed.state.flags),
        [int(word) for word in code],
        parsed.state.groups - 1,
        dict(groupindex),
        tuple(indexgroup),
    )


def compile_as_re(pattern: Any, flags: int) -> re.Pattern[Any]:
    """Return the pattern re's own compiler makes."""
    compiled: re.Pattern[Any] = _COMPILE(pattern, flags)
    return compiled


def compile_program(pattern: str | bytes, program: Program) -> re.Pattern[Any]:
    """Return the pattern `_sre` makes from a kept program (it checks the program before it runs it)."""
    compiled: re.Pattern[Any] = _sre.compile(pattern, *program)
    return compiled


@contextlib.contextmanager
def reuse_compiled_patterns(folder: Path | None) -> Iterator[None]:
    """While the block runs, compile this thread's patterns from the programs kept in `folder` (none: compile as usual).

    Blocks may nest (the inner one then does nothing). On leaving, the
    programs first met here are added to the file, when there are any.
    """
    if folder is None or _compiler.compile is not _COMPILE:
        yield
        return
    path = name_programs_file(folder)
    programs = read_programs(path)
    met: dict[tuple[str | bytes, int], Program] = {}  # what this block compiled, kept or new
    added = 0
    owner = threading.get_ident()

    def compile_kept(pattern: Any, flags: int = 0) -> re.Pattern[Any]:
        nonlocal added
        if not isinstance(pattern, (str, bytes)) or flags & re.DEBUG or threading.get_ident() != owner:
            return compile_as_re(pattern, flags)
        program = programs.get((pattern, flags))
        if program is not None:
            met[(pattern, flags)] = program
            return compile_program(pattern, program)
        compiled = compile_as_re(pattern, flags)
        try:
            program = make_program(pattern, flags)
            same = compile_program(pattern, program) == compiled
        except Exception:  # noqa: BLE001  # re's private compiler changed in a later Python: the pattern is only not kept
            return compiled
        if same:  # the same program as re's, on this Python: keep it
            programs[(pattern, flags)] = met[(pattern, flags)] = program
            added += 1
        return compiled

    _compiler.compile = compile_kept
    try:
        yield
    finally:
        _compiler.compile = _COMPILE
    if added:
        write_verified(path, marshal.dumps(programs if len(programs) <= MOST_PROGRAMS else met))
