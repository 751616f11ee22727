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
import os
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

# The one SHA-256 of bytes the build takes (hashed names, the runtime folder's name, the offline manifest's
# revisions, the standard library's directory, the up-to-date record), remembered: the dev server hashes the same
# runtime, snapshot, parts, static files and unchanged pages on every rebuild, and finding bytes again costs a
# comparison, not a SHA-256. The bytes stay alive while remembered, so what is remembered is bounded by its size, not
# by a count: every edit makes new bytes for its page and the search index (1 MB at 96 chapters), which a count of
# 2,048 entries alone would let pile up to gigabytes over a long `serve`. Room for the runtime (≈ 30 MB) and a big
# book's pages; the least recently used go first.
REMEMBERED_BYTES = 64 * 1024 * 1024
_remembered: OrderedDict[bytes, str] = OrderedDict()
_remembered_size = 0
_remembering = threading.Lock()


def _forget_lock_in_child() -> None:
    """A forked copy of the build (beside.py) starts with a fresh lock: another thread may hold this one at the fork."""
    global _remembering
    _remembering = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork either
    os.register_at_fork(after_in_child=_forget_lock_in_child)


def hash_bytes(data: bytes) -> str:
    """Return the SHA-256 of some bytes, in hex."""
    global _remembered_size
    with _remembering:
        digest = _remembered.get(data)
        if digest is not None:
            _remembered.move_to_end(data)
            return digest
    digest = hashlib.sha256(data).hexdigest()
    with _remembering:
        if data not in _remembered and len(data) <= REMEMBERED_BYTES:
            _remembered[data] = digest
            _remembered_size += len(data)
            while _remembered_size > REMEMBERED_BYTES:
                forgotten, _ = _remembered.popitem(last=False)
                _remembered_size -= len(forgotten)
    return digest


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
