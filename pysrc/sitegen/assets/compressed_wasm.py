"""Pyodide's WebAssembly, shipped compressed whatever the host does (issue 40).

`pyodide.asm.wasm` is 9.6 MB and most static hosts send it as it is; xz
makes it 2.7 MB, gzip 3.5 MB (compressed_copy.py). The build writes both copies into the runtime's
folder, each named by its bytes (`pyodide.asm.wasm.xz.HASH8.bin`, `pyodide.asm.wasm.gz.HASH8.bin`: the `.bin`
suffix keeps hosts from labelling them with a content encoding), and the page picks one by how fast the
snapshot arrived (xz on a slow link, where its decoding hides behind the download; gzip on a fast one, which the
browser decodes itself), decodes it as it arrives and compiles it once for both workers
(client/python/python-worker.mjs). The plain file stays beside them for copies that fail (a 404, a damaged copy: each
format's checksum).

The copies are deterministic, so the folder's name changes only with Pyodide's
bytes. Compressing takes about 5 s, so each is kept in the tool's cache by the
wasm's SHA-256, and remembered in the process while the file is unchanged.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sitegen.assets.compressed_copy import XZ, Codec, compress_kept
from sitegen.assets.site_assets import hash_name
from sitegen.files.hashes import hash_file

WASM = "pyodide.asm.wasm"


def compress_wasm(wasm: Path, cache: Path | None, codec: Codec = XZ) -> tuple[str, bytes]:
    """Return the copy's name in the runtime's folder (pyodide.asm.wasm.CODEC.HASH8.bin) and its bytes."""
    status = wasm.stat()
    compressed = _compress_cached(wasm, status.st_ino, status.st_size, status.st_mtime_ns, cache, codec)
    return hash_name(f"{WASM}.{codec.name}.bin", compressed), compressed


@lru_cache(maxsize=4)
def _compress_cached(wasm: Path, _inode: int, _size: int, _mtime_ns: int, cache: Path | None, codec: Codec) -> bytes:
    return compress_kept(codec, WASM, hash_file(wasm), wasm.read_bytes, cache)
