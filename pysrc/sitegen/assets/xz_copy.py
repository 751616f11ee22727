"""xz copies of the largest runtime files, the same bytes every build (issue 40).

On a phone's link a start is bound by its bytes: xz (LZMA2) makes Pyodide's
WebAssembly 2.6 MB (gzip 3.5 MB) and the memory snapshot's 31 MB heap 3.9 MB
(gzip 6.4 MB). Browsers decode no xz of their own, so the pages decode it with
a small WebAssembly decoder (the npm package xz-decompress, 20 KB, bundled into
the scripts), streaming as the bytes arrive; zstd decodes faster but is 0.8 MB
larger on these two files, brotli takes a minute to compress the heap
(docs/benchmarks.md has the measurements).

The bytes depend only on the input, the settings below and liblzma's version
(Python's lzma module: no file name, no time in the container). Compressing the
heap takes about 10 s, so every copy is kept in the tool's cache
(node_modules/.cache/rollouts/runtime/, tool_cache.py) by the input's SHA-256
and the settings.
"""

from __future__ import annotations

import lzma
from collections.abc import Callable
from pathlib import Path

from sitegen.tool_cache import read_verified, write_verified

# LZMA2 at its strongest preset; the dictionary just covers the largest input (the 30 MiB heap), so the decoder
# allocates no more; lc/lp/pb tuned for the heap's 4-byte-aligned words (3.92 MB against 3.96 MB with the
# defaults), harmless on the wasm's code (2.66 MB against 2.64 MB). CRC32, the check every xz decoder knows.
XZ_FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 1 << 25, "lc": 1, "lp": 2, "pb": 2},)
XZ_SETTINGS = "lzma2-9e-d25-lc1-lp2-pb2-crc32"


def compress_xz(data: bytes) -> bytes:
    """Return `data` as an .xz stream, deterministically."""
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=list(XZ_FILTERS))


def compress_xz_kept(kind: str, digest: str, read: Callable[[], bytes], cache: Path | None) -> bytes:
    """Return compress_xz(read()), kept under `cache` as KIND.DIGEST.SETTINGS.xz (None: no cache).

    `digest`: a hash naming the input (read() is called only when nothing is kept under it).
    """
    kept = cache / f"{kind}.{digest[:32]}.{XZ_SETTINGS}.xz" if cache is not None else None
    compressed = read_verified(kept) if kept is not None else None
    if compressed is not None:
        return compressed
    compressed = compress_xz(read())
    if kept is not None:
        write_verified(kept, compressed)
    return compressed
