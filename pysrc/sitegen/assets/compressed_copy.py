"""Compressed copies of the largest runtime files, the same bytes every build (issue 40).

On a phone's link a start is bound by its bytes, on a desktop by the work of
decoding them, and no browser decodes better than gzip of its own, so the
pages carry their decoders (docs/benchmarks.md has the measurements):

- Pyodide's WebAssembly as **xz** (LZMA2): 2.66 MB (gzip 3.54). The page
  decodes it once, as it arrives (the npm package xz-decompress, 20 KB of
  WebAssembly), and compiles it while it streams; about 0.3 s of work on a
  desktop, hidden behind a phone's download.
- The same WebAssembly as **gzip** too, for a fast link, where those 0.3 s
  would be on the start's path and 0.9 MB more costs less than 0.15 s: the
  browser decodes it itself (DecompressionStream), as fast as it arrives.
- The memory snapshot's 31 MB heap as **zstd**: 4.48 MB (xz 3.92, gzip 6.35),
  decoded whole in each worker that starts Python (the npm package fzstd,
  plain JavaScript, as the workers' Content-Security-Policy refuses the data:
  URL zstd's WebAssembly decoders load from) in about 0.2 s where xz took 1 s,
  twice a visit (the lab's and the cells' workers each restore it).

The bytes depend only on the input, the settings below and the library's
version (Python's lzma module; PyPI's zstandard, pinned): no file name, no
time. Compressing the heap takes about 10 s, so every copy is kept in the
tool's cache (node_modules/.cache/rollouts/runtime/, tool_cache.py) by the
input's SHA-256 and the settings.
"""

from __future__ import annotations

import gzip
import lzma
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import zstandard

from sitegen.files.tool_cache import read_verified, write_verified


@dataclass(frozen=True)
class Codec:
    """A way of compressing: `name` in the kept file's suffix, `settings` naming everything its bytes depend on."""

    name: str
    settings: str
    compress: Callable[[bytes], bytes]


# LZMA2 at its strongest preset; the dictionary just covers the largest input (the 30 MiB heap), so the decoder
# allocates no more; lc/lp/pb tuned for 4-byte-aligned words (2.66 MB against 2.64 MB with the defaults on the
# wasm's code, 3.92 against 3.96 on the heap). CRC32, the check every xz decoder knows.
_XZ_FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 1 << 25, "lc": 1, "lp": 2, "pb": 2},)


def _compress_xz(data: bytes) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=list(_XZ_FILTERS))


XZ = Codec("xz", "lzma2-9e-d25-lc1-lp2-pb2-crc32", _compress_xz)

# The wasm's copy for fast links (compressed_wasm.py): gzip, which the browser decodes itself (DecompressionStream).
# No time and no name in its header, so the bytes depend only on the input, the level and zlib's version.
_GZIP_LEVEL = 9


def _compress_gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)


GZIP = Codec("gz", f"gzip{_GZIP_LEVEL}-zlib{zlib.ZLIB_RUNTIME_VERSION}", _compress_gzip)

# Level 19 with a 32 MiB window and long-distance matching: the whole heap is one window (4.48 MB against 4.71 MB
# with level 19's own 8 MiB); level 22 saves 13 KB more for twice the time. The frame records its content size (the
# decoder allocates the heap once) and a checksum.
_ZSTD_LEVEL, _ZSTD_WINDOW_LOG = 19, 25


def _compress_zstd(data: bytes) -> bytes:
    parameters = zstandard.ZstdCompressionParameters.from_level(
        _ZSTD_LEVEL,
        source_size=len(data),
        window_log=_ZSTD_WINDOW_LOG,
        enable_ldm=True,
        write_content_size=True,
        write_checksum=True,
    )
    return zstandard.ZstdCompressor(compression_params=parameters).compress(data)


ZSTD = Codec("zstd", f"zstd{'.'.join(map(str, zstandard.ZSTD_VERSION))}-{_ZSTD_LEVEL}-w{_ZSTD_WINDOW_LOG}-ldm", _compress_zstd)


def compress_kept(codec: Codec, kind: str, digest: str, read: Callable[[], bytes], cache: Path | None) -> bytes:
    """Return codec.compress(read()), kept under `cache` as KIND.DIGEST.SETTINGS.NAME (None: no cache).

    `digest`: a hash naming the input (read() is called only when nothing is kept under it).
    """
    kept = cache / f"{kind}.{digest[:32]}.{codec.settings}.{codec.name}" if cache is not None else None
    compressed = read_verified(kept) if kept is not None else None
    if compressed is not None:
        return compressed
    compressed = codec.compress(read())
    if kept is not None:
        write_verified(kept, compressed)
    return compressed
