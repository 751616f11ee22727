"""The Pyodide runtime the pages ship, read at the edge of `render_site` (the one read the render needs).

The runtime's own files are copied as they are (by path); the lab's trimmed
standard library and lock file are derived from them here (lab_stdlib.py).
All of them live in one folder named after their bytes, pyodide/VERSION-HASH8
(site_assets.name_pyodide_folder), so a host may cache it forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sitegen.assets.lab_stdlib import read_lab_stdlib_list, trim_lock_file, trim_stdlib
from sitegen.assets.site_assets import hash_name, name_pyodide_folder
from sitegen.model import Project


@dataclass(frozen=True, eq=False)
class Runtime:
    """The runtime's files by name (a path to copy, or derived bytes), their folder, and the two derived files' names."""

    files: Mapping[str, bytes | Path]
    folder: str
    stdlib_name: str
    lock_name: str


def read_runtime(project: Project) -> Runtime:
    """Read what the lab trims from the runtime (the standard library, the lock file) and name the runtime's folder."""
    runtime = {path.name: path for path in project.pyodide_files}
    stdlib = trim_stdlib(runtime["python_stdlib.zip"], read_lab_stdlib_list())
    lock = trim_lock_file(runtime["pyodide-lock.json"])
    stdlib_name, lock_name = hash_name("python_stdlib.zip", stdlib), hash_name("pyodide-lock.json", lock)
    files: dict[str, bytes | Path] = {**runtime, stdlib_name: stdlib, lock_name: lock}
    return Runtime(files, name_pyodide_folder(files), stdlib_name, lock_name)
