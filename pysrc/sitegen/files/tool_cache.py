"""The tool's own cache: what depends only on the installed tool, kept with the installed packages.

The minified scripts and stylesheets, the cell editor's bundle, the compiled
templates and the standard library's parts depend on the templates, the
installed npm packages (esbuild, CodeMirror, Pyodide) and this code, never on
a book's content. They live in node_modules/.cache/rollouts/ (paths.TOOL_CACHE),
the folder npm-installed tools use for such caches: `npm ci` replaces
node_modules and so empties it, and a cold build of a book, which clears the
book's own .cache/, still finds them, as a MkDocs theme's prebuilt assets are
found in its installed package.

Never stale: every entry is named by a hash of all its inputs. Never damaged:
each entry starts with the SHA-256 of the rest and is checked on every read;
an entry that fails the check (a flipped byte, a truncated copy) is made again,
never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from sitegen.files.atomic import write_atomically
from sitegen.files.hashes import hash_bytes


def read_verified(path: Path) -> bytes | None:
    """Return the bytes stored at `path` by write_verified, or None when absent or when they fail their check."""
    try:
        with path.open("rb") as stored:
            # The check's line, then the rest read whole: splitting the file's bytes after one read would copy
            # them again (the runtime's compressed copies, ≈ 12 MB).
            line = stored.readline()
            data = stored.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    # hashes.py's SHA-256, which remembers it: most entries are shipped, and their hashed names hash the same bytes.
    if not line.endswith(b"\n") or hash_bytes(data).encode() != line[:-1]:
        return None
    return data


def write_verified(path: Path, data: bytes) -> None:
    """Store `data` at `path` with its SHA-256 in front, atomically (a build and the dev server may share the cache).

    A cache that cannot be written (node_modules installed read-only, a full disk) only makes the next build slower:
    nothing is stored, and the build goes on.
    """
    with contextlib.suppress(OSError):
        write_atomically(path, hashlib.sha256(data).hexdigest().encode() + b"\n" + data)


def find_writable(folder: Path) -> Path | None:
    """Return `folder`, made if missing, when this process may write in it; else None (no cache)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None
