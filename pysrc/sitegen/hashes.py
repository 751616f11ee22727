"""The SHA-256 of bytes and of files, each taken once per process while its input stays the same.

A cold build hashes the same large files for several purposes: the runtime
(≈ 14 MB) names its folder under dist/, keys the compressed wasm's copy and
fingerprints the cell runner, twice (the cells' runner and the snapshot's);
the up-to-date record hashes every file the build wrote, the runtime's copies
among them. Taken here, each is hashed once: ≈ 50 MB less of a cold
6-chapter build's ≈ 100 MB, ≈ 50 ms of CPU.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path


# The one SHA-256 of bytes the build takes (hashed names, the runtime folder's name, the offline manifest's
# revisions, the standard library's directory, the up-to-date record), remembered: the dev server hashes the same
# runtime, snapshot, parts, static files and unchanged pages on every rebuild, and bytes objects keep their own hash,
# so finding one again costs nothing when it is the same object. Room for a 96-chapter book's files.
@lru_cache(maxsize=2048)
def hash_bytes(data: bytes) -> str:
    """Return the SHA-256 of some bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def hash_file(path: Path) -> str:
    """Return the SHA-256 of a (large) file, in hex, remembered while it is the same file, unwritten since.

    The memory is the process's, never kept on disk: a new build hashes every
    file again. Within a process (the dev server), writing a file changes its
    change time (ctime), which no program can set back, and replacing it
    changes its inode.
    """
    status = path.stat()
    return _hash_file(path, status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


@lru_cache(maxsize=64)
def _hash_file(path: Path, _size: int, _mtime_ns: int, _ctime_ns: int, _inode: int) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()
