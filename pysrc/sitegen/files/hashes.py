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

from sitegen.session import SESSION

# The one SHA-256 of bytes the build takes (hashed names, the runtime folder's name, the offline manifest's
# revisions, the standard library's directory, the up-to-date record), remembered: the dev server hashes the same
# runtime, snapshot, parts, static files and unchanged pages on every rebuild, and finding bytes again costs a
# comparison, not a SHA-256. The bytes stay alive while remembered, so what is remembered is bounded by its size, not
# by a count: every edit makes new bytes for its page and the search index (1 MB at 96 chapters), which a count of
# 2,048 entries alone would let pile up to gigabytes over a long `serve`. Room for the runtime (≈ 30 MB) and a big
# book's pages; the least recently used go first.
REMEMBERED_BYTES = 64 * 1024 * 1024


class RememberedDigests:
    """SHA-256 digests of bytes hashed before, the least recently used forgotten first once `room` bytes are kept."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.digests: OrderedDict[bytes, str] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def hash(self, data: bytes) -> str:
        """Return the SHA-256 of the bytes, in hex, remembered if they fit."""
        with self.lock:
            digest = self.digests.get(data)
            if digest is not None:
                self.digests.move_to_end(data)
                return digest
        digest = hashlib.sha256(data).hexdigest()
        with self.lock:
            if data not in self.digests and len(data) <= self.room:
                self.digests[data] = digest
                self.size += len(data)
                while self.size > self.room:
                    forgotten, _ = self.digests.popitem(last=False)
                    self.size -= len(forgotten)
        return digest

    def clear(self) -> None:
        """Forget every digest."""
        with self.lock:
            self.digests.clear()
            self.size = 0

    def renew_lock(self) -> None:
        """Take a fresh lock: in a forked copy of the build (beside.py), another thread may have held this one at the fork."""
        self.lock = threading.Lock()


_DIGESTS = SESSION.keep("file digests", RememberedDigests(REMEMBERED_BYTES))

if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork either
    os.register_at_fork(after_in_child=_DIGESTS.renew_lock)


def hash_bytes(data: bytes) -> str:
    """Return the SHA-256 of some bytes, in hex."""
    return _DIGESTS.hash(data)


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
