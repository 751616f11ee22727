"""Pyodide's WebAssembly, shipped compressed whatever the host does (issues 40 and 59).

`pyodide.asm.wasm` is 9.6 MB and most static hosts send it as it is; gzip
makes it 3.5 MB (compressed_copy.py). The build writes that one copy into the runtime's folder, named by its
bytes (`pyodide.asm.wasm.gz.HASH8.bin`: the `.bin` suffix keeps hosts from labelling it with a content
encoding), and every page fetches it and nothing else of the wasm: the browser decodes it as it arrives
(DecompressionStream), the page checks its bytes against the hash in its name, and compiles it once for both
workers (client/python/python-worker.mjs). The plain
file stays beside it for a copy that fails (a 404, cut short, bytes that do not match the name).

The copy is deterministic, so the folder's name changes only with Pyodide's
bytes. Compressing takes 10 to 50 s, so it is kept in the tool's cache by the
wasm's SHA-256, and remembered in the process while the file is unchanged.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sitegen.assets.compressed_copy import GZIP, Codec, compress_kept
from sitegen.assets.site_assets import hash_name
from sitegen.files.hashes import hash_file

WASM = "pyodide.asm.wasm"


def compress_wasm(wasm: Path, cache: Path | None, codec: Codec = GZIP) -> tuple[str, bytes]:
    """Return the copy's name in the runtime's folder (pyodide.asm.wasm.CODEC.HASH8.bin) and its bytes."""
    status = wasm.stat()
    compressed = _compress_cached(wasm, status.st_ino, status.st_size, status.st_mtime_ns, cache, codec)
    return hash_name(f"{WASM}.{codec.name}.bin", compressed), compressed


@lru_cache(maxsize=4)
def _compress_cached(wasm: Path, _inode: int, _size: int, _mtime_ns: int, cache: Path | None, codec: Codec) -> bytes:
    return compress_kept(codec, WASM, hash_file(wasm), wasm.read_bytes, cache)
