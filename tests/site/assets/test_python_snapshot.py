"""The pages' copy of the memory snapshot (assets/python_snapshot.py): the kept gzip's heap as zstd, deterministic, and kept."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import zstandard

from sitegen.assets.compressed_copy import ZSTD
from sitegen.assets.python_snapshot import compress_python_snapshot, name_python_snapshot
from sitegen.tool_cache import read_verified


def make_heap() -> bytes:
    """A heap-like input: words and zeros, some of it random."""
    return (bytes(range(256)) * 512 + bytes(65536) + os.urandom(4096)) * 4


def test_two_builds_ship_the_same_bytes_and_name(tmp_path: Path):
    heap = make_heap()
    kept = gzip.compress(heap, mtime=0)
    first = compress_python_snapshot(kept, tmp_path / "one")
    second = compress_python_snapshot(kept, tmp_path / "two")  # another cache: compressed again

    assert first == second
    assert zstandard.ZstdDecompressor().decompress(first) == heap
    assert (
        name_python_snapshot(first)
        == name_python_snapshot(second)
        == f"lab/python-snapshot.{hashlib.sha256(first).hexdigest()[:8]}.bin"
    )


def test_the_copy_is_kept_by_the_kept_snapshots_hash_and_a_damaged_copy_is_made_again(tmp_path: Path):
    cache = tmp_path / "cache"
    kept = gzip.compress(make_heap(), mtime=0)
    compressed = compress_python_snapshot(kept, cache)
    [entry] = cache.iterdir()
    assert entry.name == f"python-snapshot.{hashlib.sha256(kept).hexdigest()[:32]}.{ZSTD.settings}.zstd"
    assert read_verified(entry) == compressed

    stored = entry.read_bytes()
    entry.write_bytes(stored[: len(stored) // 2])
    compress_python_snapshot.cache_clear()  # the process remembers the copy by the kept bytes
    assert compress_python_snapshot(kept, cache) == compressed
    assert read_verified(entry) == compressed
