// Runs the site's Python cells for the build: Pyodide 314 under Node, from the
// very files the reader's browser loads (node_modules/pyodide, the core's zip,
// cell_kernel.py), started by the same module as the browser's workers
// (site_templates/modules/pyodide-start.mjs), so the build's output is what the
// browser computes.
//
// argv: the pyodide folder. One JSON request a line on stdin, one response line
// per request on stdout, answered strictly in order, in the protocol of
// docs/workers.md:
//   {"id", "op": "init", "args": [kernelSource, coreZipBase64, snapshotPath]}  -> result {version}  (first, once)
//       snapshotPath: where the memory snapshot of this runtime, core and kernel is kept (gzip): Python is
//       restored from it when it is there; otherwise started plainly, and the snapshot made and written there
//       ("" for neither)
//   {"id", "op": "page", "args": []}                               -> result null: a fresh start for the next page
//   {"id", "op": "run", "args": [number, code]}                    -> result {output: [[stream, text], ...], raised, line?}
// The build (sitegen/cells.py) times every request out and kills this process
// after a runaway cell or past its memory limit; nothing here needs to guard
// against one.
//
// One interpreter serves every page: Pyodide takes seconds to start under
// Node, so a page does not get an interpreter of its own as it does in the
// browser (its own worker). The kernel's CellPage gives each page the start a
// fresh worker has instead (see cell_kernel.py).

import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { gunzipSync, gzipSync } from "node:zlib";
import { KERNEL_MODULE } from "../../../site_templates/modules/cell-kernel.mjs";
import { createServer, makeSnapshot, SNAPSHOT_ENV, startPyodide, success } from "../../../site_templates/modules/pyodide-start.mjs";

const pyodideFolder = path.resolve(process.argv[2]);

// No request may leave the machine: Pyodide reaches for its CDN when asked for a package by name.
globalThis.fetch = async (input) => {
  const target = String(input?.url ?? input);
  if (target.startsWith("file:")) return (await import("node:fs/promises")).readFile(new URL(target)).then((b) => new Response(b));
  throw new Error(`the cell runner makes no network requests (asked for ${target})`);
};

// Pyodide's start under Node, with the full standard library (its default) and
// SNAPSHOT_ENV: what the browser's workers restore a snapshot with.
const OPTIONS = { env: SNAPSHOT_ENV, stdout: () => {}, stderr: () => {} };

async function start([kernelSource, coreBase64, snapshotPath]) {
  const core = new Uint8Array(Buffer.from(coreBase64, "base64"));
  const files = { [`${KERNEL_MODULE}.py`]: kernelSource };
  // A path, not a URL: under Node, Pyodide reads its files from the disk.
  const indexURL = pyodideFolder + path.sep;
  const stored = snapshotPath ? await readFile(snapshotPath).catch(() => null) : null;
  if (stored !== null) {
    // Made by an earlier build from the same runtime, core and kernel (its path says so: see cells.py).
    // A damaged one is made again below.
    const restored = await Promise.resolve()
      .then(() => startPyodide({ indexURL, options: OPTIONS, core, files, snapshot: new Uint8Array(gunzipSync(stored)) }))
      .catch(() => null);
    if (restored !== null) {
      return { kernel: restored.pyodide.pyimport(KERNEL_MODULE), page: null, version: restored.version };
    }
  }
  const { pyodide, version } = await startPyodide({ indexURL, options: { ...OPTIONS, _makeSnapshot: !!snapshotPath }, core, files });
  if (snapshotPath) {
    const snapshot = makeSnapshot(pyodide);
    // Beside, then renamed: a build and the dev server may share the cache.
    const partial = `${snapshotPath}.${process.pid}.partial`;
    await mkdir(path.dirname(snapshotPath), { recursive: true });
    await writeFile(partial, gzipSync(snapshot, { level: 9 }));
    await rename(partial, snapshotPath);
  }
  return { kernel: pyodide.pyimport(KERNEL_MODULE), page: null, version };
}

const handle = createServer({
  start,
  ops: {
    page: (interpreter) => {
      interpreter.page?.destroy();
      interpreter.page = interpreter.kernel.CellPage();
      return success(null);
    },
    run: (interpreter, [number, code]) => {
      const result = interpreter.kernel.run_collected(interpreter.page, number, code);
      // Converted in JavaScript: importing json here would make the build's interpreter differ from the browser's.
      const converted = result.toJs({ dict_converter: Object.fromEntries });
      result.destroy();
      return success(converted);
    },
  },
  send: (message) => process.stdout.write(`${JSON.stringify(message)}\n`),
  guard: (failStart) =>
    process.on("unhandledRejection", (reason) => {
      if (!failStart(reason)) {
        throw reason;
      }
    }),
});

// Requests are answered strictly in order.
let queue = Promise.resolve();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  queue = queue.then(() => handle(request));
});
lines.on("close", () => queue.then(() => process.exit(0)));
