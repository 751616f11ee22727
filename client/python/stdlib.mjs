// Python's standard library from the build's parts (sitegen/assets/stdlib_parts.py): installed by Pyodide's fsInit
// hook, each part fetched when Python first reads a file of it.

import { inflateRaw } from "./inflate.mjs";

/**
 * Pyodide fetches one file as its standard library (`stdLibURL`) and writes it to /lib/pythonXY.zip before the
 * fsInit hook runs. With the build's parts there is no such file: Pyodide is given this placeholder, which
 * answerLocally answers with nothing (it never reaches the network), and assembleStdlib puts the parts'
 * directory in its place.
 */
export const STDLIB_PLACEHOLDER = "rollouts-stdlib://assembled-by-fsinit";

/** Emscripten's errno for an I/O error: what Python sees (OSError, errno.EIO) when a part cannot be fetched. */
const EIO = 29;

/**
 * Return Pyodide's fsInit hook installing the standard library from its parts (sitegen/assets/stdlib_parts.py):
 * /lib/pythonXY.zip, the path on sys.path where Python looks for it, becomes a folder holding every file of the
 * `directory` (bytes, or a promise of them) at its size, with no contents yet. The first read of any file of a part
 * fetches the whole part with `readPart(name)`, synchronously (a worker's synchronous request in the page, a read
 * of memory under Node: Python is waiting in the middle of an import), and fills all its files. A part that cannot
 * be had is an I/O error for Python (OSError, errno EIO, on that import) and is asked for again on the next read;
 * `report(error)` is told, with an error naming the part (a start that fails for want of it says so).
 * The folder looks the same wherever it is made: the build's snapshot is made with it, and pages restore into it.
 * @param {(failure: Error) => void} [report]
 */
export function assembleStdlib(directory, readPart, report = () => {}) {
  return async (FS) => {
    const listing = JSON.parse(new TextDecoder().decode(await directory));
    const root = await findStdlibZip(FS);
    if (root === undefined) {
      throw new Error("the standard library could not be installed: Pyodide made no /lib/pythonXY.zip");
    }
    const folder = `/lib/${root}`;
    FS.unlink(folder);
    FS.mkdir(folder);
    const folders = new Set([folder]);
    for (const part of listing.parts) {
      const waiting = [];
      const fill = () => {
        let bytes;
        try {
          bytes = readPart(part.name);
          if (bytes.length !== part.size) throw new Error(`${part.name} has ${bytes.length} bytes, not ${part.size}`);
          for (const [node, offset, compressed, size, method] of waiting) {
            // A file written since (its contents no longer this getter) keeps what was written.
            if (Object.getOwnPropertyDescriptor(node, "contents")?.get !== undefined) {
              const data = bytes.subarray(offset, offset + compressed);
              node.contents = method === 8 ? inflateRaw(data, size) : data.slice();
            }
          }
        } catch (error) {
          const failure = new Error(`the standard library's ${part.name} is damaged or missing (${error?.message ?? error})`);
          console.warn(failure.message);
          report(failure);
          throw new FS.ErrnoError(EIO);
        }
        waiting.length = 0;
      };
      for (const [name, offset, compressed, size, method] of part.files) {
        const path = `${folder}/${name}`;
        const parent = path.slice(0, path.lastIndexOf("/"));
        if (!folders.has(parent)) {
          FS.mkdirTree(parent);
          folders.add(parent);
        }
        const node = FS.create(path, 0o644);
        // What stat reports before the part arrives (MEMFS reads a file's size from usedBytes).
        node.usedBytes = size;
        Object.defineProperty(node, "contents", {
          configurable: true,
          enumerable: true,
          get() {
            fill();
            return this.contents;
          },
          set(value) {
            Object.defineProperty(this, "contents", { value, writable: true, configurable: true, enumerable: true });
          },
        });
        waiting.push([node, offset, compressed, size, method]);
      }
    }
  };
}

/**
 * The name of /lib/pythonXY.zip once Pyodide has written it, or undefined. Pyodide writes it in a hook of its own
 * that runs beside fsInit, once its fetch of the (placeholder) standard library has been read: a start from a module
 * the page compiled gets here sooner than that, so the hook waits a few turns of the event loop for it.
 */
async function findStdlibZip(FS) {
  const find = () => FS.readdir("/lib").find((name) => /^python\d+\.zip$/.test(name));
  for (let turn = 0; turn < 500 && find() === undefined; turn++) {
    await new Promise((resolve) => setTimeout(resolve, turn < 10 ? 0 : 10));
  }
  return find();
}

/**
 * A part of the standard library, fetched while Python waits in an import: a synchronous request, which a worker
 * may make (the page's main thread may not, and never runs Python). Throws on anything but a 200.
 */
export function readPartSync(url) {
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  if (request.status !== 200) {
    throw new Error(`could not fetch ${url} (HTTP ${request.status})`);
  }
  return new Uint8Array(request.response);
}
