"""The pages' copy of the memory snapshot (assets/python_snapshot.py): the kept gzip's heap less the wasm's data, as
zstd, deterministic, and kept."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import zstandard
from test_wasm_data import active, heap_with, make_wasm

from sitegen.assets import python_snapshot
from sitegen.assets.compressed_copy import ZSTD
from sitegen.assets.python_snapshot import compress_python_snapshot, name_python_snapshot
from sitegen.assets.wasm_data import read_data_image, xor_data_image
from sitegen.files.tool_cache import read_verified


def make_heap() -> bytes:
    """A heap-like input: Pyodide's header, then words and zeros, some of it random."""
    return heap_with(144, (bytes(range(256)) * 512 + bytes(65536) + os.urandom(4096)) * 4)


def write_wasm(path: Path, data: bytes) -> Path:
    path.write_bytes(make_wasm(active(1024, data)))
    return path


def test_two_builds_ship_the_same_bytes_and_name(tmp_path: Path):
    heap = make_heap()
    kept = gzip.compress(heap, mtime=0)
    wasm = write_wasm(tmp_path / "pyodide.asm.wasm", bytes(range(256)) * 8)
    first = compress_python_snapshot(kept, wasm, tmp_path / "one")
    second = compress_python_snapshot(kept, wasm, tmp_path / "two")  # another cache: compressed again

    assert first == second
    assert xor_data_image(zstandard.ZstdDecompressor().decompress(first), read_data_image(wasm.read_bytes())) == heap
    assert (
        name_python_snapshot(first)
        == name_python_snapshot(second)
        == f"lab/python-snapshot.{hashlib.sha256(first).hexdigest()[:8]}.bin"
    )


def test_the_wasms_data_is_taken_out_of_the_heap(tmp_path: Path):
    heap = make_heap()
    wasm = write_wasm(tmp_path / "pyodide.asm.wasm", heap[144 + 1024 : 144 + 3072])  # data the heap still holds

    shipped = zstandard.ZstdDecompressor().decompress(compress_python_snapshot(gzip.compress(heap, mtime=0), wasm, None))

    assert shipped[144 + 1024 : 144 + 3072] == bytes(2048)
    assert shipped[: 144 + 1024] == heap[: 144 + 1024]
    assert shipped[144 + 3072 :] == heap[144 + 3072 :]


def test_the_copy_is_kept_by_the_snapshots_and_the_wasms_hash_and_a_damaged_copy_is_made_again(tmp_path: Path):
    cache = tmp_path / "cache"
    kept = gzip.compress(make_heap(), mtime=0)
    wasm = write_wasm(tmp_path / "pyodide.asm.wasm", b"\x01\x02\x03")
    compressed = compress_python_snapshot(kept, wasm, cache)
    [entry] = cache.iterdir()
    digest = hashlib.sha256(f"{hashlib.sha256(kept).hexdigest()} {hashlib.sha256(wasm.read_bytes()).hexdigest()}".encode())
    assert entry.name == f"python-snapshot-less-data.{digest.hexdigest()[:32]}.{ZSTD.settings}.zstd"
    assert read_verified(entry) == compressed

    stored = entry.read_bytes()
    entry.write_bytes(stored[: len(stored) // 2])
    python_snapshot._compress_cached.cache_clear()  # the process remembers the copy by the kept bytes and the wasm
    assert compress_python_snapshot(kept, wasm, cache) == compressed
    assert read_verified(entry) == compressed

    other = write_wasm(tmp_path / "other.wasm", b"\x04\x05\x06")
    assert compress_python_snapshot(kept, other, cache) != compressed
    assert len(list(cache.iterdir())) == 2
