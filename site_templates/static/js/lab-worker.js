// The rollouts lab's Python runtime: Pyodide running the rollout_lab core in
// a module Web Worker, so starting Python (seconds) and sampling never freeze
// the page.
//
// One message shape in each direction:
//   request   {id, fn, args}
//   response  {id, ok: true, result} | {id, ok: false, error: {field, message}}
// Functions:
//   "init"    args [pyodideDirUrl, coreArchiveUrl, stdlibUrl, lockUrl]  absolute URLs; result {version}
//             (the trimmed standard library and lock file, see pysrc/sitegen/lab_stdlib.py)
//   "version" args []                               result: Python version, e.g. "3.14.2"
//   "render"  args [name, settings]                 result: rollout_lab.widgets.render_widget(name, settings)
// A bad setting comes back as error {field, message} with the core's own
// SettingError.field and text; any other failure as error {field: null, message}.
// Nothing is thrown into the console: every failure becomes a response.

// Python's side of the bridge. Results cross as JSON text so no Python
// object is proxied into JavaScript (nothing to destroy, nothing to leak) and
// floats keep their exact value (json writes repr, which JSON.parse reads back
// to the same double).
const BRIDGE_SOURCE = `
import json
import sys

# The archive was unpacked into site-packages after the interpreter started,
# so the import system's cached listing of that folder may predate it. Only
# that finder is refreshed: importlib.invalidate_caches() would also import
# importlib.metadata, a few hundred milliseconds of start-up for nothing.
_finder = sys.path_importer_cache.get(SITE_PACKAGES)
if _finder is not None:
    _finder.invalidate_caches()

from rollout_lab import SettingError
from rollout_lab.widgets import render_widget


def render_as_json(name, settings_json):
    try:
        result = render_widget(name, json.loads(settings_json))
    except SettingError as error:
        return json.dumps({"ok": False, "error": {"field": error.field, "message": str(error)}})
    except Exception as error:
        return json.dumps({"ok": False, "error": {"field": None, "message": f"{type(error).__name__}: {error}"}})
    return json.dumps({"ok": True, "result": result})


PYTHON_VERSION = sys.version.split()[0]
`;

let runtime = null; // Promise of {renderAsJson, version}, set by the first "init".
let failStart = null; // Rejects `runtime` until it has started.

// When a runtime file fails to download, Pyodide leaves the rejected fetch
// unhandled and waits forever. Turn that into a failed start the page can
// report at once, instead of an uncaught error and a wait for the page's
// timeout. Pyodide may leave more than one such rejection, so they stay
// silenced once the start has failed (the page then ends this worker); only
// a successful start lets later ones through as the bugs they would be.
self.addEventListener("unhandledrejection", (event) => {
  if (failStart !== null) {
    event.preventDefault();
    failStart(event.reason);
  }
});

async function fetchArchive(url) {
  const response = await fetch(url);
  // fetch resolves on a 404; unpacking an error page would fail later with a
  // far less helpful message.
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  return response.arrayBuffer();
}

async function checkWasmType(pyodideDirUrl) {
  // Pyodide waits forever (only a console warning) when the server labels
  // its WebAssembly with another type, the commonest hosting mistake. Asking
  // for the headers alone names the problem at once.
  const response = await fetch(pyodideDirUrl + "pyodide.asm.wasm", { method: "HEAD" });
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (response.ok && type !== "application/wasm") {
    throw new Error(`pyodide.asm.wasm is served as "${type}", not "application/wasm"`);
  }
}

async function startRuntime(pyodideDirUrl, coreArchiveUrl, stdlibUrl, lockUrl) {
  // Fetch the core while Pyodide boots; any failure fails the start at once.
  const booted = import(pyodideDirUrl + "pyodide.mjs").then(({ loadPyodide }) =>
    // indexURL pins every runtime file to the site's own copy; no package is
    // ever loaded by name, which would make Pyodide fall back to its CDN.
    // stdLibURL: only the standard library files the lab imports (0.8 of 2.5 MB);
    // lockFileURL: the lock file without the package list the lab never uses.
    loadPyodide({ indexURL: pyodideDirUrl, stdLibURL: stdlibUrl, lockFileURL: lockUrl }),
  );
  const [pyodide, archive] = await Promise.all([
    booted,
    fetchArchive(coreArchiveUrl),
    checkWasmType(pyodideDirUrl),
  ]);

  // site is imported at start-up anyway; sysconfig would cost another half second.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(archive, "zip", { extractDir: sitePackages });

  const namespace = pyodide.globals.get("dict")();
  namespace.set("SITE_PACKAGES", sitePackages);
  pyodide.runPython(BRIDGE_SOURCE, { globals: namespace });
  const renderAsJson = namespace.get("render_as_json");
  const version = namespace.get("PYTHON_VERSION");
  namespace.destroy();
  return { renderAsJson, version };
}

function describeFailure(error) {
  // A PythonError's message is the whole traceback; its last line says what went wrong.
  const text = String(error && error.message ? error.message : error).trim();
  const lines = text.split("\n");
  return lines[lines.length - 1] || "unknown error";
}

async function answer(fn, args) {
  if (fn === "init") {
    if (runtime === null) {
      const [pyodideDirUrl, coreArchiveUrl, stdlibUrl, lockUrl] = args;
      const failed = new Promise((_, reject) => {
        failStart = reject;
      });
      runtime = Promise.race([startRuntime(pyodideDirUrl, coreArchiveUrl, stdlibUrl, lockUrl), failed]);
      runtime.then(
        () => {
          failStart = null;
        },
        () => {},
      );
    }
    const { version } = await runtime;
    return { ok: true, result: { version } };
  }
  if (runtime === null) {
    return { ok: false, error: { field: null, message: `"${fn}" needs "init" first` } };
  }
  const { renderAsJson, version } = await runtime;
  if (fn === "version") {
    return { ok: true, result: version };
  }
  if (fn === "render") {
    const [name, settings] = args;
    return JSON.parse(renderAsJson(String(name), JSON.stringify(settings ?? {})));
  }
  return { ok: false, error: { field: null, message: `unknown function "${fn}"` } };
}

self.addEventListener("message", async (event) => {
  const { id, fn, args } = event.data ?? {};
  let response;
  try {
    response = await answer(fn, Array.isArray(args) ? args : []);
  } catch (error) {
    response = { ok: false, error: { field: null, message: describeFailure(error) } };
  }
  self.postMessage({ id, ...response });
});
