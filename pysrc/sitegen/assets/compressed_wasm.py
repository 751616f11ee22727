"""Pyodide's WebAssembly, shipped xz-compressed whatever the host does (issue 40).

`pyodide.asm.wasm` is 9.6 MB and most static hosts send it as it is; xz
makes it 2.7 MB (compressed_copy.py). The build writes the copy into the runtime's
folder, named by its bytes (`pyodide.asm.wasm.xz.HASH8.bin`: the `.bin` suffix
keeps hosts from labelling it with a content encoding), and the page decodes
it as it arrives and compiles it once for both workers
(modules/python-worker.mjs). The plain file stays beside it for a compressed
copy that fails (a 404, a damaged copy: xz's checksum).

The copy is deterministic, so the folder's name changes only with Pyodide's
bytes. Compressing takes about 5 s, so it is kept in the tool's cache by the
wasm's SHA-256, and remembered in the process while the file is unchanged.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sitegen.assets.compressed_copy import XZ, compress_kept
from sitegen.assets.site_assets import hash_name
from sitegen.hashes import hash_file

WASM = "pyodide.asm.wasm"


def compress_wasm(wasm: Path, cache: Path | None) -> tuple[str, bytes]:
    """Return the compressed copy's name in the runtime's folder and its bytes."""
    status = wasm.stat()
    compressed = _compress_cached(wasm, status.st_ino, status.st_size, status.st_mtime_ns, cache)
    return hash_name(f"{WASM}.xz.bin", compressed), compressed


@lru_cache(maxsize=2)
def _compress_cached(wasm: Path, _inode: int, _size: int, _mtime_ns: int, cache: Path | None) -> bytes:
    return compress_kept(XZ, WASM, hash_file(wasm), wasm.read_bytes, cache)
