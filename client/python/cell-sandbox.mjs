// What a Python cell can reach of JavaScript: nothing. Shared by the build's
// cell runner under Node (pysrc/sitegen/check/cell_runner.mjs) and the
// cells' worker in the page (client/cell-worker.js), so a cell fails the
// same way in both.
//
// Pyodide hands Python the JavaScript world four ways, each closed here:
// - `import js` is `jsglobals` (globalThis by default: process, require,
//   fetch, eval, importScripts): a cell gets CELL_GLOBALS, an empty object.
// - `import pyodide_js` is Pyodide's whole API (its file system, which mounts
//   the host's under Node, loadPackage from any URL, its Emscripten module,
//   setStdout, Node's sockets): a cell gets an object of its own holding only
//   what Pyodide's asyncio support asks for (makeCellApi).
// - Pyodide's own modules imported `js`, `pyodide_js` and `pyodide_js._api`
//   during the start, so sys.modules and the import system's loaders still
//   hold the real ones: forgotten (FORGET_API); no module, and nothing the
//   garbage collector tracks, is left holding the API.
// - any JavaScript object Python makes (pyodide.ffi.to_js) leads to
//   Function through `.constructor`, and Function runs a string as code with
//   the worker's or Node's globals; so do `eval` and Emscripten's
//   emscripten_run_script (reachable through ctypes). Both are refused.
// The API's socket support (useNodeSockFS: node:net and node:tls under Node)
// is removed besides, and in the page the worker reaches no other origin
// (confineToOrigin). Under Node the runner's process also runs under Node's
// permission model (cell_runner.py: read access to its own files only, no
// child process, no worker) and V8's --disallow-code-generation-from-strings;
// in the page the worker runs under the page's own Content-Security-Policy on
// any host (python-worker.mjs, startUnderPagePolicy). Both freeze every
// intrinsic of the realm once Python has started (LOCKDOWN_OPTIONS), so no
// getter planted on a prototype catches what Pyodide reads through it.

/** Emscripten's EACCES: what Python sees as PermissionError when it asks for a socket. */
const EACCES = 2;

/** The `js` module a cell imports: no globals at all (`js.process`, `js.fetch`, `js.eval` are AttributeErrors). */
export const CELL_GLOBALS = Object.freeze(Object.create(null));

const REFUSAL = "a Python cell cannot run JavaScript code";

/** What the socket support of Pyodide's API (removed) throws. */
function refuseSockets() {
  throw new Error("a Python cell has no sockets");
}

/** Throw what every refused way to JavaScript code throws. */
function refuseCode() {
  throw new EvalError(REFUSAL);
}

/**
 * The `pyodide_js` a cell imports: none of Pyodide's API, only the two values Pyodide's own Python asks it for when
 * a cell uses asyncio (pyodide.webloop: `config.enableRunUntilComplete`, a copy, and `scheduleCallback`).
 */
function makeCellApi(pyodide) {
  const api = pyodide._api;
  const scheduleCallback = (callback, timeout) => api.scheduleCallback(callback, timeout);
  const config = Object.freeze({ enableRunUntilComplete: Boolean(api.config.enableRunUntilComplete) });
  // The outer object stays writable: importing pyodide_js._api sets it as the parent's attribute.
  return Object.assign(Object.create(null), { _api: Object.freeze({ config, scheduleCallback }) });
}

/**
 * What forgets every route from Python to Pyodide's API: each module that is a JavaScript object (`js`,
 * `pyodide_js`, `pyodide_js._api`, imported during the start by Pyodide's own modules, so holding the real ones),
 * and what the import system's loaders keep of them (a loader holds the object it made a module of, and stays
 * reachable through gc.get_objects()); then the one module-level copy of part of the API that a cell does not
 * need. Collected at once, so nothing of them is left for a cell to find.
 */
const FORGET_API = `
import gc, sys, pyodide._package_loader
from _pyodide._importhook import JsLoader
from pyodide.ffi import JsProxy
for name in [name for name, module in sys.modules.items() if isinstance(module, JsProxy)]:
    del sys.modules[name]
for loader in [value for value in gc.get_objects() if isinstance(value, JsLoader)]:
    loader.jsproxy = None
pyodide._package_loader.loadedPackages = None
del gc, sys, JsLoader, JsProxy
import gc
gc.collect()
del gc
`;

/** Parts of Pyodide's API that give Python sockets under Node (node:net, node:tls): removed, whoever asks. */
const SOCKET_SUPPORT = ["_nodeSock", "initializeNodeSockFS"];

/**
 * Close the ways out of `pyodide` (started with `jsglobals: CELL_GLOBALS`) before a cell runs: a `pyodide_js` with
 * none of the API, no module or loader holding the real one, no sockets, every intrinsic of the realm frozen by
 * `freezeIntrinsics` (lockdown with LOCKDOWN_OPTIONS) and no JavaScript code from strings. Call once, right after the
 * start (the memory snapshot, made before, is not changed by it). The Function kinds' constructors, reachable as
 * `.constructor` of any function, are left to what refuses code from strings in the realm already (the build's
 * runner: V8's flag) unless `refuseFunctionConstructors` (the page, where a host may send no policy): then each is
 * replaced by a refusal before the freeze.
 */
export function sealPython(pyodide, freezeIntrinsics, { refuseFunctionConstructors = false } = {}) {
  pyodide.registerJsModule("pyodide_js", makeCellApi(pyodide));
  pyodide.runPython(FORGET_API);
  for (const name of SOCKET_SUPPORT) {
    Object.defineProperty(pyodide._api, name, { value: refuseSockets, writable: false, configurable: false });
  }
  // Configurable, unlike the rest: Pyodide's fatal error redefines every method of its API as one that says Python
  // can no longer be used, and a locked one made that fail half-way ("Cannot redefine property"). Python reaches
  // nothing of that API (FORGET_API), so the lock guarded against nothing a cell can do.
  Object.defineProperty(pyodide, "useNodeSockFS", { value: refuseSockets, writable: false, configurable: true });
  // socket() asks Emscripten's SOCKFS, which under Node connects for real (node:net).
  pyodide._module.SOCKFS.createSocket = () => {
    throw new pyodide.FS.ErrnoError(EACCES);
  };
  if (refuseFunctionConstructors) {
    refuseConstructors();
  }
  freezeIntrinsics();
  // After the freeze: lockdown sets the global object's evaluators itself, and eval, a property of the global
  // object and not an intrinsic, stays replaceable.
  Object.defineProperty(globalThis, "eval", { value: refuseCode, writable: false, configurable: false });
}

/**
 * Replace Function, AsyncFunction, GeneratorFunction and AsyncGeneratorFunction, each the constructor of its
 * prototype, by a refusal with that prototype as its `prototype`, as SES's lockdown replaces them where code from strings runs (it reads
 * the kinds' prototypes through them, and each kind's constructor inherits from Function's): lockdown finding code
 * from strings allowed would otherwise put its own refusal there, in words of its own. globalThis.Function itself
 * stays (Pyodide calls through it); Python cannot reach globalThis.
 */
function refuseConstructors() {
  const refusals = [() => {}, async () => {}, function* () {}, async function* () {}].map((kind) => {
    const prototype = Object.getPrototypeOf(kind);
    const refused = () => {
      refuseCode();
    };
    Object.defineProperty(refused, "prototype", { value: prototype, writable: false, configurable: false });
    Object.defineProperty(prototype, "constructor", { value: refused, writable: false, configurable: false });
    return refused;
  });
  for (const refused of refusals.slice(1)) {
    Object.setPrototypeOf(refused, refusals[0]);
  }
}

/**
 * SES's lockdown() as every cells' runtime calls it (the build's runner and the page's cells' worker), once Python has
 * started (Emscripten adds properties, `sig`, to its functions while it starts): every intrinsic of the realm frozen
 * (each prototype, constructor and the global object's own intrinsics, hardened), so a cell that reaches a
 * JavaScript object cannot plant a getter on Object.prototype to catch what Pyodide or Emscripten reads through it
 * (Pyodide's API as `API.Comlink`, the global object as `window`), and the Function kinds' constructors, reachable
 * as `.constructor` of any function, run no string. Errors keep their stacks and the console its methods ("unsafe"
 * taming): no cell reaches either.
 */
export const LOCKDOWN_OPTIONS = Object.freeze({
  evalTaming: "no-eval",
  errorTaming: "unsafe",
  consoleTaming: "unsafe",
  stackFiltering: "verbose",
  overrideTaming: "moderate",
  reporting: "none",
});

/** Define `name` on `target` as `value` for good: neither writable nor configurable, so nothing can undo it. */
function lock(target, name, value) {
  Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });
}

/**
 * Confine the page's cells' worker (`scope`, its global scope) to its own origin, on any host (where the host
 * sends no Content-Security-Policy, as GitHub Pages, this is the only layer): fetch, XMLHttpRequest,
 * importScripts and the Cache API refuse a URL of another origin, and WebSocket, EventSource and WebTransport
 * refuse everything. Call after Python's start (which swaps fetch while it downloads) and before any cell runs;
 * every replacement is locked, so it cannot be put back.
 */
export function confineToOrigin(scope) {
  const { origin, href } = scope.location;
  const check = (input) => {
    const target = new URL(String(input?.url ?? input), href);
    if (target.origin !== origin) {
      throw new TypeError(`a Python cell's worker reaches no other origin (asked for ${target.origin})`);
    }
  };
  const fetch = scope.fetch;
  lock(scope, "fetch", (input, init) => {
    try {
      check(input);
    } catch (error) {
      return Promise.reject(error);
    }
    return fetch.call(scope, input, init);
  });
  const open = scope.XMLHttpRequest.prototype.open;
  lock(scope.XMLHttpRequest.prototype, "open", function (method, url, ...rest) {
    check(url);
    return open.call(this, method, url, ...rest);
  });
  if (typeof scope.importScripts === "function") {
    const importScripts = scope.importScripts;
    lock(scope, "importScripts", (...urls) => {
      urls.forEach(check);
      return importScripts.apply(scope, urls);
    });
  }
  if (scope.Cache !== undefined) {
    const { add, addAll } = scope.Cache.prototype;
    lock(scope.Cache.prototype, "add", function (request) {
      check(request);
      return add.call(this, request);
    });
    lock(scope.Cache.prototype, "addAll", function (requests) {
      Array.from(requests).forEach(check);
      return addAll.call(this, requests);
    });
  }
  for (const name of ["WebSocket", "EventSource", "WebTransport", "Worker", "SharedWorker"]) {
    if (name in scope) {
      lock(scope, name, function refused() {
        throw new TypeError(`a Python cell's worker opens no ${name}`);
      });
    }
  }
}

/**
 * Take the site's storage away from the page's cells' worker (`scope`, its global scope) once Python has started:
 * `caches` (the offline keep's caches: a copy planted there would be served to every page of the site) and
 * `indexedDB`, locked as undefined. The worker shares the site's origin, so nothing of the platform keeps them from
 * JavaScript run in it; the start hands its downloads to the offline keep before this (runtime-handoff.mjs).
 */
export function withholdStorage(scope) {
  for (const name of ["caches", "indexedDB"]) {
    lock(scope, name, undefined);
  }
}

/**
 * Watch `pyodide` for its fatal errors (what the sandbox refused, a WebAssembly trap such as "memory access out of
 * bounds" or os.abort()'s "unreachable", a stack overflow, os._exit). A fatal error leaves Python unusable for good,
 * but Pyodide throws it only once: where it passes through an outer call into Python it returns nothing instead,
 * so a cell that called JavaScript that called Python that failed seemed to return `undefined` ("Cannot read
 * properties of undefined" in the build). Return the watch, {error}: the first fatal error, or null.
 */
export function watchFatalErrors(pyodide) {
  const watch = { error: null };
  const api = pyodide._api;
  const fatal = api.fatal_error;
  api.fatal_error = (error) => {
    try {
      return fatal(error);
    } catch (thrown) {
      watch.error ??= thrown;
      throw thrown;
    }
  };
  return watch;
}

/**
 * Run a cell, `run()`, under the watch of watchFatalErrors, with the console's errors silenced (Pyodide reports a fatal
 * error there too; the cell says it). Return {value: what run() returned}, or {fatal: the error} when Pyodide failed for
 * good before or while it ran (describeFatal says what): then the value is not to be touched, as an outer call into
 * Python that met the failure returns undefined. The build's runner and the page's cells' worker both run cells so.
 */
export function runWatched(watch, run) {
  const report = console.error;
  console.error = () => {};
  try {
    if (watch.error === null) {
      const value = run();
      if (watch.error === null) {
        return { value };
      }
    }
    return { fatal: watch.error };
  } catch (error) {
    if (!error?.pyodide_fatal_error) {
      throw error;
    }
    return { fatal: watch.error ?? error };
  } finally {
    console.error = report;
  }
}

/**
 * What stopped Python, from its fatal error: {reason, refused}, one line; `refused`: the cell reached for what the
 * sandbox refuses (a child process, JavaScript code), not a failure of Pyodide's own.
 */
export function describeFatal(error) {
  const text = String(error?.message ?? error ?? "").trim();
  // Node 24 adds how to lift the restriction ("Use --allow-child-process to manage permissions."): advice for
  // whoever starts Node, not for the cell's author, whose cell may not have what it asked for.
  const reason = (text.split("\n").at(-1) || "unknown error").replace(/\. Use --allow-[\w-]+ to manage permissions\.$/, "");
  const refused = Boolean(error?.permission) || reason === REFUSAL;
  return { reason: error?.permission ? `${reason} (${error.permission})` : reason, refused };
}
