// A start's downloads: each runtime file fetched (a 404 is an error), counted for the progress bar, and handed to
// the offline keep where it will keep them.

import { handOver } from "./runtime-handoff.mjs";

/**
 * Return `count(response)`: the response, its bytes counted as they are read, calling `progress(received, total)`.
 * total is the sum of the sizes the counted responses announce. A start passes every response it fetches through it
 * (the lock file, the stdlib's directory, the core, the files, the snapshot, and the wasm when Pyodide fetches it).
 */
export function countDownloads(progress) {
  let received = 0;
  let total = 0;
  return (response) => {
    const size = Number(response.headers.get("content-length"));
    if (!response.ok || response.body === null || !Number.isFinite(size) || size <= 0) {
      return response;
    }
    total += size;
    progress(received, total);
    const counter = new TransformStream({
      transform(chunk, controller) {
        received += chunk.byteLength;
        progress(Math.min(received, total), total);
        controller.enqueue(chunk);
      },
    });
    // Headers kept: WebAssembly.instantiateStreaming reads the content type.
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Fetch a runtime file's bytes. fetch resolves on a 404; unpacking an error page would fail later with a far less
 * helpful message. With `handed` (a list), a copy is handed to the offline keep (runtime-handoff.mjs) and the
 * promise of that is added to it; `count`: the start's download counter (countDownloads), or none.
 */
export async function fetchBytes(url, handed = null, count = (response) => response) {
  return (await fetchResponse(url, handed, count)).arrayBuffer();
}

/** fetchBytes' response, its body unread (a 404 throws; `handed`: as for fetchBytes). */
export async function fetchResponse(url, handed = null, count = (response) => response) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  handed?.push(handOver(url, response.clone()));
  return count(response);
}

/**
 * Fail when the host labels Pyodide's WebAssembly with another type, the
 * commonest hosting mistake: Pyodide would wait forever (only a console
 * warning). Asking for the headers alone names the problem at once.
 */
export async function checkWasmType(pyodideUrl) {
  const response = await fetch(`${pyodideUrl}pyodide.asm.wasm`, { method: "HEAD" });
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (response.ok && type !== "application/wasm") {
    throw new Error(`pyodide.asm.wasm is served as "${type}", not "application/wasm"`);
  }
}

/**
 * Throw unless the SHA-256 of `bytes` begins with the eight hex digits `url` is named by (NAME.HASH8.bin, as the
 * build names the snapshot's and the wasm's copies): "`what` bytes do not match its name (actual, not expected)".
 */
export async function checkNamedBytes(url, bytes, what) {
  const expected = /\.([0-9a-f]{8})\.bin$/.exec(new URL(url, "file:///").pathname)?.[1];
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const actual = Array.from(digest.slice(0, 4), (byte) => byte.toString(16).padStart(2, "0")).join("");
  if (actual !== expected) {
    throw new Error(`${what} bytes do not match its name (${actual}, not ${expected})`);
  }
}
