// The Python cells' runtime: Pyodide in a module Web Worker of its own, apart
// from the lab's (lab-worker.js), so nothing a reader's cell does, such as
// reassigning a function of rollout_lab, can change what a lab widget shows.
// It loads the same runtime files as the lab, and the same snapshot, from the
// same URLs (the browser's HTTP cache serves the second worker; Pyodide's
// WebAssembly is compiled once by the page and posted to both),
// and the same kernel the build ran the cells with (py/cell_kernel.py), and
// starts as the build's runner does (client/python/pyodide-start.mjs). Requests and
// responses are described in docs/workers.md:
//   "init"  args [urls, fromPage]   the page's runtime URLs by name (as the lab's worker's) and the kernel's:
//                         {pyodide, core, stdlib, lock, wasm, snapshot, kernel}, and a MessagePort on which the page
//                         sends the snapshot's copy and its compiled WebAssembly (or null); progress, then result {version}
//   "run"   args [number, code]                     segments [stream, text] as the cell writes, then result {raised};
//                         after a fatal error of Pyodide, {ok: false, error, stopped: message} (the page ends this worker)
//
// The page ends this worker to stop a cell (a timeout, or Stop): static hosts
// cannot send the headers SharedArrayBuffer interrupts need.
//
// A reader's cell reaches no JavaScript from here: Python sees no globals, no
// Pyodide API and no way to run a string as code, and every intrinsic is frozen
// (SES's lockdown) before any cell runs (client/python/cell-sandbox.mjs); this
// worker reaches no other origin once Python has started (confineToOrigin). On
// any host it also runs under the page's own Content-Security-Policy, as the
// page starts it from a blob: URL (python-worker.mjs, startUnderPagePolicy).

import "ses";
import { KERNEL_MODULE } from "./python/cell-kernel.mjs";
import {
  CELL_GLOBALS,
  confineToOrigin,
  describeFatal,
  LOCKDOWN_OPTIONS,
  runWatched,
  sealPython,
  watchFatalErrors,
  withholdStorage,
} from "./python/cell-sandbox.mjs";
import { importSnapshotModules, SNAPSHOT_ENV, startInBrowser } from "./python/pyodide-start.mjs";
import { failure, serveWorker, success } from "./python/worker-protocol.mjs";

async function start([urls, fromPage = null, handOver = false], report) {
  const { pyodide, version } = await startInBrowser({
    // The lab's runtime, lock file among them (no package list: nothing is loaded by name), so both workers
    // fetch the same files.
    runtime: urls,
    // The snapshot and the wasm fetched once in the page for both workers (python-worker.mjs), or null: fetched here.
    fromPage,
    // Whether to hand what is fetched to the offline keep (client/python/runtime-handoff.mjs).
    handOver,
    files: { [`${KERNEL_MODULE}.py`]: urls.kernel },
    // No JavaScript globals for the reader's Python: not fetch, not eval, not importScripts (cell-sandbox.mjs).
    // The snapshot's environment for a plain start too, so os.environ is the build's either way. Python's own
    // standard error (file descriptor 2, and Pyodide's "Aborted()" as a cell stops it) is a warning on the console,
    // not an error: the reader is told in the cell (runCell).
    options: { env: SNAPSHOT_ENV, jsglobals: CELL_GLOBALS, stderr: (text) => console.warn(text) },
    progress: (received, total) => report({ received, total }),
  });
  // A plain start (the snapshot could not be used) imports what a restored one holds: the same interpreter either way.
  importSnapshotModules(pyodide);
  confineToOrigin(self);
  withholdStorage(self);
  // Nothing refuses code from strings in this worker where the host sends no policy: sealPython refuses it.
  sealPython(pyodide, () => lockdown(LOCKDOWN_OPTIONS), { refuseFunctionConstructors: true });
  const page = pyodide.pyimport(KERNEL_MODULE).CellPage();
  return { page, version, fatal: watchFatalErrors(pyodide) };
}

/**
 * Run a cell. A fatal error of Pyodide (a WebAssembly trap such as os.abort()'s, a stack overflow, os._exit, what
 * the sandbox refused) leaves Python unusable: the answer says so with `stopped`, and the page ends this worker (cells.js) as the build's runner is ended.
 */
function runCell({ page, fatal }, number, code, emit) {
  const outcome = runWatched(fatal, () => page.run(number, code, (stream, text) => emit([stream, text])));
  if ("value" in outcome) {
    return success({ raised: Boolean(outcome.value) });
  }
  const message = `Python stopped for good: ${describeFatal(outcome.fatal).reason}. Python was restarted; the next run starts afresh.`;
  return { ...failure(message), stopped: message };
}

serveWorker(self, {
  start,
  ops: {
    run: (runtime, [number, code], emit) => runCell(runtime, Number(number), String(code), emit),
  },
});
