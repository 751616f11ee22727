"""The standard library as the pages' Python gets it: cut into parts, fetched on first import, listed by a directory.

Pyodide fetches its whole standard library (python_stdlib.zip, 2.5 MB) before
Python starts. Restored from the build's memory snapshot (check/cell_runner.py),
Python has imported what the lab and the cells need already, so the pages
fetch none of that zip; only a module first imported later needs its file.
The build therefore cuts the zip into parts, each a zip of whole top-level
modules and packages (their members' compressed bytes copied as they are,
lab_stdlib.trim_stdlib), and writes a directory, a JSON file saying which
file lives where in which part:

    {"parts": [{"name": PART, "size": BYTES, "sha256": HEX,
                "files": [[PATH, OFFSET, COMPRESSED, SIZE, METHOD], ...]}, ...]}

OFFSET is where the file's compressed bytes (METHOD 8, deflate; 0, stored)
start in the part. The first part (boot) holds what a start imports with the
cells' kernel (start_stdlib.txt): a start that cannot use the snapshot fetches
it at once, and a restored one never. Every start imports the core before
the kernel (SNAPSHOT_IMPORTS), so that part holds all the lab imports
(lab_stdlib.txt) too; a core part would hold what the lab imports beyond it,
and is written only when there is any. The rest are grouped by
top-level name, in order, about PART_TARGET bytes each. Every name is
content-hashed, like the rest of the runtime's folder.

In the page, `assembleStdlib` (client/python/stdlib.mjs) installs the
directory as Python's standard library before Python starts, and a file's
first read fetches its part (docs/workers.md). The build's cell runner gets
the same directory and parts, so the snapshot is made with exactly the layout
the pages restore it into.
"""

from __future__ import annotations

import hashlib
import io
import json
import marshal
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sitegen.assets import lab_stdlib, site_assets
from sitegen.assets.lab_stdlib import LAB_STDLIB_LIST, read_lab_stdlib_list, trim_stdlib
from sitegen.assets.site_assets import hash_name
from sitegen.files.hashes import hash_bytes
from sitegen.files.tool_cache import read_verified, write_verified

# About 1.7 MB of compressed files (beside the boot part) in ~35 parts: small enough that a module's first import fetches little beside it.
PART_TARGET = 24 * 1024
START_STDLIB_LIST = LAB_STDLIB_LIST.with_name("start_stdlib.txt")
_LOCAL_HEADER_SIZE = 30  # a zip member's local header, before its name (the parts' members have no extra field)


@dataclass(frozen=True, eq=False)
class StdlibParts:
    """The directory's name and bytes, and every part's bytes by name (all in the runtime's folder)."""

    directory_name: str
    directory: bytes
    parts: Mapping[str, bytes]


def cut_stdlib(full_zip: Path, boot: tuple[str, ...], core: tuple[str, ...]) -> StdlibParts:
    """Cut `full_zip` into parts (`boot`, the rest of `core`, then the rest) and write their directory.

    Deterministic: the members' bytes are copied, not recompressed.
    """
    with zipfile.ZipFile(full_zip) as source:
        return cut_open_stdlib(source, boot, core)


def cut_open_stdlib(source: zipfile.ZipFile, boot: tuple[str, ...], core: tuple[str, ...]) -> StdlibParts:
    """cut_stdlib on the zip opened once: its central directory is read once for the plan and all 36 parts."""
    sizes = {info.filename: info.compress_size for info in source.infolist() if not info.is_dir()}
    missing = sorted((set(boot) | set(core)) - set(sizes))
    if missing:
        raise KeyError(f"the start and lab lists name files the standard library lacks: {', '.join(missing)}")
    rest: dict[str, list[str]] = {}
    for name in sorted(sizes):
        if name not in boot and name not in core:
            rest.setdefault(name.split("/", 1)[0], []).append(name)
    # The core part only where the lab imports more than a start does (today it does not: every start imports the core).
    groups: list[tuple[str, list[str]]] = [("boot", sorted(boot))]
    if set(core) - set(boot):
        groups.append(("core", sorted(set(core) - set(boot))))
    current: list[str] = []
    for top in sorted(rest):
        current += rest[top]
        if sum(sizes[name] for name in current) >= PART_TARGET:
            groups.append(("", current))
            current = []
    if current:
        groups.append(("", current))
    parts: dict[str, bytes] = {}
    listed = []
    for index, (label, members) in enumerate(groups):
        label = label or members[0].split("/", 1)[0].removesuffix(".py")  # the rest: named after their first module
        data = trim_stdlib(source, tuple(members))
        name = hash_name(f"python_stdlib-{index:02d}-{label}.zip", data)
        parts[name] = data
        listed.append({"name": name, "size": len(data), "sha256": hash_bytes(data), "files": locate_files(data)})
    directory = (json.dumps({"parts": listed}, sort_keys=True, separators=(",", ":")) + "\n").encode()
    return StdlibParts(hash_name("python_stdlib.json", directory), directory, parts)


def locate_files(part: bytes) -> list[list[object]]:
    """Return [path, offset, compressed size, size, method] for each member of a part written by trim_stdlib."""
    with zipfile.ZipFile(io.BytesIO(part)) as archive:
        return [
            [
                info.filename,
                info.header_offset + _LOCAL_HEADER_SIZE + len(info.filename.encode()),
                info.compress_size,
                info.file_size,
                info.compress_type,
            ]
            for info in archive.infolist()
        ]


def stamp(path: Path) -> tuple[int, int, int]:
    """Return what changes when a file is replaced or rewritten: its inode, size and modification time."""
    status = path.stat()
    return status.st_ino, status.st_size, status.st_mtime_ns


def read_stdlib_parts(full_zip: Path, cache_dir: Path | None = None) -> StdlibParts:
    """Return the parts and directory of `full_zip` (Pyodide's python_stdlib.zip): start_stdlib.txt's and lab_stdlib.txt's first.

    `cache_dir`: the tool's cache for them (paths.STDLIB_CACHE), where a cold build finds them already cut.
    """
    boot, core = read_lab_stdlib_list(START_STDLIB_LIST), read_lab_stdlib_list()
    return _cut_cached(full_zip, stamp(full_zip), boot, core, cache_dir)


# Remembered while the zip is unchanged (its stamp is part of the key): the dev
# server renders the site on every edit, and each cell runner needs the parts too.
@lru_cache(maxsize=4)
def _cut_cached(
    full_zip: Path, _stamp: tuple[int, int, int], boot: tuple[str, ...], core: tuple[str, ...], cache_dir: Path | None
) -> StdlibParts:
    if cache_dir is None:
        return cut_stdlib(full_zip, boot, core)
    data = full_zip.read_bytes()
    # Everything the parts depend on: the zip's bytes, the lists, and the code that cuts and names them.
    key = hashlib.sha256(repr((boot, core, sys.version_info[:2])).encode())
    for code in _CUTTING_CODE:
        key.update(code.read_bytes())
    key.update(data)
    entry = cache_dir / f"{key.hexdigest()}.marshal"
    stored = read_verified(entry)
    if stored is not None:
        directory_name, directory, parts = marshal.loads(stored)
        return StdlibParts(directory_name, directory, parts)
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        cut = cut_open_stdlib(source, boot, core)
    # marshal, not pickle: these are plain str, bytes and a dict, and loading them runs nothing.
    write_verified(entry, marshal.dumps((cut.directory_name, cut.directory, dict(cut.parts))))
    return cut


_CUTTING_CODE = tuple(Path(module.__file__ or "") for module in (sys.modules[__name__], lab_stdlib, site_assets))
