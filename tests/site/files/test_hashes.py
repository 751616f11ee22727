"""The SHA-256 of files taken once per process (sitegen/files/hashes.py): never the old hash of a file written since."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sitegen.files.hashes import RememberedDigests, hash_bytes, hash_file


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


def test_what_is_remembered_of_hashed_bytes_stays_within_its_size_whatever_the_count():
    """The dev server hashes new bytes for every edited page and search index: they must not pile up."""
    remembered = RememberedDigests(1000)
    pages = [f"<h1>edit {number}</h1>".encode().ljust(300, b" ") for number in range(20)]
    assert [remembered.hash(page) for page in pages] == [hashlib.sha256(page).hexdigest() for page in pages]
    assert sum(map(len, remembered.digests)) == remembered.size <= 1000
    assert list(remembered.digests) == pages[-3:]  # the most recent, as many as fit
    assert remembered.hash(b"x" * 2000) == hashlib.sha256(b"x" * 2000).hexdigest()  # larger than the room: not remembered
    assert list(remembered.digests) == pages[-3:]
    remembered.clear()
    assert (list(remembered.digests), remembered.size) == ([], 0)
