"""The Pyodide runtime the pages ship, read at the edge of `render_site` (the one read the render needs).

The runtime's own files are copied as they are (by path); the lab's trimmed
standard library and lock file are derived from them here (lab_stdlib.py).
All of them live in one folder named after their bytes, pyodide/VERSION-HASH8
(site_assets.name_pyodide_folder), so a host may cache it forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
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
    stdlib_zip, full_lock = runtime["python_stdlib.zip"], runtime["pyodide-lock.json"]
    stdlib, lock = derive_lab_files(stdlib_zip, stamp(stdlib_zip), full_lock, stamp(full_lock), read_lab_stdlib_list())
    stdlib_name, lock_name = hash_name("python_stdlib.zip", stdlib), hash_name("pyodide-lock.json", lock)
    files: dict[str, bytes | Path] = {**runtime, stdlib_name: stdlib, lock_name: lock}
    return Runtime(files, name_pyodide_folder(files), stdlib_name, lock_name)


def stamp(path: Path) -> tuple[int, int, int]:
    """Return what changes when a file is replaced or rewritten: its inode, size and modification time."""
    status = path.stat()
    return status.st_ino, status.st_size, status.st_mtime_ns


# Remembered while the files are unchanged (their stamps are part of the key):
# the dev server renders the site on every edit, and trimming the 2.5 MB
# standard library costs ~25 ms each time.
@lru_cache(maxsize=4)
def derive_lab_files(
    stdlib_zip: Path,
    _zip_stamp: tuple[int, int, int],
    full_lock: Path,
    _lock_stamp: tuple[int, int, int],
    members: tuple[str, ...],
) -> tuple[bytes, bytes]:
    """Return the lab's trimmed standard library and lock file."""
    return trim_stdlib(stdlib_zip, members), trim_lock_file(full_lock)
