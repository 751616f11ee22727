// zstd decoding of Pyodide's WebAssembly as it arrives (issue 59): the wasm is
// shipped zstd-compressed (sitegen/assets/compressed_wasm.py), which no browser
// decodes of its own. The decoder is the npm package fzstd (plain JavaScript:
// the pages' and workers' Content-Security-Policy refuses the data: URL zstd's
// WebAssembly decoders load from), bundled by esbuild into the scripts that
// import this; the snapshot's heap is decoded by the same package, whole, in
// the workers (pyodide-start.mjs).
//
// The decoder decodes whatever input it is given in one go: where the link is
// fast the page receives the 2.9 MB copy in a few large chunks, and decoding
// them at once would hold the page's thread (a long task) while the reader may
// be scrolling. So the input is fed to it in slices, with a task boundary
// between them. A cut stream errors the stream; fzstd does not check the
// frame's checksum, so the caller checks the copy's bytes against its name.

import { Decompress } from "fzstd";

/** The decoded bytes of `stream`, one zstd frame (a ReadableStream of Uint8Array), as a ReadableStream. */
export function unzstd(stream) {
  /** @type {TransformStreamDefaultController<Uint8Array> | null} */
  let output = null;
  const decoder = new Decompress((chunk) => {
    if (chunk.length > 0) {
      output?.enqueue(chunk);
    }
  });
  return stream.pipeThrough(
    new TransformStream({
      async transform(chunk, controller) {
        output = controller;
        for (let start = 0; start < chunk.length; start += SLICE) {
          if (start > 0) {
            await nextTask();
          }
          decoder.push(chunk.subarray(start, start + SLICE), false);
        }
      },
      flush(controller) {
        output = controller;
        decoder.push(new Uint8Array(0), true); // throws on a stream cut inside a block
      },
    }),
  );
}

// Input decoded in one task: 64 KB of zstd, about 0.2 MB of output, a few ms on a desktop.
const SLICE = 64 * 1024;

/** Resolve in a new task (not a microtask, which would not let the page in), without setTimeout's clamping. */
function nextTask() {
  if (typeof globalThis.scheduler?.yield === "function") {
    return globalThis.scheduler.yield();
  }
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
