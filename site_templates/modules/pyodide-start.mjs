// Pyodide's start and the request loop, in one place for the three Python
// runtimes: the lab's worker (static/js/lab-worker.js), the cells' worker
// (static/js/cell-worker.js) and the build's cell runner under Node
// (pysrc/sitegen/cell_runner.mjs). esbuild bundles it into each worker; Node
// imports it as it is. The protocol is described in docs/workers.md.
//
// Nothing here touches the DOM, the worker's global scope or Node's: the
// caller passes what to listen on (serveWorker, or its own loop around
// createServer).

// Pyodide's entry module, in its folder (a URL in the browser, a path under Node).
const PYODIDE_MODULE = "pyodide.mjs";

/**
 * Start Pyodide from `indexURL` (its folder, ending in a slash), unpack the core's zip into site-packages and
 * write `files` ({name: text or bytes}) beside it. `core`, the files' contents and `checks` may be promises.
 */
export async function startPyodide({ indexURL, options = {}, core, files = {}, checks = [] }) {
  const booted = import(`${indexURL}${PYODIDE_MODULE}`).then(({ loadPyodide }) =>
    // indexURL pins every runtime file to the site's own copy; no package is
    // ever loaded by name, which would make Pyodide fall back to its CDN.
    loadPyodide({ indexURL, ...options }),
  );
  const names = Object.keys(files);
  // Everything is fetched while Pyodide boots; any failure fails the start at once.
  const [pyodide, archive, contents] = await Promise.all([booted, core, Promise.all(Object.values(files)), ...checks]);
  // site is imported at start-up anyway; sysconfig would cost another half second.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(archive, "zip", { extractDir: sitePackages });
  names.forEach((name, index) => {
    const content = contents[index];
    pyodide.FS.writeFile(`${sitePackages}/${name}`, typeof content === "string" ? content : new Uint8Array(content));
  });
  // The files arrived after the interpreter started, so the import system's
  // cached listing of site-packages may predate them. Only that entry is
  // dropped: importlib.invalidate_caches() would also import
  // importlib.metadata, a few hundred milliseconds of start-up for nothing.
  pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
  const version = pyodide.runPython("import sys; sys.version.split()[0]");
  return { pyodide, sitePackages, version };
}

/** Start Pyodide in a browser worker from the site's copy at `pyodideUrl`: the core and `files` ({name: URL}) are fetched. */
export function startInBrowser({ pyodideUrl, coreUrl, files = {}, options = {} }) {
  return startPyodide({
    indexURL: pyodideUrl,
    options,
    core: fetchBytes(coreUrl),
    files: Object.fromEntries(Object.entries(files).map(([name, url]) => [name, fetchBytes(url)])),
    checks: [checkWasmType(pyodideUrl)],
  });
}

/** Fetch a runtime file's bytes. fetch resolves on a 404; unpacking an error page would fail later with a far less helpful message. */
export async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  return response.arrayBuffer();
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

/** A response that succeeded. */
export function success(result) {
  return { ok: true, result };
}

/** A failed response: the one error shape, {message, field} (field names the setting at fault, or is null). */
export function failure(message, field = null) {
  return { ok: false, error: { message, field } };
}

/** The reader-facing text of a failure: a PythonError's message is the whole traceback; its last line says what went wrong. */
export function describeFailure(error) {
  const text = String(error?.message ? error.message : error).trim();
  const lines = text.split("\n");
  return lines[lines.length - 1] || "unknown error";
}

/**
 * Return `handle(request, emit)`, answering one request {id, op, args} with
 * {id, ok, result | error}. "init" starts the runtime once (`start(...args)`,
 * resolving to an object with a `version`); every other op is
 * `ops[op](runtime, args, emit)`, resolving to a response. `emit(segment)`
 * sends {id, segment} before the response (a cell's output as it is written).
 * Nothing is thrown: every failure becomes a response.
 *
 * `guard(failStart)` is called once to hook the environment's
 * unhandled-rejection event: when a runtime file fails to download, Pyodide
 * leaves the rejected fetch unhandled and waits forever. failStart(reason)
 * turns that into a failed start and returns true while the start is under
 * way (Pyodide may leave more than one such rejection, so they stay silenced
 * once the start has failed; the page then ends the worker); after a
 * successful start it returns false, and later ones surface as the bugs they
 * would be.
 */
export function createServer({ start, ops, guard, send }) {
  let runtime = null; // Promise of start()'s result, set by the first "init".
  let failStart = null; // Rejects `runtime` until it has started.
  guard((reason) => {
    if (failStart === null) {
      return false;
    }
    failStart(reason);
    return true;
  });

  async function answer(op, args, emit) {
    if (op === "init") {
      if (runtime === null) {
        const failed = new Promise((_, reject) => {
          failStart = reject;
        });
        runtime = Promise.race([start(...args), failed]);
        runtime.then(
          () => {
            failStart = null;
          },
          () => {},
        );
      }
      const { version } = await runtime;
      return success({ version });
    }
    if (runtime === null) {
      return failure(`"${op}" needs "init" first`);
    }
    const handler = Object.hasOwn(ops, op) ? ops[op] : null;
    if (handler === null) {
      return failure(`unknown request "${op}"`);
    }
    return handler(await runtime, args, emit);
  }

  return async (request) => {
    const { id, op, args } = request ?? {};
    let response;
    try {
      response = await answer(op, Array.isArray(args) ? args : [], (segment) => send({ id, segment }));
    } catch (error) {
      response = failure(describeFailure(error));
    }
    send({ id, ...response });
  };
}

/** Serve requests in a module Web Worker (`scope` is its global scope): each message a request, answered as it finishes. */
export function serveWorker(scope, { start, ops }) {
  const handle = createServer({
    start,
    ops,
    send: (message) => scope.postMessage(message),
    guard: (failStart) =>
      scope.addEventListener("unhandledrejection", (event) => {
        if (failStart(event.reason)) {
          event.preventDefault();
        }
      }),
  });
  scope.addEventListener("message", (event) => handle(event.data));
}
