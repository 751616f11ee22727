// The rollouts lab's Python runtime: Pyodide running the rollout_lab core in
// a module Web Worker, so starting Python (seconds) and sampling never freeze
// the page. The start and the request loop are the shared ones
// (client/python/pyodide-start.mjs); requests and responses are described in
// docs/workers.md:
//   "init"    args [urls, fromPage]   the page's runtime URLs by name, absolute: {pyodide, core, stdlib, lock,
//             wasm, snapshot} (RuntimeUrls in pysrc/sitegen/context.py; snapshot "" for none), and
//             a MessagePort on which the page sends what it fetched: the snapshot's copy, then Pyodide's
//             WebAssembly as it compiled it (client/python/pyodide-start.mjs's startInBrowser), or null;
//             progress {received, total} while it downloads, then result {version}
//             (the standard library's directory of parts, pysrc/sitegen/assets/stdlib_parts.py,
//             and the lock file without its package list, lab_stdlib.py)
//   "version" args []                  result: Python version, e.g. "3.14.2"
//   "render"  args [name, settings, view]  result: rollout_lab.widgets.render_widget(name, settings, view)
// A bad setting comes back as error {message, field} with the core's own
// SettingError text and field; any other failure with field null.

import { startInBrowser } from "./python/pyodide-start.mjs";
import { serveWorker, success } from "./python/worker-protocol.mjs";

// Python's side of the bridge. Results cross as JSON text so no Python
// object is proxied into JavaScript (nothing to destroy, nothing to leak) and
// floats keep their exact value (json writes repr, which JSON.parse reads back
// to the same double).
const BRIDGE_SOURCE = `
import json

from rollout_lab import SettingError
from rollout_lab.widgets import render_widget


def render_as_json(name, settings_json, view_json="{}"):
    try:
        result = render_widget(name, json.loads(settings_json), json.loads(view_json))
    except SettingError as error:
        return json.dumps({"ok": False, "error": {"message": str(error), "field": error.field}})
    except Exception as error:
        return json.dumps({"ok": False, "error": {"message": f"{type(error).__name__}: {error}", "field": None}})
    return json.dumps({"ok": True, "result": result})
`;

async function start([urls, fromPage = null, handOver = false], report) {
  // urls.stdlib: the standard library's directory; a part is fetched when Python
  // first imports from it (a plain start fetches the one with what it imports).
  // urls.lock: the lock file without the package list the lab never uses.
  const { pyodide, version } = await startInBrowser({
    runtime: urls,
    // The snapshot and Pyodide's compiled WebAssembly from the page (python-worker.mjs), or null: fetched here.
    fromPage,
    // Whether to hand what is fetched to the offline keep (client/python/runtime-handoff.mjs).
    handOver,
    progress: (received, total) => report({ received, total }),
  });
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(BRIDGE_SOURCE, { globals: namespace });
  const renderAsJson = namespace.get("render_as_json");
  namespace.destroy();
  return { renderAsJson, version };
}

serveWorker(self, {
  start,
  ops: {
    version: ({ version }) => success(version),
    render: ({ renderAsJson }, [name, settings, view]) =>
      JSON.parse(renderAsJson(String(name), JSON.stringify(settings ?? {}), JSON.stringify(view ?? {}))),
  },
});
