"""Pyodide's WebAssembly, shipped gzip-compressed whatever the host does (issue 40).

`pyodide.asm.wasm` is 9.6 MB and most static hosts send it as it is; gzip
makes it 3.5 MB. The build writes a gzip copy into the runtime's folder,
named by its bytes (`pyodide.asm.wasm.gz.HASH8.bin`: the `.bin` suffix keeps
hosts from labelling it `Content-Encoding: gzip`, as for the snapshot), and
the page decompresses it with DecompressionStream and compiles it once for
both workers (modules/python-worker.mjs). The plain file stays beside it for
browsers without DecompressionStream and for a compressed copy that fails.

The copy is deterministic (no file name, modification time 0, level 9), so
the folder's name changes only with Pyodide's bytes. Compressing takes
1.5–3 s, so it is kept in the tool's cache (node_modules/.cache/rollouts/runtime/,
tool_cache.py: a cold build of a book does not pay it again) by the wasm's
SHA-256, and remembered in the process while the file is unchanged.
"""

from __future__ import annotations

import gzip
import zlib
from functools import lru_cache
from pathlib import Path

from sitegen.assets.site_assets import hash_file, hash_name
from sitegen.tool_cache import read_verified, write_verified

WASM = "pyodide.asm.wasm"
COMPRESSION_LEVEL = 9


def compress_wasm(wasm: Path, cache: Path | None) -> tuple[str, bytes]:
    """Return the compressed copy's name in the runtime's folder and its bytes."""
    status = wasm.stat()
    compressed = _compress_cached(wasm, status.st_ino, status.st_size, status.st_mtime_ns, cache)
    return hash_name(f"{WASM}.gz.bin", compressed), compressed


@lru_cache(maxsize=2)
def _compress_cached(wasm: Path, _inode: int, _size: int, _mtime_ns: int, cache: Path | None) -> bytes:
    # zlib's version too: another zlib may compress the same bytes differently (and the folder's name would change).
    kept = cache / f"{WASM}.{hash_file(wasm)[:32]}.{COMPRESSION_LEVEL}.{zlib.ZLIB_VERSION}.gz" if cache is not None else None
    compressed = read_verified(kept) if kept is not None else None
    if compressed is not None:
        return compressed
    compressed = gzip.compress(wasm.read_bytes(), compresslevel=COMPRESSION_LEVEL, mtime=0)
    if kept is not None:
        write_verified(kept, compressed)
    return compressed
