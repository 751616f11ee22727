"""The gzip copy of Pyodide's WebAssembly the pages compile (assets/compressed_wasm.py): deterministic, and kept."""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sitegen.assets.compressed_copy import GZIP, Codec
from sitegen.assets.compressed_wasm import compress_wasm
from sitegen.files.tool_cache import read_verified

CODECS = [pytest.param(GZIP, gzip.decompress, id="gzip")]


def write_wasm(folder: Path, data: bytes) -> Path:
    wasm = folder / "pyodide.asm.wasm"
    wasm.write_bytes(data)
    return wasm


@pytest.mark.parametrize(("codec", "decompress"), CODECS)
def test_the_copy_is_the_same_bytes_every_time_and_named_by_them(
    tmp_path: Path, codec: Codec, decompress: Callable[[bytes], bytes]
):
    data = b"\0asm" + bytes(range(256)) * 64
    first_name, first = compress_wasm(write_wasm(tmp_path, data), None, codec)
    os.utime(tmp_path / "pyodide.asm.wasm", ns=(1, 1))  # another modification time: a new key, compressed again
    second_name, second = compress_wasm(tmp_path / "pyodide.asm.wasm", None, codec)

    assert first == second
    assert decompress(first) == data
    assert first_name == second_name == f"pyodide.asm.wasm.{codec.name}.{hashlib.sha256(first).hexdigest()[:8]}.bin"


def test_the_gzip_copy_is_the_default_and_names_no_file_and_no_time(tmp_path: Path):
    name, compressed = compress_wasm(write_wasm(tmp_path, b"\0asm" + bytes(100)), None)
    flags, mtime = compressed[3], compressed[4:8]
    assert name.startswith("pyodide.asm.wasm.gz.")
    assert (flags, mtime) == (0, bytes(4))


@pytest.mark.parametrize(("codec", "decompress"), CODECS)
def test_the_copy_is_kept_by_the_wasms_hash_and_a_damaged_copy_is_made_again(
    tmp_path: Path, codec: Codec, decompress: Callable[[bytes], bytes]
):
    cache = tmp_path / "cache"
    data = b"\0asm" + os.urandom(4096)
    wasm = write_wasm(tmp_path, data)
    _name, compressed = compress_wasm(wasm, cache, codec)
    assert decompress(compressed) == data
    [kept] = cache.iterdir()
    assert kept.name == f"pyodide.asm.wasm.{hashlib.sha256(data).hexdigest()[:32]}.{codec.settings}.{codec.name}"
    assert read_verified(kept) == compressed

    stored = kept.read_bytes()
    flipped = stored[:-5] + bytes([stored[-5] ^ 1]) + stored[-4:]
    for stamp, damaged in enumerate((stored[: len(stored) // 2], flipped), start=2):
        kept.write_bytes(damaged)
        os.utime(wasm, ns=(stamp, stamp))  # the process remembers the copy while the file is unchanged
        _name, again = compress_wasm(wasm, cache, codec)
        assert again == compressed
        assert read_verified(kept) == compressed
