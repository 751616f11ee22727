"""The cells' outputs and their cache: .cache/cells/, keyed by content, and what an output may hold.

A cell's key covers the code and options of every cell up to it on its page
(`chain_cell_keys`); the cache adds the runtime's fingerprint (the runner's:
kernel, runner, core, Pyodide), so a rebuild where no cell changed never starts
node. Beside the outputs lies the memory snapshot of Python with the core and
kernel imported (snapshot-FINGERPRINT.bin.gz), made by the runner's first plain
start (cell_runner.py) and shipped by the assets stage (assets/python_snapshot.py).

An output is read the same way from the cache and from the runner's answers
(`read_output`): only what the kernel writes gets through, so neither a damaged
entry nor a cell that changed the kernel for the rest of its page can put
anything else on a page.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import stat
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from sitegen.files.atomic import write_atomically
from sitegen.files.hashes import hash_bytes
from sitegen.files.limited_read import read_limited
from sitegen.model import Cell, CellOutput

STREAMS = ("stdout", "stderr", "result", "error")  # the kinds of segment a cell's output is made of
# What the kernel (cell_kernel.py: OUTPUT_LIMIT, TRUNCATION_NOTE, _UNSAFE) lets out, checked again here
# (test_cell_runner.py holds the two to the same values).
OUTPUT_LIMIT = 1_000_000
TRUNCATION_NOTE = f"\n[output truncated: the cell wrote more than {OUTPUT_LIMIT:,} characters; the rest is not shown]\n"
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
CACHE_ENTRY_LIMIT = 16 * 1024**2  # a cached output's file (the output is capped far below, even escaped as JSON)
SNAPSHOT_LIMIT = 64 * 1024**2  # the gzip of a heap of at most 30 MiB (SNAPSHOT_HEAP_LIMIT)
SNAPSHOT_PATTERN = "snapshot-*.bin.gz"


def chain_cell_keys(cells: Sequence[Cell]) -> list[str]:
    """Return each cell's key: a hash of its code and options and those of every cell before it on the page.

    Every page starts the same way, so that is all a cell's output can depend
    on besides the runtime (which the cache adds).
    """
    digest = hashlib.sha256()
    keys = []
    for cell in cells:
        digest.update(json.dumps([cell.code, cell.options.expect_error, cell.options.timeout]).encode())
        keys.append(digest.copy().hexdigest())
    return keys


def find_cache_entry(folder: Path, fingerprint: str, key: str) -> Path:
    """Return the file that keeps the output of the cell with this key, run by the runtime with this fingerprint."""
    return folder / (hashlib.sha256((fingerprint + key).encode()).hexdigest()[:40] + ".json")


def find_snapshot(folder: Path, fingerprint: str) -> Path:
    """Return where the memory snapshot of the runtime with this fingerprint is kept.

    Beside the outputs it made possible, named by the same fingerprint: a
    change to the runtime, the core or the kernel names another file.
    """
    return folder / SNAPSHOT_PATTERN.replace("*", fingerprint)


def record_snapshot(record: Path, fingerprint: str, snapshot: bytes) -> None:
    """Write the record of the snapshot just made: its runtime's fingerprint and its SHA-256, one line."""
    write_atomically(record, f"{fingerprint} {hashlib.sha256(snapshot).hexdigest()}\n")


def discard_unrecorded_snapshot(snapshot: Path, record: Path, fingerprint: str) -> None:
    """Remove a kept snapshot whose SHA-256 is not the one recorded for this fingerprint (made again, never shipped).

    A flipped byte in .cache/ (a damaged disk, a poisoned CI cache) would
    otherwise be restored by every cell runner and published to every reader.
    """
    try:
        status = snapshot.lstat()
    except OSError:
        return
    try:
        recorded = read_limited(record, 4096, follow_links=False).decode("ascii").split()
    except (OSError, UnicodeDecodeError):
        recorded = []  # no record, or none of ours: the snapshot is made again
    expected = recorded[1] if len(recorded) == 2 and recorded[0] == fingerprint else None
    if expected is None or hash_kept_file(snapshot, status.st_size, status.st_mtime_ns, status.st_ino) != expected:
        snapshot.unlink(missing_ok=True)


# Remembered by the file's identity: every page's runner checks the snapshot before restoring from it (6.5 MB),
# and a snapshot is only ever replaced whole (written beside, then renamed: a new inode).
@lru_cache(maxsize=4)
def hash_kept_file(path: Path, size: int, mtime_ns: int, inode: int) -> str:
    """Return the SHA-256 of a kept regular file ("" when it cannot be read)."""
    try:
        # hashes.py's SHA-256 of read_kept_file's bytes: the snapshot shipped is made from the same bytes, hashed again.
        return hash_bytes(read_kept_file(path, size, mtime_ns, inode))
    except OSError:
        return ""


# Remembered by the file's identity, as above: the build checks the snapshot, then ships it (read once, 6.5 MB), and
# the dev server asks for it on every rebuild.
@lru_cache(maxsize=2)
def read_kept_file(path: Path, _size: int, _mtime_ns: int, _inode: int) -> bytes:
    """Return a kept regular file's bytes (a FIFO, link or oversized file in its place raises OSError)."""
    return read_limited(path, SNAPSHOT_LIMIT, follow_links=False)


def remove_other_snapshots(snapshot: Path) -> None:
    """Keep only the current snapshot: each is 6.6 MB, and one made for a runtime since changed is never read again."""
    for stale in snapshot.parent.glob(SNAPSHOT_PATTERN):
        if stale != snapshot:
            stale.unlink(missing_ok=True)


def read_cached(path: Path) -> CellOutput | None:
    """Return the output kept at `path`, or None: missing, damaged, or not a file the build wrote (the page runs again)."""
    try:
        status = path.lstat()
        return read_kept_output(path, status.st_size, status.st_mtime_ns, status.st_ino)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_cached(path: Path, output: CellOutput) -> None:
    """Keep an output at `path`, atomically: the dev server and a build may share the cache."""
    discard_unusable(path, CACHE_ENTRY_LIMIT)  # a folder in its place would refuse the rename
    write_atomically(path, json.dumps(output.to_json()))


# The same for a cell's cached output (written the same way): the dev server looks up every page's cells on each rebuild.
@lru_cache(maxsize=4096)
def read_kept_output(path: Path, _size: int, _mtime_ns: int, _inode: int) -> CellOutput:
    """Return a cached output (OSError for a file that is not one the build wrote; ValueError and the like if damaged)."""
    return decode_cached(read_limited(path, CACHE_ENTRY_LIMIT, follow_links=False))


def decode_cached(data: bytes) -> CellOutput:
    """Return the output a cache entry holds; raise ValueError (or KeyError, TypeError) for anything the build never wrote.

    A damaged entry (see read_output) is run again, never published or fatal.
    """
    stored = json.loads(data.decode("utf-8"))
    return read_output(stored["output"], stored["raised"])


def read_output(segments: object, raised: object) -> CellOutput:
    """Return a cell's output from its JSON form; raise ValueError (or TypeError) unless it is what the kernel writes.

    Every segment of a known stream, holding text with nothing the kernel
    escapes (so no lone surrogate, which no page can hold), and at most
    OUTPUT_LIMIT characters besides the traceback and the truncation note.
    The runner's answers are read this way too: a cell can change the kernel
    for the rest of its own page, and what it would make the kernel write
    must still not reach the page.
    """
    if not isinstance(segments, list) or not isinstance(raised, bool):
        raise ValueError("not a cell's output")
    output = CellOutput(tuple((stream, text) for stream, text in segments), raised)
    for stream, text in output.segments:
        if stream not in STREAMS or not isinstance(text, str) or UNSAFE_CHARACTERS.search(text):
            raise ValueError(f"not a segment the kernel writes: {stream!r}")
    if sum(len(text) for stream, text in output.segments if stream != "error") > OUTPUT_LIMIT + len(TRUNCATION_NOTE):
        raise ValueError("more output than the kernel writes")
    return output


def discard_unusable(path: Path, limit: int) -> None:
    """Remove what is at a cache path when it is not a regular file of at most `limit` bytes (a link, a FIFO, a folder)."""
    try:
        status = path.lstat()
    except OSError:
        return
    if stat.S_ISREG(status.st_mode) and status.st_size <= limit:
        return
    if stat.S_ISDIR(status.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
