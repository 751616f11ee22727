"""The SHA-256 of files taken once per process (sitegen/hashes.py): never the old hash of a file written since."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sitegen.hashes import hash_bytes, hash_file


def test_a_file_rewritten_in_place_with_its_size_and_modification_time_kept_is_hashed_again(tmp_path: Path):
    runtime = tmp_path / "pyodide.asm.wasm"
    runtime.write_bytes(b"\0asm one")
    before = runtime.stat()
    assert hash_file(runtime) == hashlib.sha256(b"\0asm one").hexdigest()
    runtime.write_bytes(b"\0asm two")  # the same size
    os.utime(runtime, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same modification time
    assert hash_file(runtime) == hashlib.sha256(b"\0asm two").hexdigest()


def test_a_file_replaced_by_another_is_hashed_again(tmp_path: Path):
    runtime, replacement = tmp_path / "python_stdlib.zip", tmp_path / "new.zip"
    runtime.write_bytes(b"PK old")
    assert hash_file(runtime) == hashlib.sha256(b"PK old").hexdigest()
    replacement.write_bytes(b"PK new")
    os.replace(replacement, runtime)
    assert hash_file(runtime) == hashlib.sha256(b"PK new").hexdigest()


def test_bytes_hash_to_their_sha256():
    assert hash_bytes(b"rollouts") == hashlib.sha256(b"rollouts").hexdigest()
