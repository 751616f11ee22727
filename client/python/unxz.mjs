// xz decoding for the pages (issue 40): Pyodide's WebAssembly is shipped
// xz-compressed (sitegen/assets/compressed_copy.py), which no browser decodes
// of its own. The decoder is the npm package xz-decompress
// (xz-embedded compiled to WebAssembly, 20 KB, its module inlined), bundled by
// esbuild into the scripts that import this: it decodes as the bytes arrive,
// and a damaged stream (xz's CRC32) or a cut one errors the stream.
//
// It decodes whatever input it is given in one go: where the link is fast the
// page receives the 2.7 MB copy in a few large chunks, and decoding one held
// the page's thread for 270-300 ms on a desktop (a long task, measured; a
// phone's CPU takes several times that), while the reader may be scrolling.
// So the input is fed to it in slices, with a task boundary between them:
// the decoding takes as long (paired cold starts: no change in the lab's live
// time) in tasks of a few milliseconds. On a slow link the chunks are smaller
// than a slice anyway.

import { XzReadableStream } from "xz-decompress";

/** The decoded bytes of `stream`, an xz stream (a ReadableStream of Uint8Array), as a ReadableStream. */
export function unxz(stream) {
  return new XzReadableStream(stream.pipeThrough(sliceInput()));
}

// xz input decoded in one task: about 0.23 MB of output, a few ms on a desktop.
const SLICE = 64 * 1024;

/** A stream that passes its chunks on in SLICE-byte pieces, waiting for a new task before each piece after the first. */
function sliceInput() {
  return new TransformStream({
    async transform(chunk, controller) {
      for (let start = 0; start < chunk.length; start += SLICE) {
        if (start > 0) {
          await nextTask();
        }
        controller.enqueue(chunk.subarray(start, start + SLICE));
      }
    },
  });
}

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
