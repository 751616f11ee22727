// Runs the site's Python cells for the build: Pyodide 314 under Node, from the
// very files the reader's browser loads (node_modules/pyodide, the core's zip,
// cell_kernel.py), so the build's output is what the browser computes.
//
// argv: the pyodide folder. JSON lines on stdin/stdout, one answer line per request:
//   {"op": "init", "kernel": "<cell_kernel.py>", "core": "<base64 zip>"} -> {"ok": true}  (first, once)
//   {"op": "page"}                              -> {"ok": true}   a fresh start for the next page
//   {"op": "run", "number": N, "code": "..."}   -> {"output": [[stream, text], ...], "raised": bool}
// The build (sitegen/cells.py) times every request out and kills this process
// after a runaway cell; nothing here needs to guard against one.
//
// One interpreter serves every page: Pyodide takes seconds to start under
// Node, so a page does not get an interpreter of its own as it does in the
// browser (its own worker). The kernel's CellPage gives each page the start a
// fresh worker has instead (see cell_kernel.py).

import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const pyodideFolder = path.resolve(process.argv[2]);
const loading = import(pathToFileURL(path.join(pyodideFolder, "pyodide.mjs")).href);
let kernelSource = "";
let coreZip = null;

// No request may leave the machine: Pyodide reaches for its CDN when asked for a package by name.
globalThis.fetch = async (input) => {
  const target = String(input?.url ?? input);
  if (target.startsWith("file:")) return (await import("node:fs/promises")).readFile(new URL(target)).then((b) => new Response(b));
  throw new Error(`the cell runner makes no network requests (asked for ${target})`);
};

async function startInterpreter() {
  const { loadPyodide } = await loading;
  const pyodide = await loadPyodide({
    indexURL: pyodideFolder + path.sep,
    env: { PYTHONHASHSEED: "0" },
    stdout: () => {},
    stderr: () => {},
  });
  // Exactly as the worker does: the core's zip into site-packages, the kernel as a module.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(coreZip, "zip", { extractDir: sitePackages });
  pyodide.FS.writeFile(`${sitePackages}/cell_kernel.py`, kernelSource);
  pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
  const kernel = pyodide.pyimport("cell_kernel");
  return { pyodide, kernel, page: null };
}

let interpreter = null;

function answer(request) {
  if (request.op === "init") {
    kernelSource = request.kernel;
    coreZip = new Uint8Array(Buffer.from(request.core, "base64"));
    return startInterpreter().then((started) => {
      interpreter = started;
      return { ok: true };
    });
  }
  if (request.op === "page") {
    interpreter.page?.destroy();
    interpreter.page = interpreter.kernel.CellPage();
    return Promise.resolve({ ok: true });
  }
  if (request.op === "run") {
    const result = interpreter.kernel.run_collected(interpreter.page, request.number, request.code);
    // Converted in JavaScript: importing json here would make the build's interpreter differ from the browser's.
    const converted = result.toJs({ dict_converter: Object.fromEntries });
    result.destroy();
    return Promise.resolve(converted);
  }
  return Promise.resolve({ error: `unknown op ${request.op}` });
}

// Requests are answered strictly in order.
let queue = Promise.resolve();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  queue = queue
    .then(() => answer(request))
    .catch((error) => ({ error: String(error?.message ?? error) }))
    .then((response) => process.stdout.write(JSON.stringify(response) + "\n"));
});
lines.on("close", () => process.exit(0));
