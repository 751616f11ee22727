"""Read a file only when it is a regular file no larger than a limit: the one way the build reads what it does not own.

`Path.read_bytes()` on the wrong file never returns: a FIFO blocks until a
writer comes, `/dev/zero` fills the memory, a 4 GB file at the project root
raises MemoryError. Here the file is opened without waiting (O_NONBLOCK), its
kind and size come from the open descriptor (so a file swapped in after a
check is caught too), and at most `limit + 1` bytes are ever read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotARegularFile(OSError):
    """The path is a FIFO, a device, a socket or a folder; `kind` says which, in words."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path}: {kind}, not a regular file")
        self.kind = kind


class FileTooLarge(OSError):
    """The file holds more than the limit; `size` is what it holds (at least limit + 1)."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(f"{path}: {size} bytes, more than {limit}")
        self.size = size
        self.limit = limit


def describe_file_kind(mode: int) -> str:
    """Return what a file of this mode is, in words ("" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    return "a device or socket"


def read_limited(path: Path, limit: int, follow_links: bool = True) -> bytes:
    """Return the bytes of the regular file at path, or raise NotARegularFile, FileTooLarge or another OSError.

    With `follow_links=False` a symbolic link itself is refused (ELOOP, an OSError).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    with os.fdopen(os.open(path, flags), "rb") as file:
        status = os.fstat(file.fileno())
        kind = describe_file_kind(status.st_mode)
        if kind:
            raise NotARegularFile(path, kind)
        if status.st_size > limit:
            raise FileTooLarge(path, status.st_size, limit)
        data = file.read(limit + 1)
    if len(data) > limit:  # it grew after the fstat
        raise FileTooLarge(path, len(data), limit)
    return data
