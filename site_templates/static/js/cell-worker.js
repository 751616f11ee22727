// The Python cells' runtime: Pyodide in a module Web Worker of its own, apart
// from the lab's (lab-worker.js), so nothing a reader's cell does, such as
// reassigning a function of rollout_lab, can change what a lab widget shows.
// It loads the same runtime files as the lab (the browser caches them once)
// and the same kernel the build ran the cells with (py/cell_kernel.py).
//
//   request   {id, fn: "init", args: [pyodideDirUrl, coreArchiveUrl, kernelUrl]}  -> {id, ok, result: {version}}
//   request   {id, fn: "run", args: [number, code]}
//   stream    {id, segment: [stream, text]}       as the cell writes (stdout, stderr, result, error)
//   response  {id, ok: true, result: {raised}} | {id, ok: false, error: {message}}
//
// The page ends this worker to stop a cell (a timeout, or Stop): static hosts
// cannot send the headers SharedArrayBuffer interrupts need.

let runtime = null; // Promise of {kernel, page, version}
let failStart = null;

// As in lab-worker.js: a runtime file that fails to download leaves an
// unhandled rejection and a Pyodide that waits forever; fail the start instead.
self.addEventListener("unhandledrejection", (event) => {
  if (failStart !== null) {
    event.preventDefault();
    failStart(event.reason);
  }
});

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  }
  return response.arrayBuffer();
}

async function startRuntime(pyodideDirUrl, coreArchiveUrl, kernelUrl) {
  const booted = import(pyodideDirUrl + "pyodide.mjs").then(({ loadPyodide }) =>
    // The same fixed hash seed as the build's runner (sitegen/cell_runner.mjs).
    loadPyodide({ indexURL: pyodideDirUrl, env: { PYTHONHASHSEED: "0" } }),
  );
  const [pyodide, archive, kernel] = await Promise.all([booted, fetchBytes(coreArchiveUrl), fetchBytes(kernelUrl)]);
  // Exactly as the build's runner: the core into site-packages, the kernel beside it.
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  pyodide.unpackArchive(archive, "zip", { extractDir: sitePackages });
  pyodide.FS.writeFile(`${sitePackages}/cell_kernel.py`, new Uint8Array(kernel));
  pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
  const module = pyodide.pyimport("cell_kernel");
  const page = module.CellPage();
  const version = pyodide.runPython("import sys; sys.version.split()[0]");
  return { module, page, version };
}

function describeFailure(error) {
  const text = String(error && error.message ? error.message : error).trim();
  const lines = text.split("\n");
  return lines[lines.length - 1] || "unknown error";
}

async function answer(id, fn, args) {
  if (fn === "init") {
    if (runtime === null) {
      const failed = new Promise((_, reject) => {
        failStart = reject;
      });
      runtime = Promise.race([startRuntime(...args), failed]);
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
    return { ok: false, error: { message: `"${fn}" needs "init" first` } };
  }
  const { page } = await runtime;
  if (fn === "run") {
    const [number, code] = args;
    const emit = (stream, text) => self.postMessage({ id, segment: [stream, text] });
    const raised = page.run(Number(number), String(code), emit);
    return { ok: true, result: { raised: Boolean(raised) } };
  }
  return { ok: false, error: { message: `unknown function "${fn}"` } };
}

self.addEventListener("message", async (event) => {
  const { id, fn, args } = event.data ?? {};
  let response;
  try {
    response = await answer(id, fn, Array.isArray(args) ? args : []);
  } catch (error) {
    response = { ok: false, error: { message: describeFailure(error) } };
  }
  self.postMessage({ id, ...response });
});
