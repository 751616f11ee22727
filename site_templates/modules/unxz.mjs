// xz decoding for the pages (issue 40): Pyodide's WebAssembly is shipped
// xz-compressed (sitegen/assets/compressed_copy.py), which no browser decodes
// of its own. The decoder is the npm package xz-decompress
// (xz-embedded compiled to WebAssembly, 20 KB, its module inlined), bundled by
// esbuild into the scripts that import this: it decodes as the bytes arrive,
// and a damaged stream (xz's CRC32) or a cut one errors the stream.

import { XzReadableStream } from "xz-decompress";

/** The decoded bytes of `stream`, an xz stream (a ReadableStream of Uint8Array), as a ReadableStream. */
export function unxz(stream) {
  return new XzReadableStream(stream);
}
