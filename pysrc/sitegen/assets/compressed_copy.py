"""Compressed copies of the largest runtime files, the same bytes every build (issues 40 and 59).

On a phone's link a start is bound by its bytes, on a desktop by the work of
decoding them, and no browser decodes better than gzip of its own:

- Pyodide's 9.6 MB WebAssembly as gzip: 3.53 MB (zstd 2.90, xz 2.66). The
  browser decodes it itself (DecompressionStream) as it arrives, and the page
  compiles it while it streams: the one form every visit takes (issue 59).
  Decoding zstd in the page (the npm package fzstd, JavaScript) made a
  desktop's start 1.2x slower for 0.6 MB less; on a phone's link gzip's
  start takes 1.07x zstd's (the trade, docs/benchmarks.md).
- The memory snapshot's 31 MB heap as zstd: 4.48 MB (xz 3.92, gzip 6.35),
  decoded whole in each worker that starts Python by zstd's WebAssembly
  (npm @bokuweb/zstd-wasm, its module a file of the site: runtime.py), fzstd
  (plain JavaScript) the fallback, in 0.1-0.2 s where xz took 1 s.

The bytes depend only on the input, the settings below and the libraries'
versions (zlib's; PyPI's zstandard, pinned): no file name, no time. Compressing takes
10 to 50 s, so every copy is kept in the tool's cache
(node_modules/.cache/rollouts/runtime/, tool_cache.py) by the input's SHA-256
and the settings.
"""

from __future__ import annotations

import gzip
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


# The wasm's one form (compressed_wasm.py): gzip, which the browser decodes itself. No time and no name in its
# header, so the bytes depend only on the input, the level and zlib's version.
_GZIP_LEVEL = 9


def _compress_gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)


GZIP = Codec("gz", f"gzip{_GZIP_LEVEL}-zlib{zlib.ZLIB_RUNTIME_VERSION}", _compress_gzip)

# The heap: level 19 with a 32 MiB window and long-distance matching, the whole heap one window (4.48 MB against
# 4.71 MB with level 19's own 8 MiB); level 22 saves 13 KB more for twice the time. It is decoded whole, so the
# window costs nothing. The frame records its content size (the decoder allocates the heap once) and a checksum.
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
