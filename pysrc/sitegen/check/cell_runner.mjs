// Runs the site's Python cells for the build: Pyodide 314 under Node, from the
// very files the reader's browser loads (node_modules/pyodide, the core's zip,
// cell_kernel.py), started by the same module as the browser's workers
// (client/python/pyodide-start.mjs), so the build's output is what the
// browser computes.
//
// argv: the pyodide folder. One JSON request a line on stdin, one response line
// per request on stdout, answered strictly in order, in the protocol of
// docs/workers.md:
//   {"id", "op": "init", "args": [kernelSource, coreZipBase64, snapshotPath, stdlibDirectory, stdlibParts]}
//                                                                  -> result {version, snapshot?}  (first, once)
//       stdlibDirectory, stdlibParts: the standard library as the pages get it (sitegen/assets/stdlib_parts.py):
//       the directory's JSON text and {part name: base64}, so the snapshot is made with the pages' layout
//       snapshotPath: where the memory snapshot of this runtime, core and kernel is kept (gzip): Python is
//       restored from it when it is there; otherwise started plainly, and the snapshot made and returned
//       (base64 of the gzip) for the build to write there ("" for neither)
//   {"id", "op": "page", "args": []}                               -> result null: a fresh start for the next page
//   {"id", "op": "run", "args": [number, code]}                    -> result {output: [[stream, text], ...], raised, line?, stopped?}
//       stopped: Pyodide failed for good while the cell ran (a fatal error: what the sandbox refuses, a child
//       process or JavaScript code through ctypes, with refused: true; a WebAssembly trap, a stack overflow,
//       os._exit): the message says what, and no request after it is answered
// The build (sitegen/check/cell_runner.py) times every request out and kills this process
// after a runaway cell or past its memory limit; nothing here needs to guard
// against one.
//
// The sandbox: cells.py starts this process under Node's permission model
// (it may read its own files, Pyodide's and the snapshot, and write nothing;
// no child process, no worker) and with code from strings disallowed; the
// cell's Python sees no JavaScript (client/python/cell-sandbox.mjs).

import nodeCrypto from "node:crypto";
import { constants } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { gunzipSync, gzipSync } from "node:zlib";
import "../../../node_modules/ses/dist/lockdown.mjs";
import { KERNEL_MODULE } from "../../../client/python/cell-kernel.mjs";
import {
  CELL_GLOBALS,
  describeFatal,
  LOCKDOWN_OPTIONS,
  runWatched,
  sealPython,
  watchFatalErrors,
} from "../../../client/python/cell-sandbox.mjs";
import { importSnapshotModules, makeSnapshot, SNAPSHOT_ENV, startPyodide } from "../../../client/python/pyodide-start.mjs";
import { createServer, success } from "../../../client/python/worker-protocol.mjs";

const pyodideFolder = path.resolve(process.argv[2]);
// The clock while the snapshot is made: 2000-01-01, a time no file a restored Python writes will carry.
const FIXED_EPOCH_MS = 946_684_800_000;

// No request may leave the machine: Pyodide reaches for its CDN when asked for a package by name.
globalThis.fetch = async (input) => {
  const target = String(input?.url ?? input);
  if (target.startsWith("file:")) return (await import("node:fs/promises")).readFile(new URL(target)).then((b) => new Response(b));
  throw new Error(`the cell runner makes no network requests (asked for ${target})`);
};

// Emscripten's Node file system asks for the open flags' values through
// process.binding, which the permission model refuses outright; node:fs has them.
const binding = process.binding;
process.binding = (name) => (name === "constants" ? { fs: constants } : binding.call(process, name));

// Pyodide's start under Node, with the standard library's parts (as the pages get it),
// SNAPSHOT_ENV (what the browser's workers restore a snapshot with) and no
// JavaScript globals for Python. Python's executable is the browser's ("./this.program"): under Node, Emscripten
// would take this script's absolute path (process.argv[1]) for sys.executable and sys.orig_argv, so the snapshot
// would differ with the checkout's folder, and a cell printing sys.executable would show the build machine's path.
const OPTIONS = { env: SNAPSHOT_ENV, jsglobals: CELL_GLOBALS, stdout: () => {}, stderr: () => {}, _sysExecutable: "./this.program" };

async function start([kernelSource, coreBase64, snapshotPath, stdlibDirectory, stdlibParts]) {
  const core = new Uint8Array(Buffer.from(coreBase64, "base64"));
  const files = { [`${KERNEL_MODULE}.py`]: kernelSource };
  const stdlib = {
    directory: new TextEncoder().encode(stdlibDirectory),
    readPart: (name) => {
      if (!Object.hasOwn(stdlibParts, name)) throw new Error(`no part ${name}`);
      return new Uint8Array(Buffer.from(stdlibParts[name], "base64"));
    },
  };
  // A path, not a URL: under Node, Pyodide reads its files from the disk.
  const indexURL = pyodideFolder + path.sep;
  const stored = snapshotPath ? await readFile(snapshotPath).catch(() => null) : null;
  if (stored !== null) {
    // Made by an earlier build from the same runtime, core and kernel (its path says so: see cells.py).
    // A damaged one is made again below.
    const restored = await Promise.resolve()
      .then(() => startPyodide({ indexURL, options: OPTIONS, core, files, stdlib, snapshot: new Uint8Array(gunzipSync(stored)) }))
      .catch(() => null);
    if (restored !== null) {
      return sealed(restored.pyodide, restored.version, {});
    }
  }
  const start = () => startPyodide({ indexURL, options: { ...OPTIONS, _makeSnapshot: !!snapshotPath }, core, files, stdlib });
  if (!snapshotPath) {
    const { pyodide, version } = await start();
    return sealed(pyodide, version, {});
  }
  // This process may write nothing: the build writes the snapshot it returns.
  const { pyodide, version, snapshot } = await withFixedClockAndEntropy(async () => {
    const started = await start();
    return { ...started, snapshot: gzipSync(makeSnapshot(started.pyodide), { level: 9 }).toString("base64") };
  });
  return sealed(pyodide, version, { snapshot });
}

/**
 * Run `make` (Python's start and its snapshot) with clocks and entropy that are the same on every run, so two builds
 * of the same inputs make the same snapshot, byte for byte: the heap otherwise holds random's Mersenne Twister
 * states (seeded from the OS) and the file system's times (Date.now, read back by os.stat into importlib's
 * caches). Every page reseeds random after a restore (pyodide-start.mjs); the times are those of files the restore
 * writes again. The real clocks and entropy are back before any cell runs.
 */
async function withFixedClockAndEntropy(make) {
  const real = { dateNow: Date.now, performanceNow: performance.now, randomFillSync: nodeCrypto.randomFillSync };
  let ticks = 0;
  let state = 0x2545f491;
  Date.now = () => FIXED_EPOCH_MS + ticks++;
  performance.now = () => ticks++;
  nodeCrypto.randomFillSync = (view) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let index = 0; index < bytes.length; index++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[index] = state & 0xff;
    }
    return view;
  };
  try {
    return await make();
  } finally {
    Date.now = real.dateNow;
    performance.now = real.performanceNow;
    nodeCrypto.randomFillSync = real.randomFillSync;
  }
}

/** The interpreter the ops use, with the snapshot's modules imported and sealed before any cell runs; `reply` goes into init's result beside the version. */
function sealed(pyodide, version, reply) {
  // Restored or made into a snapshot, this imports nothing; a plain start imports what they hold, so every page of
  // cells starts from the same interpreter (pyodide-start.mjs, SNAPSHOT_IMPORTS).
  importSnapshotModules(pyodide);
  sealPython(pyodide, () => lockdown(LOCKDOWN_OPTIONS));
  return { kernel: pyodide.pyimport(KERNEL_MODULE), page: null, version, reply, fatal: watchFatalErrors(pyodide) };
}

/**
 * Run a cell. A fatal error of Pyodide (what the sandbox refused, a WebAssembly trap, os._exit) stops Python for good:
 * it becomes the cell's output (the build reports it at the cell), and no later request is answered.
 */
function runCell(interpreter, number, code) {
  const outcome = runWatched(interpreter.fatal, () => interpreter.kernel.run_collected(interpreter.page, number, code));
  if ("value" in outcome) {
    // Converted in JavaScript: importing json here would make the build's interpreter differ from the browser's.
    const converted = outcome.value.toJs({ dict_converter: Object.fromEntries });
    outcome.value.destroy();
    return converted;
  }
  const { reason, refused } = describeFatal(outcome.fatal);
  return { output: [["error", `${reason}\n`]], raised: true, line: null, stopped: true, refused };
}

const handle = createServer({
  start,
  ops: {
    page: (interpreter) => {
      interpreter.page?.destroy();
      interpreter.page = interpreter.kernel.CellPage();
      return success(null);
    },
    run: (interpreter, [number, code]) => success(runCell(interpreter, number, code)),
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
