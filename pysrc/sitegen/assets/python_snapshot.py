"""The memory snapshot the pages' Python starts from (docs/workers.md), shipped beside the core.

The cell runner makes it (check/cell_runner.py: its first plain start, kept
under .cache/cells/ by the runtime's fingerprint, gzip-compressed); this stage
asks for it and ships its heap less the wasm's data segments (wasm_data.py)
zstd-compressed (compressed_copy.py: 3.4 MB where the heap's own zstd is 4.5
and gzip's 6.4 MB, decoded in a fifth of xz's time), under a name of its
bytes, beside the core's zip (not in the runtime's folder, whose name would
change with every edit of the core).
"""

from __future__ import annotations

import gzip
import hashlib
from functools import lru_cache
from pathlib import Path

from sitegen.assets.compressed_copy import ZSTD, compress_kept
from sitegen.assets.site_assets import hash_name
from sitegen.assets.wasm_data import read_data_image, xor_data_image
from sitegen.check.cell_cache import read_kept_file
from sitegen.check.cell_runner import CellRunner
from sitegen.diagnostics import Location
from sitegen.files.hashes import hash_bytes, hash_file


def read_python_snapshot(runner: CellRunner, location: Location) -> bytes | None:
    """Return the gzip-compressed memory snapshot, made now by the runner if no build made it yet.

    None when there is no cache to keep it in, or no node to make it: the
    pages then start Python the plain way. `location`: where a failure to
    start the runner is reported (the first page with Python on it).
    """
    path = runner.make_snapshot(location)
    if path is None:
        return None
    try:
        status = path.lstat()
        return read_kept_file(path, status.st_size, status.st_mtime_ns, status.st_ino)  # read once: the runner checked it
    except OSError:
        return None


def compress_python_snapshot(snapshot: bytes, wasm: Path, cache: Path | None) -> bytes:
    """Return the pages' copy of a kept (gzip-compressed) snapshot: its heap less `wasm`'s data, zstd-compressed.

    Kept in `cache` by the hashes of the gzip and of the wasm.
    """
    status = wasm.stat()
    return _compress_cached(snapshot, wasm, status.st_ino, status.st_size, status.st_mtime_ns, cache)


# Remembered by the kept snapshot's bytes and the wasm's identity: the dev server plans the assets on every rebuild.
@lru_cache(maxsize=2)
def _compress_cached(snapshot: bytes, wasm: Path, _inode: int, _size: int, _mtime_ns: int, cache: Path | None) -> bytes:
    digest = hashlib.sha256(f"{hash_bytes(snapshot)} {hash_file(wasm)}".encode()).hexdigest()
    return compress_kept(ZSTD, "python-snapshot-less-data", digest, lambda: _take_data_out(snapshot, wasm), cache)


def _take_data_out(snapshot: bytes, wasm: Path) -> bytes:
    return xor_data_image(gzip.decompress(snapshot), read_data_image(wasm.read_bytes()))


def name_python_snapshot(snapshot: bytes) -> str:
    """Return the snapshot's path under dist/: lab/python-snapshot.HASH8.bin."""
    return f"lab/{hash_name('python-snapshot.bin', snapshot)}"
