// What a Python cell can reach of JavaScript: nothing. Shared by the build's
// cell runner under Node (pysrc/sitegen/check/cell_runner.mjs) and the
// cells' worker in the page (static/js/cell-worker.js), so a cell fails the
// same way in both.
//
// Pyodide hands Python the JavaScript world three ways, each closed here:
// - `import js` is `jsglobals` (globalThis by default: process, require,
//   fetch, eval, importScripts): a cell gets CELL_GLOBALS, an empty object.
// - `import pyodide_js` is Pyodide's whole API (its file system, which mounts
//   the host's under Node, loadPackage from any URL, its Emscripten module,
//   Node's sockets): a cell gets an empty one.
// - any JavaScript object Python makes (pyodide.ffi.to_js) leads to
//   Function through `.constructor`, and Function runs a string as code with
//   the worker's or Node's globals; so do `eval` and Emscripten's
//   emscripten_run_script (reachable through ctypes). Both are refused.
// Under Node the runner's process also runs under Node's permission model
// (cells.py: read access to its own files only, no child process, no
// worker) and V8's --disallow-code-generation-from-strings; in the page the
// worker's Content-Security-Policy header does the same where the host
// sends it (host_headers.py). This module is the layer that holds on any host.

/** Emscripten's EACCES: what Python sees as PermissionError when it asks for a socket. */
const EACCES = 2;

/** The `js` module a cell imports: no globals at all (`js.process`, `js.fetch`, `js.eval` are AttributeErrors). */
export const CELL_GLOBALS = Object.freeze(Object.create(null));

const REFUSAL = "a Python cell cannot run JavaScript code";

/** Throw what every refused way to JavaScript code throws. */
function refuseCode() {
  throw new EvalError(REFUSAL);
}

/**
 * Close the ways out of `pyodide` (started with `jsglobals: CELL_GLOBALS`) before a cell runs: an empty
 * pyodide_js, no sockets, no JavaScript code from strings in this realm. Call once, right after the start.
 */
export function sealPython(pyodide) {
  pyodide.registerJsModule("pyodide_js", Object.freeze(Object.create(null)));
  // Imported during the start (pyodide's own modules), so they hold the real ones: forgotten, and
  // the one module-level copy of part of the API that is not needed to run a cell dropped.
  pyodide.runPython(
    "import sys, pyodide._package_loader\n" +
      "sys.modules.pop('pyodide_js', None)\n" +
      "sys.modules.pop('js', None)\n" +
      "pyodide._package_loader.loadedPackages = None",
  );
  // socket() asks Emscripten's SOCKFS, which under Node connects for real (node:net).
  pyodide._module.SOCKFS.createSocket = () => {
    throw new pyodide.FS.ErrnoError(EACCES);
  };
  // Function, AsyncFunction, GeneratorFunction and AsyncGeneratorFunction, each reachable as the
  // constructor of its prototype. globalThis.Function itself stays (Pyodide calls through it); Python
  // cannot reach globalThis.
  for (const kind of [() => {}, async () => {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(kind), "constructor", { value: refuseCode, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, "eval", { value: refuseCode, writable: false, configurable: false });
}
