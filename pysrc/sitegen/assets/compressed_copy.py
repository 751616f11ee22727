"""Compressed copies of the largest runtime files, the same bytes every build (issues 40 and 59).

On a phone's link a start is bound by its bytes, on a desktop by the work of
decoding them, and no browser decodes better than gzip of its own, so the
pages carry their decoder: zstd, decoded by the npm package fzstd (plain
JavaScript, as the workers' Content-Security-Policy refuses the data: URL
zstd's WebAssembly decoders load from), for both files:

- Pyodide's 9.6 MB WebAssembly: 2.89 MB (xz 2.66, gzip 3.53). The page
  decodes it once, as it arrives, and compiles it while it streams. xz cost
  about 0.3 s of a desktop's CPU (more on a phone) and gzip 0.64 MB more on a
  phone's link; zstd is the one form every visit takes (issue 59,
  docs/benchmarks.md).
- The memory snapshot's 31 MB heap: 4.48 MB (xz 3.92, gzip 6.35), decoded
  whole in each worker that starts Python in about 0.2 s where xz took 1 s.

The bytes depend only on the input, the settings below and the library's
version (PyPI's zstandard, pinned): no file name, no time. Compressing takes
10 to 50 s, so every copy is kept in the tool's cache
(node_modules/.cache/rollouts/runtime/, tool_cache.py) by the input's SHA-256
and the settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import zstandard

from sitegen.files.tool_cache import read_verified, write_verified


@dataclass(frozen=True)
class Codec:
    """A way of compressing: `name` in the kept file's suffix, `settings` naming everything its bytes depend on."""

    name: str
    settings: str
    compress: Callable[[bytes], bytes]


# The heap: level 19 with a 32 MiB window and long-distance matching, the whole heap one window (4.48 MB against
# 4.71 MB with level 19's own 8 MiB); level 22 saves 13 KB more for twice the time. It is decoded whole, so the
# window costs nothing. The frame records its content size (the decoder allocates the heap once) and a checksum.
# The wasm: decoded as it streams, where fzstd moves its whole window along for every 128 KB block, so a 4 MiB
# window: 2.896 MB against 2.890 with 32 MiB, and 0.13 s of CPU to decode against 0.30 s (a 1 MiB window: 3.03 MB
# for 0.09 s; measured under Node, docs/benchmarks.md).
_ZSTD_LEVEL, _HEAP_WINDOW_LOG, _STREAMED_WINDOW_LOG = 19, 25, 22
_ZSTD_VERSION = ".".join(map(str, zstandard.ZSTD_VERSION))


def _compress_zstd(data: bytes, window_log: int, *, long_distance: bool) -> bytes:
    parameters = zstandard.ZstdCompressionParameters.from_level(
        _ZSTD_LEVEL,
        source_size=len(data),
        window_log=window_log,
        enable_ldm=long_distance,
        write_content_size=True,
        write_checksum=True,
    )
    return zstandard.ZstdCompressor(compression_params=parameters).compress(data)


ZSTD = Codec(
    "zstd",
    f"zstd{_ZSTD_VERSION}-{_ZSTD_LEVEL}-w{_HEAP_WINDOW_LOG}-ldm",
    partial(_compress_zstd, window_log=_HEAP_WINDOW_LOG, long_distance=True),
)
ZSTD_STREAMED = Codec(
    "zstd",
    f"zstd{_ZSTD_VERSION}-{_ZSTD_LEVEL}-w{_STREAMED_WINDOW_LOG}",
    partial(_compress_zstd, window_log=_STREAMED_WINDOW_LOG, long_distance=False),
)


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
